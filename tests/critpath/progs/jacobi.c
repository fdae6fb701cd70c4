/* jacobi.c — a small MPI mini-app: Jacobi iterations of the 2-D Laplace equation on a grid
 * split into row blocks of unequal height (rank r holds a share proportional to r + 1, so
 * the last rank is the slowest), with a halo exchange per iteration (MPI_Irecv, MPI_Isend,
 * MPI_Waitall) and the global residual every 10 iterations (MPI_Allreduce). Rank 0 prints
 * the residuals, which do not depend on timing. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define COLS 2000
#define ROWS 1000
#define ITERS 200

__attribute__((noinline)) void exchange(double *u, int rows, int up, int down)
{
    MPI_Request rq[4];
    int n = 0;
    if (up != MPI_PROC_NULL) {
        MPI_Irecv(u, COLS, MPI_DOUBLE, up, 1, MPI_COMM_WORLD, &rq[n++]);
        MPI_Isend(u + COLS, COLS, MPI_DOUBLE, up, 2, MPI_COMM_WORLD, &rq[n++]);
    }
    if (down != MPI_PROC_NULL) {
        MPI_Irecv(u + (size_t)(rows + 1) * COLS, COLS, MPI_DOUBLE, down, 2, MPI_COMM_WORLD,
                  &rq[n++]);
        MPI_Isend(u + (size_t)rows * COLS, COLS, MPI_DOUBLE, down, 1, MPI_COMM_WORLD, &rq[n++]);
    }
    MPI_Waitall(n, rq, MPI_STATUSES_IGNORE);
}

__attribute__((noinline)) void sweep(const double *u, double *v, int rows)
{
    for (int i = 1; i <= rows; i++)
        for (int j = 1; j < COLS - 1; j++)
            v[(size_t)i * COLS + j] = 0.25 * (u[(size_t)(i - 1) * COLS + j] +
                                              u[(size_t)(i + 1) * COLS + j] +
                                              u[(size_t)i * COLS + j - 1] +
                                              u[(size_t)i * COLS + j + 1]);
}

__attribute__((noinline)) double residual(const double *u, const double *v, int rows)
{
    double r = 0;
    for (int i = 1; i <= rows; i++)
        for (int j = 1; j < COLS - 1; j++) {
            double d = v[(size_t)i * COLS + j] - u[(size_t)i * COLS + j];
            r += d * d;
        }
    double all = 0;
    MPI_Allreduce(&r, &all, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    return all;
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int parts = size * (size + 1) / 2, before = rank * (rank + 1) / 2;
    int first = ROWS * before / parts, last = ROWS * (before + rank + 1) / parts;
    int rows = last - first;
    double *u = calloc((size_t)(rows + 2) * COLS, sizeof *u);
    double *v = calloc((size_t)(rows + 2) * COLS, sizeof *v);
    if (rank == 0) /* the top edge is hot */
        for (int j = 0; j < COLS; j++)
            u[j] = v[j] = 100.0;
    int up = rank > 0 ? rank - 1 : MPI_PROC_NULL, down = rank + 1 < size ? rank + 1 : MPI_PROC_NULL;
    for (int it = 1; it <= ITERS; it++) {
        exchange(u, rows, up, down);
        sweep(u, v, rows);
        if (it % 10 == 0) {
            double r = residual(u, v, rows);
            if (rank == 0)
                printf("iteration %d residual %.10e\n", it, r);
        }
        double *t = u;
        u = v;
        v = t;
        if (rank == 0)
            for (int j = 0; j < COLS; j++)
                u[j] = 100.0;
    }
    free(u);
    free(v);
    MPI_Finalize();
    return 0;
}
