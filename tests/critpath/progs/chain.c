/* chain.c — a message chain through the ranks: rank 0 runs stage_work and sends to rank 1;
 * every other rank first runs local_work on its own, then receives from its predecessor,
 * runs stage_work and sends on. Rank 2's local_work (8 units) is longer than ranks 0 and 1 take
 * together (2 units), so the critical path of useful computation runs through it:
 * rank 2's local_work, then stage_work on rank 2 and after it. The receives use each kind
 * the piggyback must follow: MPI_ANY_SOURCE/MPI_ANY_TAG (rank 1), MPI_Irecv + MPI_Wait
 * (rank 2), MPI_Mprobe + MPI_Mrecv on a duplicated communicator (rank 3 and later); sends:
 * MPI_Send, MPI_Isend + MPI_Wait, MPI_Ssend. Each rank prints its phases:
 * "phase <rank> <local s> <stage s>". With "recv" as the second argument, rank 3 and later
 * receive with a plain MPI_Recv instead (the trace records no matched receives). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cpu_work.h"

__attribute__((noinline)) void stage_work(unsigned long n) { SPIN(n); }
__attribute__((noinline)) void local_work(unsigned long n) { SPIN(n); }

int main(int argc, char **argv)
{
    unsigned long n = argc > 1 ? strtoul(argv[1], NULL, 10) : 20000000ul;
    int plain_recv = argc > 2 && strcmp(argv[2], "recv") == 0;
    int rank, size, token = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm dup;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    double local = 0, stage = 0, t;
    if (rank > 0) {
        t = now();
        local_work(rank == 2 ? 8 * n : n / 4);
        local = now() - t;
        if (rank == 1) {
            MPI_Status st;
            MPI_Recv(&token, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
        } else if (rank == 2) {
            MPI_Request r;
            MPI_Irecv(&token, 1, MPI_INT, 1, 11, MPI_COMM_WORLD, &r);
            MPI_Wait(&r, MPI_STATUS_IGNORE);
        } else if (plain_recv) {
            MPI_Recv(&token, 1, MPI_INT, rank - 1, 12, dup, MPI_STATUS_IGNORE);
        } else {
            MPI_Message m;
            MPI_Status st;
            MPI_Mprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, dup, &m, &st);
            MPI_Mrecv(&token, 1, MPI_INT, &m, MPI_STATUS_IGNORE);
        }
    }
    t = now();
    stage_work(n);
    stage = now() - t;
    token++;
    if (rank == 0) {
        MPI_Send(&token, 1, MPI_INT, 1, 10, MPI_COMM_WORLD);
    } else if (rank == 1) {
        MPI_Request r;
        MPI_Isend(&token, 1, MPI_INT, 2, 11, MPI_COMM_WORLD, &r);
        MPI_Wait(&r, MPI_STATUS_IGNORE);
    } else if (rank + 1 < size) {
        MPI_Ssend(&token, 1, MPI_INT, rank + 1, 12, dup);
    }
    MPI_Comm_free(&dup);
    MPI_Finalize();
    /* After MPI_Finalize, where the path ends: writing to a pipe is not part of it. */
    printf("phase %d %.9f %.9f token %d\n", rank, local, stage, token);
    return 0;
}
