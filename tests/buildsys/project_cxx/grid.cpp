// A small C++ program for the instr-c++ recipe: a class in a namespace, a template and an
// exception caught, so the profile shows C++ names. Prints a result that does not depend on
// instrumentation.
#include <cstdio>
#include <stdexcept>
#include <vector>

namespace heat {

class Grid {
public:
    explicit Grid(int n) : cells_(n, 1.0) {}
    __attribute__((noinline)) void step(double k);
    double sum() const;

private:
    std::vector<double> cells_;
};

void Grid::step(double k)
{
    for (double &c : cells_)
        c = c * k + 0.5;
}

__attribute__((noinline)) double Grid::sum() const
{
    double s = 0.0;
    for (double c : cells_)
        s += c;
    return s;
}

template <typename T> __attribute__((noinline)) T checked(T v)
{
    if (v < 0)
        throw std::domain_error("negative");
    return v;
}

} // namespace heat

int main()
{
    heat::Grid g(8);
    for (int i = 0; i < 4; i++)
        g.step(0.5);
    int caught = 0;
    try {
        heat::checked(-1.0);
    } catch (const std::domain_error &) {
        caught = 1;
    }
    std::printf("grid %.3f caught %d\n", heat::checked(g.sum()), caught);
    return 0;
}
