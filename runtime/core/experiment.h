/* experiment.h — the experiment directory: one per run, never overwriting an existing one.
 *
 * Default name instr-<YYYYMMDD_HHMMSS>-<pid> in the current directory, or
 * INSTR_EXPERIMENT_DIRECTORY. When the name exists already, ".1", ".2", ... is appended until
 * mkdir(2) succeeds (mkdir is atomic, so two processes never share one). A forked child
 * writes into <parent's directory>/fork-<pid>, created only when the child writes. */
#ifndef INSTR_RT_EXPERIMENT_H
#define INSTR_RT_EXPERIMENT_H

#include <stdio.h>

/* In an MPI job (libinstr-rt-mpi loaded) at start-up, instead of instr_experiment_create():
 * the directory is made in MPI_Init by instr_experiment_join(); if that never happens,
 * instr_experiment_prepare() creates one as usual. */
void instr_experiment_defer(void);
/* Every process of a job: creates <jobdir>/<sub> (made unique like any experiment directory)
 * as this process's directory and writes instr.cfg there. 0, or -1 after a message. */
int instr_experiment_join(const char *jobdir, const char *sub);
/* At start-up (rank 0 of a job: in MPI_Init). 0, or -1 after one message saying why and what
 * happens instead. */
int instr_experiment_create(void);
/* Absolute path, or NULL when there is none. */
const char *instr_experiment_dir(void);
/* In a forked child: the next instr_experiment_prepare() creates <dir>/fork-<pid>. */
void instr_experiment_forked(int pid);
/* At the end, before writing: creates a forked child's directory. 0, or -1 (message given). */
int instr_experiment_prepare(void);
/* A new file in the experiment directory (O_EXCL: never overwrites), or NULL after a
 * message. */
FILE *instr_experiment_fopen(const char *name);
/* Writes instr.cfg: every INSTR_* variable with its effective value and origin. */
int instr_experiment_write_config(void);

#endif
