/* tasks.c — the critical path through OpenMP explicit tasks (openmp.h, docs/critical-path.md):
 * creation, dependences, taskwait, taskgroup, and the barrier that completes a team's tasks.
 *
 * The path belongs to the task, not to the thread: a thread that starts or resumes a task
 * puts its own path aside (the implicit task's, with whether it was waiting, e.g. in a
 * barrier or a taskwait that runs tasks) and continues the task's; when the task completes
 * or is suspended, the task's path is kept with the task, and the thread takes back its own.
 *
 * A task is known by the address of its OMPT task data. An entry per address keeps the
 * task's path (its start, then while it is suspended, then when it completed), what its
 * completed children and descendants brought, and the tasks that depend on it. Entries are
 * reused when the runtime reuses the address for a new task; a generation number tells an
 * entry's current task from an earlier one, so that a late completion never reaches an
 * unrelated task. The runtime keeps a task's data until its children completed, so the
 * ancestors of a completing task are still the ones it was created under.
 *
 * Not the hot path: every creation, switch and completion copies a record (the used part of
 * 1,648 bytes) under one mutex. */
#include "openmp.h"
#include "critpath.h"
#include "critpath_thread.h"
#include "../util/array.h"
#include "../util/hash.h"
#include "../util/pages.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define BUCKETS 1024u
#define EMPTY UINT32_MAX /* the n of a kept path that holds none */

typedef struct succ {
    const void *key;
    uint64_t gen;
} succ;

typedef struct cp_task {
    const void *key;
    uint64_t gen;
    struct cp_task *next; /* the bucket's chain */
    int started, completed, in_omp, undeferred;
    const void *parent;
    uint64_t parent_gen;
    instr_cp_record *children;    /* the longest path of completed children (NULL: none) */
    instr_cp_record *descendants; /* of completed descendants, for taskgroup */
    succ *succ;                   /* tasks that depend on this one */
    uint32_t nsucc, capsucc;
    instr_cp_record path; /* start; the path while suspended; the path at completion */
} cp_task;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static cp_task *bucket[BUCKETS];
static uint64_t generation;

static unsigned hash(const void *key)
{
    return instr_hash_bits((uintptr_t)key, 10) % BUCKETS;
}

static cp_task *find(const void *key)
{
    for (cp_task *e = bucket[hash(key)]; e; e = e->next)
        if (e->key == key)
            return e;
    return NULL;
}

/* The entry of key, made new (a fresh generation, nothing kept); NULL when out of memory. */
static cp_task *renew(const void *key)
{
    cp_task *e = find(key);
    if (!e) {
        if (!(e = instr_mem_calloc(1, sizeof *e)))
            return NULL;
        e->key = key;
        unsigned h = hash(key);
        e->next = bucket[h];
        bucket[h] = e;
    }
    e->gen = ++generation;
    e->started = e->completed = e->in_omp = e->undeferred = 0;
    e->parent = NULL;
    e->parent_gen = 0;
    e->nsucc = 0;
    if (e->children)
        e->children->n = EMPTY;
    if (e->descendants)
        e->descendants->n = EMPTY;
    memset(&e->path, 0, offsetof(instr_cp_record, e));
    return e;
}

static void copy(instr_cp_record *to, const instr_cp_record *from)
{
    memcpy(to, from, INSTR_CP_RECORD_BYTES(from->n));
}

/* *slot takes the longer of itself and p (allocated on first use). */
static void keep(instr_cp_record **slot, const instr_cp_record *p)
{
    if (!*slot) {
        if (!(*slot = instr_mem_alloc(sizeof **slot)))
            return; /* out of memory: the waiter's path is too short, never wrong by more */
        (*slot)->n = EMPTY;
    }
    if ((*slot)->n == EMPTY)
        copy(*slot, p);
    else
        instr_ext_cp_max(*slot, p);
}

static int has(const instr_cp_record *r) { return r && r->n != EMPTY; }

void instr_cp_task_create(const void *task, const void *parent, int undeferred)
{
    struct cp_state *s = instr_cp_self();
    if (!s)
        return;
    instr_cp_close_segment(s, instr_cp_now());
    pthread_mutex_lock(&lock);
    cp_task *p = parent ? find(parent) : NULL;
    if (parent && !p && (p = renew(parent)))
        p->started = 1; /* an implicit (or initial) task: its entry is for its children */
    cp_task *e = renew(task);
    if (e) {
        copy(&e->path, &s->path);
        e->undeferred = undeferred;
        e->parent = parent;
        e->parent_gen = p ? p->gen : 0;
    }
    pthread_mutex_unlock(&lock);
}

void instr_cp_implicit_task_begin(const void *task)
{
    struct cp_state *s = instr_cp_self();
    if (!s)
        return;
    s->cur_task = s->own_task = task;
    pthread_mutex_lock(&lock);
    cp_task *e = find(task);
    if (e) {
        renew(task);
        e->started = 1;
    }
    pthread_mutex_unlock(&lock);
}

