/* launch.c — runs one command and reports its wall time and peak memory:
 *     launch RESULT_FILE COMMAND [ARGS...]
 * writes "wall_ns=<n> maxrss_kib=<n> status=<n>" to RESULT_FILE; the command's own output
 * goes where launch's goes. Peak memory is wait4's ru_maxrss of the command and the children
 * it waited for (uftrace's recorder included). A small C launcher, not the benchmark driver
 * itself, forks the command: Linux carries the forking process's resident size into the
 * child's ru_maxrss across exec, and the driver (python) is larger than most workloads. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: launch RESULT_FILE COMMAND [ARGS...]\n");
        return 2;
    }
    double t0 = now_ns();
    pid_t pid = fork();
    if (pid < 0) {
        fprintf(stderr, "launch: fork failed: %s\n", strerror(errno));
        return 2;
    }
    if (pid == 0) {
        execvp(argv[2], argv + 2);
        fprintf(stderr, "launch: cannot run %s: %s\n", argv[2], strerror(errno));
        _exit(127);
    }
    int status;
    struct rusage ru;
    while (wait4(pid, &status, 0, &ru) < 0) {
        if (errno != EINTR) {
            fprintf(stderr, "launch: wait4 failed: %s\n", strerror(errno));
            return 2;
        }
    }
    double t1 = now_ns();
    int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    FILE *f = fopen(argv[1], "w");
    if (!f) {
        fprintf(stderr, "launch: cannot write %s: %s\n", argv[1], strerror(errno));
        return 2;
    }
    fprintf(f, "wall_ns=%.0f maxrss_kib=%ld status=%d\n", t1 - t0, ru.ru_maxrss, code);
    fclose(f);
    return 0;
}
