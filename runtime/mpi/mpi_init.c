/* mpi_init.c — MPI_Init, MPI_Init_thread, MPI_Finalize, MPI_Finalized and MPI_Abort, written
 * by hand: they begin and end the job (runtime/job/mpi_exchange.c), whose real PMPI_Finalize
 * is deferred to the end of the process. */
#include "mpi_wrap.h"

/* Around the real MPI_Init or MPI_Init_thread: its region entered (the critical path
 * paused: nothing before the job's start is on it); init_end leaves it, the job begun when
 * the call succeeded. */
static int init_begin(uint32_t h)
{
    int cp = instr_ext_cp_mpi_begin();
    if (cp)
        instr_ext_cp_pause(1);
    instr_ext_enter(h);
    return cp;
}

static int init_end(int rc, uint32_t h, int cp)
{
    if (rc == MPI_SUCCESS)
        instr_mpi_job_begin();
    instr_ext_exit(h);
    if (cp) {
        instr_ext_cp_pause(0);
        instr_ext_cp_mpi_end();
    }
    return rc;
}

int MPI_Init(int *argc, char ***argv)
{
    uint32_t h = instr_mpi_region(INSTR_MPI_ID_INIT);
    int cp = init_begin(h);
    return init_end(PMPI_Init(argc, argv), h, cp);
}

int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    uint32_t h = instr_mpi_region(INSTR_MPI_ID_INIT_THREAD);
    int cp = init_begin(h);
    return init_end(PMPI_Init_thread(argc, argv, required, provided), h, cp);
}

int MPI_Finalize(void)
{
    uint32_t h = instr_mpi_region(INSTR_MPI_ID_FINALIZE);
    INSTR_MPI_CP_BEGIN();
    instr_ext_enter(h);
    int rc = MPI_SUCCESS;
    if (!instr_mpi_job_started())
        rc = PMPI_Finalize(); /* MPI was initialised behind our back: nothing to defer */
    else
        instr_mpi_job_finalize();
    instr_ext_exit(h);
    INSTR_MPI_CP_END();
    return rc;
}

int MPI_Finalized(int *flag)
{
    uint32_t h = instr_mpi_region(INSTR_MPI_ID_FINALIZED);
    instr_ext_enter(h);
    int rc = PMPI_Finalized(flag);
    if (rc == MPI_SUCCESS && instr_mpi_job_finalized())
        *flag = 1;
    instr_ext_exit(h);
    return rc;
}

int MPI_Abort(MPI_Comm comm, int errorcode)
{
    uint32_t h = instr_mpi_region(INSTR_MPI_ID_ABORT);
    instr_ext_enter(h);
    instr_ext_exit(h);
    instr_mpi_job_abort();
    return PMPI_Abort(comm, errorcode);
}
