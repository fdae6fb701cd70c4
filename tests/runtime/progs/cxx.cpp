// C++ under -finstrument-functions: demangled names (namespaces, classes, templates,
// operators) and exceptions unwinding through instrumented frames.
// Visits: ns::Grid::step() 10, ns::scale<double> 10, ns::Grid::operator() 10,
// thrower 3, catcher 3.
#include <cstdio>
#include <stdexcept>
#include <vector>

#define NOINLINE __attribute__((noinline))

namespace ns {
template <typename T> NOINLINE T scale(T x) { return x * 2; }

class Grid {
  public:
    NOINLINE explicit Grid(int n) : v(n, 1.0) {}
    NOINLINE double operator()(int i) const { return v[i]; }
    NOINLINE void step() {
        for (auto &x : v)
            x = scale(x) / 2 + 1;
    }

  private:
    std::vector<double> v;
};
} // namespace ns

NOINLINE void thrower(int i) {
    if (i >= 0)
        throw std::runtime_error("boom");
}

NOINLINE int catcher(int i) {
    try {
        thrower(i);
    } catch (const std::exception &) {
        return 1;
    }
    return 0;
}

int main() {
    ns::Grid g(1);
    double s = 0;
    for (int i = 0; i < 10; i++) {
        g.step();
        s += g(0);
    }
    int caught = 0;
    for (int i = 0; i < 3; i++)
        caught += catcher(i);
    std::printf("s=%g caught=%d\n", s, caught);
    return 0;
}
