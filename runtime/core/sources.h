/* sources.h — what an event source offers the rest of the runtime: operations registered by
 * the source (at start-up, by the composition unit), called by whoever needs them without
 * knowing the source. Throttling (runtime/throttle/) changes a region's handle in its
 * source this way; hooks, cyg and XRay offer it (docs/architecture.md, "Event sources"). */
#ifndef INSTR_RT_SOURCES_H
#define INSTR_RT_SOURCES_H

#include <stdint.h>

typedef struct instr_source {
    int id; /* enum instr_region_source (registry.h): the regions this source registers */
    const char *name;
    /* The source's function at addr gets handle h from its next event on, on every thread
     * (INSTR_HANDLE_THROTTLING, INSTR_HANDLE_EXCLUDED: a region taken out while the program
     * runs); `final`: for good (XRay also unpatches its sleds). Called from an event of the
     * function, so it only tries its locks. 0 when done; 1 when the source has no such
     * function (it cannot be taken out); -1 when a lock is taken: try again later. NULL:
     * the source's regions keep their handles. */
    int (*set_handle)(const void *addr, uint32_t h, int final);
    /* Start-up, after the run-time filter is read (hooks: registers the descriptors of the
     * objects loaded so far); NULL: nothing to do. */
    void (*start)(void);
} instr_source;

/* Start-up, before the first event: the source of regions with source->id. */
void instr_source_register(const instr_source *source);
/* The source registered for id, or NULL. */
const instr_source *instr_source_of(int id);

/* set_handle for a source whose address table the registry lock guards (hooks, cyg):
 * set_locked(addr, h) under the registry lock, only tried (the end of a thread closes its
 * frames, and may get here, with the location lock held, which fork's handler takes after
 * the registry's); set_locked says whether addr was found. set_handle's return values. */
int instr_source_set_handle_in_registry(int (*set_locked)(const void *addr, uint32_t h),
                                        const void *addr, uint32_t h);

#endif
