/* threads.c — a thread the program starts is sampled from its start, events or not
 * (docs/sampling.md): pthread_create is interposed and, with sampling on, the new thread
 * becomes a location before it runs the program's start routine. Without hooks (the runtime
 * preloaded, sampling alone) nothing else would register it; with hooks it only registers
 * earlier than its first event. With sampling off the call goes straight to the C library. */
#include "sampling.h"
#include "../util/own_thread.h"
#include "../util/pages.h"

#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stddef.h>

#define EXPORT __attribute__((visibility("default"), no_instrument_function))

/* Under ThreadSanitizer its pthread_create comes first and calls this one, whose begin would
 * then run on the new thread before ThreadSanitizer has set the thread up (its start routine
 * is the one passed here): the instrumented runtime crashed there. So a thread starts as
 * without sampling, and becomes a location at its first event. */
#if defined(__SANITIZE_THREAD__)
#define UNDER_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define UNDER_TSAN 1
#endif
#endif
#ifndef UNDER_TSAN
#define UNDER_TSAN 0
#endif

typedef int (*create_fn)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);

typedef struct start {
    void *(*fn)(void *);
    void *arg;
} start;

static void *begin(void *p)
{
    start s = *(start *)p;
    instr_mem_free(p);
    instr_sampling_started();
    return s.fn(s.arg);
}

EXPORT int pthread_create(pthread_t *thread, const pthread_attr_t *attr,
                          void *(*fn)(void *), void *arg)
{
    static create_fn real;
    create_fn c = __atomic_load_n(&real, __ATOMIC_ACQUIRE);
    if (!c) {
        c = (create_fn)dlsym(RTLD_NEXT, "pthread_create");
        if (!c)
            return EAGAIN; /* no C library pthread_create to forward to */
        __atomic_store_n(&real, c, __ATOMIC_RELEASE);
    }
    /* A thread of the runtime's own (util/own_thread.c) is never sampled. */
    if (!instr_sampling_active() || UNDER_TSAN || instr_own_thread_starting())
        return c(thread, attr, fn, arg);
    start *s = instr_mem_alloc(sizeof *s);
    if (!s)
        return c(thread, attr, fn, arg);
    s->fn = fn;
    s->arg = arg;
    int rc = c(thread, attr, begin, s);
    if (rc != 0)
        instr_mem_free(s);
    return rc;
}
