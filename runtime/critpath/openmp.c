/* openmp.c — the critical path through OpenMP synchronisation (openmp.h): fork, barriers
 * (the join is the parallel region's implicit barrier, whose maximum the master takes) and
 * mutexes. Not the hot path: a barrier's two callbacks copy a record each under the team's
 * spin lock. */
#include "openmp.h"
#include "critpath.h"
#include "critpath_thread.h"
#include "../util/hash.h"

#include <sched.h>
#include <string.h>

static void lock(int *l)
{
    while (__atomic_exchange_n(l, 1, __ATOMIC_ACQUIRE))
        sched_yield(); /* held for a copy; threads may outnumber cores */
}

static void unlock(int *l) { __atomic_store_n(l, 0, __ATOMIC_RELEASE); }

void instr_cp_omp_fork(instr_cp_team *t)
{
    struct cp_state *s = instr_cp_self();
    if (!s)
        return;
    instr_cp_close_segment(s, instr_cp_now());
    t->lock = 0;
    memcpy(&t->fork, &s->path, INSTR_CP_RECORD_BYTES(s->path.n));
    memcpy(&t->sync[0], &s->path, INSTR_CP_RECORD_BYTES(s->path.n));
    memcpy(&t->sync[1], &s->path, INSTR_CP_RECORD_BYTES(s->path.n));
}

void instr_cp_omp_worker_begin(instr_cp_team *t)
{
    struct cp_state *s = instr_cp_self();
    if (!s)
        return;
    instr_cp_close_segment(s, instr_cp_now());
    /* What the worker did since its last event was waiting for work in the runtime (or its
     * late barrier end): drop it. */
    s->x.outside = s->x.useful = s->seg_omp_wait = s->seg_mpi = 0;
    for (uint32_t i = 0; i < s->x.ntouched; i++)
        s->x.seg[s->x.touched[i]] = 0;
    s->x.ntouched = 0;
    memset(s->mseg, 0, sizeof s->mseg);
    s->mstarted = 0; /* the metrics' next values are the base */
    s->x.t_last = instr_cp_now();
    s->x.hold.by[CP_IN_OMP] = 0;
    instr_ext_cp_max(&s->path, &t->fork);
}

void instr_cp_omp_barrier_begin(instr_cp_team *t, uint32_t n)
{
    struct cp_state *s = instr_cp_self();
    if (!s)
        return;
    instr_cp_close_segment(s, instr_cp_now());
    lock(&t->lock);
    instr_ext_cp_max(&t->sync[n & 1], &s->path);
    unlock(&t->lock);
    s->x.hold.by[CP_IN_OMP]++;
}

/* openmp.h */
void instr_cp_omp_wait_done(struct cp_state *s)
{
    instr_cp_close_segment(s, instr_cp_now());
    if (s->x.hold.by[CP_IN_OMP])
        s->x.hold.by[CP_IN_OMP]--;
    s->mwait_ended = 1;
}

void instr_cp_omp_barrier_end(instr_cp_team *t, uint32_t n)
{
    struct cp_state *s = instr_cp_self();
    if (!s)
        return;
    instr_cp_omp_wait_done(s);
    lock(&t->lock);
    instr_ext_cp_max(&s->path, &t->sync[n & 1]);
    unlock(&t->lock);
    s->syncs++;
}

void instr_cp_omp_task_to_barrier(instr_cp_team *t, uint32_t n, const instr_cp_record *path)
{
    lock(&t->lock);
    instr_ext_cp_max(&t->sync[n & 1], path);
    unlock(&t->lock);
}

/* The paths of released mutexes, by wait id: a small table. Two mutexes in one slot displace
 * each other: an acquirer of the displaced one then takes no path (its path is too short by
 * what the releaser did, never wrong by more).
 *
 * The runtime reports a release after the mutex is free, so the next owner may report its
 * acquisition first. The k-th acquisition (counted in the slot: acquisitions are reported
 * while the mutex is held, so in order) takes the path of the (k-1)-th release: it waits,
 * yielding, for that release's report, which the releasing thread makes right after
 * releasing (a bounded wait: a displaced slot or a lost report never hangs the program). */
#define MUTEX_SLOTS 64
#define RELEASE_WAIT_YIELDS 100000
static struct {
    int lock;
    uint64_t id;
    uint64_t acquired, released; /* reports of the slot's mutex */
    instr_cp_record path;
} mutexes[MUTEX_SLOTS];

static unsigned slot_of(uint64_t id) { return instr_hash_bits(id, 6); }

void instr_cp_omp_wait_begin(void)
{
    struct cp_state *s = instr_cp_self();
    if (!s)
        return;
    instr_cp_charge(s, instr_cp_now());
    s->x.hold.by[CP_IN_OMP]++;
}

void instr_cp_omp_acquired(uint64_t wait_id)
{
    struct cp_state *s = instr_cp_self();
    if (!s)
        return;
    instr_cp_omp_wait_done(s);
    unsigned k = slot_of(wait_id);
    lock(&mutexes[k].lock);
    if (mutexes[k].id != wait_id) {
        /* The first acquisition seen, or the slot was another mutex's: no path to take. */
        mutexes[k].id = wait_id;
        mutexes[k].acquired = 1;
        mutexes[k].released = 0;
        memset(&mutexes[k].path, 0, INSTR_CP_RECORD_BYTES(0));
    } else {
        uint64_t ticket = mutexes[k].acquired++;
        for (int i = 0; i < RELEASE_WAIT_YIELDS && mutexes[k].id == wait_id &&
                        mutexes[k].released < ticket;
             i++) {
            unlock(&mutexes[k].lock);
            sched_yield();
            lock(&mutexes[k].lock);
        }
        if (mutexes[k].id == wait_id)
            instr_ext_cp_max(&s->path, &mutexes[k].path);
    }
    unlock(&mutexes[k].lock);
    s->syncs++;
}

void instr_cp_omp_released(uint64_t wait_id)
{
    struct cp_state *s = instr_cp_self();
    if (!s)
        return;
    instr_cp_close_segment(s, instr_cp_now());
    unsigned k = slot_of(wait_id);
    lock(&mutexes[k].lock);
    if (mutexes[k].id != wait_id) {
        mutexes[k].id = wait_id;
        mutexes[k].acquired = mutexes[k].released = 1;
        memcpy(&mutexes[k].path, &s->path, INSTR_CP_RECORD_BYTES(s->path.n));
    } else {
        mutexes[k].released++;
        instr_ext_cp_max(&mutexes[k].path, &s->path);
    }
    unlock(&mutexes[k].lock);
}
