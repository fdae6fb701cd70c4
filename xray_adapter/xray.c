/* xray.c — the XRay adapter: maps XRay function ids to regions, patches at start-up, and
 * routes XRay's ENTRY/EXIT/TAIL events to the event core.
 *
 * The glue (glue/instr_xray_glue.c, in the executable) calls __instr_xray_attach() from a
 * constructor, after compiler-rt initialised XRay (.preinit_array) and before main. Attach
 * names every function id once, by its address: the plugin's descriptor with that address
 * (section instr_regions), else the ELF symbol covering it (plain -fxray-instrument builds).
 * Regions are registered lazily, on a function's first ENTRY, exactly like the hooks adapter
 * registers descriptors; so the registry (and the profile) hold what ran, and "ever entered"
 * is "has a handle". The run-time filter is applied once, at start-up, to decide what gets
 * patched; a function patched later through the API is recorded whatever the spec says
 * (the program asked for it explicitly).
 *
 * The handler is the hot path: a bounds check, one acquire load from a dense array of
 * handles, and the event core's inline fast path; with the profile alone or the trace alone
 * that path's own handler, installed while the path flag is theirs (install_handler), as the
 * hooks jump to their mode's functions. It never allocates after the first entry of a
 * function. libinstr-rt is never compiled with -fxray-instrument, so nothing the
 * handler reaches has sleds. */
#include "xray_internal.h"
#include "xray_throttle.h"
#include "../runtime/adapters/abi.h"
#include "../runtime/core/config.h"
#include "../runtime/core/event.h"
#include "../runtime/core/log.h"
#include "../runtime/core/registry.h"
#include "../runtime/core/rtfilter.h"
#include "../runtime/include/instr_abi.h"
#include "../runtime/symbols/symbols.h"
#include "../runtime/throttle/throttle.h"
#include "../runtime/util/pages.h"
#include "../runtime/util/sort.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define EXPORT __attribute__((visibility("default")))
/* More ids than this is not a real program: a corrupt table. */
#define MAX_IDS (1u << 24)

xray_state instr_xray;
pthread_mutex_t instr_xray_lock = PTHREAD_MUTEX_INITIALIZER;

/* ---- the handler ---------------------------------------------------------------------- */

__attribute__((noinline, cold)) static uint32_t first_entry(uint32_t id)
{
    if (!instr_events_wanted())
        return INSTR_HANDLE_UNREGISTERED;
    instr_registry_lock();
    uint32_t h = __atomic_load_n(&instr_xray.handles[id], __ATOMIC_ACQUIRE);
    if (h == INSTR_HANDLE_UNREGISTERED) {
        const xray_fn *f = &instr_xray.fns[id];
        instr_region_info info = {
            .name = f->name, .mangled = f->mangled, .file = f->file, .object = f->object,
            .line_begin = f->line_begin, .line_end = f->line_end, .addr = f->addr,
            .source = INSTR_SOURCE_XRAY,
        };
        h = instr_registry_add_locked(&info);
        if (h == 0)
            h = INSTR_HANDLE_EXCLUDED; /* registry full: not recorded */
        __atomic_store_n(&instr_xray.handles[id], h, __ATOMIC_RELEASE);
    }
    instr_registry_unlock();
    return h;
}

/* An ENTRY the inline paths did not take (out of line, so that the handler needs no stack
 * frame of its own): id 0 (no function; handles[0] stays INSTR_HANDLE_UNREGISTERED), a
 * function's first entry, an excluded or throttling handle, or a region the cursor has no
 * node for yet (or another mode than the inline ones). */
__attribute__((noinline, cold)) static void enter_miss(uint32_t u, uint32_t h)
{
    if (h == INSTR_HANDLE_UNREGISTERED) {
        if (u == 0)
            return;
        h = first_entry(u);
        if (h == INSTR_HANDLE_UNREGISTERED)
            return;
    }
    if (__builtin_expect(instr_handle_throttling(h), 0))
        instr_throttle_enter(h & ~INSTR_HANDLE_THROTTLING);
    else if (h != INSTR_HANDLE_EXCLUDED)
        instr_event_enter(h);
}

