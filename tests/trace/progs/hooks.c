/* Region definitions: ABI v1 hooks called by hand with descriptors (names, mangled names,
 * files, lines as a compiler plugin would emit them), and the manual API.
 * Enter counts: ns::solver::step(int) 3, ns::kernel<double>(double*, long) 6, main 1,
 * "assemble phase" 2 (manual). */
#include <instr.h>
#include <instr_abi.h>
#include <stdio.h>

#define DESC(var, name, mangled, file, b, e)                                                 \
    __attribute__((section(INSTR_REGIONS_SECTION), used)) static struct instr_region var = { \
        0, INSTR_REGION_ABI_BITS, name, mangled, file, b, e, 0}
#define ENTER(d) do { if ((d).handle != INSTR_HANDLE_EXCLUDED) __instr_enter(&(d)); } while (0)
#define EXIT(d) do { if ((d).handle != INSTR_HANDLE_EXCLUDED) __instr_exit(&(d)); } while (0)

DESC(d_main, "main", "main", "/src/app/main.c", 40, 52);
DESC(d_step, "ns::solver::step(int)", "_ZN2ns6solver4stepEi", "/src/app/solver.cpp", 101, 140);
DESC(d_kernel, "ns::kernel<double>(double*, long)", "_ZN2ns6kernelIdEEvPdl",
     "/src/app/include/kernel.hpp", 7, 19);

static volatile int sink;

static void kernel(void) { ENTER(d_kernel); sink++; EXIT(d_kernel); }

static void step(void)
{
    ENTER(d_step);
    kernel();
    kernel();
    EXIT(d_step);
}

int main(void)
{
    ENTER(d_main);
    for (int i = 0; i < 2; i++) {
        instr_region_begin("assemble phase");
        sink++;
        instr_region_end("assemble phase");
    }
    for (int i = 0; i < 3; i++)
        step();
    printf("sink=%d\n", sink);
    EXIT(d_main);
    return 0;
}
