/* mpi_wait.c — the patient wait of the runtime's own exchanges at the job's end and in the
 * trace's clock offsets (mpi_wrap.h, docs/mpi.md "Waiting in the job's end steps"): naps
 * between tests, cut short by the doorbells of the ranks on this host. */
#include "mpi_wrap.h"
#include "../util/pages.h"

#include <errno.h>
#include <linux/futex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define NAP_FIRST_NS 20000L  /* 20 us */
#define NAP_LAST_NS 1000000L /* 1 ms */
#define BELL_BYTES 64        /* one cache line per rank: a ring touches no other rank's line */

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

/* The doorbells: one word per rank of this host in memory the host's ranks share (an MPI
 * shared-memory window); host_job[i] is the job rank of the host's i-th rank (ascending). */
static MPI_Win bell_win = MPI_WIN_NULL;
static unsigned char *bells;
static uint32_t *my_bell;
static int *host_job, host_n;

void instr_mpi_wait_sharing(MPI_Comm host_comm, int host_rank, int host_ranks, int job_rank)
{
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    long per_core = cores > 0 && host_ranks > cores ? (host_ranks + cores - 1) / cores : 1;
    nap_last = NAP_LAST_NS * (per_core > 32 ? 32 : per_core);
    if (host_ranks < 2)
        return;
    /* Collective on the host: every rank takes the same branches, agreed by reductions (a
     * rank with INSTR_JOB_WAIT=poll or without memory: no doorbells on the host); a failure
     * leaves the naps alone. */
    PMPI_Comm_set_errhandler(host_comm, MPI_ERRORS_RETURN);
    int *jobs = instr_mpi_wait_polls() ? NULL : instr_mem_alloc(sizeof *jobs * (size_t)host_ranks);
    int ok = jobs != NULL, all = 0;
    PMPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, host_comm);
    if (!all) {
        instr_mem_free(jobs);
        return;
    }
    PMPI_Allgather(&job_rank, 1, MPI_INT, jobs, 1, MPI_INT, host_comm);
    void *base = NULL;
    MPI_Aint bytes = host_rank == 0 ? (MPI_Aint)BELL_BYTES * host_ranks : 0;
    if (PMPI_Win_allocate_shared(bytes, 1, MPI_INFO_NULL, host_comm, &base, &bell_win) !=
        MPI_SUCCESS) {
        bell_win = MPI_WIN_NULL;
        instr_mem_free(jobs);
        return;
    }
    MPI_Aint size0 = 0;
    int unit = 0;
    ok = PMPI_Win_shared_query(bell_win, 0, &size0, &unit, &base) == MPI_SUCCESS && base &&
         size0 >= (MPI_Aint)BELL_BYTES * host_ranks;
    if (ok && host_rank == 0)
        memset(base, 0, (size_t)BELL_BYTES * (size_t)host_ranks);
    /* all can ring, and the words are zeroed before anyone does */
    PMPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, host_comm);
    if (!all) {
        instr_mem_free(jobs); /* the window stays open (freeing it is collective), unused */
        return;
    }
    bells = base;
    my_bell = (uint32_t *)(bells + (size_t)BELL_BYTES * (size_t)host_rank);
    host_job = jobs;
    host_n = host_ranks;
}

void instr_mpi_bells_close(void)
{
    if (bell_win == MPI_WIN_NULL)
        return;
    bells = NULL;
    my_bell = NULL;
    PMPI_Win_free(&bell_win); /* collective on the host: every rank at the job's end */
    instr_mem_free(host_job);
    host_job = NULL;
    host_n = 0;
}

void instr_mpi_ring(int job_rank)
{
    if (!bells)
        return;
    int lo = 0, hi = host_n - 1;
    while (lo <= hi) {
        int mid = lo + (hi - lo) / 2;
        if (host_job[mid] < job_rank) {
            lo = mid + 1;
        } else if (host_job[mid] > job_rank) {
            hi = mid - 1;
        } else {
            uint32_t *b = (uint32_t *)(bells + (size_t)BELL_BYTES * (size_t)mid);
            __atomic_add_fetch(b, 1, __ATOMIC_SEQ_CST);
            /* not FUTEX_PRIVATE: the word is shared between processes */
            syscall(SYS_futex, b, FUTEX_WAKE, 1, NULL, NULL, 0);
            return;
        }
    }
}

uint32_t instr_mpi_bell_seen(void)
{
    return my_bell ? __atomic_load_n(my_bell, __ATOMIC_SEQ_CST) : 0;
}

/* How the naps on the doorbell ended, for INSTR_VERBOSE=2 (instr_mpi_wait_counts). */
static uint64_t naps_rung, naps_timed;

void instr_mpi_wait_counts(uint64_t *rung, uint64_t *timed)
{
    *rung = naps_rung;
    *timed = naps_timed;
}

void instr_mpi_nap(long *nap, uint32_t seen)
{
    struct timespec ts = {0, *nap};
    int rung = 0;
    if (my_bell) { /* until a ring (or at once if one came since seen), at most the nap */
        if (syscall(SYS_futex, my_bell, FUTEX_WAIT, seen, &ts, NULL, 0) == 0 || errno == EAGAIN)
            rung = 1, naps_rung++;
        else if (errno == ETIMEDOUT)
            naps_timed++;
    } else
        while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
            ;
    /* A ring says the message is posted, not that the next test sees it: Open MPI's first
     * test after the wake-up mostly does not complete it, the second mostly does. Doubling
     * the nap there slept out the longest nap (32 ms at 64 ranks on 2 cores) at every level
     * of a tree; after a ring the naps start again from the shortest. */
    if (rung)
        *nap = NAP_FIRST_NS;
    else
        *nap = *nap * 2 > nap_last ? nap_last : *nap * 2;
}

int instr_mpi_waitall_patient(int n, MPI_Request *req)
{
    if (instr_mpi_wait_polls())
        return PMPI_Waitall(n, req, MPI_STATUSES_IGNORE);
    long nap = NAP_FIRST_NS;
    for (;;) {
        uint32_t seen = instr_mpi_bell_seen(); /* before the test: no ring after it is missed */
        int done = 0, rc = PMPI_Testall(n, req, &done, MPI_STATUSES_IGNORE);
        if (rc != MPI_SUCCESS || done)
            return rc;
        instr_mpi_nap(&nap, seen);
    }
}
