// shape.cpp — a C++ program for the out-of-line check (out_of_line.py, docs/gcc-plugin.md,
// "Where the hooks end up"): the shapes GCC's inliner decides on in an HPC mini-app. Inline
// accessors in the style of LULESH's Domain (Real_t& x(Index_t)), std::vector::operator[],
// a class template with members at two instantiations, lambdas passed to templates and to
// std::sort, virtual calls (one devirtualisable, one through a base pointer GCC cannot
// resolve), and exceptions thrown through frames with destructors. The set of functions
// emitted out of line must be the same with and without the plugin, at -O2 and -O3. The run
// tests count visits: plain VISITS lines are source-level counts (inline=before, and
// inline=after at -O0); VISITS[after-O2] and the like: what GCC leaves out of line there.
//
// VISITS 1 main
// VISITS 1 Domain::Domain(int)
// with -flto GCC inlines the constructor into main at link time (lto.py):
// VISITS[lto] 0 Domain::Domain(int)
// VISITS 1 pick(int)
// VISITS 5 advance(Domain&, double)
// VISITS 6 energy(Domain&, Material const&, int*)
// VISITS 1 sort_by_position(Domain&)
// VISITS 323 Stiff::pressure(double) const
// VISITS 750 Domain::x(int)
// VISITS[after-O2] 0 Domain::x(int)
// VISITS[after-O3] 0 Domain::x(int)
// VISITS 640 Domain::v(int)
// VISITS[after-O2] 0 Domain::v(int)
// VISITS[after-O3] 0 Domain::v(int)
// VISITS 968 Domain::e(int)
// VISITS[after-O2] 0 Domain::e(int)
// VISITS[after-O3] 0 Domain::e(int)
// VISITS 784 Domain::size() const
// VISITS[after-O2] 0 Domain::size() const
// VISITS[after-O3] 0 Domain::size() const
// VISITS 324 check_energy(double, int*)
// VISITS[after-O2] 0 check_energy(double, int*)
// VISITS[after-O3] 0 check_energy(double, int*)
// VISITS 324 Tracker::Tracker(int*)
// VISITS[after-O2] 0 Tracker::Tracker(int*)
// VISITS[after-O3] 0 Tracker::Tracker(int*)
// VISITS 324 Tracker::~Tracker()
// VISITS[after-O2] 0 Tracker::~Tracker()
// VISITS[after-O3] 0 Tracker::~Tracker()
// VISITS 323 Accumulator<double>::add(double)
// VISITS[after-O2] 0 Accumulator<double>::add(double)
// VISITS[after-O3] 0 Accumulator<double>::add(double)
// VISITS 320 advance(Domain&, double)::{lambda(int)#1}::operator()(int) const
// VISITS[after-O2] 0 advance(Domain&, double)::{lambda(int)#1}::operator()(int) const
// VISITS[after-O3] 0 advance(Domain&, double)::{lambda(int)#1}::operator()(int) const
// VISITS 215 sort_by_position(Domain&)::{lambda(int, int)#1}::operator()(int, int) const
// VISITS[after-O2] 0 sort_by_position(Domain&)::{lambda(int, int)#1}::operator()(int, int) const
// VISITS[after-O3] 0 sort_by_position(Domain&)::{lambda(int, int)#1}::operator()(int, int) const
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <vector>

typedef double Real_t;
typedef int Index_t;

class Domain {
  public:
    explicit Domain(Index_t n) : m_x(n), m_v(n), m_e(n, 1.0) {}
    Real_t &x(Index_t i) { return m_x[i]; }
    Real_t &v(Index_t i) { return m_v[i]; }
    Real_t &e(Index_t i) { return m_e[i]; }
    Index_t size() const { return static_cast<Index_t>(m_x.size()); }

  private:
    std::vector<Real_t> m_x, m_v, m_e;
};

template <typename T> class Accumulator {
  public:
    void add(T v) { sum_ += v * weight(); }
    T weight() const { return static_cast<T>(2); }
    T total() const { return sum_; }

  private:
    T sum_ = 0;
};

struct Material {
    virtual ~Material() {}
    virtual Real_t pressure(Real_t e) const = 0;
};

struct IdealGas : Material {
    Real_t pressure(Real_t e) const override { return 0.4 * e; }
};

struct Stiff : Material {
    Real_t pressure(Real_t e) const override { return 0.4 * e + 0.01 * e * e; }
};

// GCC sees both implementations reach this call: it stays an indirect call.
__attribute__((noinline)) Material *pick(int which)
{
    if (which % 2)
        return new Stiff();
    return new IdealGas();
}

struct Tracker {
    explicit Tracker(int *count) : count_(count) { ++*count_; }
    ~Tracker() { --*count_; }
    int *count_;
};

static void check_energy(Real_t e, int *live)
{
    Tracker t(live);
    if (e < 0)
        throw std::runtime_error("negative energy");
}

template <typename F> void for_each_zone(Domain &d, F f)
{
    for (Index_t i = 0; i < d.size(); ++i)
        f(i);
}

__attribute__((noinline)) void advance(Domain &d, Real_t dt)
{
    for_each_zone(d, [&](Index_t i) {
        d.v(i) += dt * d.e(i);
        d.x(i) += dt * d.v(i);
    });
}

__attribute__((noinline)) Real_t energy(Domain &d, const Material &m, int *live)
{
    Accumulator<Real_t> acc;
    for (Index_t i = 0; i < d.size(); ++i) {
        check_energy(d.e(i), live);
        acc.add(m.pressure(d.e(i)));
    }
    return acc.total();
}

__attribute__((noinline)) int sort_by_position(Domain &d)
{
    std::vector<Index_t> order(d.size());
    for (Index_t i = 0; i < d.size(); ++i)
        order[i] = d.size() - 1 - i;
    std::sort(order.begin(), order.end(),
              [&d](Index_t a, Index_t b) { return d.x(a) < d.x(b); });
    Accumulator<int> first;
    first.add(order[0]);
    return first.total();
}

int main(int argc, char **argv)
{
    (void)argv;
    Domain d(64 * argc);
    int live = 0;
    Material *m = pick(argc);
    Real_t total = 0;
    for (int step = 0; step < 5; ++step) {
        advance(d, 0.01);
        total += energy(d, *m, &live);
    }
    int first = sort_by_position(d);
    d.e(3) = -1;
    try {
        total += energy(d, *m, &live);
    } catch (const std::exception &ex) {
        std::printf("caught: %s\n", ex.what());
    }
    delete m;
    std::printf("total=%.6f first=%d live=%d\n", total, first, live);
    return live;
}
