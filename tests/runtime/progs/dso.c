/* A library linked normally. */
#define NOINLINE __attribute__((noinline))
NOINLINE int dso_fn(int x) { return x + 1; }
