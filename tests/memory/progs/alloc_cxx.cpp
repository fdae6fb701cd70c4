// alloc_cxx.cpp — known C++ allocations per function (tests/memory/check.py has the numbers):
// new and delete in every form (plain, array, sized, aligned, nothrow), through the C++
// runtime's own operator new, which calls the C library's allocation functions.
#include <cstdio>
#include <cstdlib>
#include <new>

#define NOINLINE __attribute__((noinline))

struct alignas(64) Wide {
    char bytes[192];
};

struct Small {
    int v[25]; // 100 bytes
};

static void *volatile sink;

NOINLINE void cxx_new(void)
{
    for (int i = 0; i < 4; i++) {
        Small *s = new Small();
        sink = s;
        delete s; // sized delete with -fsized-deallocation (C++14)
    }
}

NOINLINE void cxx_array(void)
{
    int *a = new int[50];       // 200 bytes
    sink = a;
    delete[] a;
    double *d = new double[3]; // 24 bytes
    sink = d;
    delete[] d;
}

NOINLINE void cxx_aligned(void)
{
    Wide *w = new Wide();       // aligned new, 192 bytes, alignment 64
    sink = w;
    delete w;
    Wide *v = new Wide[2];      // aligned array new, 384 bytes
    sink = v;
    delete[] v;
}

NOINLINE void cxx_nothrow(void)
{
    Small *s = new (std::nothrow) Small();
    sink = s;
    delete s;
    int *a = new (std::nothrow) int[10]; // 40 bytes
    sink = a;
    delete[] a;
}

NOINLINE void cxx_leak(void)
{
    sink = new Small[3]; // 300 bytes, never released
}

int main()
{
    cxx_new();
    cxx_array();
    cxx_aligned();
    cxx_nothrow();
    cxx_leak();
    return 0;
}
