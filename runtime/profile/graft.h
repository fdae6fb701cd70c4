/* graft.h — the profile's one interface for threading adapters (runtime/ompt/): a thread's
 * work continues the call path of another thread.
 *
 * An OpenMP worker runs its implicit task on behalf of the thread that forked the team, and
 * an explicit task on behalf of the thread that created it. While a graft is in force, what
 * the location records goes into its own tree (its own visits and times, no sharing), but
 * under a graft node that remembers the other thread's call-path node (the fork point). At
 * the end of measurement, before anything is written, instr_profile_resolve_grafts gives each
 * graft its real place: the fork point's call path is re-created in the location's tree
 * (visits 0, the grafted work's time as inclusive time) and the grafted subtree moves under
 * it. Every writer, the thread merge and the job profile then see ordinary trees. */
#ifndef INSTR_RT_PROFILE_GRAFT_H
#define INSTR_RT_PROFILE_GRAFT_H

#include "../core/substrate.h"

#include <stdint.h>

/* The call-path node `loc` is in now (opaque; NULL without a profile). Valid to the end of
 * measurement; another thread may graft under it once the caller's synchronisation (the
 * OpenMP runtime's fork, its task queue) orders the two. */
const void *instr_profile_cursor(instr_location *loc);
/* The node above a cursor (NULL at the root), and the region of a cursor's node (0: none). */
const void *instr_profile_cursor_parent(const void *cursor);
uint32_t instr_profile_cursor_region(const void *cursor);

typedef struct instr_profile_graft {
    void *saved;    /* the location's own node at the grafted depth; NULL: no graft */
    uint32_t depth; /* the profile stack depth it was grafted at */
} instr_profile_graft;

/* From now on, what `loc` records (on its own thread) goes under `cursor` of another
 * location, until instr_profile_graft_end. Grafts nest (LIFO). With no profile, or no memory
 * for the graft node, g->saved stays NULL and the location records as before. */
void instr_profile_graft_begin(instr_location *loc, const void *cursor, instr_profile_graft *g);
/* Ends a graft, after the regions opened under it were closed. Called by the location's
 * thread, or by a thread that the OpenMP runtime orders against it (a team's master for its
 * parked workers). */
void instr_profile_graft_end(instr_location *loc, const instr_profile_graft *g);

/* At the end, once, before the trees are merged or written (profile.c). */
void instr_profile_resolve_grafts(const instr_run *run, int slot);

#endif
