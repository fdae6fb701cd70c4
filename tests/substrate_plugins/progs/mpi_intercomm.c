/* mpi_intercomm: inter-communicators for substrate plugin interface version 3 and the trace
 * (check_substrate.py, case mpi_intercomm, 4 ranks). On every rank (h = rank % 2, the half;
 * l = rank / 2, the rank in it):
 *   - MPI_Comm_split of the world by h (key = rank): communicator 2, the half;
 *   - MPI_Intercomm_create of the two halves (local leader 0, the other half's leader by its
 *     world rank, tag 5): communicator 3;
 *   - on it: MPI_Sendrecv of 2 ints with the remote rank l (tag 3); MPI_Irecv and MPI_Isend of
 *     1 int with the remote rank l (tag 4), completed by MPI_Waitall; MPI_Send of 1 int to
 *     the remote rank l (tag 6) received by MPI_Mprobe and MPI_Mrecv, and one (tag 7) by
 *     MPI_Improbe (until it matched) and MPI_Imrecv, completed by MPI_Wait; MPI_Barrier; MPI_Bcast
 *     of 2 ints from half 0's rank 0 (MPI_ROOT there, MPI_PROC_NULL at half 0's other rank,
 *     root 0 in half 1); with the same roots MPI_Gather, MPI_Scatter and MPI_Reduce of 1
 *     int per rank; MPI_Allreduce, MPI_Allgather and MPI_Alltoall of 1 int per rank of the
 *     other half;
 *   - MPI_Comm_dup, MPI_Comm_split (one color) and MPI_Comm_create (the local group) of the
 *     inter-communicator, MPI_Comm_idup of it completed by MPI_Wait: communicators 4 to 7,
 *     one MPI_Barrier on each;
 *   - MPI_Comm_idup of it whose request the program tries to free with MPI_Request_free (with
 *     MPI_ERRORS_RETURN: MPI forbids it, Open MPI refuses it) and then completes by MPI_Wait:
 *     communicator 8, one MPI_Barrier on it;
 *   - MPI_Intercomm_merge (high = h: half 0 first): communicator 9, an intra-communicator of
 *     4 ranks (world ranks 0, 2, 1, 3), one MPI_Allreduce of 1 int on it;
 *   - MPI_Comm_split of the world into world rank 0 and ranks 1 to 3 (communicator 10),
 *     MPI_Intercomm_create of the two (tag 8; communicator 11, groups of 1 and 3 ranks),
 *     MPI_Allreduce, MPI_Allgather and MPI_Alltoall of 1 int per rank of the other group on
 *     it; its v and w collectives, with counts by the rank in group B (b = world rank - 1,
 *     its b + 1 ints; world rank 0 alone in group A is the root, MPI_ROOT, of the rooted
 *     ones): MPI_Gatherv (b + 1 ints from each), MPI_Scatterv (b + 1 ints to each),
 *     MPI_Allgatherv (1 int from world rank 0, b + 1 from each of B), MPI_Alltoallv (b + 1
 *     ints from world rank 0 to each of B, 1 int back), MPI_Alltoallw (2 ints from world
 *     rank 0 to each of B, b + 1 back), MPI_Reduce_scatter (a vector of 3 ints from every
 *     rank: world rank 0 gets all 3, each of B one); both freed. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size, bad = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int h = rank % 2, l = rank / 2;
    MPI_Comm half, inter;
    MPI_Comm_split(MPI_COMM_WORLD, h, rank, &half);
    MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, 1 - h, 5, &inter);

    int out[2] = {rank, rank}, in[2] = {-1, -1};
    MPI_Sendrecv(out, 2, MPI_INT, l, 3, in, 2, MPI_INT, l, 3, inter, MPI_STATUS_IGNORE);
    bad |= in[0] != (rank ^ 1);
    int one = rank, got = -1;
    MPI_Request r[2];
    MPI_Irecv(&got, 1, MPI_INT, l, 4, inter, &r[0]);
    MPI_Isend(&one, 1, MPI_INT, l, 4, inter, &r[1]);
    MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
    bad |= got != (rank ^ 1);
    MPI_Message m;
    MPI_Status st;
    MPI_Send(&one, 1, MPI_INT, l, 6, inter);
    MPI_Mprobe(l, 6, inter, &m, &st);
    MPI_Mrecv(&got, 1, MPI_INT, &m, MPI_STATUS_IGNORE);
    bad |= got != (rank ^ 1);
    MPI_Send(&one, 1, MPI_INT, l, 7, inter);
    for (int flag = 0; !flag;)
        MPI_Improbe(l, 7, inter, &flag, &m, &st);
    got = -1;
    MPI_Imrecv(&got, 1, MPI_INT, &m, &r[0]);
    MPI_Wait(&r[0], MPI_STATUS_IGNORE);
    bad |= got != (rank ^ 1);
    MPI_Barrier(inter);
    int two[2] = {rank == 0 ? 40 : 0, rank == 0 ? 2 : 0};
    MPI_Bcast(two, 2, MPI_INT, h == 0 ? (l == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0, inter);
    bad |= h == 1 && two[0] + two[1] != 42;
    /* Rooted and all-to-all collectives between the halves: half 0's rank 0 is the root. */
    int root = h == 0 ? (l == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0;
    int pair[2] = {-1, -1}, mine[2] = {rank * 10, rank * 10 + 1}, v = -1;
    MPI_Gather(&one, 1, MPI_INT, pair, 1, MPI_INT, root, inter);
    bad |= rank == 0 && (pair[0] != 1 || pair[1] != 3);
    MPI_Scatter(mine, 1, MPI_INT, &v, 1, MPI_INT, root, inter);
    bad |= h == 1 && v != l;
    MPI_Reduce(&one, &v, 1, MPI_INT, MPI_SUM, root, inter);
    bad |= rank == 0 && v != 4;
    MPI_Allreduce(&one, &v, 1, MPI_INT, MPI_SUM, inter);
    bad |= v != (h == 0 ? 4 : 2);
    MPI_Allgather(&one, 1, MPI_INT, pair, 1, MPI_INT, inter);
    bad |= pair[0] != 1 - h || pair[1] != 3 - h;
    MPI_Alltoall(mine, 1, MPI_INT, pair, 1, MPI_INT, inter);
    bad |= pair[0] != (1 - h) * 10 + l || pair[1] != (3 - h) * 10 + l;

    MPI_Comm dup, split, created, idup, idup2;
    MPI_Comm_dup(inter, &dup);
    MPI_Barrier(dup);
    MPI_Comm_split(inter, 0, rank, &split);
    MPI_Barrier(split);
    MPI_Group local;
    MPI_Comm_group(inter, &local);
    MPI_Comm_create(inter, local, &created);
    MPI_Group_free(&local);
    MPI_Barrier(created);
    MPI_Request q;
    MPI_Comm_idup(inter, &idup, &q);
    MPI_Wait(&q, MPI_STATUS_IGNORE);
    MPI_Barrier(idup);

    MPI_Comm_idup(inter, &idup2, &q);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    if (MPI_Request_free(&q) != MPI_SUCCESS) /* refused: the request is still ours */
        MPI_Wait(&q, MPI_STATUS_IGNORE);
    else /* an MPI that accepts it: done once a collective on the parent is */
        MPI_Barrier(inter);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    MPI_Barrier(idup2);

    MPI_Comm merged;
    MPI_Intercomm_merge(inter, h, &merged);
    int mrank = -1, sum = 0;
    MPI_Comm_rank(merged, &mrank);
    MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, merged);
    bad |= mrank != h * 2 + l || sum != 6;

    /* Groups of unequal size, where the other group's size is not the own one: world rank 0
     * alone against ranks 1 to 3. */
    MPI_Comm lone, uneven;
    MPI_Comm_split(MPI_COMM_WORLD, rank == 0, rank, &lone);
    MPI_Intercomm_create(lone, 0, MPI_COMM_WORLD, rank == 0 ? 1 : 0, 8, &uneven);
    int three[3] = {-1, -1, -1}, outs[3] = {rank, rank, rank};
    MPI_Allreduce(&one, &v, 1, MPI_INT, MPI_SUM, uneven);
    bad |= v != (rank == 0 ? 6 : 0);
    MPI_Allgather(&one, 1, MPI_INT, three, 1, MPI_INT, uneven);
    bad |= rank == 0 ? three[0] != 1 || three[2] != 3 : three[0] != 0;
    MPI_Alltoall(outs, 1, MPI_INT, three, 1, MPI_INT, uneven);
    bad |= rank == 0 ? three[0] != 1 || three[2] != 3 : three[0] != 0;
    /* The v and w collectives between world rank 0 (group A, alone) and ranks 1 to 3. */
    int a = rank == 0, b = rank - 1, six[6] = {-1, -1, -1, -1, -1, -1};
    int cnt[3] = {1, 2, 3}, dsp[3] = {0, 1, 3}, ones[3] = {1, 1, 1}, seq3[3] = {0, 1, 2};
    int tens[6] = {10, 20, 21, 30, 31, 32}, mine3[3] = {rank, rank, rank}, zero = 0;
    MPI_Gatherv(mine3, a ? 0 : b + 1, MPI_INT, six, cnt, dsp, MPI_INT, a ? MPI_ROOT : 0,
                uneven);
    bad |= a && (six[0] != 1 || six[1] != 2 || six[5] != 3);
    MPI_Scatterv(tens, cnt, dsp, MPI_INT, three, a ? 0 : b + 1, MPI_INT, a ? MPI_ROOT : 0,
                 uneven);
    bad |= !a && three[0] != 10 * (b + 1);
    MPI_Allgatherv(mine3, a ? 1 : b + 1, MPI_INT, six, a ? cnt : ones, a ? dsp : &zero,
                   MPI_INT, uneven);
    bad |= a ? six[0] != 1 || six[5] != 3 : six[0] != 0;
    MPI_Alltoallv(tens, a ? cnt : ones, a ? dsp : &zero, MPI_INT, six, a ? ones : &cnt[b],
                  a ? seq3 : &zero, MPI_INT, uneven);
    bad |= a ? six[0] != 10 || six[2] != 10 : six[0] != 10 * (b + 1);
    int twos[3] = {2, 2, 2}, sdb[3] = {0, 8, 16}, rdb[3] = {0, 4, 12};
    MPI_Datatype ints[3] = {MPI_INT, MPI_INT, MPI_INT};
    MPI_Alltoallw(tens, a ? twos : &cnt[b], a ? sdb : &zero, ints, six, a ? cnt : twos,
                  a ? rdb : &zero, ints, uneven);
    bad |= a ? six[0] != 10 || six[1] != 10 : six[0] != tens[2 * b] || six[1] != tens[2 * b + 1];
    int vec[3] = {a ? 1 : rank, a ? 2 : rank, a ? 3 : rank};
    MPI_Reduce_scatter(vec, six, a ? &cnt[2] : ones, MPI_INT, MPI_SUM, uneven);
    bad |= a ? six[0] != 6 || six[2] != 6 : six[0] != b + 1;
    MPI_Comm_free(&uneven);
    MPI_Comm_free(&lone);

    int remote = 0;
    MPI_Comm_remote_size(idup2, &remote);
    bad |= remote != 2;
    if (bad)
        fprintf(stderr, "mpi_intercomm: wrong results on rank %d\n", rank);
    MPI_Comm_free(&merged);
    MPI_Comm_free(&idup2);
    MPI_Comm_free(&idup);
    MPI_Comm_free(&created);
    MPI_Comm_free(&split);
    MPI_Comm_free(&dup);
    MPI_Comm_free(&inter);
    MPI_Comm_free(&half);
    if (rank == 0)
        printf("ok\n");
    MPI_Finalize();
    return 0;
}
