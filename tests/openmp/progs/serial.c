/* A program that is not OpenMP at all: the adapter must stay silent and change nothing. */
#include <stdio.h>

__attribute__((noinline)) int leaf(int i) { return i % 7; }

int main(void)
{
    int s = 0;
    for (int i = 0; i < 10; i++)
        s += leaf(i);
    printf("%d\n", s);
    return 0;
}
