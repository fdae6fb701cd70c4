// launch.cpp — n launches of an empty named Kokkos kernel (one iteration, Serial backend):
// prints the ns per launch (bench/kokkos/run.py, docs/performance.md "Kokkos").
#include <Kokkos_Core.hpp>

#include <chrono>
#include <cstdio>
#include <cstdlib>

int main(int argc, char **argv)
{
    long n = argc > 1 ? std::atol(argv[1]) : 100000;
    Kokkos::initialize();
    {
        Kokkos::View<int *> v("v", 1);
        auto t0 = std::chrono::steady_clock::now();
        for (long i = 0; i < n; i++)
            Kokkos::parallel_for("Empty", 1, KOKKOS_LAMBDA(int j) { v(j) = j; });
        auto t1 = std::chrono::steady_clock::now();
        std::printf("launch_ns %.1f\n",
                    std::chrono::duration<double, std::nano>(t1 - t0).count() / n);
    }
    Kokkos::finalize();
    return 0;
}
