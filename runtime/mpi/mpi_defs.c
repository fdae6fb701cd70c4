/* mpi_defs.c — communicators' identities, and the MPI definitions substrate plugins of
 * interface version 3 get (docs/plugins.md, "MPI definitions").
 *
 * Every new communicator gets a job-wide identity when the trace or a version 3 plugin
 * wants it: the world rank of its rank 0 (the leader) and the leader's own counter, broadcast
 * over the new communicator inside the creating call (which is collective over it); for
 * MPI_Comm_idup over the old one before the call, and the definitions are made when a wait
 * or test completes its request (mpi_msg.c), when the new handle exists. An
 * inter-communicator's leader is the rank 0 of its group whose rank 0 has the lower world
 * rank (group A; the other is group B), its counter sent to B and back to A by two
 * broadcasts over the inter-communicator. The trace defines it from that (mpi_trace.c; an
 * inter-communicator as an OTF2 InterComm of groups A and B); for plugins each process keeps
 * its own table: communicators (0 MPI_COMM_WORLD, 1 MPI_COMM_SELF, then in the order of
 * creation), their groups (the members' world ranks; one definition per distinct member
 * list; an inter-communicator has its local and its remote group) and RMA windows. A
 * communicator's id is cached as an MPI attribute, so a freed and reused handle never finds
 * a stale id; a window's attribute holds its communicator's (for MPI_Win_free's
 * collective). Definitions are never freed: an event may name them until the
 * end. The tables are guarded by a mutex; the calls that add to them are
 * collective MPI calls, which cost far more. */
#include "mpi_wrap.h"
#include "../util/pages.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>

int instr_mpi_defs_on;
static uint32_t comm_seq; /* the communicators this rank led */
static uint32_t win_seq;  /* the windows this rank led */

typedef struct comm_def {
    char *name;
    uint32_t group, size, leader, seq;
    int32_t rank;
    uint32_t remote_group; /* an inter-communicator's remote group; UINT32_MAX: intra */
} comm_def;
typedef struct group_def {
    uint32_t size;
    int32_t *ranks;
} group_def;
typedef struct window_def {
    char *name;
    uint32_t comm;
} window_def;

static comm_def *comms;
static group_def *groups;
static window_def *windows;
static uint32_t ncomms, ngroups, nwindows, capcomms, capgroups, capwindows;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int comm_keyval = MPI_KEYVAL_INVALID, win_keyval = MPI_KEYVAL_INVALID;

/* With the lock: room for one more in *arr; 0 or -1. */
static int room(void **arr, uint32_t n, uint32_t *cap, size_t size)
{
    if (n < *cap)
        return 0;
    uint32_t c = *cap ? 2 * *cap : 16;
    void *p = instr_mem_realloc(*arr, (size_t)c * size);
    if (!p)
        return -1;
    *arr = p;
    *cap = c;
    return 0;
}

/* With the lock: the group of these world ranks (an existing one when the same), or
 * UINT32_MAX; *made: 1 when it is new. */
static uint32_t group_of(const int32_t *ranks, uint32_t size, int *made)
{
    *made = 0;
    for (uint32_t g = 0; g < ngroups; g++)
        if (groups[g].size == size && memcmp(groups[g].ranks, ranks, size * sizeof *ranks) == 0)
            return g;
    int32_t *copy = instr_mem_alloc(size ? size * sizeof *ranks : 1);
    if (!copy || room((void **)&groups, ngroups, &capgroups, sizeof *groups) != 0) {
        instr_mem_free(copy);
        return UINT32_MAX;
    }
    memcpy(copy, ranks, size * sizeof *ranks);
    groups[ngroups] = (group_def){size, copy};
    *made = 1;
    return ngroups++;
}

/* A communicator's definition, and its groups' when new, announced to the plugins (after
 * the lock: their new_definition may ask for them); its id or UINT32_MAX. remote: an
 * inter-communicator's remote group (rsize world ranks), NULL for an intra-communicator. */
