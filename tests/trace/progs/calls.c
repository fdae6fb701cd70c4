/* Known call counts for the trace tests (-finstrument-functions). A helper thread runs and
 * ends before main does. Modes (argv[1]):
 *   normal  return from main
 *   exit    exit(3) from 6 frames deep (deep_exit), with main still open
 *   fork    a child process calls mid(2) and ends through exit(0); the parent waits
 * Enter counts: main 1, early 1, mid 15, leaf 56, rec 7; exit: + deep_exit 6;
 * fork: the parent's as normal (the child's are not traced). */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline))

static int sink; /* atomic: threads add to it, and a lost update would change the output */
static volatile int really_exit = 1;

NOINLINE int leaf(int x) { return (x * 2 + __atomic_load_n(&sink, __ATOMIC_RELAXED)) & 0xff; }

NOINLINE int mid(int n)
{
    int s = 0;
    for (int i = 0; i < n; i++)
        s += leaf(i);
    return s;
}

NOINLINE int rec(int d) { return d ? rec(d - 1) + 1 : leaf(d); }

NOINLINE void *early(void *arg)
{
    (void)arg;
    for (int i = 0; i < 5; i++)
        __atomic_fetch_add(&sink, mid(3), __ATOMIC_RELAXED);
    return NULL;
}

static void say_goodbye(void)
{
    printf("exiting deep, sink=%d\n", __atomic_load_n(&sink, __ATOMIC_RELAXED));
    fflush(stdout);
    exit(3);
}

NOINLINE void deep_exit(int d)
{
    if (d > 0)
        deep_exit(d - 1);
    else if (really_exit) /* a base case that may return, for -Winfinite-recursion */
        say_goodbye();
    __atomic_fetch_add(&sink, 1, __ATOMIC_RELAXED);
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "normal";
    pthread_t t;
    if (pthread_create(&t, NULL, early, NULL) != 0 || pthread_join(t, NULL) != 0) {
        perror("pthread");
        return 1;
    }
    for (int i = 0; i < 10; i++)
        __atomic_fetch_add(&sink, mid(4), __ATOMIC_RELAXED);
    __atomic_fetch_add(&sink, rec(6), __ATOMIC_RELAXED);
    if (strcmp(mode, "exit") == 0)
        deep_exit(5);
    if (strcmp(mode, "fork") == 0) {
        fflush(stdout);
        pid_t pid = fork();
        if (pid < 0) {
            perror("fork");
            return 1;
        }
        if (pid == 0) {
            __atomic_fetch_add(&sink, mid(2), __ATOMIC_RELAXED);
            exit(0);
        }
        int status;
        if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
            fprintf(stderr, "child failed\n");
            return 1;
        }
    }
    printf("sink=%d\n", __atomic_load_n(&sink, __ATOMIC_RELAXED));
    return 0;
}
