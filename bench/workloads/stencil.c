/* stencil.c — the compute-kernel workload: a few large functions doing nearly all the work
 * (Jacobi sweeps of a 2-D heat equation, a residual, a dense matrix product), called a few
 * hundred times in all. What any instrumentation should cost here is close to nothing.
 * Usage: stencil [REPETITIONS]; prints kernel_ns= (the measured part) and a checksum. */
#include "bench_clock.h"

#include <stdio.h>
#include <stdlib.h>

enum { N = 512, M = 160, SWEEPS = 150 };

static void init(double *u, int n)
{
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            u[i * n + j] = (i == 0 || j == 0 || i == n - 1 || j == n - 1) ? 1.0 : 0.0;
}

static void sweep(const double *restrict u, double *restrict v, int n)
{
    for (int i = 1; i < n - 1; i++)
        for (int j = 1; j < n - 1; j++)
            v[i * n + j] = 0.25 * (u[(i - 1) * n + j] + u[(i + 1) * n + j] + u[i * n + j - 1] +
                                   u[i * n + j + 1]);
}

static double residual(const double *u, const double *v, int n)
{
    double r = 0;
    for (int i = 1; i < n - 1; i++)
        for (int j = 1; j < n - 1; j++) {
            double d = u[i * n + j] - v[i * n + j];
            r += d * d;
        }
    return r;
}

static void matmul(const double *restrict a, const double *restrict b, double *restrict c, int m)
{
    for (int i = 0; i < m; i++) {
        for (int j = 0; j < m; j++)
            c[i * m + j] = 0;
        for (int k = 0; k < m; k++) {
            double aik = a[i * m + k];
            for (int j = 0; j < m; j++)
                c[i * m + j] += aik * b[k * m + j];
        }
    }
}

int main(int argc, char **argv)
{
    long reps = argc > 1 ? atol(argv[1]) : 1;
    double *u = malloc(sizeof(double) * N * N), *v = malloc(sizeof(double) * N * N);
    double *a = malloc(sizeof(double) * M * M), *b = malloc(sizeof(double) * M * M),
           *c = malloc(sizeof(double) * M * M);
    if (!u || !v || !a || !b || !c) {
        fprintf(stderr, "stencil: out of memory\n");
        return 1;
    }
    for (int i = 0; i < M * M; i++) {
        a[i] = (double)(i % 17) / 17.0;
        b[i] = (double)(i % 13) / 13.0;
    }
    double sum = 0;
    double t0 = bench_now_ns();
    for (long r = 0; r < reps; r++) {
        init(u, N);
        init(v, N);
        for (int s = 0; s < SWEEPS; s++) {
            sweep(u, v, N);
            sweep(v, u, N);
            sum += residual(u, v, N);
        }
        matmul(a, b, c, M);
        matmul(c, a, b, M);
        sum += b[M * M / 2] + u[N * N / 2];
    }
    double t1 = bench_now_ns();
    printf("kernel_ns=%.0f checksum=%.6e\n", t1 - t0, sum);
    free(u), free(v), free(a), free(b), free(c);
    return 0;
}
