// unwind.cpp — the ways an exception leaves a frame, for the exits the GCC plugin builds on
// unwinding paths after inlining (gcc_plugin/unwind_exits.cc, docs/gcc-plugin.md): a call
// outside any handler (a new cleanup region), a try whose catch does not match (the "no
// handler matched" resume), a catch-all that rethrows, a noexcept function that catches
// (must-not-throw), a constructor's function-try-block, and destructors on all of these
// paths. The counting hooks require every exit to close the innermost open region.
// Plain VISITS lines: source-level counts (inline=before; inline=after at -O0);
// VISITS[after-O2] and the like: what GCC leaves out of line, which gprof of a -pg build
// counts the same (G::~G() 22, the rest as below).
//
// VISITS 1 main
// VISITS 9 guarded(int)
// VISITS 16 rethrow(int)
// VISITS 16 nomatch(int)
// VISITS 16 thrower(int)
// VISITS 7 C::C(int)
// VISITS 1 spec(int)
// VISITS 28 G::G(char const*)
// VISITS[after-O2] 0 G::G(char const*)
// VISITS[after-O3] 0 G::G(char const*)
// VISITS 28 G::~G()
// VISITS[after-O2] 22 G::~G()
// VISITS[after-O3] 22 G::~G()
#include <cstdio>
#include <stdexcept>
#include <string>

#define NOINLINE __attribute__((noinline))

struct G {
    std::string s;
    explicit G(const char *x) : s(x) {}
    ~G()
    {
        if (s.empty())
            std::puts("?");
    }
};

NOINLINE void thrower(int k)
{
    if (k % 3 == 0)
        throw std::runtime_error("x");
    if (k % 3 == 1)
        throw k;
}

// catch (std::string) never matches: the exception resumes from the dispatch
NOINLINE int nomatch(int k)
{
    G g("a");
    try {
        thrower(k);
    } catch (const std::string &) {
        return -1;
    }
    return k;
}

NOINLINE int rethrow(int k)
{
    try {
        return nomatch(k);
    } catch (...) {
        G g("b");
        throw;
    }
}

NOINLINE int guarded(int k) noexcept
{
    try {
        return rethrow(k);
    } catch (int v) {
        return v;
    } catch (const std::exception &) {
        return -2;
    }
}

struct C {
    int v;
    NOINLINE explicit C(int k) try : v(rethrow(k)) {
    } catch (...) {
    }  // rethrown at the end of a constructor's function-try-block
};

NOINLINE int spec(int k)
{
    G g("c");
    int s = 0;
    for (int i = 0; i < k; ++i) {
        try {
            C c(i);
            s += c.v;
        } catch (...) {
            s += 100;
        }
    }
    return s;
}

int main()
{
    int s = 0;
    for (int k = 0; k < 9; ++k)
        s += guarded(k);
    s += spec(7);
    std::printf("%d\n", s);
    return 0;
}
