/* instr_substrate_plugin.h — the substrate (event consumer) plugin interface of libinstr-rt,
 * version 4.
 *
 * A substrate plugin is a shared object libinstr_substrate_<name>.so, loaded when <name> is
 * listed in INSTR_SUBSTRATE_PLUGINS (searched in INSTR_PLUGIN_PATH, then the library path).
 * It exports one function, named by INSTR_SUBSTRATE_PLUGIN_ENTRY, that returns its
 * description: the ABI version first, then its management callbacks and the application
 * events it wants. The runtime checks the version before it reads anything else, and leaves
 * out (with one line naming the variable and the plugin) a plugin that is missing, has no
 * entry point, has another version or fails to initialise. docs/plugins.md has the whole
 * story, the order of the calls and a complete example.
 *
 * Every event a plugin does not want is NULL in its description: the runtime keeps one
 * null-terminated list of functions per event type, and an event type that no plugin (and no
 * built-in substrate) wants is not dispatched at all.
 *
 * Application events run on the thread whose location they name, in the program's hot path:
 * keep them short (no locks of the program's, no blocking). Management events and the
 * callbacks may be used from any thread unless said otherwise. */
#ifndef INSTR_SUBSTRATE_PLUGIN_H
#define INSTR_SUBSTRATE_PLUGIN_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Version 2 added `flags` at the end of instr_substrate_plugin_info; version 3 added `mpi`
 * after it (non-blocking collectives, persistent requests), the definitions of MPI
 * communicators, groups and windows (new_definition, the mpi_*_def callbacks), and names a
 * communicator in every MPI event by its definition. The runtime still loads version 1 and 2
 * plugins: it reads their description only up to `events` (1) or `flags` (2), never calls
 * new_definition with an MPI definition for them, and their MPI events name a communicator
 * by its Fortran handle as before. Version 4 changed no structure: it added two collective
 * operations (INSTR_SUBSTRATE_COLL_CREATE_HANDLE, _DESTROY_HANDLE: the creation and free of
 * communicators and RMA windows as collectives, on the communicator concerned; a window's on
 * its communicator), which only plugins of version 4 get; a version 3 plugin
 * gets every other event as before and never sees an operation it does not know. */
#define INSTR_SUBSTRATE_PLUGIN_VERSION 4u
#define INSTR_SUBSTRATE_PLUGIN_VERSION_MIN 1u

/* instr_substrate_plugin_info.flags (version 2). */
/* Reentrant: the plugin's enter_region and exit_region may be interrupted by a signal handler
 * of the same thread whose events call them again, on the same location, before the
 * interrupted call returns (they only do per-location or atomic arithmetic on memory they
 * own, as an async-signal-safe function would: no lock, no allocation, no read-modify-write
 * that a nested call could come between). The runtime then calls them without keeping such
 * a handler's events away, which costs fewer instructions per event, and records the
 * handler's events for the plugin where it otherwise drops them. Without the flag a
 * location's enter and exit are never re-entered. docs/plugins.md, "Reentrant plugins". */
#define INSTR_SUBSTRATE_PLUGIN_REENTRANT 0x1u

/* A location: one thread of the program. Opaque; its id, name, thread and rank come from the
 * callbacks, and each plugin has one pointer-sized data slot in it. */
typedef struct instr_substrate_location instr_substrate_location;

enum instr_substrate_location_type {
    INSTR_SUBSTRATE_LOCATION_CPU_THREAD = 0, /* a thread of the program */
    INSTR_SUBSTRATE_LOCATION_OPENMP_THREAD   /* a worker thread of the OpenMP runtime (OMPT) */
};

/* What made a region. */
enum instr_substrate_region_kind {
    INSTR_SUBSTRATE_REGION_FUNCTION = 0, /* compiler instrumentation, XRay, cyg hooks */
    INSTR_SUBSTRATE_REGION_USER,         /* instr_region_begin/end */
    INSTR_SUBSTRATE_REGION_MPI,          /* an MPI call (libinstr-rt-mpi) */
    INSTR_SUBSTRATE_REGION_OPENMP        /* an OpenMP construct (OMPT) */
};

