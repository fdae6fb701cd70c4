/* clock.h — the event clock. Ticks of the TSC where it is invariant, else nanoseconds of
 * CLOCK_MONOTONIC. Ticks are converted to nanoseconds only when results are written, with one
 * monotone function, so the hot path does no arithmetic beyond reading the counter. */
#ifndef INSTR_RT_CLOCK_H
#define INSTR_RT_CLOCK_H

#include <stdint.h>
#include <time.h>
#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#define INSTR_HAVE_TSC 1
#endif

extern int instr_clock_use_tsc;

static inline uint64_t instr_clock_now(void)
{
#ifdef INSTR_HAVE_TSC
    if (__builtin_expect(instr_clock_use_tsc, 1))
        return __rdtsc();
#endif
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
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

/* Chooses the timer (INSTR_TIMER via instr_cfg) and takes the calibration's first point. */
void instr_clock_init(void);
/* Takes the calibration's last point (at least a few ms after the first). */
void instr_clock_finish(void);
/* floor(ticks * ns_per_tick): monotone and superadditive, so sums keep their order. */
uint64_t instr_clock_to_ns(uint64_t ticks);
double instr_clock_hz(void);
const char *instr_clock_name(void);
/* 1 when the CPU reports an invariant TSC (CPUID 0x80000007 EDX bit 8). */
int instr_clock_tsc_invariant(void);

#endif
