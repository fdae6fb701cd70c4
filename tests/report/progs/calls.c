/* calls.c — N calls of a tiny function (N from the command line): a trace whose size the
 * report test chooses, for the exporter's memory on traces of different lengths. */
#include <stdio.h>
#include <stdlib.h>

#define NOINLINE __attribute__((noinline))

static volatile unsigned long sink;

NOINLINE void leaf(unsigned long i) { sink += i; }

int main(int argc, char **argv)
{
    unsigned long n = argc > 1 ? strtoul(argv[1], NULL, 10) : 1000;
    for (unsigned long i = 0; i < n; i++)
        leaf(i);
    printf("calls: %lu\n", n);
    return 0;
}