/* new_definition: what was defined. */
enum instr_substrate_definition {
    INSTR_SUBSTRATE_DEF_REGION = 0,  /* handle: the region (region_* callbacks) */
    INSTR_SUBSTRATE_DEF_METRIC,      /* handle: index of a synchronous metric (metric_*) */
    INSTR_SUBSTRATE_DEF_ASYNC_METRIC, /* handle: index of an asynchronous one (async_metric_*) */
    INSTR_SUBSTRATE_DEF_LOCATION,    /* handle: the location's id, just before create_location */
    /* Version 3 plugins only, in an MPI job, before the first event that names them: */
    INSTR_SUBSTRATE_DEF_MPI_COMM,    /* handle: a communicator's id (mpi_comm_def) */
    INSTR_SUBSTRATE_DEF_MPI_GROUP,   /* handle: a group's id (mpi_group_def) */
    INSTR_SUBSTRATE_DEF_MPI_WINDOW   /* handle: an RMA window's id (mpi_window_def) */
};

/* Version 3: an MPI communicator's definition. Ids are the process's own: 0 is
 * MPI_COMM_WORLD, 1 MPI_COMM_SELF, then 2, 3, ... in the order the process's calls made them.
 * leader and seq name the same communicator on every rank of it: the world rank of its rank
 * 0 and that rank's own counter (world: UINT32_MAX and 0, self: UINT32_MAX and 1). An
 * inter-communicator (MPI_Intercomm_create, and MPI_Comm_dup, _idup, _split, _create of one)
 * is defined by its local group here (group, size, rank) and its remote group
 * (mpi_comm_remote_group); its leader is rank 0 of the group whose rank 0 has the lower
 * world rank, the same on both sides. */
typedef struct instr_substrate_mpi_comm_def {
    const char *name;  /* "MPI_COMM_WORLD", "MPI_COMM_SELF", or the creating call's name */
    uint32_t group;    /* its members (an inter-communicator's local group): a group's id */
    uint32_t size;     /* number of ranks (an inter-communicator's local group's) */
    int32_t rank;      /* this process's rank in it (in the local group) */
    uint32_t leader, seq;
} instr_substrate_mpi_comm_def;

/* Version 3: a group of processes (the members of one or more communicators), by their
 * ranks in MPI_COMM_WORLD. The array lives until the end. */
typedef struct instr_substrate_mpi_group_def {
    uint32_t size;
    const int32_t *world_ranks; /* size entries, the group's rank order */
} instr_substrate_mpi_group_def;

/* Version 3: an RMA window (MPI_Win_create, _allocate, _allocate_shared, _create_dynamic). */
typedef struct instr_substrate_mpi_window_def {
    const char *name;  /* the creating call's name */
    uint32_t comm;     /* its communicator's id; UINT32_MAX when that one is not defined */
} instr_substrate_mpi_window_def;

/* Data types and operations of the communication callbacks. */
enum instr_substrate_type {
    INSTR_SUBSTRATE_BYTE = 0, INSTR_SUBSTRATE_INT32, INSTR_SUBSTRATE_UINT32,
    INSTR_SUBSTRATE_INT64, INSTR_SUBSTRATE_UINT64, INSTR_SUBSTRATE_DOUBLE
};
enum instr_substrate_op { INSTR_SUBSTRATE_SUM = 0, INSTR_SUBSTRATE_MIN, INSTR_SUBSTRATE_MAX };

