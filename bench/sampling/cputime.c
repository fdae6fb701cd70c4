/* cputime.c — runs a command and prints its CPU time (user + system, from wait4's rusage,
 * in microseconds) on stderr as "cputime_s S": the program's own time only, also when it runs
 * under `perf record` (then perf's own work is not counted) (bench/sampling/overhead.py).
 *
 *     cc -O2 -o cputime bench/sampling/cputime.c && ./cputime PROGRAM ARGS... */
#include <stdio.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    if (argc < 2)
        return 2;
    pid_t pid = fork();
    if (pid == 0) {
        execvp(argv[1], argv + 1);
        _exit(127);
    }
    int status;
    struct rusage ru;
    if (pid < 0 || wait4(pid, &status, 0, &ru) != pid)
        return 2;
    fprintf(stderr, "cputime_s %.6f\n",
            (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
                (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1e-6);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}
