/* tools.c — the Kokkos Tools interface (Kokkos's impl/Kokkos_Profiling_C_Interface.h,
 * interface version 20210225 and later; docs/kokkos.md): the kokkosp_* functions Kokkos
 * looks up with dlsym in the library it loaded. Each event becomes an enter or exit of a
 * region (regions.c) on the calling thread, under whatever call path the thread is in: the
 * instrumented functions that launched the kernel, and the kernel's OpenMP threads under it
 * (Kokkos's OpenMP backend forks inside the kernel's begin and end).
 *
 * Kernels and fences hand Kokkos an id at begin that comes back at end: the region's handle.
 * Profile regions and deep copies end without an id: a per-thread stack keeps their handles.
 * A section's id is its region's handle. */
#include "kokkos.h"
#include "../core/event.h"
#include "../core/log.h"

#include <stdbool.h>
#include <stdio.h>

#define EXPORT __attribute__((visibility("default")))
#define TLS __attribute__((tls_model("initial-exec")))
#define REGIONS_MAX 64
#define COPIES_MAX 16

/* Kokkos's types, as its C interface defines them (passed by value: same layout). */
typedef struct kokkos_device_info {
    size_t device_id;
} kokkos_device_info;
typedef struct kokkos_space {
    char name[64];
} kokkos_space;
typedef struct kokkos_tool_settings {
    bool requires_global_fencing;
    bool padding[255];
} kokkos_tool_settings;
typedef struct kokkos_tool_interface {
    void (*fence)(uint32_t);
    void (*padding[31])(void);
} kokkos_tool_interface;

/* Open profile regions and deep copies of this thread; beyond the stacks' size they are
 * counted and not recorded (their pops must not close someone else's region). */
static _Thread_local uint32_t regions[REGIONS_MAX] TLS, copies[COPIES_MAX] TLS;
static _Thread_local unsigned nregions TLS, ncopies TLS;

static void begin(int kind, const char *name, uint64_t *id)
{
    uint32_t h = instr_kokkos_region(kind, name);
    if (h)
        instr_event_enter(h);
    if (id)
        *id = h;
}

static void end(uint64_t id)
{
    if (id && id <= UINT32_MAX)
        instr_event_exit((uint32_t)id);
}

EXPORT void kokkosp_init_library(const int load_seq, const uint64_t interface_version,
                                 const uint32_t ndevices, kokkos_device_info *devices)
{
    (void)load_seq;
    (void)devices;
    instr_kokkos_discovered();
    instr_kokkos_note_init(interface_version, ndevices);
    instr_info(1, "kokkos: tools interface %llu, %u device%s",
               (unsigned long long)interface_version, ndevices, ndevices == 1 ? "" : "s");
}

EXPORT void kokkosp_finalize_library(void) { instr_kokkos_write_report(); }

/* Options come from INSTR_* variables, not from --kokkos-tools-args. */
EXPORT void kokkosp_parse_args(int argc, char **argv)
{
    (void)argc;
    (void)argv;
}

EXPORT void kokkosp_print_help(char *exe)
{
    (void)exe;
    printf("instr: configured by INSTR_* environment variables, not by --kokkos-tools-args "
           "(docs/kokkos.md, docs/options.md)\n");
}

EXPORT void kokkosp_begin_parallel_for(const char *name, const uint32_t device, uint64_t *id)
{
    (void)device;
    begin(INSTR_KOKKOS_FOR, name, id);
}
EXPORT void kokkosp_end_parallel_for(const uint64_t id) { end(id); }

EXPORT void kokkosp_begin_parallel_reduce(const char *name, const uint32_t device, uint64_t *id)
{
    (void)device;
    begin(INSTR_KOKKOS_REDUCE, name, id);
}
EXPORT void kokkosp_end_parallel_reduce(const uint64_t id) { end(id); }

EXPORT void kokkosp_begin_parallel_scan(const char *name, const uint32_t device, uint64_t *id)
{
    (void)device;
    begin(INSTR_KOKKOS_SCAN, name, id);
}
EXPORT void kokkosp_end_parallel_scan(const uint64_t id) { end(id); }

