/* The ABI test's executable that loads the library at run time (after start-up: its
 * descriptors are met on their first enter), with the same output as main.c. */
#include <dlfcn.h>
#include <stdio.h>

__attribute__((noinline)) int main_work(int n)
{
    int s = 0;
    for (int i = 0; i < n; i++)
        s += i * i;
    return s;
}

int main(int argc, char **argv)
{
    if (argc < 2)
        return 2;
    void *lib = dlopen(argv[1], RTLD_NOW);
    int (*lib_work)(int) = lib ? (int (*)(int))dlsym(lib, "lib_work") : NULL;
    if (!lib_work) {
        fprintf(stderr, "%s\n", dlerror());
        return 2;
    }
    int a = 0, b = 0;
    for (int i = 0; i < 5; i++) {
        a += main_work(10 + i);
        b += lib_work(i);
    }
    printf("main %d lib %d\n", a, b);
    return 3;
}
