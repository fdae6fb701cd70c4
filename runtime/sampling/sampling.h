/* sampling.h — hybrid sampling (INSTR_SAMPLING=1, docs/sampling.md): a per-thread timer whose
 * signal handler unwinds the interrupted stack up to the innermost instrumented frame and
 * records the program counters with the thread's call-path node; at the end the addresses
 * are resolved (functions, source lines, inlined frames) and the sampled frames become
 * nodes of the profile beneath the instrumented node they fell in, and, with the trace on,
 * CallingContextSample events of the trace (trace_samples.c).
 *
 * An event source that joins as a substrate without enter/exit (like XRay's report): its
 * location_begin arms the thread's timer, location_end deletes it, and its write, which
 * comes before the profile's, puts the samples into the profile's trees. */
#ifndef INSTR_RT_SAMPLING_H
#define INSTR_RT_SAMPLING_H

#include "../core/substrate.h"

extern const instr_substrate instr_sampling_substrate;
/* Once recording runs: with sampling on, the calling thread (the one that started the
 * runtime, normally the main thread) becomes a location and is sampled, events or not. */
void instr_sampling_started(void);
/* 1 while the timers sample (threads.c: a new thread registers at its start then). */
int instr_sampling_active(void);

#endif
