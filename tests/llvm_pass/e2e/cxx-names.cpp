// Templates, lambdas, operators, constructors and destructors get their demangled names as
// region names (the Itanium demangling of the linkage name), at -O0 and -O2.
// REQUIRES: runtime
// RUN: rm -rf %t && mkdir -p %t/ref %t/O0 %t/O2
// RUN: %clangxx -O2 %s -o %t/ref/prog
// RUN: cd %t/ref && ./prog > out.txt
// RUN: %clangxx -O0 -fpass-plugin=%plugin %s -o %t/O0/prog -L%rtdir -linstr-rt -Wl,-rpath,%rtdir
// RUN: cd %t/O0 && ./prog > out.txt
// RUN: diff %t/ref/out.txt %t/O0/out.txt
// RUN: %python %S/Inputs/check_profile.py %t/O0 --visits 'double num::scale<double>(double, double)=2' --visits 'int num::scale<int>(int, int)=1' --visits 'num::Vec::Vec(double, double)=3' --visits 'num::Vec::~Vec()=3' --visits 'num::Vec::operator+(num::Vec const&) const=1' --visits 'num::operator==(num::Vec const&, num::Vec const&)=1' --visits 'int num::apply<main::$_0>(main::$_0, int)=1' --visits 'main::$_0::operator()(int) const=1' --visits 'num::Counter::operator()()=2' --visits main=1
// RUN: %clangxx -O2 -fpass-plugin=%plugin %s -o %t/O2/prog -L%rtdir -linstr-rt -Wl,-rpath,%rtdir
// RUN: cd %t/O2 && ./prog > out.txt
// RUN: diff %t/ref/out.txt %t/O2/out.txt
// RUN: %python %S/Inputs/check_profile.py %t/O2 --visits 'double num::scale<double>(double, double)=2' --visits 'int num::scale<int>(int, int)=1' --visits 'num::Vec::Vec(double, double)=3' --visits 'num::Vec::~Vec()=3' --visits 'num::Vec::operator+(num::Vec const&) const=1' --visits 'num::operator==(num::Vec const&, num::Vec const&)=1' --visits 'int num::apply<main::$_0>(main::$_0, int)=1' --visits 'main::$_0::operator()(int) const=1' --visits 'num::Counter::operator()()=2' --visits main=1

#include <cstdio>

#define KEEP __attribute__((noinline))

namespace num {
volatile double sink;

template <typename T> KEEP T scale(T v, T f) { return v * f; }

struct Vec {
  double x, y;
  KEEP Vec(double a, double b) : x(a), y(b) {}
  KEEP ~Vec() { sink = x + y; }
  KEEP Vec operator+(const Vec &o) const { return Vec(x + o.x, y + o.y); }
};
KEEP bool operator==(const Vec &a, const Vec &b) { return a.x == b.x && a.y == b.y; }

struct Counter {
  int n = 0;
  KEEP int operator()() { return ++n; }
};

template <typename F> KEEP int apply(F f, int v) { return f(v); }
} // namespace num

int main() {
  auto twice = [](int q) KEEP { num::sink = q; return q * 2; };
  num::Vec a(1, 2), b(3, 4);
  num::Vec c = a + b;
  num::Counter count;
  count();
  std::printf("%g %g %d %g %d %d %d\n", num::scale(c.x, 2.0), num::scale(c.y, 0.5),
              num::scale(3, 4), c.x, (int)(a == b), num::apply(twice, 21), count());
  return 0;
}
