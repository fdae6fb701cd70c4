/* mpi_calls: on every rank main calls a() 3 times (each a() calls b() twice) and c() rank+1
 * times; then one message to the right neighbour with MPI_Sendrecv (tag 5, 4 bytes), one with
 * MPI_Isend/MPI_Irecv/MPI_Waitall (tag 6, 8 bytes), an MPI_Allreduce and an MPI_Barrier. With 4 ranks the job's enter counts are exact: main 4,
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
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    int out1 = rank, in1 = -1, out2[2] = {rank, rank}, in2[2] = {-1, -1};
    MPI_Sendrecv(&out1, 1, MPI_INT, right, 5, &in1, 1, MPI_INT, left, 5, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    MPI_Request req[2];
    MPI_Irecv(in2, 2, MPI_INT, left, 6, MPI_COMM_WORLD, &req[0]);
    MPI_Isend(out2, 2, MPI_INT, right, 6, MPI_COMM_WORLD, &req[1]);
    MPI_Waitall(2, req, MPI_STATUSES_IGNORE);
    if (in1 != left || in2[0] != left)
        fprintf(stderr, "mpi_calls: wrong message\n");
    int mine = sink, sum = 0;
    MPI_Allreduce(&mine, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("sum=%d\n", sum);
    MPI_Finalize();
    return 0;
}
