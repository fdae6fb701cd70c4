// Kokkos kernels with known names, counts and bytes (tests/kokkos/check.py says what it
// expects): named parallel_for/reduce/scan, nested profile regions, a profile section,
// deep copies between Views, fences.
#include <Kokkos_Core.hpp>
#include <impl/Kokkos_Profiling.hpp>

#include <cstdio>
#include <cstdlib>

static const int N = 1000;

__attribute__((noinline)) static double compute(Kokkos::View<double *> a,
                                                Kokkos::View<double *> b)
{
    Kokkos::parallel_for("ComputeForces", N, KOKKOS_LAMBDA(int i) { a(i) = 2.0 * i; });
    double sum = 0;
    Kokkos::parallel_reduce("SumForces", N, KOKKOS_LAMBDA(int i, double &s) { s += a(i); },
                            sum);
    Kokkos::parallel_scan("PrefixSum", N,
                          KOKKOS_LAMBDA(int i, double &partial, bool final) {
                              partial += a(i);
                              if (final)
                                  b(i) = partial;
                          });
    return sum;
}

__attribute__((noinline)) static void copies(Kokkos::View<double *> a,
                                             Kokkos::View<double *> b)
{
    Kokkos::Profiling::pushRegion("Copies");
    Kokkos::deep_copy(b, a); // N doubles
    auto h = Kokkos::create_mirror(a);
    Kokkos::deep_copy(h, a); // N doubles
    Kokkos::Profiling::popRegion();
}

int main(int argc, char **argv)
{
    Kokkos::initialize(argc, argv);
    // The variables the runtime set for Kokkos are gone once Kokkos loaded it.
    std::printf("tools variable %s\n", std::getenv("KOKKOS_PROFILE_LIBRARY") ? "set" : "unset");
    {
        Kokkos::View<double *> a("a", N), b("b", N);
        double total = 0;
        Kokkos::Profiling::pushRegion("Outer");
        for (int step = 0; step < 3; step++) {
            Kokkos::Profiling::pushRegion("Step");
            total += compute(a, b);
            Kokkos::Profiling::popRegion();
        }
        Kokkos::Profiling::popRegion();
        uint32_t sec;
        Kokkos::Profiling::createProfileSection("Section", &sec);
        for (int k = 0; k < 2; k++) {
            Kokkos::Profiling::startSection(sec);
            copies(a, b);
            Kokkos::Profiling::stopSection(sec);
        }
        Kokkos::Profiling::destroyProfileSection(sec);
        // Kokkos 3.4 reports no fence of its own (Kokkos::fence() calls no tool): the
        // program's fences through the Tools API, as a library on top of Kokkos would.
        for (int k = 0; k < 4; k++) {
            uint64_t f;
            Kokkos::Tools::beginFence("HaloFence", 0, &f);
            Kokkos::fence();
            Kokkos::Tools::endFence(f);
        }
        Kokkos::Tools::declareMetadata("test_key", "test value");
        Kokkos::Profiling::markEvent("event");
        std::printf("total %.0f\n", total);
    }
    Kokkos::finalize();
    return 0;
}