void instr_cp_implicit_task_end(const void *outer)
{
    struct cp_state *s = instr_cp_self();
    if (s)
        s->cur_task = s->own_task = outer;
}

/* Under the lock: succ (of generation gen) starts no earlier than path. */
static void to_successor(const void *key, uint64_t gen, const instr_cp_record *path)
{
    cp_task *e = find(key);
    if (e && e->gen == gen && !e->started)
        instr_ext_cp_max(&e->path, path);
}

void instr_cp_task_dependence(const void *pred, const void *succ_key)
{
    if (!instr_cp_self())
        return;
    pthread_mutex_lock(&lock);
    cp_task *p = find(pred), *s = find(succ_key);
    if (p && s) {
        if (p->completed) {
            /* The runtime reports a dependence on a task until it released its successors,
             * which is after the task's completion reached us. */
            to_successor(succ_key, s->gen, &p->path);
        } else {
            if (instr_array_grow32(&p->succ, &p->capsucc, (size_t)p->nsucc + 1,
                                   sizeof *p->succ, 4) == 0)
                p->succ[p->nsucc++] = (succ){succ_key, s->gen};
        }
    }
    pthread_mutex_unlock(&lock);
}

/* Under the lock: task e completed with the path it holds. */
static void completed(cp_task *e, instr_cp_team *team, uint32_t barrier)
{
    e->completed = 1;
    for (uint32_t i = 0; i < e->nsucc; i++)
        to_successor(e->succ[i].key, e->succ[i].gen, &e->path);
    e->nsucc = 0;
    /* Its parent (taskwait) and every ancestor (taskgroup: descendants of tasks created in
     * the group); the chain ends at an implicit task or an entry reused since. */
    const void *up = e->parent;
    uint64_t gen = e->parent_gen;
    for (int depth = 0; up && depth < 1024; depth++) {
        cp_task *a = find(up);
        if (!a || a->gen != gen)
            break;
        if (depth == 0)
            keep(&a->children, &e->path);
        keep(&a->descendants, &e->path);
        up = a->parent;
        gen = a->parent_gen;
    }
    /* The team's tasks all complete before its next barrier ends (in it, when the thread
     * runs them there). The slot's invariant holds: what it keeps is no longer than the
     * path of every member that leaves that barrier. */
    if (team)
        instr_cp_omp_task_to_barrier(team, barrier, &e->path);
}

void instr_cp_task_switch(const void *prior, int prior_explicit, int prior_done,
                          const void *next, int next_explicit, instr_cp_team *team,
                          uint32_t barrier)
{
    struct cp_state *s = instr_cp_self();
    if (!s || (!prior_explicit && !next_explicit))
        return;
    instr_cp_close_segment(s, instr_cp_now());
    pthread_mutex_lock(&lock);
    cp_task *p = prior_explicit ? find(prior) : NULL;
    if (p && p->started && !p->completed) {
        copy(&p->path, &s->path);
        p->in_omp = s->x.hold.by[CP_IN_OMP];
        if (prior_done)
            completed(p, team, barrier);
    }
    if (!prior_explicit && !s->in_task) {
        /* The thread's own (implicit task's) path waits while it runs explicit tasks. */
        copy(&s->own_path, &s->path);
        s->own_in_omp = s->x.hold.by[CP_IN_OMP];
        s->in_task = 1;
    }
    cp_task *n = next_explicit ? find(next) : NULL;
    if (next_explicit) {
        /* A task's time is its own, useful, unless it was suspended waiting. */
        s->x.hold.by[CP_IN_OMP] = n && n->started ? n->in_omp : 0;
        if (n) {
            /* An undeferred task runs right after its creation, on its creator's thread:
             * what the creator did since (the runtime's work) comes before it. */
            if (n->undeferred && !n->started)
                instr_ext_cp_max(&n->path, &s->path);
            copy(&s->path, &n->path);
            n->started = 1;
        }
        s->cur_task = next;
    } else if (s->in_task) {
        copy(&s->path, &s->own_path);
        s->x.hold.by[CP_IN_OMP] = s->own_in_omp;
        s->in_task = 0;
        s->cur_task = s->own_task;
    }
    /* An undeferred task completed: the task that created it continues after it. */
    if (p && prior_done && p->undeferred && p->completed)
        instr_ext_cp_max(&s->path, &p->path);
    pthread_mutex_unlock(&lock);
    s->mwait_ended = 1;
}

void instr_cp_task_wait_begin(void) { instr_cp_omp_wait_begin(); }

void instr_cp_task_wait_end(const void *task, int group)
{
    struct cp_state *s = instr_cp_self();
    if (!s)
        return;
    instr_cp_omp_wait_done(s);
    pthread_mutex_lock(&lock);
    /* LLVM's libomp reports the end of a taskgroup with a copy of the task's data. */
    cp_task *e = find(s->cur_task ? s->cur_task : task);
    if (e) {
        instr_cp_record *r = group ? e->descendants : e->children;
        if (has(r))
            instr_ext_cp_max(&s->path, r);
    }
    pthread_mutex_unlock(&lock);
    s->syncs++;
}
