/* touch_pages: main calls touch() once, which writes one byte into each of PAGES new pages of
 * a fresh mapping (so each write is a page fault), and spin(), which burns CPU time for about
 * SPIN_MS milliseconds. The metrics tests predict page-faults >= PAGES in touch() and
 * task-clock of main close to its time. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline))

NOINLINE static long touch(long pages)
{
    long size = sysconf(_SC_PAGESIZE);
    volatile char *p = mmap(NULL, (size_t)(pages * size), PROT_READ | PROT_WRITE,
                            MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        return -1;
    for (long i = 0; i < pages; i++)
        p[i * size] = 1;
    long sum = 0;
    for (long i = 0; i < pages; i++)
        sum += p[i * size];
    munmap((void *)p, (size_t)(pages * size));
    return sum;
}

NOINLINE static double spin(long ms)
{
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    volatile double x = 0;
    do {
        for (int i = 0; i < 10000; i++)
            x += i * 0.5;
        clock_gettime(CLOCK_MONOTONIC, &b);
    } while ((b.tv_sec - a.tv_sec) * 1000 + (b.tv_nsec - a.tv_nsec) / 1000000 < ms);
    return x;
}

int main(int argc, char **argv)
{
    long pages = argc > 1 ? atol(argv[1]) : 1000;
    long ms = argc > 2 ? atol(argv[2]) : 200;
    long touched = touch(pages);
    double x = spin(ms);
    printf("touched %ld pages%s\n", touched, x > 0 ? "" : "?");
    return 0;
}
