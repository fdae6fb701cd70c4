/* mpi_threads.c — 4 ranks (any number), 2 threads each: the main thread exchanges messages
 * with its ring neighbours (blocking and non-blocking), a second thread computes. The report
 * test counts what it must find in the exported trace:
 *   per rank: ITERS MPI_Send + ITERS MPI_Isend, matched by ITERS MPI_Recv + ITERS MPI_Irecv;
 *   helper runs ITERS times on the second thread. */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>

#define ITERS 20
#define NOINLINE __attribute__((noinline))

static volatile unsigned long sink;

NOINLINE void helper(void)
{
    for (unsigned long i = 0; i < 20000; i++)
        sink += i;
}

NOINLINE void *computer(void *arg)
{
    (void)arg;
    for (int i = 0; i < ITERS; i++)
        helper();
    return NULL;
}

NOINLINE void exchange(int rank, int size, int it)
{
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    double out[8] = {rank, it}, in[8], in2[8];
    MPI_Request req[2];
    MPI_Irecv(in2, 8, MPI_DOUBLE, left, 2, MPI_COMM_WORLD, &req[0]);
    MPI_Isend(out, 8, MPI_DOUBLE, right, 2, MPI_COMM_WORLD, &req[1]);
    MPI_Waitall(2, req, MPI_STATUSES_IGNORE);
    if (rank % 2 == 0) {
        MPI_Send(out, 8, MPI_DOUBLE, right, 1, MPI_COMM_WORLD);
        MPI_Recv(in, 8, MPI_DOUBLE, left, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
        MPI_Recv(in, 8, MPI_DOUBLE, left, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Send(out, 8, MPI_DOUBLE, right, 1, MPI_COMM_WORLD);
    }
}

int main(int argc, char **argv)
{
    int provided, rank, size;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    pthread_t t;
    pthread_create(&t, NULL, computer, NULL);
    for (int it = 0; it < ITERS; it++)
        exchange(rank, size, it);
    pthread_join(t, NULL);
    MPI_Finalize();
    if (rank == 0)
        printf("mpi_threads: %d ranks done\n", size);
    return 0;
}
