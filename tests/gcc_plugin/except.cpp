// except.cpp — C++ program for the GCC plugin tests: an exception through three instrumented
// frames (with destructors on the way), a catch and rethrow in a middle frame, a function
// that catches everything, templates, constructors, virtual calls, lambdas. Visit counts
// are exact; every enter must have its exit (checked by the hooks / the profile).
//
// VISITS 1 main
// VISITS 4 top(int)
// VISITS 4 middle(int)
// VISITS 4 thrower(int)
// VISITS 8 Guard::Guard(char const*)
// VISITS 8 Guard::~Guard()
// VISITS 1 rethrower(int)
// ABSENT swallow (except.spec)
// VISITS 1 Square::Square(double)
// VISITS 2 Square::area() const
// VISITS 1 Shape::~Shape()
// inline=after at -O2/-O3: GCC inlines (and devirtualises) these and the lambda without the
// plugin, and so with it; nothing of them is left to count.
// VISITS[after-O2] 0 Square::Square(double)
// VISITS[after-O3] 0 Square::Square(double)
// VISITS[after-O2] 0 Square::area() const
// VISITS[after-O3] 0 Square::area() const
// VISITS[after-O2] 0 Shape::~Shape()
// VISITS[after-O3] 0 Shape::~Shape()
// VISITS[after-O2] 0 main::{lambda(int)#1}::operator()(int) const
// VISITS[after-O3] 0 main::{lambda(int)#1}::operator()(int) const
// VISITS 1 int twice<int>(int)
// VISITS 1 double twice<double>(double)
// VISITS 2 main::{lambda(int)#1}::operator()(int) const
#include <cstdio>
#include <stdexcept>
#include <string>

#define NOINLINE __attribute__((noinline))

struct Guard {
    const char *what;
    NOINLINE explicit Guard(const char *w) : what(w) {}
    NOINLINE ~Guard() { std::printf("unwind %s\n", what); }
};
NOINLINE int thrower(int x)
{
    if (x > 0)
        throw std::runtime_error("boom " + std::to_string(x));
    return x;
}
NOINLINE int middle(int x)
{
    Guard g("middle");
    return thrower(x) + 1;
}
NOINLINE int top(int x)
{
    Guard g("top");
    return middle(x) + 1;
}
NOINLINE int rethrower(int x)
{
    try {
        return top(x);
    } catch (const std::runtime_error &) {
        std::puts("rethrowing");
        throw;
    }
}
NOINLINE int swallow(int x) noexcept
{
    try {
        return top(x);
    } catch (...) {
        return -1;
    }
}

struct Shape {
    virtual ~Shape() {}
    virtual double area() const = 0;
};
struct Square : Shape {
    double s;
    explicit Square(double v) : s(v) {}
    double area() const override { return s * s; }
};

template <typename T> NOINLINE T twice(T v) { return v + v; }
int main()
{
    try {
        top(1);
    } catch (const std::exception &e) {
        std::printf("caught %s\n", e.what());
    }
    try {
        rethrower(2);
    } catch (const std::exception &e) {
        std::printf("caught again %s\n", e.what());
    }
    std::printf("swallow %d\n", swallow(3));
    std::printf("top %d\n", top(0));  // no exception: 4 guards in total
    Square sq(3);
    const Shape &sh = sq;
    int k = 0;
    auto bump = [&k](int d) { k += d; };
    bump(1);
    bump(2);
    std::printf("area %g %g k=%d %d %g\n", sh.area(), sq.area(), k, twice(4), twice(1.5));
    return 0;
}
