/* substrate.h — what a consumer of events (profile writer, trace writer, later plugins)
 * provides to the event core.
 *
 * The core keeps one small dispatch table per event type, built at start-up from the
 * substrates that are switched on and define a callback for that type. An event type that no
 * substrate wants has an empty table; when no substrate wants enter/exit at all the core
 * does not even read the clock or track the stack (state IDLE). A substrate joins by adding
 * itself to the list of the composition unit (runtime/compose/compose.c); the core knows
 * substrates only through this descriptor (docs/architecture.md). */
#ifndef INSTR_RT_SUBSTRATE_H
#define INSTR_RT_SUBSTRATE_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#define INSTR_MAX_SUBSTRATES 8

typedef struct instr_location instr_location;

/* Everything a substrate needs to write its results at the end of measurement. */
typedef struct instr_run {
    const char *dir;                    /* experiment directory, absolute */
    instr_location *const *locations;   /* by id: locations[i]->id == i */
    uint32_t nlocations;
    uint64_t t_start, t_end;            /* ticks */
    time_t wall_start, wall_end;
    int pid, ppid, fork_of;             /* fork_of: parent's pid in a forked child, else 0 */
    uint64_t unmatched_exits, closed_at_end;
    uint64_t dropped_in_handlers; /* events of signal handlers that interrupted the runtime */
    int from_signal; /* written from a termination signal: no job-wide (collective) steps */
} instr_run;

typedef void (*instr_event_fn)(void *data, uint32_t region, uint64_t t);

/* The fast paths a substrate supports (instr_substrate.fast_paths; event.h): the composition
 * unit chooses each event path by these, never by who the substrate is. */
enum {
    /* Its location data is the location's call-path cursor (cursor.h) and its enter/exit are
     * the cursor's steps: alone, the cursor is the thread's only stack (INSTR_FAST_INLINE,
     * INSTR_FAST_CURSOR). At most one active substrate has it. */
    INSTR_SUBSTRATE_CURSOR = 1u << 0,
    /* Rides on the cursor path, before the cursor's own steps (the metrics read into the
     * node, INSTR_FAST_TABLE). */
    INSTR_SUBSTRATE_CURSOR_BEFORE = 1u << 1,
    /* Rides on the cursor path, after the cursor's own steps (substrate plugins,
     * INSTR_FAST_TABLE). */
    INSTR_SUBSTRATE_CURSOR_AFTER = 1u << 2,
    /* Alone, its functions are called directly on the core's stack (INSTR_FAST_TABLE). */
    INSTR_SUBSTRATE_DIRECT_ALONE = 1u << 3,
    /* Its location data takes compact records (record.h): alone, the sources append them
     * themselves (INSTR_FAST_TRACE, the direct path); it then implements open_regions. */
    INSTR_SUBSTRATE_RECORDS = 1u << 4,
    /* Rides on the cursor path before the cursor's own steps, counting visits per region in
     * counts the cursor's nodes point to (instr_rcount, cursor.h; INSTR_FAST_TABLE): it then
     * implements instr_cct_counts_of and instr_cct_counts_reached. At most one active
     * substrate has it. */
    INSTR_SUBSTRATE_COUNTS = 1u << 5,
    /* Rides on the cursor path after the cursor's own steps: its own enter/exit are called,
     * with the cursor taken and the cursor's time, for every frame the cursor opens or
     * closes, fast or slow (instr_pstate.xenter, cursor.h; INSTR_FAST_TABLE). Its location
     * data begins with an instr_xcharge (xcharge.h), whose common case the cursor does
     * itself instead of calling them. At most one active substrate has it. */
    INSTR_SUBSTRATE_CURSOR_EVENTS = 1u << 6,
};

typedef struct instr_substrate {
    const char *name;
    /* 1 when the configuration switches it on. */
    int (*wanted)(void);
    /* Once, at start-up; 0 when ready. */
    int (*init)(void);
    /* After init: 1 when its enter and exit take part in events (NULL: whenever it defines
     * them); 0 keeps events on the paths they take without it. */
    int (*at_events)(void);
    /* INSTR_SUBSTRATE_* flags: the fast paths it supports (0: the generic path only). */
    unsigned fast_paths;
    /* Per location (thread), on its first event; the returned pointer is passed back as
     * `data`. NULL means this substrate ignores the location. */
    void *(*location_begin)(instr_location *loc);
    /* Per location, on its thread when the thread ends, after its open regions were closed
     * at t; NULL: nothing to do (locations alive at the program's end are ended by `write`). */
    void (*location_end)(void *data, uint64_t t);
    /* Hot path: per-thread data only, no locks, no allocation after warm-up. NULL: the
     * substrate does not want the event type. Calls are balanced per location: the core
     * repairs unbalanced input and closes open regions at thread and program end. */
    instr_event_fn enter;
    instr_event_fn exit;
    /* In a forked child, for the forking thread's location: drop the parent's data, keep the
     * open regions as if entered at t. */
    void (*fork_child)(void *data, uint64_t t);
    /* The direct path only (INSTR_SUBSTRATE_RECORDS, event.h), on the location's own thread
     * when it leaves the path: writes the regions open in what the location recorded into out, outermost
     * first, at most cap of them. Returns how many are open (above cap: call again with
     * more room), or UINT32_MAX when that cannot be known now (a signal handler interrupted
     * the substrate's own work). */
    uint32_t (*open_regions)(void *data, uint32_t *out, uint32_t cap);
    /* At the end: write results into run->dir. Appends the names of the files written to
     * `files` (", " separated). Returns 0, or -1 after a message. */
    int (*write)(const instr_run *run, char *files, size_t size);
} instr_substrate;

/* Slot of a substrate in instr_location.sub[], or -1 when it is not active. */
int instr_substrate_slot(const instr_substrate *s);
/* Slot of the first active substrate whose fast_paths have flag, or -1. */
int instr_substrate_slot_with(unsigned flag);

#endif
