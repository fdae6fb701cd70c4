/* xprog.c — the XRay adapter's test program. Every function is a real call (noinline) with
 * sleds; the scenario (argv[1]) decides what the program patches while it runs, and it
 * prints what the patching API returned so that the test can check those numbers too. */
#include <instr.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#define NOINLINE __attribute__((noinline))

volatile int sink;

NOINLINE void work_a(int i) { sink += i; }
NOINLINE void work_b(int i) { sink += 2 * i; }
NOINLINE void work_c(int i) { sink += 3 * i; }

NOINLINE void phase(int n)
{
    for (int i = 0; i < n; i++) {
        work_a(i);
        work_b(i);
        work_c(i);
    }
}

/* Unpatches itself while it is on the stack: its exit sled is gone when it returns. */
NOINLINE void self_unpatch(void)
{
    printf("unpatch(self_unpatch)=%d\n", instr_xray_unpatch("self_unpatch"));
    sink++;
}

NOINLINE void outer(void)
{
    phase(1);
    self_unpatch();
    sink++; /* not a tail call: outer's own exit sled runs */
}

/* A tail call at -O1 (jmp work_a): XRay reports TAIL, the exit of tail_caller, before
 * work_a starts, so work_a runs as a sibling of tail_caller, not as its child. */
NOINLINE void tail_caller(int i)
{
    sink++;
    work_a(i);
}

/* Its entry sled is a LOG_ARGS_ENTRY one (clang emits it with xray_always_instrument only):
 * XRay calls the handler of arguments, not the main one. */
NOINLINE __attribute__((xray_always_instrument, xray_log_args(1))) void with_args(int i)
{
    work_b(i);
    sink += i;
}

/* A thread of the "threads" scenario. */
NOINLINE void *worker(void *arg)
{
    phase(5);
    return arg;
}

int main(int argc, char **argv)
{
    const char *scenario = argc > 1 ? argv[1] : "run";
    if (strcmp(scenario, "run") == 0) {
        phase(5);
        tail_caller(7);
    } else if (strcmp(scenario, "pattern") == 0) {
        printf("patch(work_[ab])=%d\n", instr_xray_patch("work_[ab]"));
        printf("patch(work_a)=%d\n", instr_xray_patch("work_a")); /* already: 0 */
        phase(5);
    } else if (strcmp(scenario, "unpatch") == 0) {
        printf("patch_all=%d\n", instr_xray_patch_all());
        phase(3);
        printf("unpatch(work_*)=%d\n", instr_xray_unpatch("work_*"));
        phase(4);
        outer();
        printf("patch(work_*)=%d\n", instr_xray_patch("work_*"));
        phase(2);
    } else if (strcmp(scenario, "args") == 0) {
        for (int i = 0; i < 3; i++)
            with_args(i);
        work_c(1);
    } else if (strcmp(scenario, "pause") == 0) {
        phase(2);
        instr_pause(); /* the second phase is not recorded */
        phase(3);
        instr_resume();
        phase(4);
    } else if (strcmp(scenario, "threads") == 0) {
        pthread_t t[3];
        for (int i = 0; i < 3; i++)
            pthread_create(&t[i], NULL, worker, NULL);
        for (int i = 0; i < 3; i++)
            pthread_join(t[i], NULL);
    } else if (strcmp(scenario, "bad") == 0) {
        printf("patch([)=%d\n", instr_xray_patch("work_["));
        printf("patch(NULL)=%d\n", instr_xray_patch(NULL));
    }
    printf("sink=%d\n", sink);
    return 0;
}
