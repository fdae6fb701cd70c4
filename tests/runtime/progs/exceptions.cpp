// C++ exceptions thrown through three instrumented frames and caught by a frame without
// hooks (`catcher`, excluded by the selection spec the test compiles with), 2,000 times:
// the runtime's stack must follow, like after longjmp (docs/runtime.md).
#include <cstdio>
#include <stdexcept>

#define NOINLINE __attribute__((noinline))

static volatile int sink;

NOINLINE void thrower(int i)
{
    sink++;
    if (i >= 0)
        throw std::runtime_error("unwind");
}
NOINLINE void mid(int i) { thrower(i); sink++; }
NOINLINE void top(int i) { mid(i); sink++; }
NOINLINE void catcher(int i)
{
    try {
        top(i);
    } catch (const std::exception &) {
        sink++;
    }
}
NOINLINE void work() { sink++; }

int main()
{
    for (int i = 0; i < 2000; i++) {
        work();
        catcher(i);
    }
    work();
    std::printf("sink=%d\n", sink);
    return 0;
}
