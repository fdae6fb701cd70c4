/* A small MPI program for the instr-mpicc recipe: each rank passes a token around the ring
 * ROUNDS times, then the ranks sum their ids. Rank 0 prints a result that does not depend on
 * instrumentation or the number of ranks' timing. */
#include <mpi.h>
#include <stdio.h>

#define ROUNDS 3

__attribute__((noinline)) static int pass_token(int rank, int size, int token)
{
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    if (rank == 0) {
        MPI_Send(&token, 1, MPI_INT, next, 0, MPI_COMM_WORLD);
        MPI_Recv(&token, 1, MPI_INT, prev, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
        MPI_Recv(&token, 1, MPI_INT, prev, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        token++;
        MPI_Send(&token, 1, MPI_INT, next, 0, MPI_COMM_WORLD);
    }
    return token;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size, token = 0, sum = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int r = 0; r < ROUNDS; r++)
        token = pass_token(rank, size, token);
    MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("ring token %d sum %d\n", token, sum);
    MPI_Finalize();
    return 0;
}
