/* mpi_spawn: MPI_Comm_spawn for substrate plugin interface version 3 and the trace
 * (check_substrate.py, case mpi_spawn, 4 ranks). The world spawns one process of argv[1]
 * (root 0; progs/mpi_spawn_child.c, built without instr), MPI_Bcast of 2 ints from world
 * rank 0 (MPI_ROOT; the others MPI_PROC_NULL) to it over the new inter-communicator, then
 * MPI_Comm_disconnect of it; the same with MPI_Comm_spawn_multiple of two commands (argv[1]
 * twice, one process each). */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, bad = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (argc < 2) {
        fprintf(stderr, "mpi_spawn: the child program's path expected\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    MPI_Comm ic;
    int err = -1;
    MPI_Comm_spawn(argv[1], MPI_ARGV_NULL, 1, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &ic, &err);
    int remote = 0;
    MPI_Comm_remote_size(ic, &remote);
    bad |= remote != 1 || (rank == 0 && err != MPI_SUCCESS);
    int two[2] = {40, 2};
    MPI_Bcast(two, 2, MPI_INT, rank == 0 ? MPI_ROOT : MPI_PROC_NULL, ic);
    MPI_Comm_disconnect(&ic);
    char *cmds[2] = {argv[1], argv[1]};
    int procs[2] = {1, 1}, errs[2] = {-1, -1};
    MPI_Info infos[2] = {MPI_INFO_NULL, MPI_INFO_NULL};
    MPI_Comm_spawn_multiple(2, cmds, NULL, procs, infos, 0, MPI_COMM_WORLD, &ic, errs);
    MPI_Comm_remote_size(ic, &remote);
    bad |= remote != 2 || (rank == 0 && (errs[0] != MPI_SUCCESS || errs[1] != MPI_SUCCESS));
    MPI_Bcast(two, 2, MPI_INT, rank == 0 ? MPI_ROOT : MPI_PROC_NULL, ic);
    MPI_Comm_disconnect(&ic);
    if (bad)
        fprintf(stderr, "mpi_spawn: wrong results on rank %d\n", rank);
    if (rank == 0)
        printf("ok\n");
    MPI_Finalize();
    return 0;
}
