/* io_loop.c — N write(2)s of 64 bytes to /dev/null in one function (bench/io/io_cost.sh):
 * prints the wall time per call. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static char buf[64];

__attribute__((noinline)) void writes(int fd, long n)
{
    for (long i = 0; i < n; i++)
        if (write(fd, buf, sizeof buf) != (ssize_t)sizeof buf)
            abort();
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 1000000;
    int fd = open("/dev/null", O_WRONLY);
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    writes(fd, n);
    clock_gettime(CLOCK_MONOTONIC, &b);
    double ns = (double)(b.tv_sec - a.tv_sec) * 1e9 + (double)(b.tv_nsec - a.tv_nsec);
    printf("ns_per_call=%.1f\n", ns / (double)n);
    close(fd);
    return 0;
}
