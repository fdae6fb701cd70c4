/* xray_glue.h — what the XRay glue (glue/instr_xray_glue.c, linked into the executable)
 * hands to the XRay adapter inside libinstr-rt.
 *
 * Why a glue object at all: compiler-rt's XRay runtime is linked statically into the
 * executable and its API (__xray_set_handler, __xray_patch_function, ...) has hidden
 * visibility there, so a shared libinstr-rt.so can neither reference it (weakly or not) nor
 * find it with dlsym. The glue is compiled into the executable's own link, takes the addresses
 * of those functions (weakly: without -fxray-instrument they are absent and it does nothing)
 * and of the executable's descriptor section, and passes them to __instr_xray_attach() from a
 * constructor. The struct is versioned so that a glue and a runtime of different builds
 * refuse each other instead of misreading. */
#ifndef INSTR_XRAY_GLUE_H
#define INSTR_XRAY_GLUE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define INSTR_XRAY_GLUE_VERSION 2

struct instr_region;

/* XRayEntryType of compiler-rt's xray_interface.h, which is a C++ header. */
enum instr_xray_entry_type {
    INSTR_XRAY_ENTRY = 0,
    INSTR_XRAY_EXIT = 1,
    INSTR_XRAY_TAIL = 2,
    INSTR_XRAY_LOG_ARGS_ENTRY = 3
};

/* XRayPatchingStatus */
#define INSTR_XRAY_PATCH_SUCCESS 1

typedef void (*instr_xray_handler)(int32_t id, enum instr_xray_entry_type type);
/* The handler of LOG_ARGS_ENTRY (functions with xray_log_args), with the first argument. */
typedef void (*instr_xray_handler_arg1)(int32_t id, enum instr_xray_entry_type type,
                                        uint64_t arg1);

struct instr_xray_glue {
    uint32_t version;    /* INSTR_XRAY_GLUE_VERSION */
    uint32_t size;       /* sizeof(struct instr_xray_glue) */
    int (*set_handler)(instr_xray_handler handler);
    int (*remove_handler)(void);
    /* __xray_set_handler_arg1: LOG_ARGS_ENTRY goes to its own handler, so that the main one
     * sees only ENTRY, EXIT and TAIL (its test of the type is one compare). */
    int (*set_handler_arg1)(instr_xray_handler_arg1 handler);
    int (*patch_all)(void);   /* XRayPatchingStatus */
    int (*unpatch_all)(void);
    int (*patch_function)(int32_t id);
    int (*unpatch_function)(int32_t id);
    uintptr_t (*function_address)(int32_t id);
    size_t (*max_function_id)(void);
    /* The executable's descriptors (section instr_regions), empty when built without the
     * plugin. */
    const struct instr_region *regions_begin, *regions_end;
};

/* Exported by libinstr-rt; called once by the glue's constructor. */
void __instr_xray_attach(const struct instr_xray_glue *glue);

#ifdef __cplusplus
}
#endif
#endif
