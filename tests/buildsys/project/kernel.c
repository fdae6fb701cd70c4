/* The small project the build-system recipes build: a library part ... */
#include "kernel.h"

double kernel_step(double x)
{
    return x * 0.5 + 1.0;
}

double kernel_run(int steps)
{
    double x = 0.0;
    for (int i = 0; i < steps; i++)
        x = kernel_step(x);
    return x;
}
