/* Exceptions thrown and caught inside parallel regions (inside a critical section), exit()
 * called by a worker inside a parallel region (argument "exit"), and a termination signal
 * that arrives while every thread works inside a parallel region (argument "signal": the
 * program says "ready" and works until it is killed): check_openmp.py (case gomp_exits, g++
 * on GNU libgomp) checks that every location's events stay balanced. */
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <omp.h>
#include <stdexcept>

#define ROUNDS 3

static volatile int stop; /* never set: the signal ends the loop */

__attribute__((noinline)) int thrower(int i)
{
    if (i % 2)
        throw std::runtime_error("odd");
    return i;
}

__attribute__((noinline)) double work(double x)
{
    for (int k = 0; k < 1000; k++)
        x = x * 0.999 + 1.0;
    return x;
}

int main(int argc, char **argv)
{
    int caught = 0;
    for (int r = 0; r < ROUNDS; r++) {
#pragma omp parallel reduction(+ : caught)
        {
#pragma omp critical
            try {
                thrower(omp_get_thread_num() + 1);
            } catch (const std::exception &) {
                caught++;
            }
#pragma omp barrier
        }
    }
    printf("caught %d\n", caught);
    fflush(stdout);
    if (argc > 1 && strcmp(argv[1], "signal") == 0) {
        double sink = 0;
#pragma omp parallel reduction(+ : sink)
        {
            /* every thread has been in work() once before "ready": with more threads than
             * cores, a worker may otherwise not have run at all when the signal comes */
            sink += work(sink);
#pragma omp barrier
#pragma omp masked
            {
                printf("ready\n");
                fflush(stdout);
            }
            while (!stop) /* until the signal ends the process */
                sink += work(sink);
        }
        printf("%g\n", sink);
    }
    if (argc > 1 && strcmp(argv[1], "exit") == 0) {
#pragma omp parallel
        {
#pragma omp barrier
            if (omp_get_thread_num() == 1)
                exit(0);
#pragma omp barrier
        }
    }
    return 0;
}