static uint32_t define_comm(const char *name, const int32_t *ranks, uint32_t size, int32_t rank,
                            uint32_t leader, uint32_t seq, const int32_t *remote, uint32_t rsize)
{
    pthread_mutex_lock(&lock);
    int made = 0, rmade = 0;
    uint32_t g = group_of(ranks, size, &made), id = UINT32_MAX;
    uint32_t rg = remote && g != UINT32_MAX ? group_of(remote, rsize, &rmade) : UINT32_MAX;
    char *n = instr_mem_strdup(name);
    if (g == UINT32_MAX || (remote && rg == UINT32_MAX) || !n ||
        room((void **)&comms, ncomms, &capcomms, sizeof *comms) != 0) {
        instr_mem_free(n);
    } else {
        comms[ncomms] = (comm_def){n, g, size, leader, seq, rank, rg};
        id = ncomms++;
    }
    pthread_mutex_unlock(&lock);
    if (made)
        instr_ext_plugins_mpi_def(INSTR_SUBSTRATE_DEF_MPI_GROUP, g);
    if (rmade)
        instr_ext_plugins_mpi_def(INSTR_SUBSTRATE_DEF_MPI_GROUP, rg);
    if (id != UINT32_MAX)
        instr_ext_plugins_mpi_def(INSTR_SUBSTRATE_DEF_MPI_COMM, id);
    return id;
}

/* The world ranks of group g's members, in its rank order (size entries), or NULL. */
static int32_t *group_world_ranks(MPI_Group g, int size)
{
    int *in = instr_mem_alloc((size_t)size * 2 * sizeof(int) + 1);
    if (!in)
        return NULL;
    int *out = in + size;
    MPI_Group world;
    PMPI_Comm_group(MPI_COMM_WORLD, &world);
    for (int i = 0; i < size; i++)
        in[i] = i;
    PMPI_Group_translate_ranks(g, size, in, world, out);
    PMPI_Group_free(&world);
    memmove(in, out, (size_t)size * sizeof(int));
    return (int32_t *)in;
}

/* The world ranks of c's members (an inter-communicator's local group), in its rank order
 * (size entries), or NULL; remote: an inter-communicator's remote group instead. */
static int32_t *comm_world_ranks(MPI_Comm c, int size, int remote)
{
    MPI_Group g;
    if ((remote ? PMPI_Comm_remote_group(c, &g) : PMPI_Comm_group(c, &g)) != MPI_SUCCESS)
        return NULL;
    int32_t *r = group_world_ranks(g, size);
    PMPI_Group_free(&g);
    return r;
}

static int32_t *world_ranks(MPI_Comm c, int size) { return comm_world_ranks(c, size, 0); }

void instr_mpi_defs_begin(MPI_Comm job)
{
    /* Collective: a new communicator's identity is broadcast over it when every rank has
     * a version 3 plugin (or the trace is on), never on some ranks only. */
    int want = (instr_mpi_plugin_events & INSTR_EXT_PLUGINS_DEFS) != 0, all = 0;
    if (instr_mpi_defs_on ||
        PMPI_Allreduce(&want, &all, 1, MPI_INT, MPI_MIN, job) != MPI_SUCCESS || !all)
        return;
    PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &comm_keyval, NULL);
    int rank = 0, size = 0;
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    PMPI_Comm_size(MPI_COMM_WORLD, &size);
    int32_t *world = world_ranks(MPI_COMM_WORLD, size), me = rank;
    /* ids 0 and 1, before any other (nothing else defines before defs_on) */
    if (world &&
        define_comm("MPI_COMM_WORLD", world, (uint32_t)size, rank, UINT32_MAX, 0, NULL, 0) ==
            0 &&
        define_comm("MPI_COMM_SELF", &me, 1, 0, UINT32_MAX, 1, NULL, 0) == 1)
        __atomic_store_n(&instr_mpi_defs_on, 1, __ATOMIC_RELEASE);
    instr_mem_free(world);
}

uint64_t instr_mpi_comm_def(MPI_Comm comm)
{
    if (!__atomic_load_n(&instr_mpi_defs_on, __ATOMIC_ACQUIRE))
        return UINT64_MAX;
    if (comm == MPI_COMM_WORLD)
        return 0;
    if (comm == MPI_COMM_SELF)
        return 1;
    void *v = NULL;
    int flag = 0;
    if (comm == MPI_COMM_NULL || PMPI_Comm_get_attr(comm, comm_keyval, &v, &flag) != MPI_SUCCESS ||
        !flag)
        return UINT64_MAX;
    return (uint64_t)((uintptr_t)v - 1);
}

/* The new communicator c's definitions (the trace's, the plugins'), with its identity id
 * (its leader's world rank and that rank's counter) agreed by its members. */
