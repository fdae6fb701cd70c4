/* Exceptions thrown and caught inside parallel regions (inside a critical section), and
 * exit() called by a worker inside a parallel region (with an argument): check_openmp.py
 * (case gomp_exits, g++ on GNU libgomp) checks that every location's events stay balanced. */
#include <cstdio>
#include <cstdlib>
#include <omp.h>
#include <stdexcept>

#define ROUNDS 3

__attribute__((noinline)) int thrower(int i)
{
    if (i % 2)
        throw std::runtime_error("odd");
    return i;
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
    if (argc > 1) {
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
