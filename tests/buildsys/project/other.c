/* A second program, for instr_instrument(): only one of the two targets is instrumented. */
#include <stdio.h>

static int other_work(int n)
{
    return n * 3;
}

int main(void)
{
    printf("other %d\n", other_work(14));
    return 0;
}
