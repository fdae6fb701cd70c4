/* mpi_dynamic: inter-communicators of dynamic processes for substrate plugin interface
 * version 3 and the trace (check_substrate.py, case mpi_dynamic, 4 ranks). On every rank
 * (h = rank % 2, the half; l = rank / 2, the rank in it):
 *   - MPI_Comm_split of the world by h (key = rank): communicator 2, the half;
 *   - world rank 0 opens a port (MPI_Open_port), MPI_Bcast of its name (MPI_MAX_PORT_NAME
 *     chars) over the world;
 *   - half 0 MPI_Comm_accept on it, half 1 MPI_Comm_connect (root 0 of the half, each on
 *     its half): communicator 3, an inter-communicator of the two halves;
 *   - on it: MPI_Sendrecv of 2 ints with the remote rank l (tag 3), MPI_Allreduce of 1 int;
 *   - MPI_Comm_disconnect of it; the port closed;
 *   - world rank 0 listens on a TCP socket of the loopback interface, MPI_Bcast of its port
 *     number (1 int) over the world; world rank 1 connects to it, and both MPI_Comm_join
 *     over the connection: communicator 4 there, an inter-communicator of 1+1 ranks;
 *     MPI_Allreduce of 1 int on it, MPI_Comm_disconnect;
 *   - the half freed. */
#define _GNU_SOURCE
#include <mpi.h>
#include <netinet/in.h>
#include <stdio.h>
#include <sys/socket.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size, bad = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int h = rank % 2, l = rank / 2;
    MPI_Comm half, ic;
    MPI_Comm_split(MPI_COMM_WORLD, h, rank, &half);
    char port[MPI_MAX_PORT_NAME] = "";
    if (rank == 0)
        MPI_Open_port(MPI_INFO_NULL, port);
    MPI_Bcast(port, MPI_MAX_PORT_NAME, MPI_CHAR, 0, MPI_COMM_WORLD);
    if (h == 0)
        MPI_Comm_accept(port, MPI_INFO_NULL, 0, half, &ic);
    else
        MPI_Comm_connect(port, MPI_INFO_NULL, 0, half, &ic);
    int remote = 0;
    MPI_Comm_remote_size(ic, &remote);
    bad |= remote != 2;
    int out[2] = {rank, rank}, in[2] = {-1, -1};
    MPI_Sendrecv(out, 2, MPI_INT, l, 3, in, 2, MPI_INT, l, 3, ic, MPI_STATUS_IGNORE);
    bad |= in[0] != (rank ^ 1);
    int one = rank, v = -1;
    MPI_Allreduce(&one, &v, 1, MPI_INT, MPI_SUM, ic);
    bad |= v != (h == 0 ? 4 : 2);
    MPI_Comm_disconnect(&ic);
    if (rank == 0)
        MPI_Close_port(port);
    /* MPI_Comm_join of world ranks 0 and 1 over a socket of theirs. */
    int lfd = -1, fd = -1, tcp = 0;
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t alen = sizeof a;
    if (rank == 0) {
        lfd = socket(AF_INET, SOCK_STREAM, 0);
        if (lfd < 0 || bind(lfd, (struct sockaddr *)&a, sizeof a) != 0 || listen(lfd, 1) != 0 ||
            getsockname(lfd, (struct sockaddr *)&a, &alen) != 0)
            MPI_Abort(MPI_COMM_WORLD, 3);
        tcp = ntohs(a.sin_port);
    }
    MPI_Bcast(&tcp, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        fd = accept(lfd, NULL, NULL);
    } else if (rank == 1) {
        a.sin_port = htons((unsigned short)tcp);
        fd = socket(AF_INET, SOCK_STREAM, 0);
        if (fd >= 0 && connect(fd, (struct sockaddr *)&a, sizeof a) != 0) {
            close(fd);
            fd = -1;
        }
    }
    if (rank < 2) {
        if (fd < 0)
            MPI_Abort(MPI_COMM_WORLD, 4);
        MPI_Comm joined;
        MPI_Comm_join(fd, &joined);
        MPI_Comm_remote_size(joined, &remote);
        bad |= remote != 1;
        MPI_Allreduce(&one, &v, 1, MPI_INT, MPI_SUM, joined);
        bad |= v != 1 - rank;
        MPI_Comm_disconnect(&joined);
        close(fd);
    }
    if (lfd >= 0)
        close(lfd);
    MPI_Comm_free(&half);
    if (bad)
        fprintf(stderr, "mpi_dynamic: wrong results on rank %d\n", rank);
    if (rank == 0)
        printf("ok\n");
    MPI_Finalize();
    return 0;
}
