/* Explicit tasks beyond constructs.c (check_openmp.py case tasks, OMP_NUM_THREADS=4):
 * - tied tasks that create tasks and wait for them, DEPTH levels deep: a task waiting in
 *   taskwait runs other tasks inside it, each of which belongs under its own creation path;
 *   the task at level k has its leaf call at single > task@root > (task@inner){k};
 * - untied tasks that yield: they may move to another thread mid-way, so they are recorded
 *   where they run (docs/openmp.md); every one is counted once.
 * The "// @name" comments mark the lines the region names carry. */
#include <stdio.h>

#define DEPTH 6
#define UNTIED 100
#define NOINLINE __attribute__((noinline))

NOINLINE void leaf(int i)
{
    volatile int x = i;
    (void)x;
}

static int done;

NOINLINE void tree(int level)
{
    leaf(level);
#pragma omp atomic
    done++;
    if (level == DEPTH)
        return;
    for (int c = 0; c < 2; c++) {
#pragma omp task // @inner
        tree(level + 1);
    }
#pragma omp taskwait
}

int main(void)
{
    int untied = 0;
#pragma omp parallel // @parallel
#pragma omp single // @single
    {
#pragma omp task // @root
        tree(0);
        for (int t = 0; t < UNTIED; t++) {
#pragma omp task untied // @untied
            {
                leaf(-1);
#pragma omp taskyield
                leaf(-2);
#pragma omp atomic
                untied++;
            }
        }
    }
    printf("tree %d untied %d\n", done, untied);
    return 0;
}