/* Callbacks into the runtime, valid from initialize on until after finalize. */
typedef struct instr_substrate_callbacks {
    uint32_t size; /* sizeof(instr_substrate_callbacks) of the runtime */

    /* Regions, by the handle events carry (1, 2, ...). Strings live until the end; "" (or 0)
     * for a handle the runtime does not know. */
    const char *(*region_name)(uint32_t region);    /* demangled display name */
    const char *(*region_mangled)(uint32_t region); /* linkage name */
    const char *(*region_file)(uint32_t region);    /* "" when unknown */
    uint32_t (*region_line_begin)(uint32_t region);
    uint32_t (*region_line_end)(uint32_t region);
    uint32_t (*region_kind)(uint32_t region);       /* enum instr_substrate_region_kind */
    uint32_t (*region_count)(void);                 /* handles 1..count are valid */

    /* Locations. */
    uint32_t (*location_id)(const instr_substrate_location *loc); /* 0, 1, ... per process */
    const char *(*location_name)(const instr_substrate_location *loc);
    uint32_t (*location_type)(const instr_substrate_location *loc);
    int32_t (*location_thread)(const instr_substrate_location *loc); /* OS thread id */
    /* The process's MPI rank: 0 without MPI, and before MPI_Init. */
    int32_t (*location_rank)(const instr_substrate_location *loc);
    /* The plugin's own slot in the location (NULL until set); plugin_id: from initialize. */
    void *(*location_get_data)(const instr_substrate_location *loc, uint32_t plugin_id);
    void (*location_set_data)(instr_substrate_location *loc, uint32_t plugin_id, void *data);

    /* The strictly synchronous and synchronous metrics (fixed at start-up): what the values
     * passed with enter and exit mean, by index. */
    uint32_t (*metric_count)(void);
    const char *(*metric_name)(uint32_t index);
    const char *(*metric_unit)(uint32_t index);
    uint32_t (*metric_value_type)(uint32_t index); /* enum instr_metric_value_type */
    /* The asynchronous metrics (their values: events.async_metric_value). */
    uint32_t (*async_metric_count)(void);
    const char *(*async_metric_name)(uint32_t index);
    const char *(*async_metric_unit)(uint32_t index);
    uint32_t (*async_metric_value_type)(uint32_t index);

    /* The runtime's clock, whose readings are the events' timestamps. */
    uint64_t (*clock_ticks)(void);
    uint64_t (*clock_frequency)(void); /* ticks per second */

    /* The plugin's own variable INSTR_<NAME>_<suffix> (NAME: the plugin's name in upper case,
     * '-' as '_'), read like every INSTR_* variable (never in a privileged process); NULL
     * when unset. The runtime does not warn about INSTR_<NAME>_* as unknown variables. */
    const char *(*config)(uint32_t plugin_id, const char *suffix);

    /* Communication between the processes of an MPI job, on a private communicator of the
     * runtime (PMPI), collective over all processes; usable from init_mpp until write_data
     * returned. Without MPI: rank 0 of 1, and each call does what it would do there (the
     * barrier returns, gather and reduce copy). 0 on success. */
    int32_t (*comm_rank)(void);
    int32_t (*comm_size)(void);
    int32_t (*comm_barrier)(void);
    int32_t (*comm_bcast)(void *buf, uint64_t count, uint32_t type, int32_t root);
    /* recv (root only): count * size elements, rank by rank. */
    int32_t (*comm_gather)(const void *send, void *recv, uint64_t count, uint32_t type,
                           int32_t root);
    int32_t (*comm_reduce)(const void *send, void *recv, uint64_t count, uint32_t type,
                           uint32_t op, int32_t root);

    /* Version 3 (present when size covers them): the MPI definitions new_definition
     * announced, by id; 0 and *out filled, or -1 for an id not defined (or without MPI). */
    int32_t (*mpi_comm_def)(uint32_t comm, instr_substrate_mpi_comm_def *out);
    int32_t (*mpi_group_def)(uint32_t group, instr_substrate_mpi_group_def *out);
    int32_t (*mpi_window_def)(uint32_t window, instr_substrate_mpi_window_def *out);
    /* Version 3, present when size covers it: an inter-communicator's remote group (0 and
     * *group set; -1 for an intra-communicator or an id not defined). The partner of a
     * message on an inter-communicator is a rank in this group. */
    int32_t (*mpi_comm_remote_group)(uint32_t comm, uint32_t *group);
} instr_substrate_callbacks;

/* What initialize gets. */
typedef struct instr_substrate_init {
    uint32_t plugin_id; /* this plugin's id: its data slot, its config() */
    const char *name;   /* as listed in INSTR_SUBSTRATE_PLUGINS */
    const instr_substrate_callbacks *cb;
} instr_substrate_init;

/* MPI collective operations (mpi_collective_end), numbered as OTF2's. New operations are
 * appended with OTF2's numbers, never renumbered; a plugin gets only those of its version. */
