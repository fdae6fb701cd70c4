/* compose.h — what the composition unit (runtime/compose/) gives the event core: the
 * substrates and event sources this runtime has, and the choice of the event path.
 *
 * The core declares it and the unit on top defines it, so that the core knows no substrate
 * and no source by name (docs/architecture.md, "Layers"). */
#ifndef INSTR_RT_COMPOSE_H
#define INSTR_RT_COMPOSE_H

#include "sources.h"
#include "substrate.h"

typedef struct instr_composition {
    /* In dispatch order: a substrate sees an event after the ones before it. */
    const instr_substrate *const *substrates;
    unsigned nsubstrates;
    /* Registered (sources.h) and started at start-up, after the run-time filter is read. */
    const instr_source *const *sources;
    unsigned nsources;
    /* Start-up, once the dispatch tables are built and the sources started, before events
     * are recorded: sets the path flag (instr_fast, event.h) and the jump table
     * (event_path.h) from the fast paths the active substrates declare. */
    void (*choose_paths)(void);
    /* Once recording runs, on the thread that started the runtime (NULL: nothing): sources
     * that record without events (sampling) make that thread a location now. */
    void (*started)(void);
} instr_composition;

extern const instr_composition instr_runtime_composition;

#endif
