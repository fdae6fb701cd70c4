/* constructs.c — OpenACC's constructs, run on the host (GCC's libgomp without an offload
 * device), one kind per instrumented function so that each region's call path says which
 * construct it is (tests/openacc/check.py expects the tree of the events libgomp delivers;
 * docs/openacc.md; events.c runs it with a callback for every event). The comments count what
 * each function runs. */
#include <stdio.h>

#define N 1000
#define NOINLINE __attribute__((noinline))

static double a[N], b[N];

/* 3 parallel constructs (the first one initialises the device) */
NOINLINE static void parallel_loops(int steps)
{
    for (int s = 0; s < steps; s++) {
#pragma acc parallel loop copyin(a) copyout(b)
        for (int i = 0; i < N; i++)
            b[i] = 2 * a[i] + s;
    }
}

/* 1 kernels construct */
NOINLINE static void kernels_part(void)
{
#pragma acc kernels
    for (int i = 0; i < N; i++)
        a[i] = b[i] + 1;
}

/* 1 serial construct */
NOINLINE static void serial_part(void)
{
#pragma acc serial
    a[0] = 1;
}

/* 1 data construct around 1 parallel construct and 1 update */
NOINLINE static void data_region(void)
{
#pragma acc data copy(a)
    {
#pragma acc parallel loop
        for (int i = 0; i < N; i++)
            a[i] += 1;
#pragma acc update self(a)
    }
}

/* 1 enter data, 1 exit data */
NOINLINE static void unstructured(void)
{
#pragma acc enter data copyin(b)
#pragma acc exit data copyout(b)
}

/* 1 asynchronous parallel construct, 2 waits */
NOINLINE static void waits(void)
{
#pragma acc parallel loop async(1)
    for (int i = 0; i < N; i++)
        b[i] = a[i];
#pragma acc wait(1)
#pragma acc wait
}

int main(void)
{
    for (int i = 0; i < N; i++)
        a[i] = i;
    parallel_loops(3);
    kernels_part();
    serial_part();
    data_region();
    data_region();
    unstructured();
    waits();
    double sum = 0;
    for (int i = 0; i < N; i++)
        sum += a[i] + b[i];
    printf("sum %.0f\n", sum);
    return 0;
}
