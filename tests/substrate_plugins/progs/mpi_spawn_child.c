/* mpi_spawn_child: the process progs/mpi_spawn.c spawns (built without instr): receives the
 * parent's broadcast of 2 ints, disconnects. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm parent;
    MPI_Comm_get_parent(&parent);
    int two[2] = {0, 0};
    if (parent != MPI_COMM_NULL) {
        MPI_Bcast(two, 2, MPI_INT, 0, parent);
        MPI_Comm_disconnect(&parent);
    }
    if (two[0] + two[1] != 42)
        fprintf(stderr, "mpi_spawn_child: wrong results\n");
    MPI_Finalize();
    return 0;
}
