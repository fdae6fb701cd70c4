/* mpi_io.c — known MPI-IO per rank (tests/io/check.py has the numbers): the ranks write one
 * shared file collectively (each its own block), read their block back independently,
 * non-blockingly with a view, and through the individual file pointer. */
#include <mpi.h>
#include <stdlib.h>

#define NOINLINE __attribute__((noinline))
#define N 1000 /* ints per rank: 4000 bytes */

static int buf[N];

NOINLINE void write_shared_file(MPI_File fh, int rank)
{
    for (int i = 0; i < N; i++)
        buf[i] = rank * N + i;
    MPI_File_write_at_all(fh, (MPI_Offset)rank * N * sizeof(int), buf, N, MPI_INT,
                          MPI_STATUS_IGNORE);
    MPI_File_sync(fh);
}

NOINLINE void read_back(MPI_File fh, int rank)
{
    MPI_Status st;
    MPI_File_read_at(fh, (MPI_Offset)rank * N * sizeof(int), buf, N, MPI_INT, &st);
    MPI_Request req;
    MPI_File_iread_at(fh, (MPI_Offset)rank * N * sizeof(int), buf, N / 2, MPI_INT, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    MPI_File_set_view(fh, (MPI_Offset)rank * N * sizeof(int), MPI_INT, MPI_INT, "native",
                      MPI_INFO_NULL);
    MPI_File_read(fh, buf, 10, MPI_INT, MPI_STATUS_IGNORE);
    if (buf[0] != rank * N || buf[9] != rank * N + 9)
        abort();
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_File fh;
    MPI_File_open(MPI_COMM_WORLD, "shared.dat", MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL,
                  &fh);
    write_shared_file(fh, rank);
    read_back(fh, rank);
    MPI_File_close(&fh);
    MPI_Finalize();
    return 0;
}
