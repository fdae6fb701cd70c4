/* substrate_plugins.h — INSTR_SUBSTRATE_PLUGINS: the substrate that hands the event stream to
 * substrate plugins (include/instr_substrate_plugin.h, docs/plugins.md).
 *
 * One built-in substrate stands for all loaded plugins: the core dispatches to it like to the
 * profile or the trace, and it calls the null-terminated list of the plugins' functions for
 * the event. Its enter/exit are set only when a plugin wants them, and it is not active at
 * all without a loaded plugin: events then take exactly the paths they take without it. */
#ifndef INSTR_RT_SUBSTRATE_PLUGINS_H
#define INSTR_RT_SUBSTRATE_PLUGINS_H

#include "../core/substrate.h"
#include "../include/instr_substrate_plugin.h"

#include <stddef.h>

extern instr_substrate instr_plugins_substrate;

/* The plugins' enter and exit functions, null-terminated lists (set at start-up). */
extern instr_substrate_region_fn instr_plugins_enter_list[], instr_plugins_exit_list[];

/* 1 when every plugin that wants enter or exit declared INSTR_SUBSTRATE_PLUGIN_REENTRANT (set
 * at start-up): the cursor path and the direct path then call them without keeping a signal
 * handler's events away (docs/plugins.md, "Reentrant plugins"). */
extern int instr_plugins_reentrant;

/* The plugins alone with the TSC (runtime/compose/): the adapters' slow paths call them
 * directly on the core's stack (direct.c). Before instr_fast is set. */
void instr_plugins_direct_on(void);

/* Communication between processes for plugins (instr_substrate_callbacks comm_*): set by
 * libinstr-rt-mpi once MPI is initialised; NULL: the single-process versions. */
struct instr_plugins_comm {
    int (*rank)(void);
    int (*size)(void);
    int (*barrier)(void);
    int (*bcast)(void *buf, uint64_t count, uint32_t type, int root);
    int (*gather)(const void *send, void *recv, uint64_t count, uint32_t type, int root);
    int (*reduce)(const void *send, void *recv, uint64_t count, uint32_t type, uint32_t op,
                  int root);
    /* The MPI definitions (version 3 callbacks mpi_*_def): 0, or -1 when not defined. */
    int (*comm_def)(uint32_t id, instr_substrate_mpi_comm_def *out);
    int (*group_def)(uint32_t id, instr_substrate_mpi_group_def *out);
    int (*window_def)(uint32_t id, instr_substrate_mpi_window_def *out);
    /* An inter-communicator's remote group (mpi_comm_remote_group): 0, or -1. */
    int (*remote_group)(uint32_t id, uint32_t *group);
};
typedef struct instr_plugins_comm instr_plugins_comm;

/* OpenMP events for plugins (runtime/ompt/), on the calling thread; instr_plugins_omp is 1
 * when a plugin registered for one of them (set at start-up), so that adapters test one
 * flag and call nothing otherwise. */
enum instr_plugins_omp_event {
    INSTR_PLUGINS_OMP_FORK, INSTR_PLUGINS_OMP_JOIN, INSTR_PLUGINS_OMP_TASK_CREATE,
    INSTR_PLUGINS_OMP_TASK_SWITCH, INSTR_PLUGINS_OMP_TASK_COMPLETE,
    INSTR_PLUGINS_OMP_ACQUIRE_LOCK, INSTR_PLUGINS_OMP_RELEASE_LOCK, INSTR_PLUGINS_OMP_N
};
extern int instr_plugins_omp;
/* Set by the OMPT adapter on a worker thread of the OpenMP runtime before its location is
 * created: its location type for plugins. */
extern _Thread_local int instr_plugins_openmp_worker;
void instr_plugins_omp_event(int event, uint64_t what);

#endif
