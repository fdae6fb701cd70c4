// Construct sites in C++ (check_openmp.py cases cxx_nodebug, cxx_fallback, and the hybrid MPI
// case): two parallel loops and two barriers in one function must be four regions with four
// names, with @file:line also without -g, and with the demangled function where no line is
// known. The "// @name" comments mark the lines the names must carry.
#include <cstdio>

namespace app {
struct Grid {
    double v[64];
};

__attribute__((noinline)) double cell(int i) { return i * 0.5; }

// Out of line: inlined into main's unrolled loop, each construct would have three code
// addresses, three sites of its own (docs/openmp.md, "One region per construct site").
__attribute__((noinline)) double sweep(Grid &g, int n)
{
    double s = 0;
#pragma omp parallel for reduction(+ : s) // @for1
    for (int i = 0; i < n; i++)
        s += cell(i) + g.v[i % 64];
#pragma omp parallel // @par
    {
#pragma omp barrier // @barrier1
        g.v[0] += 0;
#pragma omp barrier // @barrier2
        g.v[1] += 0; // no tail call: the barrier keeps its own address (docs/openmp.md)
    }
#pragma omp parallel for // @for2
    for (int i = 0; i < 64; i++)
        g.v[i] += cell(i);
    return s;
}
} // namespace app

int main()
{
    app::Grid g{};
    double s = 0;
    for (int r = 0; r < 3; r++)
        s += app::sweep(g, 100);
    std::printf("%g\n", s);
    return 0;
}
