// MPI + OpenMP (check_openmp.py cases hybrid_*): run with 4 ranks x OMP_NUM_THREADS=2. Argument "multiple":
// MPI_THREAD_MULTIPLE, every thread calls MPI_Allreduce on its own communicator; "funneled":
// MPI_THREAD_FUNNELED, only the master thread calls MPI, inside `masked`. `step` has two
// parallel loops and two barriers in one function: four construct sites. The "// @name"
// comments mark the lines the region names carry.
#include <mpi.h>
#include <omp.h>

#include <cstdio>
#include <cstring>

#define STEPS 3
#define N 64

namespace hybrid {
__attribute__((noinline)) double cell(int i) { return (i % 7) * 0.5; }

__attribute__((noinline)) double exchange(double v, MPI_Comm comm)
{
    double sum = 0;
    MPI_Allreduce(&v, &sum, 1, MPI_DOUBLE, MPI_SUM, comm);
    return sum;
}

// Out of line, so that each construct has one code address (docs/openmp.md).
__attribute__((noinline)) double step(double *a, bool multiple, MPI_Comm *comms)
{
    double s = 0, total = 0;
#pragma omp parallel for reduction(+ : s) // @for1
    for (int i = 0; i < N; i++)
        s += cell(i) + a[i];
#pragma omp parallel reduction(+ : total) // @par
    {
        int t = omp_get_thread_num();
#pragma omp barrier // @barrier1
        if (multiple) {
            total += exchange(s + t, comms[t]);
        } else {
#pragma omp masked // @masked
            total += exchange(s, MPI_COMM_WORLD);
        }
#pragma omp barrier // @barrier2
        a[t] += 0;
    }
#pragma omp parallel for // @for2
    for (int i = 0; i < N; i++)
        a[i] += cell(i);
    return total;
}
} // namespace hybrid

int main(int argc, char **argv)
{
    bool multiple = argc > 1 && std::strcmp(argv[1], "multiple") == 0;
    int want = multiple ? MPI_THREAD_MULTIPLE : MPI_THREAD_FUNNELED, got = 0;
    MPI_Init_thread(&argc, &argv, want, &got);
    if (got < want) {
        std::fprintf(stderr, "hybrid: MPI provides thread level %d < %d\n", got, want);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    int rank = 0, threads = omp_get_max_threads();
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm comms[16];
    for (int t = 0; t < threads && t < 16; t++)
        MPI_Comm_dup(MPI_COMM_WORLD, &comms[t]);
    double a[N] = {0}, r = 0;
    for (int k = 0; k < STEPS; k++)
        r += hybrid::step(a, multiple, comms);
    for (int t = 0; t < threads && t < 16; t++)
        MPI_Comm_free(&comms[t]);
    if (rank == 0)
        std::printf("result %g\n", r);
    MPI_Finalize();
    return 0;
}