static void define_new(MPI_Comm c, const uint32_t id[2], const char *how, int tracing, int defs,
                       uint32_t parent)
{
    int rank = 0, size = 0, inter = 0, rsize = 0;
    PMPI_Comm_rank(c, &rank);
    PMPI_Comm_size(c, &size);
    if (PMPI_Comm_test_inter(c, &inter) != MPI_SUCCESS)
        inter = 0;
    if (inter)
        PMPI_Comm_remote_size(c, &rsize);
    /* The members' world ranks: the trace's from the leader only, plugins' on every rank;
     * an inter-communicator's groups on every rank (local calls: which group is A). */
    int32_t *members = rank == 0 || defs || inter ? world_ranks(c, size) : NULL;
    int32_t *remote = inter ? comm_world_ranks(c, rsize, 1) : NULL;
    if (inter && (!members || !remote)) {
        instr_mem_free(members);
        instr_mem_free(remote);
        return;
    }
    /* An inter-communicator: group A holds the leader (id[0]), the trace's definition has
     * A's size and both groups' world ranks, A's first (INSTR_EXT_TRACE_INTERCOMM). */
    int in_a = inter && (uint32_t)members[0] == id[0];
    char name[96];
    if (inter)
        snprintf(name, sizeof name, "%s (intercomm %u.%u, %d+%d ranks)", how, id[0], id[1],
                 in_a ? size : rsize, in_a ? rsize : size);
    else
        snprintf(name, sizeof name, "%s (comm %u.%u, %d ranks)", how, id[0], id[1], size);
    if (tracing && inter) {
        uint32_t n = 1 + (uint32_t)size + (uint32_t)rsize;
        uint32_t *both = in_a && rank == 0 ? instr_mem_alloc(n * sizeof *both) : NULL;
        if (both) {
            both[0] = (uint32_t)size;
            memcpy(both + 1, members, (size_t)size * sizeof *both);
            memcpy(both + 1 + size, remote, (size_t)rsize * sizeof *both);
        }
        uint32_t tid[2] = {id[0], id[1] | INSTR_EXT_TRACE_INTERCOMM};
        instr_mpi_trace_comm_new(c, tid, name, both ? n : 0, both, UINT32_MAX);
        instr_mem_free(both);
    } else if (tracing) {
        instr_mpi_trace_comm_new(c, id, name, rank == 0 && members ? (uint32_t)size : 0,
                                 rank == 0 ? (const uint32_t *)members : NULL, parent);
    }
    if (defs && members) {
        uint32_t d = define_comm(name, members, (uint32_t)size, rank, id[0], id[1], remote,
                                 (uint32_t)rsize);
        if (d != UINT32_MAX)
            PMPI_Comm_set_attr(c, comm_keyval, (void *)(uintptr_t)(d + 1));
    }
    instr_mem_free(members);
    instr_mem_free(remote);
}

/* The world rank of rank 0 of c's local group (remote 0) or remote group (1). */
static uint32_t leader_of(MPI_Comm c, int remote)
{
    int32_t *r = comm_world_ranks(c, 1, remote);
    uint32_t w = r ? (uint32_t)r[0] : UINT32_MAX;
    instr_mem_free(r);
    return w;
}

/* 0 for an inter-communicator whose remote group is not in MPI_COMM_WORLD (dynamic
 * processes of another job: MPI_Comm_spawn's, the children's parent, MPI_Comm_accept,
 * _connect or _join with another job), which the other side sees alike: no identity, no
 * definitions (definitions name processes by world rank); 1 otherwise, also for
 * MPI_Comm_accept, _connect and _join between processes of this job. */
static int definable(MPI_Comm c)
{
    int inter = 0;
    if (PMPI_Comm_test_inter(c, &inter) != MPI_SUCCESS)
        return 0;
    return !inter || (leader_of(c, 0) != (uint32_t)MPI_UNDEFINED &&
                      leader_of(c, 1) != (uint32_t)MPI_UNDEFINED);
}

/* The identity of a communicator being made over c (collective over c): for an
 * intra-communicator c (whose rank 0 is the new one's), c's rank 0's world rank and its
 * counter, broadcast over c; for an inter-communicator c (whose groups are the new one's),
 * group A's rank 0's (the group whose rank 0 has the lower world rank), broadcast from it to
 * group B and from B's rank 0 back to A. */
