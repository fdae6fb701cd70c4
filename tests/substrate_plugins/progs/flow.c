/* flow: a known call sequence for the event flow graph. main runs 4 iterations; each calls
 * a() (which calls leaf()), and every second one b() after it. */
#include <stdio.h>

#define NOINLINE __attribute__((noinline))

static volatile int sink;

NOINLINE static void leaf(void) { sink++; }
NOINLINE static void a(void) { leaf(); }
NOINLINE static void b(void) { sink += 2; }

int main(void)
{
    for (int i = 0; i < 4; i++) {
        a();
        if (i % 2 == 1)
            b();
    }
    printf("sink=%d\n", sink);
    return 0;
}
