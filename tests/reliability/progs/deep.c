/* deep.c — recursion N deep (argv[1], default 20000), each level a new call path; prints a
 * line before and after so that lost output shows. */
#include <stdio.h>
#include <stdlib.h>

static volatile unsigned long sink;

__attribute__((noinline)) unsigned long down(int n)
{
    sink += (unsigned long)n;
    if (n == 0)
        return 0;
    return down(n - 1) + 1;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 20000;
    printf("depth %d\n", n);
    unsigned long r = down(n);
    printf("returned %lu\n", r);
    return 0;
}
