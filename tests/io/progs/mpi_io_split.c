/* mpi_io_split.c — split collective and non-blocking MPI-IO with known bytes per rank
 * (tests/io/check.py, case mpi_split, 4 ranks, file split.dat):
 *   MPI_File_write_at_all_begin/_end  1000 ints at the rank's block     4000 bytes written
 *   MPI_File_read_at_all_begin/_end   500 ints of the rank's block       2000 bytes read
 *   MPI_File_seek to the rank's block, MPI_File_read_all_begin/_end of 250 ints: 1000 read
 *   MPI_File_write_ordered_begin/_end 10 ints at the shared pointer         40 written
   (not MPI_File_read_ordered_begin: after MPI_File_seek_shared it does not return with
 *   Open MPI 4.1's OMPIO, also without instr)
 *   MPI_File_iwrite_at 100 ints after the ranks' blocks + MPI_Wait         400 written
 *   MPI_File_iread_at of the next rank's 100 ints (a barrier first) + MPI_Wait: 400 read
 * (not a short read at the end of the file: Open MPI 4.1's OMPIO does not complete a
 * non-blocking read that crosses the end, also without instr). */
#include <mpi.h>
#include <stdlib.h>

#define NOINLINE __attribute__((noinline))
#define N 1000

static int buf[N];

NOINLINE void split_collectives(MPI_File fh, int rank)
{
    MPI_Status st;
    MPI_Offset mine = (MPI_Offset)rank * N * sizeof(int);
    for (int i = 0; i < N; i++)
        buf[i] = rank * N + i;
    MPI_File_write_at_all_begin(fh, mine, buf, N, MPI_INT);
    MPI_File_write_at_all_end(fh, buf, &st);
    MPI_File_read_at_all_begin(fh, mine, buf, N / 2, MPI_INT);
    MPI_File_read_at_all_end(fh, buf, MPI_STATUS_IGNORE);
    if (buf[0] != rank * N || buf[N / 2 - 1] != rank * N + N / 2 - 1)
        abort();
    MPI_File_seek(fh, mine, MPI_SEEK_SET);
    MPI_File_read_all_begin(fh, buf, N / 4, MPI_INT);
    MPI_File_read_all_end(fh, buf, &st);
    MPI_File_write_ordered_begin(fh, buf, 10, MPI_INT);
    MPI_File_write_ordered_end(fh, buf, MPI_STATUS_IGNORE);
}

NOINLINE void nonblocking(MPI_File fh, int rank, int size)
{
    MPI_Request req;
    MPI_Offset end = (MPI_Offset)size * N * sizeof(int);
    MPI_File_iwrite_at(fh, end + (MPI_Offset)rank * 400, buf, 100, MPI_INT, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_File_iread_at(fh, end + (MPI_Offset)((rank + 1) % size) * 400, buf, 100, MPI_INT, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_File fh;
    MPI_File_open(MPI_COMM_WORLD, "split.dat", MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL,
                  &fh);
    split_collectives(fh, rank);
    nonblocking(fh, rank, size);
    MPI_File_close(&fh);
    MPI_Finalize();
    return 0;
}