/* An EXIT or TAIL the inline paths did not take. A function never entered while patched
 * (INSTR_HANDLE_UNREGISTERED) has no open frame: nothing to close. A LOG_ARGS_ENTRY reaches
 * the main handler only when the program replaced handler_arg1 (below) with
 * __xray_remove_handler_arg1; it is an entry, found here, unless the cursor is the function
 * itself (direct recursion), when it is taken for the exit it is not. */
__attribute__((noinline, cold)) static void exit_miss(uint32_t u, uint32_t h,
                                                      enum instr_xray_entry_type type)
{
    if (type == INSTR_XRAY_LOG_ARGS_ENTRY)
        enter_miss(u, h);
    else if (__builtin_expect(instr_handle_throttling(h), 0))
        instr_throttle_exit(h & ~INSTR_HANDLE_THROTTLING);
    else if (h != INSTR_HANDLE_UNREGISTERED && h != INSTR_HANDLE_EXCLUDED)
        instr_event_exit_generic_out(h);
}

/* The handler, as the hooks' __instr_enter/__instr_exit: the handle goes straight to the
 * inline paths (the cursor path, the direct trace path), which take only region handles:
 * no cursor node carries INSTR_HANDLE_UNREGISTERED, INSTR_HANDLE_EXCLUDED or a throttling
 * handle, and the trace's range check refuses them, so they miss and go out of line with
 * everything else. What the hooks do not pay: the id's range check (XRay ids are not
 * checked by anyone else; ids of other objects, LLVM 20's packed objId << 24 | fnId, are
 * above max_id), the handle table's base, the id's zero extension and the test of the event
 * type (docs/performance.md). */
static void handler(int32_t id, enum instr_xray_entry_type type)
{
    uint32_t u = (uint32_t)id;
    /* One compare: ids above max_id; id 0 reads handles[0], never set, and misses. */
    if (__builtin_expect(u > instr_xray.max_id, 0))
        return;
    uint32_t h = __atomic_load_n(&instr_xray.handles[u], __ATOMIC_ACQUIRE);
    if (__builtin_expect(type == INSTR_XRAY_ENTRY, 1)) {
        if (__builtin_expect(!instr_event_enter_fast(h, 0), 0))
            enter_miss(u, h);
        return;
    }
    /* EXIT or TAIL: LOG_ARGS_ENTRY has a handler of its own (handler_arg1), custom and typed
     * events theirs. */
    if (__builtin_expect(!instr_event_exit_fast(h), 0))
        exit_miss(u, h, type);
}

/* The handlers of the inline paths, installed while the run's path flag is theirs
 * (install_handler), as the hooks' functions in instr_event_path_table are: without the test
 * of the flag, the handler being the test. One that still runs after the flag went off (its
 * trampoline loaded it before instr_xray_path_off put the general one back) belongs to the
 * time before, as an event of the hooks that read the flag before it changed; a thread that
 * left the path already has the idle cursor (no node matches) and no trace state, so its
 * events miss and take the slow paths. */
static void handler_profile(int32_t id, enum instr_xray_entry_type type)
{
    uint32_t u = (uint32_t)id;
    if (__builtin_expect(u > instr_xray.max_id, 0))
        return;
    uint32_t h = __atomic_load_n(&instr_xray.handles[u], __ATOMIC_ACQUIRE);
    instr_pstate *s = instr_tls_cct;
    if (__builtin_expect(type == INSTR_XRAY_ENTRY, 1)) {
        instr_pnode *n = instr_cct_push(s, 0, h, 0);
        if (__builtin_expect(!n, 0)) {
            enter_miss(u, h);
            return;
        }
        n->t_enter = instr_clock_tsc();
        return;
    }
    instr_pnode *n = instr_cct_top(s, 0, h);
    if (__builtin_expect(!n, 0)) {
        exit_miss(u, h, type);
        return;
    }
    instr_cct_pop(s, n, instr_clock_tsc());
}

