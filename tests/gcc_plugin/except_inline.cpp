// except_inline.cpp — exceptions through instrumented frames when GCC inlines functions on
// the throwing path (placement tests, docs/gcc-plugin.md). The throwing helper, a guard's
// constructor and destructor, a function with its own try/catch and a noexcept wrapper are
// inline and small; the frames they are inlined into are noinline. Every enter must have
// its exit on every return and unwinding path (the counting hooks check that each exit
// closes the innermost open region). Plain VISITS lines: source-level counts (inline=before;
// inline=after at -O0); VISITS[after-O2] and the like: inline=after at that level.
//
// VISITS 1 main
// VISITS 6 level1(int)
// VISITS 6 level2(int)
// VISITS 6 level3(int)
// VISITS 4 catcher(int)
// VISITS 5 recurse(int)
// VISITS 2 quiet(int)
// VISITS 9 check(int)
// VISITS[after-O2] 0 check(int)
// VISITS[after-O3] 0 check(int)
// VISITS 23 Lock::Lock()
// VISITS[after-O2] 0 Lock::Lock()
// VISITS[after-O3] 0 Lock::Lock()
// VISITS 23 Lock::~Lock()
// inline=after: GCC inlines the destructor on the normal paths and in the cleanups of the
// frames that unwind, as without the plugin (the hooks of inline=before made it too big for
// the cleanups: 14 out-of-line calls).
// VISITS[after-O2] 0 Lock::~Lock()
// VISITS[after-O3] 0 Lock::~Lock()
// VISITS 2 soft(int)
// VISITS[after-O2] 0 soft(int)
// VISITS[after-O3] 0 soft(int)
#include <cstdio>
#include <stdexcept>

#define NOINLINE __attribute__((noinline))

static int locks;

struct Lock {
    Lock() { ++locks; }
    ~Lock() { --locks; }
};

// throws on the way out of the inlined copy
static inline void check(int x)
{
    if (x > 2)
        throw std::runtime_error("too big");
}

NOINLINE int level3(int x)
{
    Lock l;
    check(x);
    return x + 3;
}

NOINLINE int level2(int x)
{
    Lock l;
    return level3(x) + 2;
}

NOINLINE int level1(int x)
{
    Lock l;
    return level2(x) * 2;
}

// its own try/catch around three instrumented frames
NOINLINE int catcher(int x)
{
    try {
        return level1(x);
    } catch (const std::runtime_error &) {
        return -1;
    }
}

// recursion; the innermost frame throws through all the others
NOINLINE int recurse(int n)
{
    Lock l;
    if (n == 0) {
        check(7);
        return 0;
    }
    return recurse(n - 1) + 1;
}

// an inline function with its own try/catch, inlined into a noexcept function
static inline int soft(int x)
{
    try {
        check(x);
        return x;
    } catch (...) {
        return -x;
    }
}

NOINLINE int quiet(int x) noexcept { return soft(x) + 1; }

int main()
{
    int s = 0;
    for (int i = 0; i < 4; ++i)
        s += catcher(i);
    try {
        s += level1(5);
    } catch (const std::exception &e) {
        std::printf("main caught %s\n", e.what());
    }
    try {
        s += level1(9);
    } catch (const std::exception &e) {
        std::printf("main caught %s\n", e.what());
    }
    try {
        s += recurse(4);
    } catch (const std::exception &e) {
        std::printf("recursion caught %s\n", e.what());
    }
    s += quiet(1) + quiet(8);
    std::printf("s=%d locks=%d\n", s, locks);
    return 0;
}
