// Kokkos in an MPI job: every rank runs the same named kernels and deep copies
// (tests/kokkos/check.py, case mpi): the job's merged profile and trace have them.
#include <Kokkos_Core.hpp>
#include <mpi.h>

#include <cstdio>

__attribute__((noinline)) static double step(Kokkos::View<double *> a)
{
    Kokkos::parallel_for("Fill", a.extent(0), KOKKOS_LAMBDA(int i) { a(i) = i; });
    double s = 0;
    Kokkos::parallel_reduce("Sum", a.extent(0), KOKKOS_LAMBDA(int i, double &t) { t += a(i); },
                            s);
    return s;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    Kokkos::initialize(argc, argv);
    {
        Kokkos::View<double *> a("a", 100);
        double local = 0, total = 0;
        for (int k = 0; k < 5; k++)
            local += step(a);
        auto h = Kokkos::create_mirror_view(a);
        Kokkos::deep_copy(h, a);
        MPI_Allreduce(&local, &total, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        int rank;
        MPI_Comm_rank(MPI_COMM_WORLD, &rank);
        if (rank == 0)
            std::printf("total %.0f\n", total);
    }
    Kokkos::finalize();
    MPI_Finalize();
    return 0;
}