static void handler_trace(int32_t id, enum instr_xray_entry_type type)
{
    uint32_t u = (uint32_t)id;
    if (__builtin_expect(u > instr_xray.max_id, 0))
        return;
    uint32_t h = __atomic_load_n(&instr_xray.handles[u], __ATOMIC_ACQUIRE);
    if (__builtin_expect(type == INSTR_XRAY_ENTRY, 1)) {
        if (__builtin_expect(!instr_event_trace_direct_in(INSTR_FAST_TRACE, h, 0), 0))
            enter_miss(u, h);
        return;
    }
    if (__builtin_expect(!instr_event_trace_direct_in(INSTR_FAST_TRACE, h, 1), 0))
        exit_miss(u, h, type);
}

/* 1 while a mode's handler may be installed (instr_xray_path_off puts the general one back). */
static int mode_handler;

/* At attach: the handler of the path the run's modes took (compose.c), else the general one.
 * The mode's is installed first and the flag read again after it: a change in between has
 * called (or will call) instr_xray_path_off, and the general one is installed last either
 * way. */
static void install_handler(void)
{
    int fast = instr_fast_get();
    instr_xray_handler mine = fast == INSTR_FAST_INLINE ? handler_profile
                              : fast == INSTR_FAST_TRACE ? handler_trace
                                                         : handler;
    if (mine != handler) {
        __atomic_store_n(&mode_handler, 1, __ATOMIC_SEQ_CST);
        instr_xray.api.set_handler(mine);
        if (__atomic_load_n(&instr_fast, __ATOMIC_SEQ_CST) == fast)
            return;
        __atomic_store_n(&mode_handler, 0, __ATOMIC_SEQ_CST);
    }
    instr_xray.api.set_handler(handler);
}

/* The path flag went off (pause, the end of the run, the direct trace path refused): the
 * general handler, which tests the flag at every event. An atomic store in compiler-rt, so
 * also from where the flag goes off in a signal handler. */
void instr_xray_path_off(void)
{
    if (__atomic_exchange_n(&mode_handler, 0, __ATOMIC_SEQ_CST))
        instr_xray.api.set_handler(handler);
}

/* LOG_ARGS_ENTRY, the entry of a function with xray_log_args (its argument is not
 * recorded). */
static void handler_arg1(int32_t id, enum instr_xray_entry_type type, uint64_t arg1)
{
    (void)type;
    (void)arg1;
    uint32_t u = (uint32_t)id;
    if (__builtin_expect(u > instr_xray.max_id, 0))
        return;
    uint32_t h = __atomic_load_n(&instr_xray.handles[u], __ATOMIC_ACQUIRE);
    if (__builtin_expect(!instr_event_enter_fast(h, 0), 0))
        enter_miss(u, h);
}

/* Throttling (runtime/throttle/), from an event of the function, so only try-locks: the
 * program's own patch call may hold the lock on this thread (a signal handler) or another. */
int instr_xray_throttle(const void *addr, uint32_t h, int unpatch)
{
    if (!__atomic_load_n(&instr_xray.attached, __ATOMIC_ACQUIRE) || !addr)
        return 1;
    if (pthread_mutex_trylock(&instr_xray_lock) != 0)
        return -1;
    int found = 0;
    for (uint32_t id = 1; id <= instr_xray.max_id; id++) {
        if (instr_xray.fns[id].addr != addr)
            continue;
        found = 1;
        __atomic_store_n(&instr_xray.handles[id], h, __ATOMIC_RELEASE);
        if (unpatch) {
            instr_xray.fns[id].throttled = 1;
            instr_xray_set_patched_locked(id, 0);
        }
    }
    pthread_mutex_unlock(&instr_xray_lock);
    return found ? 0 : 1;
}

const instr_source instr_xray_source = {
    .id = INSTR_SOURCE_XRAY, .name = "xray", .set_handle = instr_xray_throttle};

/* ---- naming the functions -------------------------------------------------------------- */

static int by_addr(const void *a, const void *b)
{
    const struct instr_region *x = *(const struct instr_region *const *)a;
    const struct instr_region *y = *(const struct instr_region *const *)b;
    uintptr_t ax = (uintptr_t)x->addr, ay = (uintptr_t)y->addr;
    return ax < ay ? -1 : ax > ay;
}

