/* Known call counts, recursion and mutual recursion: the profile must report exactly these.
 * main 1, level1 7, level2 21, leaf 42, rec 12 (2 calls x depth 6), is_even 4, is_odd 3. */
#include <stdio.h>

#define NOINLINE __attribute__((noinline))

static volatile int sink, depth; /* depth keeps rec impure: no call is merged */

NOINLINE void leaf(void) { sink++; }
NOINLINE void level2(int k) { for (int i = 0; i < k; i++) leaf(); }
NOINLINE void level1(void) { for (int i = 0; i < 3; i++) level2(i + 1); }
NOINLINE int rec(int n) { depth++; return n == 0 ? 0 : 1 + rec(n - 1); }
NOINLINE int is_odd(int n);
NOINLINE int is_even(int n) { return n == 0 ? 1 : is_odd(n - 1); }
NOINLINE int is_odd(int n) { return n == 0 ? 0 : is_even(n - 1); }

int main(void)
{
    for (int i = 0; i < 7; i++)
        level1();
    int r = rec(5) + rec(5);
    printf("sink=%d rec=%d even=%d\n", sink, r, is_even(6));
    fprintf(stderr, "a line on stderr\n");
    return 0;
}
