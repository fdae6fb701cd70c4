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
clockid_t instr_clock_id = CLOCK_MONOTONIC;

static uint64_t tsc0, tsc1, ns0, ns1;
static const char *timer_name = "clock_gettime";
static double resolution_ns, cost_ns, start_ns_per_tick = 1.0;

/* Reading the TSC costs more than this (ns) on some virtual machines, which trap it: said once
 * at start-up, because every event pays it. */
#define SLOW_READ_NS 10.0
#define PROBE_READS 1000

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

/* PROBE_READS back-to-back reads of the chosen timer: the mean cost, and the smallest
 * non-zero step (ticks; converted with a rate estimated over the same reads for the TSC). */
static void probe(void)
{
    uint64_t m0 = mono_ns(), t0 = instr_clock_now(), prev = t0, step = UINT64_MAX;
    for (int i = 0; i < PROBE_READS; i++) {
        uint64_t t = instr_clock_now();
        if (t > prev && t - prev < step)
            step = t - prev;
        prev = t;
    }
    uint64_t m1 = mono_ns();
    cost_ns = (double)(m1 - m0) / PROBE_READS;
    double ns_per_tick = 1.0;
    if (instr_clock_use_tsc)
        ns_per_tick = prev > t0 && m1 > m0 ? (double)(m1 - m0) / (double)(prev - t0) : 0.0;
    if (step == UINT64_MAX) {
        struct timespec r;
        step = clock_getres(instr_clock_id, &r) == 0 ? (uint64_t)r.tv_nsec : 0;
    }
    resolution_ns = (double)step * ns_per_tick;
    if (ns_per_tick > 0)
        start_ns_per_tick = ns_per_tick;
}

static void use_clock(clockid_t id, const char *name)
{
    instr_clock_use_tsc = 0;
    instr_clock_id = id;
    timer_name = name;
}

void instr_clock_init(void)
{
    int invariant = instr_clock_tsc_invariant();
    switch (instr_cfg.timer) {
    case INSTR_TIMER_TSC:
#ifdef INSTR_HAVE_TSC
        instr_clock_use_tsc = 1;
        timer_name = "tsc";
        if (!invariant)
            instr_warn("INSTR_TIMER=tsc: this CPU does not report an invariant TSC; times may be "
                       "wrong when the frequency changes (using tsc as asked)");
#else
        instr_warn("INSTR_TIMER=tsc: no TSC on this architecture; using monotonic");
        use_clock(CLOCK_MONOTONIC, "monotonic");
#endif
        break;
    case INSTR_TIMER_CLOCK_GETTIME:
    case INSTR_TIMER_MONOTONIC:
    case INSTR_TIMER_MONOTONIC_RAW:
    case INSTR_TIMER_REALTIME: {
        static const struct { int timer; clockid_t id; const char *name; } clocks[] = {
            {INSTR_TIMER_CLOCK_GETTIME, CLOCK_MONOTONIC, "clock_gettime"},
            {INSTR_TIMER_MONOTONIC, CLOCK_MONOTONIC, "monotonic"},
            {INSTR_TIMER_MONOTONIC_RAW, CLOCK_MONOTONIC_RAW, "monotonic_raw"},
            {INSTR_TIMER_REALTIME, CLOCK_REALTIME, "realtime"},
        };
        for (size_t i = 0; i < sizeof clocks / sizeof *clocks; i++)
            if (clocks[i].timer == instr_cfg.timer)
                use_clock(clocks[i].id, clocks[i].name);
        break;
    }
    default:
#ifdef INSTR_HAVE_TSC
        if (invariant) {
            instr_clock_use_tsc = 1;
            timer_name = "tsc";
        } else {
            use_clock(CLOCK_MONOTONIC, "monotonic");
        }
#else
        use_clock(CLOCK_MONOTONIC, "monotonic");
#endif
        instr_info(1, "timer: %s (the CPU %s an invariant TSC)", timer_name,
                   invariant ? "has" : "does not report");
        break;
    }
    probe();
    instr_info(1, "timer %s: resolution %.1f ns, %.1f ns per read (measured at start-up)",
               timer_name, resolution_ns, cost_ns);
    if (instr_clock_use_tsc && cost_ns > SLOW_READ_NS)
        instr_info(1, "note: reading the TSC costs %.1f ns here (a virtual machine that traps "
                      "it?); every enter and exit reads it once", cost_ns);
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

double instr_clock_ns_per_tick_early(void) { return start_ns_per_tick; }

const char *instr_clock_name(void) { return timer_name; }
double instr_clock_resolution_ns(void) { return resolution_ns; }
double instr_clock_cost_ns(void) { return cost_ns; }
