/* clock.c — timer choice and TSC calibration.
 *
 * The TSC is calibrated against CLOCK_MONOTONIC between the runtime's start and the end of
 * measurement: no sleep at start-up, and the longer the run, the better the rate. Short runs
 * spin until the interval is at least 2 ms, which bounds the error to well under 0.1 %. */
#include "clock.h"
#include "config.h"
#include "log.h"

#ifdef INSTR_HAVE_TSC
#include <cpuid.h>
#endif

int instr_clock_use_tsc = 0;

static uint64_t tsc0, tsc1, ns0, ns1;

static uint64_t mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

int instr_clock_tsc_invariant(void)
{
#ifdef INSTR_HAVE_TSC
    unsigned a, b, c, d;
    if (!__get_cpuid(0x80000000u, &a, &b, &c, &d) || a < 0x80000007u)
        return 0;
    __get_cpuid(0x80000007u, &a, &b, &c, &d);
    return (d >> 8) & 1u;
#else
    return 0;
#endif
}

void instr_clock_init(void)
{
    int invariant = instr_clock_tsc_invariant();
    switch (instr_cfg.timer) {
    case INSTR_TIMER_TSC:
#ifdef INSTR_HAVE_TSC
        instr_clock_use_tsc = 1;
        if (!invariant)
            instr_warn("INSTR_TIMER=tsc: this CPU does not report an invariant TSC; times may be "
                       "wrong when the frequency changes (using tsc as asked)");
#else
        instr_warn("INSTR_TIMER=tsc: no TSC on this architecture; using clock_gettime");
#endif
        break;
    case INSTR_TIMER_CLOCK_GETTIME:
        instr_clock_use_tsc = 0;
        break;
    default:
        instr_clock_use_tsc = invariant;
        instr_info(1, "timer: %s (the CPU %s an invariant TSC)",
                   invariant ? "tsc" : "clock_gettime", invariant ? "has" : "does not report");
        break;
    }
    ns0 = mono_ns();
    tsc0 = instr_clock_now();
}

void instr_clock_finish(void)
{
    if (!instr_clock_use_tsc)
        return;
    while (mono_ns() - ns0 < 2000000u)
        ;
    ns1 = mono_ns();
    tsc1 = instr_clock_now();
    if (tsc1 <= tsc0)
        tsc1 = tsc0 + 1; /* cannot happen with an invariant TSC; keep the division defined */
}

uint64_t instr_clock_to_ns(uint64_t ticks)
{
    if (!instr_clock_use_tsc)
        return ticks;
    return (uint64_t)(((unsigned __int128)ticks * (ns1 - ns0)) / (tsc1 - tsc0));
}

double instr_clock_hz(void)
{
    if (!instr_clock_use_tsc)
        return 1e9;
    return (double)(tsc1 - tsc0) * 1e9 / (double)(ns1 - ns0);
}

const char *instr_clock_name(void) { return instr_clock_use_tsc ? "tsc" : "clock_gettime"; }
