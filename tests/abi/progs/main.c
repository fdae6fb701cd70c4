/* The executable of the ABI test: calls into lib.c (a library, or linked in) and prints
 * what both computed; exit code 3 so that an unchanged exit code means something. */
#include <stdio.h>

int lib_work(int n);

__attribute__((noinline)) int main_work(int n)
{
    int s = 0;
    for (int i = 0; i < n; i++)
        s += i * i;
    return s;
}

int main(void)
{
    int a = 0, b = 0;
    for (int i = 0; i < 5; i++) {
        a += main_work(10 + i);
        b += lib_work(i);
    }
    printf("main %d lib %d\n", a, b);
    return 3;
}
