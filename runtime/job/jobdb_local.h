/* jobdb_local.h — this process's part of the job database (jobdb.h) from its profile: every
 * location is a thread index, every call-tree node a path with one row per location that has
 * it (jobdb_local.c). */
#ifndef INSTR_RT_JOBDB_LOCAL_H
#define INSTR_RT_JOBDB_LOCAL_H

#include "jobdb.h"
#include "../core/substrate.h"

/* At the end, after the profile was written (its nodes are still there): 0, or -1 when the
 * profile substrate is off or memory ran out (out is then empty). */
int instr_jdb_local_build(const instr_run *run, instr_jdb_local *out);

#endif
