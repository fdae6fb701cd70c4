/* halo.c — 1-D halo exchange on a ring of ranks: ITER iterations alternate a nonblocking
 * exchange (MPI_Irecv/MPI_Isend/MPI_Waitall) and a blocking one (two MPI_Sendrecv), each
 * followed by MPI_Allreduce of the residual; at the end ranks 1.. send their checksum to
 * rank 0 (MPI_Send/MPI_Recv), which prints everything. tests/mpi/check_mpi.py knows the
 * exact number of calls and bytes this makes. */
#include <mpi.h>
#include <stdio.h>

#define N 100   /* interior points per rank */
#define HALO 16 /* doubles per halo message */
#define ITER 10

static double u[N + 2 * HALO], v[N + 2 * HALO];

__attribute__((noinline)) static void compute(void)
{
    for (int i = HALO; i < N + HALO; i++)
        v[i] = 0.25 * (u[i - 1] + 2.0 * u[i] + u[i + 1]);
    for (int i = HALO; i < N + HALO; i++)
        u[i] = v[i];
}

__attribute__((noinline)) static void exchange_nonblocking(int left, int right)
{
    MPI_Request rq[4];
    MPI_Irecv(u, HALO, MPI_DOUBLE, left, 1, MPI_COMM_WORLD, &rq[0]);
    MPI_Irecv(u + N + HALO, HALO, MPI_DOUBLE, right, 2, MPI_COMM_WORLD, &rq[1]);
    MPI_Isend(u + N, HALO, MPI_DOUBLE, right, 1, MPI_COMM_WORLD, &rq[2]);
    MPI_Isend(u + HALO, HALO, MPI_DOUBLE, left, 2, MPI_COMM_WORLD, &rq[3]);
    MPI_Waitall(4, rq, MPI_STATUSES_IGNORE);
}

__attribute__((noinline)) static void exchange_blocking(int left, int right)
{
    MPI_Sendrecv(u + N, HALO, MPI_DOUBLE, right, 3, u, HALO, MPI_DOUBLE, left, 3,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Sendrecv(u + HALO, HALO, MPI_DOUBLE, left, 4, u + N + HALO, HALO, MPI_DOUBLE, right, 4,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}

__attribute__((noinline)) static double residual(void)
{
    double local = 0, global = 0;
    for (int i = HALO; i < N + HALO; i++)
        local += u[i];
    MPI_Allreduce(&local, &global, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    return global;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int left = (rank + size - 1) % size, right = (rank + 1) % size;
    for (int i = 0; i < N + 2 * HALO; i++)
        u[i] = rank * 1000 + i;
    double res = 0;
    for (int it = 0; it < ITER; it++) {
        if (it % 2 == 0)
            exchange_nonblocking(left, right);
        else
            exchange_blocking(left, right);
        compute();
        res = residual();
    }
    double sum = 0;
    for (int i = 0; i < N + 2 * HALO; i++)
        sum += u[i];
    if (rank == 0) {
        printf("ranks %d residual %.6f\n", size, res);
        printf("rank 0 checksum %.6f\n", sum);
        for (int r = 1; r < size; r++) {
            double s;
            MPI_Recv(&s, 1, MPI_DOUBLE, r, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            printf("rank %d checksum %.6f\n", r, s);
        }
    } else {
        MPI_Send(&sum, 1, MPI_DOUBLE, 0, 9, MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return 0;
}