EXPORT void kokkosp_begin_fence(const char *name, const uint32_t device, uint64_t *id)
{
    (void)device;
    begin(INSTR_KOKKOS_FENCE, name, id);
}
EXPORT void kokkosp_end_fence(const uint64_t id) { end(id); }

EXPORT void kokkosp_push_profile_region(const char *name)
{
    uint32_t h = instr_kokkos_region(INSTR_KOKKOS_REGION, name);
    if (nregions < REGIONS_MAX) {
        regions[nregions] = h;
        if (h)
            instr_event_enter(h);
    }
    nregions++;
}

EXPORT void kokkosp_pop_profile_region(void)
{
    if (nregions == 0)
        return; /* a pop without its push */
    if (--nregions < REGIONS_MAX && regions[nregions])
        instr_event_exit(regions[nregions]);
}

EXPORT void kokkosp_create_profile_section(const char *name, uint32_t *id)
{
    if (id)
        *id = instr_kokkos_region(INSTR_KOKKOS_SECTION, name);
}
EXPORT void kokkosp_start_profile_section(const uint32_t id)
{
    if (id)
        instr_event_enter(id);
}
EXPORT void kokkosp_stop_profile_section(const uint32_t id)
{
    if (id)
        instr_event_exit(id);
}
/* The region stays: a section's visits and times are the profile's. */
EXPORT void kokkosp_destroy_profile_section(const uint32_t id) { (void)id; }

EXPORT void kokkosp_begin_deep_copy(kokkos_space dst_space, const char *dst_name,
                                    const void *dst_ptr, kokkos_space src_space,
                                    const char *src_name, const void *src_ptr, uint64_t size)
{
    (void)dst_name;
    (void)dst_ptr;
    (void)src_name;
    (void)src_ptr;
    dst_space.name[sizeof dst_space.name - 1] = '\0';
    src_space.name[sizeof src_space.name - 1] = '\0';
    instr_kokkos_count_copy(src_space.name, dst_space.name, size);
    char name[160];
    snprintf(name, sizeof name, "deep_copy %s -> %s", src_space.name, dst_space.name);
    uint32_t h = instr_kokkos_region(INSTR_KOKKOS_COPY, name);
    if (ncopies < COPIES_MAX) {
        copies[ncopies] = h;
        if (h)
            instr_event_enter(h);
    }
    ncopies++;
}

EXPORT void kokkosp_end_deep_copy(void)
{
    if (ncopies == 0)
        return;
    if (--ncopies < COPIES_MAX && copies[ncopies])
        instr_event_exit(copies[ncopies]);
}

EXPORT void kokkosp_allocate_data(const kokkos_space space, const char *label, const void *ptr,
                                  const uint64_t size)
{
    (void)label;
    (void)ptr;
    char name[sizeof space.name];
    snprintf(name, sizeof name, "%.*s", (int)sizeof space.name - 1, space.name);
    instr_kokkos_count_alloc(name, size, 0);
}

EXPORT void kokkosp_deallocate_data(const kokkos_space space, const char *label,
                                    const void *ptr, const uint64_t size)
{
    (void)label;
    (void)ptr;
    char name[sizeof space.name];
    snprintf(name, sizeof name, "%.*s", (int)sizeof space.name - 1, space.name);
    instr_kokkos_count_alloc(name, size, 1);
}

EXPORT void kokkosp_declare_metadata(const char *key, const char *value)
{
    instr_kokkos_metadata(key ? key : "", value ? value : "");
}

/* Kokkos fences around every kernel when a tool asks for it, so that a kernel's time on an
 * asynchronous backend is its run, not its launch. */
EXPORT void kokkosp_request_tool_settings(const uint32_t nsettings,
                                          kokkos_tool_settings *settings)
{
    if (nsettings >= 1 && settings)
        settings->requires_global_fencing = true;
}

/* The tool programming interface (Kokkos's fence for tools): not needed. */
EXPORT void kokkosp_provide_tool_programming_interface(const uint32_t nactions,
                                                       kokkos_tool_interface actions)
{
    (void)nactions;
    (void)actions;
}
