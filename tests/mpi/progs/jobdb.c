/* jobdb.c — ranks with different call trees and threads, for the job database
 * (tests/mpi/check_jobdb.py): every rank runs common(); rank r also runs
 * only_even() when r is even, only_third() -> deeper() when r % 3 == 0, and recurse(r % 4);
 * it starts 1 + r % 3 threads, thread t of which runs worker() -> leaf_t (t % 2 picks which).
 * Rank 0 gathers a checksum (MPI_Reduce) and prints it. */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>

static volatile double sink;

__attribute__((noinline)) static void spin(int n)
{
    double x = 0;
    for (int i = 0; i < n; i++)
        x += i * 0.5;
    sink += x;
}

__attribute__((noinline)) static void common(void) { spin(1000); }
__attribute__((noinline)) static void only_even(void) { spin(2000); }
__attribute__((noinline)) static void deeper(void) { spin(500); }
__attribute__((noinline)) static void only_third(void) { deeper(); deeper(); }
__attribute__((noinline)) static void recurse(int n)
{
    if (n > 0)
        recurse(n - 1);
    spin(100);
}
__attribute__((noinline)) static void leaf_a(void) { spin(300); }
__attribute__((noinline)) static void leaf_b(void) { spin(700); }

static void *worker(void *arg)
{
    long t = (long)arg;
    for (int i = 0; i < 3; i++) {
        if (t % 2)
            leaf_b();
        else
            leaf_a();
    }
    return NULL;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int i = 0; i < 2; i++)
        common();
    if (rank % 2 == 0)
        only_even();
    if (rank % 3 == 0)
        only_third();
    recurse(rank % 4);
    pthread_t th[3];
    int nth = 1 + rank % 3;
    for (long t = 0; t < nth; t++)
        pthread_create(&th[t], NULL, worker, (void *)t);
    for (int t = 0; t < nth; t++)
        pthread_join(th[t], NULL);
    double mine = rank + 1, total = 0;
    MPI_Reduce(&mine, &total, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("ranks %d total %.1f\n", size, total);
    MPI_Finalize();
    return 0;
}
