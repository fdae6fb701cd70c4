/* kokkos.h — Kokkos through its Tools interface (docs/kokkos.md). Kokkos loads the library
 * named in KOKKOS_TOOLS_LIBS (KOKKOS_PROFILE_LIBRARY before Kokkos 4) and calls its
 * kokkosp_* functions; libinstr-rt defines them (tools.c), so it is such a library.
 *
 *   regions.c   the region of a kernel, profile region, section, fence or deep copy, by kind
 *               and name (source "kokkos")
 *   tools.c     the kokkosp_* callbacks: enter and exit those regions on the calling thread,
 *               count bytes
 *   report.c    kokkos.txt: deep copies and allocations by memory space, the metadata
 *   discover.c  names this library in KOKKOS_TOOLS_LIBS and KOKKOS_PROFILE_LIBRARY at
 *               start-up when neither is set */
#ifndef INSTR_RT_KOKKOS_H
#define INSTR_RT_KOKKOS_H

#include "../core/sources.h"

#include <stdint.h>

/* What a region is to Kokkos: its canonical name's prefix, and its role in the trace. */
enum instr_kokkos_kind {
    INSTR_KOKKOS_FOR,
    INSTR_KOKKOS_REDUCE,
    INSTR_KOKKOS_SCAN,
    INSTR_KOKKOS_REGION,  /* push/pop_profile_region */
    INSTR_KOKKOS_SECTION, /* create/start/stop_profile_section */
    INSTR_KOKKOS_FENCE,
    INSTR_KOKKOS_COPY,    /* deep_copy, named "deep_copy <src space> -> <dst space>" */
    INSTR_KOKKOS_NKINDS
};

/* The region of this kind and name: a registry handle, or 0 when nothing is recorded, the
 * run-time filter excludes it or the registry is full. */
uint32_t instr_kokkos_region(int kind, const char *name);

/* Counts for kokkos.txt (report.c); any thread. */
void instr_kokkos_count_copy(const char *src_space, const char *dst_space, uint64_t bytes);
void instr_kokkos_count_alloc(const char *space, uint64_t bytes, int release);
void instr_kokkos_metadata(const char *key, const char *value);
void instr_kokkos_note_init(uint64_t interface_version, uint32_t devices);
/* Writes kokkos.txt into the experiment directory (once; at kokkosp_finalize_library). */
void instr_kokkos_write_report(void);

/* The source: its start names this library for Kokkos (discover.c). */
extern const instr_source instr_kokkos_source;
/* Called at kokkosp_init_library: takes back the variables start set, so that other
 * programs this one starts do not load the runtime. */
void instr_kokkos_discovered(void);

#endif
