/* exchange.c — what one MPI exchange costs: N ping-pongs of an 8-byte message between ranks 0
 * and 1 (MPI_Send/MPI_Recv), N MPI_Barrier and N MPI_Allreduce (one int) over all ranks.
 * Prints the mean wall time per round trip and per collective (MPI_Wtime, rank 0).
 * bench/critpath/run.py runs it with and without INSTR_CRITICAL_PATH=1. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 20000;
    int rank, size, v = 0, w = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (int i = 0; i < n; i++) {
        if (rank == 0) {
            MPI_Send(&v, 1, MPI_INT, 1, 1, MPI_COMM_WORLD);
            MPI_Recv(&v, 1, MPI_INT, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else if (rank == 1) {
            MPI_Recv(&v, 1, MPI_INT, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(&v, 1, MPI_INT, 0, 1, MPI_COMM_WORLD);
        }
    }
    double t1 = MPI_Wtime();
    for (int i = 0; i < n; i++)
        MPI_Barrier(MPI_COMM_WORLD);
    double t2 = MPI_Wtime();
    for (int i = 0; i < n; i++)
        MPI_Allreduce(&v, &w, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    double t3 = MPI_Wtime();
    if (rank == 0)
        printf("pingpong_us %.3f barrier_us %.3f allreduce_us %.3f\n", 1e6 * (t1 - t0) / n,
               1e6 * (t2 - t1) / n, 1e6 * (t3 - t2) / n);
    MPI_Finalize();
    return 0;
}