static const struct instr_region *find_descriptor(const struct instr_region *const *sorted,
                                                  size_t n, uintptr_t addr)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        uintptr_t a = (uintptr_t)sorted[mid]->addr;
        if (a == addr)
            return sorted[mid];
        if (a < addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

static const char *dup_or_empty(const char *s)
{
    char *c = instr_mem_strdup(s ? s : "");
    return c ? c : "";
}

/* With the registry lock held (the symbols module needs it). */
static void name_from_symbols(xray_fn *f)
{
    instr_symbol sym;
    instr_symbols_lookup(f->addr, &sym);
    char *demangled = instr_demangle(sym.mangled);
    f->mangled = dup_or_empty(sym.mangled);
    f->name = demangled ? demangled : f->mangled;
    f->object = dup_or_empty(sym.object);
    f->file = "";
}

/* The executable's descriptors are of another ABI version (name_functions). */
static int descriptors_refused;

static void name_functions(void)
{
    const struct instr_region *b = instr_xray.api.regions_begin, *e = instr_xray.api.regions_end;
    size_t nd = b && e && e > b ? (size_t)(e - b) : 0;
    instr_registry_lock();
    /* An executable compiled for another ABI version is not recorded (abi.h): nothing is
     * patched at start-up and its descriptors name nothing (their layout may differ). */
    if (nd && !instr_abi_accepts(b)) {
        descriptors_refused = 1;
        nd = 0;
    }
    const struct instr_region **sorted = nd ? instr_mem_alloc(nd * sizeof *sorted) : NULL;
    size_t ns = 0;
    for (size_t i = 0; sorted && i < nd && instr_abi_accepts(&b[i]); i++)
        if (b[i].addr)
            sorted[ns++] = &b[i];
    if (ns)
        instr_sort(sorted, ns, sizeof *sorted, by_addr);

    for (uint32_t id = 1; id <= instr_xray.max_id; id++) {
        xray_fn *f = &instr_xray.fns[id];
        f->name = f->mangled = f->file = f->object = "";
        uintptr_t addr = instr_xray.api.function_address((int32_t)id);
        if (!addr)
            continue;
        f->addr = (const void *)addr;
        instr_xray.n_functions++;
        const struct instr_region *d = find_descriptor(sorted, ns, addr);
        if (d) {
            /* The descriptor lives in the executable, which is never unloaded. */
            f->mangled = d->mangled ? d->mangled : "";
            f->name = d->name && *d->name ? d->name : f->mangled;
            f->file = d->file ? d->file : "";
            f->line_begin = d->line_begin;
            f->line_end = d->line_end;
            f->from_descriptor = 1;
            instr_xray.n_described++;
        } else {
            name_from_symbols(f);
        }
    }
    instr_registry_unlock();
    instr_mem_free(sorted);
}

/* ---- start-up ----------------------------------------------------------------------- */

static int read_patch_mode(void)
{
    const char *v = instr_env("INSTR_XRAY_PATCH");
    if (!v || !*v || strcasecmp(v, "startup") == 0)
        return XRAY_PATCH_STARTUP;
    if (strcasecmp(v, "manual") == 0)
        return XRAY_PATCH_MANUAL;
    instr_warn("INSTR_XRAY_PATCH='%s': expected startup or manual; using startup", v);
    return XRAY_PATCH_STARTUP;
}

/* INSTR_XRAY_PATCH=startup: what the run-time spec selects (everything without a spec). */
static uint32_t patch_at_startup(void)
{
    uint32_t selected = 0;
    if (descriptors_refused)
        return 0;
    instr_registry_lock(); /* the run-time filter is used under it */
    for (uint32_t id = 1; id <= instr_xray.max_id; id++) {
        xray_fn *f = &instr_xray.fns[id];
        if (f->addr && instr_rtfilter_includes(f->name, f->mangled, f->file)) {
            f->patched = 1; /* wanted; confirmed below */
            selected++;
        }
    }
    instr_registry_unlock();
    if (selected == 0)
        return 0;
    if (selected == instr_xray.n_functions &&
        instr_xray.api.patch_all() == INSTR_XRAY_PATCH_SUCCESS) {
        /* One pass over all sleds: much cheaper than one mprotect pair per function. */
        for (uint32_t id = 1; id <= instr_xray.max_id; id++)
            if (instr_xray.fns[id].addr)
                instr_xray.fns[id].ever_patched = 1;
        return selected;
    }
    uint32_t n = 0;
    for (uint32_t id = 1; id <= instr_xray.max_id; id++) {
        if (!instr_xray.fns[id].patched)
            continue;
        instr_xray.fns[id].patched = 0;
        n += (uint32_t)instr_xray_set_patched_locked(id, 1);
    }
    return n;
}

int instr_xray_set_patched_locked(uint32_t id, int want)
{
    xray_fn *f = &instr_xray.fns[id];
    if (!f->addr || f->patched == want)
        return 0;
    int st = want ? instr_xray.api.patch_function((int32_t)id)
                  : instr_xray.api.unpatch_function((int32_t)id);
    if (st != INSTR_XRAY_PATCH_SUCCESS) {
        instr_info(1, "xray: %s of %s (id %u) failed (XRay status %d)",
                   want ? "patching" : "unpatching", f->name, id, st);
        return 0;
    }
    f->patched = want;
    if (want)
        f->ever_patched = 1;
    return 1;
}

EXPORT void __instr_xray_attach(const struct instr_xray_glue *g)
{
    if (!g || g->version != INSTR_XRAY_GLUE_VERSION || g->size != sizeof *g) {
        instr_warn("xray: libinstr-xray.a and libinstr-rt come from different builds of instr; "
                   "XRay functions are not recorded (link both from the same instr)");
        return;
    }
    pthread_mutex_lock(&instr_xray_lock);
    if (instr_xray.attached) {
        pthread_mutex_unlock(&instr_xray_lock);
        return; /* a second glue: the first one's table stays */
    }
    instr_xray.api = *g;
    instr_xray.patch_mode = read_patch_mode();
    size_t max = g->max_function_id();
    if (max >= MAX_IDS) {
        instr_warn("xray: XRay reports %zu function ids; only the first %u are recorded", max,
                   MAX_IDS - 1);
        max = MAX_IDS - 1;
    }
    xray_fn *fns = instr_mem_calloc(max + 1, sizeof *fns);
    uint32_t *handles = instr_mem_calloc(max + 1, sizeof *handles);
    if (!fns || !handles) {
        instr_mem_free(fns);
        instr_mem_free(handles);
        pthread_mutex_unlock(&instr_xray_lock);
        instr_warn("xray: out of memory for %zu functions; XRay functions are not recorded", max);
        return;
    }
    instr_xray.fns = fns;
    instr_xray.handles = handles;
    instr_xray.max_id = (uint32_t)max;
    name_functions();
    instr_xray.recording = instr_events_wanted();
    uint32_t patched = 0;
    if (instr_xray.recording && instr_xray.n_functions) {
        instr_xray.api.set_handler_arg1(handler_arg1);
        install_handler();
        if (instr_xray.patch_mode == XRAY_PATCH_STARTUP)
            patched = patch_at_startup();
    }
    __atomic_store_n(&instr_xray.attached, 1, __ATOMIC_RELEASE);
    pthread_mutex_unlock(&instr_xray_lock);
    instr_info(1, "xray: %u function%s with sleds (%u named by descriptors, %u by ELF symbols); "
                  "%u patched at start-up (INSTR_XRAY_PATCH=%s)%s",
               instr_xray.n_functions, instr_xray.n_functions == 1 ? "" : "s",
               instr_xray.n_described, instr_xray.n_functions - instr_xray.n_described, patched,
               instr_xray.patch_mode == XRAY_PATCH_MANUAL ? "manual" : "startup",
               instr_xray.recording ? "" : "; nothing is recorded in this run, so nothing is patched");
}
