/* mpi_io_test.c — a non-blocking MPI-IO read tested before it can complete (tests/io/check.py,
 * case mpi_trace): each rank writes its block of a shared file, starts a non-blocking read
 * of it together with a receive from itself that no send matches yet, so that MPI_Testall
 * completes nothing; then sends and completes both with MPI_Waitall. */
#include <mpi.h>
#include <stdlib.h>

#define N 256 /* ints per rank: 1024 bytes */

static int buf[N], msg, got;

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_File fh;
    MPI_File_open(MPI_COMM_WORLD, "tested.dat", MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL,
                  &fh);
    for (int i = 0; i < N; i++)
        buf[i] = rank * N + i;
    MPI_Offset at = (MPI_Offset)rank * N * sizeof(int);
    MPI_File_write_at(fh, at, buf, N, MPI_INT, MPI_STATUS_IGNORE);
    MPI_Request req[2];
    MPI_Irecv(&got, 1, MPI_INT, rank, 7, MPI_COMM_WORLD, &req[0]);
    MPI_File_iread_at(fh, at, buf, N, MPI_INT, &req[1]);
    int flag = 1;
    MPI_Testall(2, req, &flag, MPI_STATUSES_IGNORE);
    if (flag)
        abort(); /* the receive cannot have completed */
    msg = rank;
    MPI_Send(&msg, 1, MPI_INT, rank, 7, MPI_COMM_WORLD);
    MPI_Waitall(2, req, MPI_STATUSES_IGNORE);
    if (got != rank || buf[0] != rank * N || buf[N - 1] != rank * N + N - 1)
        abort();
    MPI_File_close(&fh);
    MPI_Finalize();
    return 0;
}
