/* More call paths than INSTR_TOTAL_MEMORY holds: a recursion 5,000 deep, three times, between
 * calls of leaf (100 before, 100 after). The nodes that fit are exact; the deeper frames are
 * dropped and counted, and every exit still finds its frame. */
#include <stdio.h>

#define NOINLINE __attribute__((noinline))

static volatile int sink;

NOINLINE void leaf(void) { sink++; }
NOINLINE int rec(int n) { sink++; return n == 0 ? 0 : 1 + rec(n - 1); }

int main(void)
{
    for (int i = 0; i < 100; i++)
        leaf();
    int r = rec(4999) + rec(4999) + rec(4999);
    for (int i = 0; i < 100; i++)
        leaf();
    printf("rec=%d sink=%d\n", r, sink);
    return 0;
}
