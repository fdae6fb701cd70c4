/* xray_internal.h — the XRay adapter's state, shared by its files:
 *   xray.c         attach (function table, start-up patching) and the event handler
 *   xray_patch.c   patch/unpatch by pattern (the instr_xray_* API of instr.h)
 *   xray_report.c  xray.txt at the end (a substrate with only a writer)
 * docs/xray.md describes the behaviour. */
#ifndef INSTR_XRAY_INTERNAL_H
#define INSTR_XRAY_INTERNAL_H

#include "xray_glue.h"
#include "xray_report.h"

#include <pthread.h>
#include <stdint.h>

/* One function with sleds, by XRay function id. Names are fixed at attach time. */
typedef struct xray_fn {
    const char *name;    /* display name, demangled; "" when the id has no function */
    const char *mangled; /* linkage name */
    const char *file;    /* "" when unknown (no descriptor) */
    const char *object;  /* "" with a descriptor; the ELF object otherwise */
    uint32_t line_begin, line_end;
    const void *addr;
    int from_descriptor; /* 1: named by the plugin's descriptor, 0: by ELF symbols */
    int patched;         /* under xray_lock */
    int ever_patched;
    int throttled;       /* unpatched by throttling (runtime/throttle/) */
} xray_fn;

enum xray_patch_mode { XRAY_PATCH_STARTUP, XRAY_PATCH_MANUAL };

typedef struct xray_state {
    struct instr_xray_glue api; /* copy of the glue's table */
    int attached;               /* 1 once the table below is complete */
    int recording;              /* 0: the runtime records nothing, nothing gets patched */
    int patch_mode;             /* enum xray_patch_mode */
    uint32_t max_id;            /* ids 1..max_id */
    xray_fn *fns;               /* [max_id + 1] */
    /* [max_id + 1]: region handle once the function was first entered (0 before), or
     * INSTR_HANDLE_EXCLUDED when the registry was full. The handler's only table. */
    uint32_t *handles;
    uint32_t n_functions;       /* ids that map to a function */
    uint32_t n_described;       /* of those, named by a descriptor */
} xray_state;

extern xray_state instr_xray;
/* Serialises patching and the fns[].patched flags (never taken by the handler). */
extern pthread_mutex_t instr_xray_lock;

/* With instr_xray_lock held: patches (want=1) or unpatches fns[id]; 1 when it changed. */
int instr_xray_set_patched_locked(uint32_t id, int want);

#endif
