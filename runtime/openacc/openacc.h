/* openacc.h — OpenACC through its Profiling Interface (acc_prof.h; docs/openacc.md). The
 * OpenACC runtime (GCC's libgomp) calls the callbacks a tool registered with
 * acc_prof_register; libinstr-rt registers them by itself when the program uses OpenACC
 * (register.c), and is also a library ACC_PROFLIB can name (acc_register_library).
 *
 *   callbacks.c  the callbacks: a construct's start and end events enter and exit its region
 *                (`!$acc parallel`, `!$acc data`, ...) on the calling thread
 *   regions.c    the region of a construct by name (source "openacc")
 *   register.c   acc_register_library, and the source whose start registers the callbacks
 *                in a program that uses OpenACC */
#ifndef INSTR_RT_OPENACC_H
#define INSTR_RT_OPENACC_H

#include "../core/sources.h"

#include <stdint.h>

/* The region named "!$acc <what> @file:line": the place the OpenACC runtime gives (file,
 * line > 0), else the source line of `site`, the return address of the construct's call
 * into the OpenACC runtime (0: unknown); without a place "!$acc <what>". A registry handle,
 * or 0 when nothing is recorded, the run-time filter excludes it or the registry is full.
 * The cache of repeated constructs is keyed by what's address and site: what must be a
 * string constant. */
uint32_t instr_openacc_region(const char *what, uintptr_t site, const char *file, int line);

/* acc_prof_register's type (acc_prof.h's acc_prof_reg), with the event and callback types
 * left opaque to the callers outside callbacks.c. */
typedef void (*instr_openacc_reg)(int event, void (*callback)(void *, void *, void *),
                                  int reg);
/* Registers the callbacks for the events libgomp delivers (callbacks.c); once. */
void instr_openacc_register(instr_openacc_reg reg);

/* The source: its start registers the callbacks when the program uses OpenACC. */
extern const instr_source instr_openacc_source;

#endif
