/* exit() deep in a call stack, with an atexit handler of the program's own: the exit code
 * and output stay the same, the open regions (main, outer, middle, inner) are closed at the
 * end and the profile is written. */
#include <stdio.h>
#include <stdlib.h>

#define NOINLINE __attribute__((noinline))

static void bye(void) { printf("atexit handler ran\n"); }

NOINLINE void inner(int code)
{
    printf("leaving with %d\n", code);
    exit(code);
}
NOINLINE void middle(int code) { inner(code); }
NOINLINE void outer(int code) { middle(code); }

int main(int argc, char **argv)
{
    (void)argv;
    atexit(bye);
    outer(argc + 2); /* 3 */
    return 0;
}
