// names.cpp — one C++ file compiled by both plugins with the same spec (compare_plugins.py):
// namespaces, templates, overloads, operators, lambdas, constructors and destructors,
// anonymous namespaces, nested classes, member function qualifiers, std:: templates.
#include <cstdio>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace geo {
struct Vec {
    double x, y;
    Vec() : x(0), y(0) { std::puts("Vec()"); }
    Vec(double a, double b) : x(a), y(b) {}
    Vec(const Vec &o) : x(o.x), y(o.y) {}
    ~Vec() { x = y = 0; }
    Vec operator+(const Vec &o) const { return Vec(x + o.x, y + o.y); }
    Vec &operator+=(const Vec &o) { x += o.x; y += o.y; return *this; }
    bool operator==(const Vec &o) const { return x == o.x && y == o.y; }
    double operator[](int i) const { return i ? y : x; }
    double norm2() const { return x * x + y * y; }
    static Vec unit() { return Vec(1, 0); }
    struct Cache {
        int hits = 0;
        void touch() volatile { }
        int get() & { return hits; }
        int get() && { return hits + 1; }
    };
};

double dot(const Vec &a, const Vec &b) { return a.x * b.x + a.y * b.y; }
double dot(const double *a, const double *b, int n) {
    double s = 0;
    for (int i = 0; i < n; ++i) s += a[i] * b[i];
    return s;
}
namespace detail {
template <typename T> T twice(T v) { return v + v; }
template <typename T, int N> struct Fixed {
    T data[N];
    T sum() const { T s = T(); for (int i = 0; i < N; ++i) s += data[i]; return s; }
};
}  // namespace detail
}  // namespace geo

namespace {
int hidden(int x) { return x * 3; }
}

template <typename K, typename V> V lookup(const std::map<K, V> &m, const K &k) {
    auto it = m.find(k);
    return it == m.end() ? V() : it->second;
}

// Ordered by a template operator (the demanglers print "operator< <" differently).
struct Key { int k; };
template <typename T> bool operator<(const T &a, const T &b) { return a.k < b.k; }

// A lambda in an inline function: the same mangled name from both compilers.
inline int scaled(int v) {
    auto mul = [v](int f) { return v * f; };
    return mul(3);
}

int apply(int (*fp)(int), int v) { return fp(v); }
template <typename F> int call_twice(F f, int v) { return f(f(v)); }

std::vector<std::pair<std::string, int>> table() {
    return {{"a", 1}, {"b", 2}};
}

int main() {
    geo::Vec a(1, 2), b = geo::Vec::unit(), c;
    c = a + b;
    c += a;
    geo::Vec::Cache cache;
    cache.touch();
    int g = cache.get() + geo::Vec::Cache().get();
    geo::detail::Fixed<int, 3> f{{1, 2, 3}};
    std::map<std::string, int> m{{"k", 7}};
    int k = 0;
    auto add = [&k](int v) { k += v; return k; };
    auto sq = [](int v) { return v * v; };
    double d1 = geo::dot(a, b), d2 = geo::dot(&a.x, &b.x, 2);
    Key k1{1}, k2{2};
    g += (k1 < k2) + scaled(2);
    std::printf("%g %g %d %d %g %d %d %d %d %d %d %zu\n", c.norm2(), c[1], c == a,
                geo::detail::twice(21), geo::detail::twice(1.5), f.sum(),
                lookup(m, std::string("k")), call_twice(add, 1), apply(sq, 3), hidden(2) + g,
                (int)(d1 + d2), table().size());
    return 0;
}
