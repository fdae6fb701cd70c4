/* abort.c — rank 1 calls MPI_Abort after a message exchange; the other ranks are waiting in
 * a barrier. The launcher ends the job with the abort's error code. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, x = 42;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0)
        MPI_Send(&x, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
    else if (rank == 1)
        MPI_Recv(&x, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    if (rank == 1) {
        printf("rank 1 aborts\n");
        fflush(stdout);
        MPI_Abort(MPI_COMM_WORLD, 5);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