enum instr_substrate_collective {
    INSTR_SUBSTRATE_COLL_BARRIER = 0, INSTR_SUBSTRATE_COLL_BCAST, INSTR_SUBSTRATE_COLL_GATHER,
    INSTR_SUBSTRATE_COLL_GATHERV, INSTR_SUBSTRATE_COLL_SCATTER, INSTR_SUBSTRATE_COLL_SCATTERV,
    INSTR_SUBSTRATE_COLL_ALLGATHER, INSTR_SUBSTRATE_COLL_ALLGATHERV,
    INSTR_SUBSTRATE_COLL_ALLTOALL, INSTR_SUBSTRATE_COLL_ALLTOALLV,
    INSTR_SUBSTRATE_COLL_ALLTOALLW, INSTR_SUBSTRATE_COLL_ALLREDUCE, INSTR_SUBSTRATE_COLL_REDUCE,
    INSTR_SUBSTRATE_COLL_REDUCE_SCATTER, INSTR_SUBSTRATE_COLL_SCAN, INSTR_SUBSTRATE_COLL_EXSCAN,
    INSTR_SUBSTRATE_COLL_REDUCE_SCATTER_BLOCK,
    /* Version 4: a call that makes communicators (MPI_Comm_dup, _split, _create, ...; root
     * NONE, sizes 0) on the communicator it is collective over (MPI_Comm_create_group: the
     * new one), MPI_Comm_idup as a non-blocking one; MPI_Comm_free and MPI_Comm_disconnect
     * on the freed one; MPI_Comm_accept, _connect, _spawn on their comm argument,
     * MPI_Comm_join on MPI_COMM_SELF; an RMA window's creation and MPI_Win_free on the
     * window's communicator. */
    INSTR_SUBSTRATE_COLL_CREATE_HANDLE = 17, INSTR_SUBSTRATE_COLL_DESTROY_HANDLE = 18
};

/* Application events. Every one carries the location (of the calling thread) and the time in
 * clock ticks. */
typedef void (*instr_substrate_region_fn)(instr_substrate_location *loc, uint64_t timestamp,
                                          uint32_t region, const uint64_t *metric_values);
/* A message: partner (rank in the communicator; on an inter-communicator, in its remote
 * group, as MPI has it), communicator (version 3: its definition's id,
 * INSTR_SUBSTRATE_DEF_MPI_COMM, UINT64_MAX when it has none; versions 1 and 2: its Fortran
 * handle, MPI_Comm_c2f), tag, bytes. */
typedef void (*instr_substrate_mpi_msg_fn)(instr_substrate_location *loc, uint64_t timestamp,
                                           int32_t partner, uint64_t comm, int32_t tag,
                                           uint64_t bytes);
typedef void (*instr_substrate_mpi_coll_begin_fn)(instr_substrate_location *loc,
                                                  uint64_t timestamp);
/* A thread event without more to say (thread begin/end, OpenMP join). */
typedef void (*instr_substrate_plain_fn)(instr_substrate_location *loc, uint64_t timestamp);
/* An event about an object: an MPI request, an OpenMP team's size (fork), task or lock. */
typedef void (*instr_substrate_id_fn)(instr_substrate_location *loc, uint64_t timestamp,
                                       uint64_t what);
/* A non-blocking message: as instr_substrate_mpi_msg_fn, and its request's id (unique in
 * the process, never 0). */
typedef void (*instr_substrate_mpi_req_msg_fn)(instr_substrate_location *loc,
                                               uint64_t timestamp, int32_t partner,
                                               uint64_t comm, int32_t tag, uint64_t bytes,
                                               uint64_t request);
/* op: enum instr_substrate_collective; root: rank in the communicator, -1 when none; on an
 * inter-communicator the root's rank in the remote group, or at the root's own group
 * INSTR_SUBSTRATE_ROOT_SELF (the root, MPI_ROOT) and INSTR_SUBSTRATE_ROOT_THIS_GROUP (its
 * other ranks, MPI_PROC_NULL). */
enum instr_substrate_root {
    INSTR_SUBSTRATE_ROOT_NONE = -1, INSTR_SUBSTRATE_ROOT_SELF = -2,
    INSTR_SUBSTRATE_ROOT_THIS_GROUP = -3
};
typedef void (*instr_substrate_mpi_coll_end_fn)(instr_substrate_location *loc,
                                                uint64_t timestamp, uint32_t op, uint64_t comm,
                                                int32_t root, uint64_t bytes_sent,
                                                uint64_t bytes_received);

