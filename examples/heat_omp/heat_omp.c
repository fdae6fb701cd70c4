/* heat_omp.c — examples/heat/heat.c with OpenMP: the rows of a sweep and of the residual are
 * shared by a team of threads (`parallel for`). The OpenMP demo (examples/demo_openmp.sh)
 * shows every thread's update_row under main > simulate > timestep > sweep >
 * !$omp parallel @heat_omp.c:L > !$omp implicit task > !$omp for. Usage: heat_omp [N] [STEPS]. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Out of line, so that the profile shows the solver's layers also at -O2. */
#define LAYER __attribute__((noinline))

typedef struct grid {
    int n;
    double *u, *next;
} grid;

/* Element (i, j) of an n x n row-major array. */
#define at(a, n, i, j) (&(a)[(size_t)(i) * (size_t)(n) + (size_t)(j)])

static int grid_init(grid *g, int n)
{
    g->n = n;
    g->u = calloc((size_t)n * (size_t)n, sizeof *g->u);
    g->next = calloc((size_t)n * (size_t)n, sizeof *g->next);
    return g->u && g->next ? 0 : -1;
}

/* Hot top edge, cold elsewhere. */
static void apply_boundary(grid *g)
{
    for (int j = 0; j < g->n; j++) {
        *at(g->u, g->n, 0, j) = 100.0;
        *at(g->u, g->n, g->n - 1, j) = 0.0;
    }
    for (int i = 0; i < g->n; i++) {
        *at(g->u, g->n, i, 0) = 0.0;
        *at(g->u, g->n, i, g->n - 1) = 0.0;
    }
}

LAYER static void update_row(const grid *g, int i)
{
    int n = g->n;
    for (int j = 1; j < n - 1; j++)
        *at(g->next, n, i, j) = 0.25 * (*at(g->u, n, i - 1, j) + *at(g->u, n, i + 1, j) +
                                        *at(g->u, n, i, j - 1) + *at(g->u, n, i, j + 1));
}

LAYER static void sweep(grid *g)
{
#pragma omp parallel for schedule(static)
    for (int i = 1; i < g->n - 1; i++)
        update_row(g, i);
}

LAYER static void timestep(grid *g)
{
    apply_boundary(g);
    sweep(g);
    /* copy the interior back; the boundary is set again next step */
    for (int i = 1; i < g->n - 1; i++)
        memcpy(at(g->u, g->n, i, 1), at(g->next, g->n, i, 1), (size_t)(g->n - 2) * sizeof(double));
}

LAYER static double row_residual(const grid *g, int i)
{
    double r = 0;
    for (int j = 1; j < g->n - 1; j++) {
        double d = *at(g->next, g->n, i, j) - *at(g->u, g->n, i, j);
        r += d * d;
    }
    return r;
}

LAYER static double residual(grid *g)
{
    sweep(g);
    double r = 0;
#pragma omp parallel for schedule(static) reduction(+ : r)
    for (int i = 1; i < g->n - 1; i++)
        r += row_residual(g, i);
    return sqrt(r);
}

static double checksum(const grid *g)
{
    double s = 0;
    for (int k = 0; k < g->n * g->n; k++)
        s += g->u[k];
    return s;
}

LAYER static int simulate(grid *g, int steps)
{
    int done = 0;
    for (int s = 1; s <= steps; s++) {
        timestep(g);
        done = s;
        if (s % 25 == 0 && residual(g) < 1e-3)
            break;
    }
    return done;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 256;
    int steps = argc > 2 ? atoi(argv[2]) : 400;
    if (n < 3 || steps < 1) {
        fprintf(stderr, "usage: heat_omp [N>=3] [STEPS>=1]\n");
        return 2;
    }
    grid g;
    if (grid_init(&g, n) != 0) {
        fprintf(stderr, "heat_omp: out of memory\n");
        return 1;
    }
    int done = simulate(&g, steps);
    printf("heat_omp: %dx%d grid, %d steps, checksum %.6f\n", n, n, done, checksum(&g));
    free(g.u);
    free(g.next);
    return 0;
}