static void agree_identity(MPI_Comm c, uint32_t id[2])
{
    int rank = 0, world_rank = 0, inter = 0;
    PMPI_Comm_rank(c, &rank);
    PMPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
    if (PMPI_Comm_test_inter(c, &inter) != MPI_SUCCESS || !inter) {
        id[0] = (uint32_t)world_rank;
        id[1] = rank == 0 ? 2 + __atomic_fetch_add(&comm_seq, 1, __ATOMIC_RELAXED) : 0;
        PMPI_Bcast(id, 2, MPI_UINT32_T, 0, c);
        return;
    }
    uint32_t mine = leader_of(c, 0), theirs = leader_of(c, 1);
    int in_a = mine < theirs;
    id[0] = in_a ? mine : theirs;
    id[1] = in_a && rank == 0 ? 2 + __atomic_fetch_add(&comm_seq, 1, __ATOMIC_RELAXED) : 0;
    /* On an inter-communicator the root passes MPI_ROOT, its group's other ranks
     * MPI_PROC_NULL, and the other group the root's rank in it. */
    PMPI_Bcast(id, 2, MPI_UINT32_T, in_a ? (rank == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0, c);
    PMPI_Bcast(id, 2, MPI_UINT32_T, in_a ? 0 : (rank == 0 ? MPI_ROOT : MPI_PROC_NULL), c);
}

void instr_mpi_comm_new(int rc, const MPI_Comm *newcomm, const char *how,
                        const instr_mpi_handle_t *h)
{
    int tracing = __atomic_load_n(&instr_mpi_tracing, __ATOMIC_ACQUIRE);
    int defs = __atomic_load_n(&instr_mpi_defs_on, __ATOMIC_ACQUIRE);
    MPI_Comm c = rc == MPI_SUCCESS && newcomm ? *newcomm : MPI_COMM_NULL;
    if ((tracing || defs) && c != MPI_COMM_NULL && definable(c)) {
        uint32_t id[2];
        agree_identity(c, id);
        /* The parent: the communicator the call was made on (the trace's ref). */
        define_new(c, id, how, tracing, defs, h->ref);
    }
    /* After the definition, as Score-P: the record names the new communicator's parent,
     * and a reader meets the new one before its first use. */
    instr_mpi_comm_coll_end(h, INSTR_COLL_CREATE_HANDLE, c);
}

int instr_mpi_comm_idup_begin(MPI_Comm comm, uint32_t id[2])
{
    int tracing = __atomic_load_n(&instr_mpi_tracing, __ATOMIC_ACQUIRE);
    int defs = __atomic_load_n(&instr_mpi_defs_on, __ATOMIC_ACQUIRE);
    if (!(tracing || defs) || comm == MPI_COMM_NULL || !definable(comm))
        return 0;
    /* Over the old communicator, before the call: the new one is not usable before the
     * request completes, and every member calls MPI_Comm_idup on comm in the same order of
     * its collective calls, so this broadcast keeps that order. */
    agree_identity(comm, id);
    return 1;
}

void instr_mpi_comm_idup_done(MPI_Comm c, const uint32_t id[2], uint32_t parent_ref)
{
    int tracing = __atomic_load_n(&instr_mpi_tracing, __ATOMIC_ACQUIRE);
    int defs = __atomic_load_n(&instr_mpi_defs_on, __ATOMIC_ACQUIRE);
    if ((tracing || defs) && c != MPI_COMM_NULL)
        define_new(c, id, "MPI_Comm_idup", tracing, defs, parent_ref);
}

/* A window's communicator, kept as the window's attribute (win_keyval): its trace ref in the
 * high half, its definition for plugins in the low one (UINT32_MAX: none), as they were
 * when the window was made, so that MPI_Win_free names the communicator its creation did,
 * even when the program freed that communicator since (the window keeps its group). */
_Static_assert(sizeof(void *) >= sizeof(uint64_t), "a window's attribute holds 64 bits");

/* The window keyval, made by the first window to be recorded (under the lock). */
static int win_key(void)
{
    int k = __atomic_load_n(&win_keyval, __ATOMIC_ACQUIRE);
    if (k != MPI_KEYVAL_INVALID)
        return k;
    pthread_mutex_lock(&lock);
    if (win_keyval == MPI_KEYVAL_INVALID &&
        PMPI_Win_create_keyval(MPI_WIN_NULL_COPY_FN, MPI_WIN_NULL_DELETE_FN, &k, NULL) ==
            MPI_SUCCESS)
        __atomic_store_n(&win_keyval, k, __ATOMIC_RELEASE);
    k = win_keyval;
    pthread_mutex_unlock(&lock);
    return k;
}

/* The identity and definitions of a window made over comm. */
static void define_win(int rc, const MPI_Win *win, MPI_Comm comm, const char *how)
{
    int tracing = __atomic_load_n(&instr_mpi_tracing, __ATOMIC_ACQUIRE);
    int defs = __atomic_load_n(&instr_mpi_defs_on, __ATOMIC_ACQUIRE);
    if (!(tracing || defs) || rc != MPI_SUCCESS || !win || *win == MPI_WIN_NULL)
        return;
    uint32_t ref = tracing ? instr_mpi_comm_ref(comm) : UINT32_MAX;
    uint64_t c = instr_mpi_comm_def(comm);
    int key = win_key();
    if (key != MPI_KEYVAL_INVALID) {
        uint64_t v = (uint64_t)ref << 32 | (c == UINT64_MAX ? UINT32_MAX : (uint32_t)c);
        PMPI_Win_set_attr(*win, key, (void *)(uintptr_t)v);
    }
    if (tracing) {
        /* The window's job-wide identity, as a communicator's: its rank 0's world rank and
         * that rank's own window counter, broadcast over the communicator (the creating call
         * is collective over it). */
        int rank = 0, size = 0, world_rank = 0;
        PMPI_Comm_rank(comm, &rank);
        PMPI_Comm_size(comm, &size);
        PMPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
        uint32_t id[2] = {(uint32_t)world_rank, 0};
        if (rank == 0)
            id[1] = __atomic_fetch_add(&win_seq, 1, __ATOMIC_RELAXED);
        PMPI_Bcast(id, 2, MPI_UINT32_T, 0, comm);
        char name[96];
        snprintf(name, sizeof name, "%s (win %u.%u, %d ranks)", how, id[0], id[1], size);
        instr_mpi_trace_win_new(id, name, ref);
    }
    if (!defs)
        return;
    char *n = instr_mem_strdup(how);
    pthread_mutex_lock(&lock);
    uint32_t d = UINT32_MAX;
    if (n && room((void **)&windows, nwindows, &capwindows, sizeof *windows) == 0) {
        windows[nwindows] = (window_def){n, c == UINT64_MAX ? UINT32_MAX : (uint32_t)c};
        d = nwindows++;
    } else {
        instr_mem_free(n);
    }
    pthread_mutex_unlock(&lock);
    if (d != UINT32_MAX)
        instr_ext_plugins_mpi_def(INSTR_SUBSTRATE_DEF_MPI_WINDOW, d);
}

void instr_mpi_win_new(int rc, const MPI_Win *win, MPI_Comm comm, const char *how,
                       const instr_mpi_handle_t *h)
{
    define_win(rc, win, comm, how);
    /* After the definition, as for a communicator: on the window's communicator. */
    instr_mpi_comm_coll_end(h, INSTR_COLL_CREATE_HANDLE, MPI_COMM_NULL);
}

void instr_mpi_win_comm(MPI_Win win, uint32_t *ref, uint64_t *def)
{
    *ref = UINT32_MAX;
    *def = UINT64_MAX;
    int key = __atomic_load_n(&win_keyval, __ATOMIC_ACQUIRE), flag = 0;
    void *v = NULL;
    if (win == MPI_WIN_NULL || key == MPI_KEYVAL_INVALID ||
        PMPI_Win_get_attr(win, key, &v, &flag) != MPI_SUCCESS || !flag)
        return;
    uint64_t u = (uint64_t)(uintptr_t)v;
    *ref = (uint32_t)(u >> 32);
    *def = (uint32_t)u == UINT32_MAX ? UINT64_MAX : (uint32_t)u;
}

int instr_mpi_defs_comm(uint32_t id, instr_substrate_mpi_comm_def *out)
{
    pthread_mutex_lock(&lock);
    int ok = id < ncomms;
    if (ok)
        *out = (instr_substrate_mpi_comm_def){comms[id].name, comms[id].group, comms[id].size,
                                              comms[id].rank, comms[id].leader, comms[id].seq};
    pthread_mutex_unlock(&lock);
    return ok ? 0 : -1;
}

int instr_mpi_defs_remote_group(uint32_t id, uint32_t *group)
{
    pthread_mutex_lock(&lock);
    int ok = id < ncomms && comms[id].remote_group != UINT32_MAX;
    if (ok)
        *group = comms[id].remote_group;
    pthread_mutex_unlock(&lock);
    return ok ? 0 : -1;
}

int instr_mpi_defs_group(uint32_t id, instr_substrate_mpi_group_def *out)
{
    pthread_mutex_lock(&lock);
    int ok = id < ngroups;
    if (ok)
        *out = (instr_substrate_mpi_group_def){groups[id].size, groups[id].ranks};
    pthread_mutex_unlock(&lock);
    return ok ? 0 : -1;
}

int instr_mpi_defs_window(uint32_t id, instr_substrate_mpi_window_def *out)
{
    pthread_mutex_lock(&lock);
    int ok = id < nwindows;
    if (ok)
        *out = (instr_substrate_mpi_window_def){windows[id].name, windows[id].comm};
    pthread_mutex_unlock(&lock);
    return ok ? 0 : -1;
}
