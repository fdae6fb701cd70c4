/* killed.c — the last rank is killed (SIGKILL, as by the OOM killer or a node's scheduler)
 * after a message exchange, once the other ranks are at their end (MPI_Finalize, returned
 * from main); with KILLED_EXIT=1 in its environment it _exit()s there without MPI_Finalize
 * instead. The launcher then ends the other ranks (Open MPI: SIGTERM, SIGKILL a moment later). */
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static void work(int rank, int size)
{
    int x = rank, sum = 0;
    MPI_Allreduce(&x, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("sum %d over %d ranks\n", sum, size);
    fflush(stdout);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    work(rank, size);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == size - 1) {
        sleep(3); /* the others are at their end by then */
        const char *e = getenv("KILLED_EXIT");
        if (e && *e == '1')
            _exit(3);
        raise(SIGKILL);
    }
    MPI_Finalize();
    return 0;
}
