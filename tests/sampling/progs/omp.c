/* omp.c — an OpenMP loop whose body (a static function inlined into the outlined parallel
 * body) calls libm: with sampling, each thread's samples stand beneath its implicit task. */
#include <math.h>
#include <stdio.h>

static double kernel(int i)
{
    double s = 0;
    for (int j = 0; j < 20000; j++)
        s += sin(i * 1e-3 + j);
    return s;
}

__attribute__((noinline)) double work(void)
{
    double t = 0;
#pragma omp parallel for reduction(+ : t)
    for (int i = 0; i < 3000; i++)
        t += kernel(i);
    return t;
}

int main(void)
{
    printf("%g\n", work());
    return 0;
}
