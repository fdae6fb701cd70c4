// cxx_names.cpp — built with plain -fxray-instrument (no plugin): the XRay adapter names the
// functions from the ELF symbols, demangled.
#include <cstdio>

#define NOINLINE __attribute__((noinline))

volatile int sink;

namespace geo {
struct Grid {
    int n;
    NOINLINE int at(int i) const { return sink += n * i, sink; }
    NOINLINE void sweep(int k);
};

NOINLINE void Grid::sweep(int k)
{
    for (int i = 0; i < k; i++)
        at(i);
}

template <typename T> NOINLINE T twice(T x) { return sink += 1, x + x; }
} // namespace geo

int main()
{
    geo::Grid g{3};
    g.sweep(4);
    long r = geo::twice<long>(5) + geo::twice<int>(2);
    std::printf("sink=%d r=%ld\n", (int)sink, r);
    return 0;
}
