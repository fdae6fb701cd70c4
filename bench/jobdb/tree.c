/* tree.c — an MPI program with many call paths for bench/jobdb/run.py: eight functions that
 * call each other along the base-8 digits of a code (f_d(depth, code) calls
 * f_{code % 8}(depth - 1, code / 8)), so that every code gives its own call path up to DEPTH
 * deep. Rank r walks the codes [r * STRIDE, r * STRIDE + CODES): neighbouring ranks share
 * part of their call tree, distant ones do not. Argument: CODES (default 1000). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define DEPTH 5
#define STRIDE 300

static volatile unsigned long sink;
typedef void (*fn)(int depth, unsigned code);
static fn table[8];

#define F(i)                                                                                  \
    __attribute__((noinline)) static void f##i(int depth, unsigned code)                      \
    {                                                                                         \
        sink += code + i;                                                                     \
        if (depth > 0)                                                                        \
            table[code % 8](depth - 1, code / 8);                                             \
    }
F(0) F(1) F(2) F(3) F(4) F(5) F(6) F(7)

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    fn t[8] = {f0, f1, f2, f3, f4, f5, f6, f7};
    for (int i = 0; i < 8; i++)
        table[i] = t[i];
    unsigned codes = argc > 1 ? (unsigned)atoi(argv[1]) : 1000;
    for (unsigned c = 0; c < codes; c++) {
        unsigned code = (unsigned)rank * STRIDE + c;
        table[code % 8](DEPTH, code / 8);
    }
    unsigned long mine = sink, all = 0;
    MPI_Reduce(&mine, &all, 1, MPI_UNSIGNED_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("ranks %d sum %lu\n", size, all);
    MPI_Finalize();
    return 0;
}
