/* critpath.h — the on-the-fly critical path (INSTR_CRITICAL_PATH=1; docs/critical-path.md).
 *
 * After OTF-CPT: every process keeps the length of the longest path of dependent work known
 * to it, two clocks (useful computation only; computation plus MPI), and exchanges them at
 * every synchronisation, keeping the larger. Unlike OTF-CPT the useful clock carries which
 * instrumented regions make it up: the top K regions by their exclusive useful time on the
 * process that was on the path, plus "other".
 *
 * The substrate (critpath.c) sees enter/exit of one thread per process (the first location,
 * which is the thread that calls MPI in the usual MPI program) and charges the time between
 * events to the innermost open region, unless the thread is inside an MPI call. The MPI
 * adapter (runtime/mpi/mpi_critpath.c) marks its calls, takes snapshots of the clock to send
 * and merges what it receives; write.c writes critical-path.json at the end.
 *
 * Switched off (the default) the substrate is not active: no event sees it. */
#ifndef INSTR_RT_CRITPATH_H
#define INSTR_RT_CRITPATH_H

#include "record.h"
#include "../core/ext.h"
#include "../core/substrate.h"

extern const instr_substrate instr_critpath_substrate;

/* ---- for libinstr-rt-mpi (exported, instr_ext_ prefix: see core/ext.h) ---- */
/* 1 when INSTR_CRITICAL_PATH=1 and the substrate is recording. */
INSTR_EXT_EXPORT int instr_ext_cp_on(void);
/* This process's rank in MPI_COMM_WORLD (names the regions it contributes). */
INSTR_EXT_EXPORT void instr_ext_cp_set_rank(int rank);
/* Around every MPI call of the program: time inside is not useful computation. Calls from
 * another thread than the tracked one are ignored; nested calls count once. Return 1 when
 * the calling thread is the tracked one (only then may it snapshot and merge). */
INSTR_EXT_EXPORT int instr_ext_cp_mpi_begin(void);
INSTR_EXT_EXPORT void instr_ext_cp_mpi_end(void);
/* 1: from now on time is on no clock (MPI_Init: the launch, often longer than a short run,
 * is neither computation nor the program's communication); 0: the clocks run again. */
INSTR_EXT_EXPORT void instr_ext_cp_pause(int on);
/* The path as known now (the current segment appended) into out; returns the bytes of out
 * to send (INSTR_CP_RECORD_BYTES of its entries). */
INSTR_EXT_EXPORT size_t instr_ext_cp_snapshot(instr_cp_record *out);
/* A received path (len bytes): the longer one wins (per clock). */
INSTR_EXT_EXPORT void instr_ext_cp_merge(const instr_cp_record *in, size_t len);
/* Keeps the longer of two paths in *into (the reduction of a collective; no state). */
INSTR_EXT_EXPORT void instr_ext_cp_max(instr_cp_record *into, const instr_cp_record *other);
/* At MPI_Finalize: this process's totals and its path as known now. */
INSTR_EXT_EXPORT void instr_ext_cp_process(instr_cp_process *out);
/* Names of the regions of `path` that this rank contributed: lines "<key hex> <name>\t<file>\n"
 * into a buffer from instr_mem_alloc (*len bytes; NULL when none). */
INSTR_EXT_EXPORT char *instr_ext_cp_names(const instr_cp_record *path, size_t *len);
/* Rank 0: writes <jobdir>/critical-path.json and the summary on stderr. procs[r]: rank r's
 * totals; names: every rank's name lines concatenated. 0, or -1 after a message. */
INSTR_EXT_EXPORT int instr_ext_cp_write(const char *jobdir, int nranks,
                                        const instr_cp_process *procs,
                                        const instr_cp_record *path, const char *names,
                                        size_t names_len);

/* write.c: critical-path.json into the job's directory (mpi_job) or the process's, and the
 * summary on stderr. */
int instr_cp_write_json(int mpi_job, int nranks, const instr_cp_process *procs,
                        const instr_cp_record *path, const char *names, size_t names_len,
                        int regions_k);

#endif
