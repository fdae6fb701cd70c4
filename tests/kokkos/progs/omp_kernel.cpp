// A kernel whose body forks an OpenMP team, as Kokkos's OpenMP backend does between a
// kernel's begin and end callbacks (Debian's Kokkos has the Serial backend only): the team's
// threads must be under the kernel (tests/kokkos/check.py, case omp_*).
#include <Kokkos_Core.hpp>
#include <omp.h>

#include <cstdio>

__attribute__((noinline)) static void work(int *hits)
{
    __atomic_add_fetch(&hits[omp_get_thread_num()], 1, __ATOMIC_RELAXED);
}

__attribute__((noinline)) static void launch(int *hits)
{
    Kokkos::parallel_for("OmpKernel", Kokkos::RangePolicy<Kokkos::Serial>(0, 1), [=](int) {
#pragma omp parallel num_threads(4)
        work(hits);
    });
}

int main(int argc, char **argv)
{
    Kokkos::initialize(argc, argv);
    {
        int hits[4] = {0, 0, 0, 0};
        for (int k = 0; k < 2; k++)
            launch(hits);
        std::printf("visits %d\n", hits[0] + hits[1] + hits[2] + hits[3]);
    }
    Kokkos::finalize();
    return 0;
}
