/* clock.h — the event clock. Ticks of the TSC (INSTR_TIMER=tsc, or auto where it is
 * invariant), else nanoseconds of a clock_gettime clock (monotonic, monotonic_raw, realtime).
 * Ticks are converted to nanoseconds only when results are written, with one monotone
 * function, so the hot path does no arithmetic beyond reading the counter. */
#ifndef INSTR_RT_CLOCK_H
#define INSTR_RT_CLOCK_H

#include <stdint.h>
#include <time.h>
#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#define INSTR_HAVE_TSC 1
#endif

extern int instr_clock_use_tsc;
extern clockid_t instr_clock_id; /* when not the TSC */

static inline uint64_t instr_clock_now(void)
{
#ifdef INSTR_HAVE_TSC
    if (__builtin_expect(instr_clock_use_tsc, 1))
        return __rdtsc();
#endif
    struct timespec ts;
    clock_gettime(instr_clock_id, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The clock_gettime clock, for the paths that run only when the timer is not the TSC. */
static inline uint64_t instr_clock_other(void)
{
    struct timespec ts;
    clock_gettime(instr_clock_id, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The TSC, for the cursor path, which runs only when the timer is the TSC. */
static inline uint64_t instr_clock_tsc(void)
{
#ifdef INSTR_HAVE_TSC
    return __rdtsc();
#else
    return instr_clock_now();
#endif
}

/* Chooses the timer (INSTR_TIMER via instr_cfg), measures its resolution and the cost of one
 * read, and takes the calibration's first point. */
void instr_clock_init(void);
/* Takes the calibration's last point (at least a few ms after the first). */
void instr_clock_finish(void);
/* floor(ticks * ns_per_tick): monotone and superadditive, so sums keep their order. */
uint64_t instr_clock_to_ns(uint64_t ticks);
double instr_clock_hz(void);
/* The rate as estimated at start-up over the probe's reads (instr_clock_to_ns needs the
 * end's calibration): for decisions taken while the program runs (throttling). */
double instr_clock_ns_per_tick_early(void);
/* The timer's name as written in the experiment: tsc, monotonic, monotonic_raw, realtime,
 * clock_gettime (the earlier spelling of monotonic, kept when asked for by that name). */
const char *instr_clock_name(void);
/* Measured at start-up: the smallest step between two different reads, and the mean cost of
 * one read, both in nanoseconds. */
double instr_clock_resolution_ns(void);
double instr_clock_cost_ns(void);
/* 1 when the CPU reports an invariant TSC (CPUID 0x80000007 EDX bit 8). */
int instr_clock_tsc_invariant(void);

#endif
