/* The ABI v1 hooks called by hand, exactly as plugin-instrumented code calls them (check
 * the handle, then call), with descriptors in the instr_regions section. Prints each
 * descriptor's handle afterwards: a run-time filter that excludes "skipped" must leave
 * UINT32_MAX in its descriptor. Visits: main 1, work 4, skipped 4 (0 when filtered). */
#include <instr_abi.h>
#include <stdio.h>

#define DESC(var, fname, line)                                                              \
    __attribute__((section(INSTR_REGIONS_SECTION), used)) static struct instr_region var = { \
        0, INSTR_REGION_ABI_BITS, fname, fname, "/src/hooks_demo.c", line, line + 3, 0}
#define ENTER(d) do { if ((d).handle != INSTR_HANDLE_EXCLUDED) __instr_enter(&(d)); } while (0)
#define EXIT(d) do { if ((d).handle != INSTR_HANDLE_EXCLUDED) __instr_exit(&(d)); } while (0)

DESC(d_main, "main", 10);
DESC(d_work, "work", 20);
DESC(d_skipped, "skipped", 30);

static volatile int sink;

static void skipped(void) { ENTER(d_skipped); sink++; EXIT(d_skipped); }
static void work(void) { ENTER(d_work); sink++; skipped(); EXIT(d_work); }

int main(void)
{
    ENTER(d_main);
    for (int i = 0; i < 4; i++)
        work();
    printf("handles: main=%u work=%u skipped=%u\n", d_main.handle != 0, d_work.handle != 0,
           d_skipped.handle == INSTR_HANDLE_EXCLUDED ? 99u : (d_skipped.handle != 0));
    EXIT(d_main);
    return 0;
}
