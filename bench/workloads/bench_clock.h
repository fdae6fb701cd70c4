/* bench_clock.h — the clock every workload reads around its measured part (start-up and the
 * tools' writing of results stay outside). Marked no_instrument_function so that no
 * configuration measures the measuring. */
#ifndef BENCH_CLOCK_H
#define BENCH_CLOCK_H
#if !defined(_POSIX_C_SOURCE) && !defined(__cplusplus)
#define _POSIX_C_SOURCE 200809L /* clock_gettime under -std=c11; include this header first */
#endif
#include <time.h>

__attribute__((no_instrument_function)) static inline double bench_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}
#endif