/* Version 3: a non-blocking collective (MPI_Ibarrier, MPI_Iallreduce, ...): as
 * instr_substrate_mpi_coll_end_fn, and its request's id (unique in the process, never 0). */
typedef void (*instr_substrate_mpi_icoll_fn)(instr_substrate_location *loc,
                                             uint64_t timestamp, uint32_t op, uint64_t comm,
                                             int32_t root, uint64_t bytes_sent,
                                             uint64_t bytes_received, uint64_t request);
/* Version 3: a persistent request made (MPI_Send_init and its modes: kind
 * INSTR_SUBSTRATE_PERSISTENT_SEND; MPI_Recv_init: _RECV): partner (MPI_ANY_SOURCE allowed
 * for a receive), communicator, tag, bytes (a receive's: the most it may take), and its
 * request's id, the same for every start of it. */
enum instr_substrate_persistent_kind {
    INSTR_SUBSTRATE_PERSISTENT_SEND = 0, INSTR_SUBSTRATE_PERSISTENT_RECV
};
typedef void (*instr_substrate_mpi_persistent_fn)(instr_substrate_location *loc,
                                                  uint64_t timestamp, uint32_t kind,
                                                  int32_t partner, uint64_t comm, int32_t tag,
                                                  uint64_t bytes, uint64_t request);

/* Version 3: MPI events in instr_substrate_plugin_info.mpi, inside the MPI call's region. */
typedef struct instr_substrate_mpi_events {
    /* A non-blocking collective: begin in the call that starts it, with its sizes; end in
     * the wait or test that completes it (the same arguments). */
    instr_substrate_mpi_icoll_fn mpi_icollective_begin;
    instr_substrate_mpi_icoll_fn mpi_icollective_end;
    /* Persistent requests: init when made; start for each MPI_Start, and for each request of
     * an MPI_Startall; complete in the wait or test that completes one start (a send with
     * the init's partner, tag and bytes; a receive with the status's; a cancelled receive
     * gets none); free in MPI_Request_free. */
    instr_substrate_mpi_persistent_fn mpi_persistent_init;
    instr_substrate_id_fn mpi_persistent_start;
    instr_substrate_mpi_req_msg_fn mpi_persistent_complete;
    instr_substrate_id_fn mpi_persistent_free;
} instr_substrate_mpi_events;

typedef struct instr_substrate_events {
    /* Enter and exit of a region, balanced per location (regions still open at a thread's
     * or the program's end are exited then). metric_values: the metric_count() values of
     * the strictly synchronous and synchronous metrics at this instant, or NULL when none
     * is on. */
    instr_substrate_region_fn enter_region;
    instr_substrate_region_fn exit_region;
    /* MPI (libinstr-rt-mpi), inside the MPI call's region. Blocking point-to-point: a send
     * (MPI_Send and its modes, MPI_Sendrecv's send), a receive on return (partner and tag
     * from the status). */
    instr_substrate_mpi_msg_fn mpi_send;
    instr_substrate_mpi_msg_fn mpi_recv;
    /* Non-blocking point-to-point, by request: a send when posted (MPI_Isend and its modes)
     * and its completion (in the wait or test that completed it); a receive when posted
     * (mpi_irecv_request) and when it completed (mpi_irecv, partner and tag from the status;
     * a cancelled receive gets none). */
    instr_substrate_mpi_req_msg_fn mpi_isend;
    instr_substrate_id_fn mpi_isend_complete;
    instr_substrate_id_fn mpi_irecv_request;
    instr_substrate_mpi_req_msg_fn mpi_irecv;
    /* Blocking collectives: begin before the operation, end after it with its sizes.
     * Non-blocking collectives: instr_substrate_mpi_events (version 3). */
    instr_substrate_mpi_coll_begin_fn mpi_collective_begin;
    instr_substrate_mpi_coll_end_fn mpi_collective_end;
    /* Threads: the location's first event is just after thread_begin; thread_end comes after
     * its last one (at the thread's end, or the program's for threads alive then). */
    instr_substrate_plain_fn thread_begin;
    instr_substrate_plain_fn thread_end;
    /* OpenMP (OMPT, LLVM's libomp), on the thread the runtime reports them on, inside the
     * regions of the constructs: fork (what: the team size asked for) before the parallel
     * region's enter, join after its exit; explicit tasks by their OMPT task data address:
     * created (on the creating thread), switched to (the task starts or resumes on this
     * thread), completed; locks, critical, ordered and atomic sections by their OMPT wait
     * id: acquired, released. */
    instr_substrate_id_fn omp_fork;
    instr_substrate_plain_fn omp_join;
    instr_substrate_id_fn omp_task_create;
    instr_substrate_id_fn omp_task_switch;
    instr_substrate_id_fn omp_task_complete;
    instr_substrate_id_fn omp_acquire_lock;
    instr_substrate_id_fn omp_release_lock;
    /* The values of the asynchronous metrics (metric plugins that collect on their own),
     * handed over at the end, in time order, before pre_unify: which metric (index of
     * async_metric_*), when, the value (a 64-bit word of its value type). No location: such
     * metrics belong to a process, a host or the job. */
    void (*async_metric_value)(uint32_t metric, uint64_t timestamp, uint64_t value);
} instr_substrate_events;

