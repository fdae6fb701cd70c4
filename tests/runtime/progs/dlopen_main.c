/* PIE executable + a linked DSO + a dlopen'ed DSO: plugin_work 5 (x 1 call), plugin_helper
 * 15, dso_fn 2, run_plugin 1. */
#include <dlfcn.h>
#include <stdio.h>

#define NOINLINE __attribute__((noinline))
int dso_fn(int x);

NOINLINE int run_plugin(const char *path)
{
    void *h = dlopen(path, RTLD_NOW);
    if (!h) {
        fprintf(stderr, "dlopen: %s\n", dlerror());
        return -1;
    }
    union { void *p; int (*f)(int); } u;
    u.p = dlsym(h, "plugin_work");
    int r = 0;
    for (int i = 0; i < 5; i++)
        r = u.f(3);
    dlclose(h);
    return r;
}

int main(int argc, char **argv)
{
    if (argc < 2)
        return 2;
    int r = run_plugin(argv[1]);
    printf("plugin=%d dso=%d\n", r, dso_fn(1) + dso_fn(2));
    return 0;
}
