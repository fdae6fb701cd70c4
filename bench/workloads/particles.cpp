// particles.cpp — the C++ workload: the shape of a small particle-in-cell / molecular-dynamics
// code. Small templated value types (Vec<T, D>) with operators, a Grid<T> with an at()
// accessor, a pair-force kernel passed as a lambda, std::vector and std::sort: dozens of
// small inline-able methods per interaction. After inlining almost none of them remain as
// calls; instrumentation that keeps them (before-inlining hooks) pays for each one.
// Usage: particles [REPETITIONS]; prints kernel_ns= (the measured part) and a checksum.
#include "bench_clock.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace hpc {

template <typename T, int D> struct Vec {
    T c[D];
    T &operator[](int i) { return c[i]; }
    const T &operator[](int i) const { return c[i]; }
    Vec operator+(const Vec &o) const
    {
        Vec r;
        for (int i = 0; i < D; i++)
            r[i] = c[i] + o[i];
        return r;
    }
    Vec operator-(const Vec &o) const
    {
        Vec r;
        for (int i = 0; i < D; i++)
            r[i] = c[i] - o[i];
        return r;
    }
    Vec operator*(T s) const
    {
        Vec r;
        for (int i = 0; i < D; i++)
            r[i] = c[i] * s;
        return r;
    }
    T dot(const Vec &o) const
    {
        T s = 0;
        for (int i = 0; i < D; i++)
            s += c[i] * o[i];
        return s;
    }
    T norm2() const { return dot(*this); }
};

template <typename T> class Grid {
  public:
    Grid(int nx, int ny) : nx_(nx), ny_(ny), d_(static_cast<size_t>(nx) * ny, T(0)) {}
    int nx() const { return nx_; }
    int ny() const { return ny_; }
    T &at(int i, int j) { return d_[static_cast<size_t>(i) * ny_ + j]; }
    const T &at(int i, int j) const { return d_[static_cast<size_t>(i) * ny_ + j]; }
    void fill(T v) { std::fill(d_.begin(), d_.end(), v); }

  private:
    int nx_, ny_;
    std::vector<T> d_;
};

template <typename T> struct Particle {
    Vec<T, 3> x, v, f;
    T m;
};

template <typename T> class System {
  public:
    System(int n, int cells) : rho_(cells, cells), tmp_(cells, cells), cells_(cells)
    {
        unsigned s = 12345u;
        auto rnd = [&s]() {
            s = s * 1664525u + 1013904223u;
            return static_cast<T>(s >> 8) / static_cast<T>(1u << 24);
        };
        for (int i = 0; i < n; i++) {
            Particle<T> p;
            for (int d = 0; d < 3; d++) {
                p.x[d] = rnd();
                p.v[d] = (rnd() - T(0.5)) * T(0.01);
                p.f[d] = 0;
            }
            p.m = T(1) + rnd();
            p_.push_back(p);
        }
    }

    template <class Kernel> void forces(Kernel k)
    {
        for (auto &p : p_)
            p.f = p.f * T(0);
        for (size_t i = 0; i < p_.size(); i++)
            for (size_t j = i + 1; j < p_.size(); j++) {
                Vec<T, 3> d = p_[i].x - p_[j].x;
                T r2 = d.norm2();
                if (r2 < T(0.04)) {
                    Vec<T, 3> f = d * k(r2, p_[i].m * p_[j].m);
                    p_[i].f = p_[i].f + f;
                    p_[j].f = p_[j].f - f;
                }
            }
    }

    void push(T dt)
    {
        for (auto &p : p_) {
            p.v = p.v + p.f * (dt / p.m);
            p.x = p.x + p.v * dt;
            for (int d = 0; d < 3; d++) { // periodic box [0, 1)
                if (p.x[d] < 0)
                    p.x[d] += 1;
                if (p.x[d] >= 1)
                    p.x[d] -= 1;
            }
        }
    }

    int cell(const Particle<T> &p) const
    {
        int i = static_cast<int>(p.x[0] * cells_), j = static_cast<int>(p.x[1] * cells_);
        return std::min(i, cells_ - 1) * cells_ + std::min(j, cells_ - 1);
    }

    void sort_by_cell()
    {
        std::sort(p_.begin(), p_.end(),
                  [this](const Particle<T> &a, const Particle<T> &b) { return cell(a) < cell(b); });
    }

    void deposit()
    {
        rho_.fill(0);
        for (const auto &p : p_) {
            int c = cell(p);
            rho_.at(c / cells_, c % cells_) += p.m;
        }
    }

    void smooth(int sweeps)
    {
        for (int s = 0; s < sweeps; s++) {
            for (int i = 1; i < rho_.nx() - 1; i++)
                for (int j = 1; j < rho_.ny() - 1; j++)
                    tmp_.at(i, j) = T(0.2) * (rho_.at(i, j) + rho_.at(i - 1, j) + rho_.at(i + 1, j) +
                                              rho_.at(i, j - 1) + rho_.at(i, j + 1));
            std::swap(rho_, tmp_);
        }
    }

    T checksum() const
    {
        T s = 0;
        for (const auto &p : p_)
            s += p.x.dot(p.v) + p.f.norm2();
        for (int i = 0; i < rho_.nx(); i++)
            for (int j = 0; j < rho_.ny(); j++)
                s += rho_.at(i, j);
        return s;
    }

  private:
    std::vector<Particle<T>> p_;
    Grid<T> rho_, tmp_;
    int cells_;
};

} // namespace hpc

int main(int argc, char **argv)
{
    long reps = argc > 1 ? std::atol(argv[1]) : 1;
    double sum = 0;
    double t0 = bench_now_ns();
    for (long r = 0; r < reps; r++) {
        hpc::System<double> sys(400, 64);
        for (int step = 0; step < 4; step++) {
            sys.forces([](double r2, double mm) { return mm / (r2 + 0.001); });
            sys.push(0.001);
            sys.sort_by_cell();
            sys.deposit();
            sys.smooth(4);
        }
        sum += sys.checksum();
    }
    double t1 = bench_now_ns();
    std::printf("kernel_ns=%.0f checksum=%.6e\n", t1 - t0, sum);
    return 0;
}