typedef struct instr_substrate_plugin_info {
    /* INSTR_SUBSTRATE_PLUGIN_VERSION: read first, and nothing else when it is not one this
     * runtime knows (INSTR_SUBSTRATE_PLUGIN_VERSION_MIN .. INSTR_SUBSTRATE_PLUGIN_VERSION). */
    uint32_t plugin_version;
    uint32_t reserved;

    /* Management events, in the order they happen; each may be NULL. */
    /* Once, before anything else; 0 when ready. After a failure the plugin is left out and
     * nothing else of it is called. */
    int32_t (*initialize)(const instr_substrate_init *init);
    /* An MPI job: the communication callbacks reach every process from now on. Not called
     * in a process without MPI. */
    void (*init_mpp)(void);
    /* A definition the events will name (enum instr_substrate_definition). Regions: when
     * they register (on the thread of their first event, under the registry's lock: do not
     * block); metrics: before the first location. */
    void (*new_definition)(uint32_t kind, uint32_t handle);
    /* A location is created (on its thread, before its first event) and activated; at the
     * thread's end (or the program's, for threads still alive then) it is deactivated and
     * deleted, after its last event. */
    void (*create_location)(instr_substrate_location *loc, uint32_t type);
    void (*activate_location)(instr_substrate_location *loc);
    void (*deactivate_location)(instr_substrate_location *loc);
    void (*delete_location)(instr_substrate_location *loc);
    /* The end, on the thread that ends the program: every location was deleted. Then the
     * results are written: write_data gets the experiment directory (the process's own
     * directory in an MPI job: <job>/rank-N); 0 on success, else -1 after a message of the
     * plugin's own. Files: created with O_EXCL, named after the plugin. */
    void (*pre_unify)(void);
    int32_t (*write_data)(const char *experiment_directory);
    /* Last: nothing of the plugin is called afterwards. */
    void (*finalize)(void);

    /* The application events the plugin wants (NULL entries: not wanted). */
    instr_substrate_events events;

    /* Version 2. INSTR_SUBSTRATE_PLUGIN_* flags (INSTR_SUBSTRATE_PLUGIN_REENTRANT); 0: none.
     * Bits this runtime does not know are ignored. */
    uint32_t flags;

    /* Version 3. The MPI events the plugin wants besides those of `events`. */
    instr_substrate_mpi_events mpi;
} instr_substrate_plugin_info;

/* The entry point's name, and a macro to define it:
 *   INSTR_SUBSTRATE_PLUGIN_ENTRY { static instr_substrate_plugin_info info = {...};
 *                                  return &info; } */
#define INSTR_SUBSTRATE_PLUGIN_ENTRY_NAME "instr_substrate_plugin_get_info"
#define INSTR_SUBSTRATE_PLUGIN_ENTRY                                                          \
    __attribute__((visibility("default"))) const instr_substrate_plugin_info *               \
    instr_substrate_plugin_get_info(void)

#ifdef __cplusplus
}
#endif

#endif
