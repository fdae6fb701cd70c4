/* count_hooks.c — -finstrument-functions hooks that count enter events and print the count
 * at exit (`bench-calls=N` on stderr). The benchmark driver builds a counting twin of each
 * -finstrument-functions configuration (same compiler, same flags) to know exactly how many
 * instrumented calls the timed one makes. Compiled without -finstrument-functions. */
#include <stdio.h>

static unsigned long long calls;

void __cyg_profile_func_enter(void *fn, void *site)
{
    (void)fn, (void)site;
    calls++;
}

void __cyg_profile_func_exit(void *fn, void *site)
{
    (void)fn, (void)site;
}

__attribute__((destructor)) static void report(void)
{
    fprintf(stderr, "bench-calls=%llu\n", calls);
}
