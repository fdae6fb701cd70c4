/* mixed.c — the other exchanges the critical path must follow, each once, with a slow rank
 * whose work decides the path:
 *   phase A   every rank runs own_work (1 unit), rank 1 slow_work (3 units) instead
 *   ring      MPI_Sendrecv to rank+1 from rank-1 (MPI_COMM_WORLD)
 *   phase B   every rank runs own_work (1 unit), rank 2 (2 units): after the ring, rank 2
 *             carries rank 1's slow phase A, so the path runs through rank 2's phase B
 *   persistent  rank size-1 sends to rank 0 with MPI_Send_init/MPI_Start/MPI_Wait, rank 0
 *             receives with MPI_Recv_init/MPI_Start/MPI_Wait (twice: a request restarted)
 *   split     MPI_Allreduce over the even and the odd ranks (MPI_Comm_split), then
 *             MPI_Bcast from the communicator's rank 0
 * Each rank prints "phase <rank> <A s> <B s>" (CPU time, CLOCK_THREAD_CPUTIME_ID);
 * check_critpath.py follows the same dependencies to get the expected path. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "cpu_work.h"

__attribute__((noinline)) void own_work(unsigned long n) { SPIN(n); }
__attribute__((noinline)) void slow_work(unsigned long n) { SPIN(n); }

int main(int argc, char **argv)
{
    unsigned long n = argc > 1 ? strtoul(argv[1], NULL, 10) : 20000000ul;
    int rank, size, v = 1, w = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    double t = now();
    if (rank == 1)
        slow_work(3 * n);
    else
        own_work(n);
    double a = now() - t;
    MPI_Sendrecv(&v, 1, MPI_INT, (rank + 1) % size, 3, &w, 1, MPI_INT, (rank + size - 1) % size,
                 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    t = now();
    own_work(rank == 2 ? 2 * n : n);
    double b = now() - t;
    MPI_Request r = MPI_REQUEST_NULL;
    if (rank == size - 1)
        MPI_Send_init(&v, 1, MPI_INT, 0, 4, MPI_COMM_WORLD, &r);
    else if (rank == 0)
        MPI_Recv_init(&w, 1, MPI_INT, size - 1, 4, MPI_COMM_WORLD, &r);
    for (int k = 0; k < 2 && r != MPI_REQUEST_NULL; k++) {
        MPI_Start(&r);
        MPI_Wait(&r, MPI_STATUS_IGNORE);
    }
    if (r != MPI_REQUEST_NULL)
        MPI_Request_free(&r);
    MPI_Comm half;
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
    MPI_Allreduce(&v, &w, 1, MPI_INT, MPI_SUM, half);
    MPI_Bcast(&w, 1, MPI_INT, 0, half);
    MPI_Comm_free(&half);
    MPI_Finalize();
    /* After MPI_Finalize, where the path ends: writing to a pipe is not part of it. */
    printf("phase %d %.9f %.9f sum %d\n", rank, a, b, w);
    return 0;
}
