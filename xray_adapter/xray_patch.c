/* xray_patch.c — the run-time patching API of instr.h: instr_xray_patch/unpatch by pattern,
 * instr_xray_patch_all/unpatch_all.
 *
 * A pattern is a selection-spec glob (fnmatch(3) without flags, filter/'s matcher) and
 * selects a function when it matches, as a `function` rule does, its demangled signature or
 * its qualified name without parameters, or, as a `mangled` rule does, its linkage name.
 * Every call returns how many functions changed state (patched -> unpatched or back), or -1
 * when nothing can be patched in this program (no XRay) or the pattern is malformed; each
 * such error is reported once on stderr. Calls are serialised by instr_xray_lock; the event
 * handler never takes it. */
#include "xray_internal.h"
#include "../runtime/core/log.h"

#include <stdlib.h>
#include <string.h>

#ifdef INSTR_RT_HAVE_FILTER
#include "instr_filter.h"
#else
#include <fnmatch.h>
#endif

#define EXPORT __attribute__((visibility("default")))

static int glob(const char *pattern, const char *text)
{
#ifdef INSTR_RT_HAVE_FILTER
    return instr_glob_match(pattern, text);
#else
    return fnmatch(pattern, text, 0) == 0;
#endif
}

static int matches(const char *pattern, const xray_fn *f)
{
    if (glob(pattern, f->name) || (*f->mangled && glob(pattern, f->mangled)))
        return 1;
#ifdef INSTR_RT_HAVE_FILTER
    char shortname[1024];
    size_t len = instr_signature_name(f->name, shortname, sizeof shortname);
    if (len < sizeof shortname && strcmp(shortname, f->name) != 0 && glob(pattern, shortname))
        return 1;
#endif
    return 0;
}

/* 0 when patching can go on; -1 (reported) when it cannot. */
static int usable(const char *what, const char *pattern)
{
    if (!__atomic_load_n(&instr_xray.attached, __ATOMIC_ACQUIRE)) {
        static int warned;
        if (!__atomic_exchange_n(&warned, 1, __ATOMIC_RELAXED))
            instr_warn("%s: this program has no XRay instrumentation that instr can patch: "
                       "compile and link it with `instr --mode=xray`, or with -fxray-instrument "
                       "and libinstr-xray.a (docs/xray.md)", what);
        return -1;
    }
    if (pattern) {
#ifdef INSTR_RT_HAVE_FILTER
        const char *problem = NULL;
        long at = instr_glob_check(pattern, &problem);
        if (at >= 0) {
            instr_warn("%s(\"%s\"): %s at offset %ld of the pattern; nothing changed", what,
                       pattern, problem ? problem : "malformed pattern", at);
            return -1;
        }
#endif
    }
    return 0;
}

static int set_by_pattern(const char *what, const char *pattern, int want)
{
    if (!pattern) {
        instr_warn("%s(NULL): no pattern given; nothing changed (use \"*\" for all)", what);
        return -1;
    }
    if (usable(what, pattern) != 0)
        return -1;
    pthread_mutex_lock(&instr_xray_lock);
    int changed = 0;
    for (uint32_t id = 1; id <= instr_xray.max_id; id++) {
        xray_fn *f = &instr_xray.fns[id];
        if (instr_xray.recording && f->addr && f->patched != want && matches(pattern, f))
            changed += instr_xray_set_patched_locked(id, want);
    }
    pthread_mutex_unlock(&instr_xray_lock);
    instr_info(1, "xray: %s(\"%s\"): %d function%s changed", what, pattern, changed,
               changed == 1 ? "" : "s");
    return changed;
}

static int set_all(const char *what, int want)
{
    if (usable(what, NULL) != 0)
        return -1;
    pthread_mutex_lock(&instr_xray_lock);
    if (!instr_xray.recording) { /* this run records nothing: sleds stay as they are */
        pthread_mutex_unlock(&instr_xray_lock);
        return 0;
    }
    int changed = 0;
    for (uint32_t id = 1; id <= instr_xray.max_id; id++)
        if (instr_xray.fns[id].addr && instr_xray.fns[id].patched != want)
            changed++;
    /* XRay's whole-program (un)patch changes every sled in one pass (one mprotect pair per
     * object); per function it would be one pair per function. */
    int st = changed ? (want ? instr_xray.api.patch_all() : instr_xray.api.unpatch_all())
                     : INSTR_XRAY_PATCH_SUCCESS;
    if (st == INSTR_XRAY_PATCH_SUCCESS) {
        for (uint32_t id = 1; id <= instr_xray.max_id; id++) {
            xray_fn *f = &instr_xray.fns[id];
            if (!f->addr)
                continue;
            f->patched = want;
            if (want)
                f->ever_patched = 1;
        }
    } else {
        changed = 0;
        for (uint32_t id = 1; id <= instr_xray.max_id; id++)
            changed += instr_xray_set_patched_locked(id, want);
    }
    pthread_mutex_unlock(&instr_xray_lock);
    instr_info(1, "xray: %s(): %d function%s changed", what, changed, changed == 1 ? "" : "s");
    return changed;
}

EXPORT int instr_xray_patch(const char *pattern)
{
    return set_by_pattern("instr_xray_patch", pattern, 1);
}

EXPORT int instr_xray_unpatch(const char *pattern)
{
    return set_by_pattern("instr_xray_unpatch", pattern, 0);
}

EXPORT int instr_xray_patch_all(void) { return set_all("instr_xray_patch_all", 1); }

EXPORT int instr_xray_unpatch_all(void) { return set_all("instr_xray_unpatch_all", 0); }
