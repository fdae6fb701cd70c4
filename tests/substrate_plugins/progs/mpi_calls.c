/* mpi_calls: on every rank main calls a() 3 times (each a() calls b() twice) and c() rank+1
 * times, around one MPI_Allreduce. With 4 ranks the job's enter counts are exact: main 4,
 * a 12, b 24, c 10. */
#include <mpi.h>
#include <stdio.h>

static volatile int sink;

__attribute__((noinline)) static void b(void) { sink++; }

__attribute__((noinline)) static void a(void)
{
    b();
    b();
}

__attribute__((noinline)) static void c(void) { sink += 2; }

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int i = 0; i < 3; i++)
        a();
    for (int i = 0; i <= rank; i++)
        c();
    int mine = sink, sum = 0;
    MPI_Allreduce(&mine, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("sum=%d\n", sum);
    MPI_Finalize();
    return 0;
}
