/* sync.c — mutual exclusion of libgomp into the OpenMP event model (../ompt/model.h):
 * critical (named or not), atomic (where gcc asks libgomp for its lock: types without a
 * native atomic), ordered and the omp_*_lock API, each as OMPT reports a mutex (acquire,
 * acquired, released; the wait is a child region). The wait id (the model's tag and the
 * critical path's key) is the lock's address, or a constant for libgomp's internal locks. */
#include "gomp.h"
#include "state.h"
#include "../ompt/model.h"

#define EXPORT __attribute__((visibility("default")))

enum { CRITICAL_DEFAULT = 1, ATOMIC_LOCK = 2, ORDERED = 3 };

#define ACQUIRE(kind, id, call)                                                               \
    do {                                                                                      \
        if (!instr_gomp_on) {                                                                 \
            call;                                                                             \
            return;                                                                           \
        }                                                                                     \
        const void *ra_ = INSTR_GOMP_RA;                                                      \
        instr_omp_on_mutex_acquire((kind), 0, 0, (ompt_wait_id_t)(id), ra_);                  \
        call;                                                                                 \
        instr_omp_on_mutex_acquired((kind), (ompt_wait_id_t)(id), ra_);                       \
    } while (0)

#define RELEASE(kind, id, call)                                                               \
    do {                                                                                      \
        if (instr_gomp_on)                                                                    \
            instr_omp_on_mutex_released((kind), (ompt_wait_id_t)(id), INSTR_GOMP_RA);         \
        call;                                                                                 \
    } while (0)

EXPORT void GOMP_critical_start(void)
{
    ACQUIRE(ompt_mutex_critical, CRITICAL_DEFAULT, REAL(GOMP_critical_start)());
}

EXPORT void GOMP_critical_end(void)
{
    RELEASE(ompt_mutex_critical, CRITICAL_DEFAULT, REAL(GOMP_critical_end)());
}

EXPORT void GOMP_critical_name_start(void **pptr)
{
    ACQUIRE(ompt_mutex_critical, (uintptr_t)pptr, REAL(GOMP_critical_name_start)(pptr));
}

EXPORT void GOMP_critical_name_end(void **pptr)
{
    RELEASE(ompt_mutex_critical, (uintptr_t)pptr, REAL(GOMP_critical_name_end)(pptr));
}

EXPORT void GOMP_atomic_start(void)
{
    ACQUIRE(ompt_mutex_atomic, ATOMIC_LOCK, REAL(GOMP_atomic_start)());
}

EXPORT void GOMP_atomic_end(void)
{
    RELEASE(ompt_mutex_atomic, ATOMIC_LOCK, REAL(GOMP_atomic_end)());
}

EXPORT void GOMP_ordered_start(void)
{
    ACQUIRE(ompt_mutex_ordered, ORDERED, REAL(GOMP_ordered_start)());
}

EXPORT void GOMP_ordered_end(void)
{
    RELEASE(ompt_mutex_ordered, ORDERED, REAL(GOMP_ordered_end)());
}

/* ---- the lock API ---- */

EXPORT void omp_set_lock(void *lock)
{
    ACQUIRE(ompt_mutex_lock, (uintptr_t)lock, REAL(omp_set_lock)(lock));
}

EXPORT void omp_unset_lock(void *lock)
{
    RELEASE(ompt_mutex_lock, (uintptr_t)lock, REAL(omp_unset_lock)(lock));
}

EXPORT int omp_test_lock(void *lock)
{
    int r = REAL(omp_test_lock)(lock);
    if (r && instr_gomp_on)
        instr_omp_on_mutex_acquired(ompt_mutex_test_lock, (ompt_wait_id_t)(uintptr_t)lock,
                                    INSTR_GOMP_RA);
    return r;
}

/* libgomp's omp_nest_lock_t is { int lock; int count; void *owner; } (config/linux/omp-lock.h,
 * the layout of its OMP_3.0 symbols): the owner's nesting depth tells a first acquisition
 * (acquired/released) from a re-acquisition by the owner (the model's nest_lock). */
static int nest_depth(const void *lock) { return ((const int *)lock)[1]; }

EXPORT void omp_set_nest_lock(void *lock)
{
    if (!instr_gomp_on) {
        REAL(omp_set_nest_lock)(lock);
        return;
    }
    const void *ra = INSTR_GOMP_RA;
    ompt_wait_id_t id = (ompt_wait_id_t)(uintptr_t)lock;
    instr_omp_on_mutex_acquire(ompt_mutex_nest_lock, 0, 0, id, ra);
    REAL(omp_set_nest_lock)(lock);
    if (nest_depth(lock) == 1)
        instr_omp_on_mutex_acquired(ompt_mutex_nest_lock, id, ra);
    else
        instr_omp_on_nest_lock(ompt_scope_begin, id, ra);
}

EXPORT void omp_unset_nest_lock(void *lock)
{
    if (instr_gomp_on) {
        ompt_wait_id_t id = (ompt_wait_id_t)(uintptr_t)lock;
        if (nest_depth(lock) == 1)
            instr_omp_on_mutex_released(ompt_mutex_nest_lock, id, INSTR_GOMP_RA);
        else
            instr_omp_on_nest_lock(ompt_scope_end, id, INSTR_GOMP_RA);
    }
    REAL(omp_unset_nest_lock)(lock);
}

EXPORT int omp_test_nest_lock(void *lock)
{
    int r = REAL(omp_test_nest_lock)(lock);
    if (r > 0 && instr_gomp_on) {
        ompt_wait_id_t id = (ompt_wait_id_t)(uintptr_t)lock;
        if (r == 1)
            instr_omp_on_mutex_acquired(ompt_mutex_test_nest_lock, id, INSTR_GOMP_RA);
        else
            instr_omp_on_nest_lock(ompt_scope_begin, id, INSTR_GOMP_RA);
    }
    return r;
}
