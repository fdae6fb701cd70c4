/* mpi_wait.c — the patient wait of the runtime's own exchanges at the job's end and in the
 * trace's clock offsets (mpi_wrap.h, docs/mpi.md "Waiting in the job's end steps"). */
#include "mpi_wrap.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define NAP_FIRST_NS 20000L  /* 20 us */
#define NAP_LAST_NS 1000000L /* 1 ms */

/* INSTR_JOB_WAIT: sleep (default) or poll; read once. */
static int wait_mode = -1;

int instr_mpi_wait_polls(void)
{
    if (wait_mode < 0) {
        const char *v = getenv("INSTR_JOB_WAIT");
        wait_mode = 0;
        if (v && strcmp(v, "poll") == 0)
            wait_mode = 1;
        else if (v && *v && strcmp(v, "sleep") != 0)
            fprintf(stderr, "instr: INSTR_JOB_WAIT=%s is neither sleep nor poll: using sleep\n",
                    v);
    }
    return wait_mode;
}

/* The longest nap: 1 ms times the ranks per core of this host (at most 32 ms), so that the
 * waiting ranks' tests together take about as much of a core as one rank's would at 1 ms. */
static long nap_last = NAP_LAST_NS;

void instr_mpi_wait_sharing(int host_ranks)
{
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    long per_core = cores > 0 && host_ranks > cores ? (host_ranks + cores - 1) / cores : 1;
    nap_last = NAP_LAST_NS * (per_core > 32 ? 32 : per_core);
}

void instr_mpi_nap(long *nap)
{
    struct timespec ts = {0, *nap};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
        ;
    *nap = *nap * 2 > nap_last ? nap_last : *nap * 2;
}

int instr_mpi_waitall_patient(int n, MPI_Request *req)
{
    if (instr_mpi_wait_polls())
        return PMPI_Waitall(n, req, MPI_STATUSES_IGNORE);
    long nap = NAP_FIRST_NS;
    for (;;) {
        int done = 0, rc = PMPI_Testall(n, req, &done, MPI_STATUSES_IGNORE);
        if (rc != MPI_SUCCESS || done)
            return rc;
        instr_mpi_nap(&nap);
    }
}
