/* instr_xray_glue.c — libinstr-xray.a: linked (whole) into an XRay-instrumented executable,
 * next to compiler-rt's XRay runtime; see ../xray_glue.h for why it exists.
 *
 * Everything here is referenced weakly, so the glue is harmless in a program built without
 * -fxray-instrument (no XRay API: it does nothing) or linked without libinstr-rt (no attach
 * function: it does nothing). It must itself never be instrumented: the runtime's handler
 * would otherwise observe its own start-up. */
#include "../xray_glue.h"
#include "../../runtime/include/instr_abi.h"

#if defined(__clang__)
#define INSTR_GLUE_QUIET __attribute__((no_instrument_function, xray_never_instrument))
#else
#define INSTR_GLUE_QUIET __attribute__((no_instrument_function))
#endif
#define WEAK_HIDDEN __attribute__((weak, visibility("hidden")))

/* compiler-rt's XRay API (xray/xray_interface.h), with C types: the enums are ints. */
extern int __xray_set_handler(instr_xray_handler) WEAK_HIDDEN;
extern int __xray_remove_handler(void) WEAK_HIDDEN;
extern int __xray_set_handler_arg1(instr_xray_handler_arg1) WEAK_HIDDEN;
extern int __xray_patch(void) WEAK_HIDDEN;
extern int __xray_unpatch(void) WEAK_HIDDEN;
extern int __xray_patch_function(int32_t) WEAK_HIDDEN;
extern int __xray_unpatch_function(int32_t) WEAK_HIDDEN;
extern uintptr_t __xray_function_address(int32_t) WEAK_HIDDEN;
extern size_t __xray_max_function_id(void) WEAK_HIDDEN;

/* Linker-defined bounds of this executable's descriptor section (absent without it). */
extern const struct instr_region __start_instr_regions[] WEAK_HIDDEN;
extern const struct instr_region __stop_instr_regions[] WEAK_HIDDEN;

/* Weak: a program linked without libinstr-rt keeps running. */
extern void __instr_xray_attach(const struct instr_xray_glue *) __attribute__((weak));

INSTR_GLUE_QUIET __attribute__((constructor)) static void instr_xray_glue_init(void)
{
    static struct instr_xray_glue glue;
    if (!__instr_xray_attach || !__xray_set_handler || !__xray_patch_function ||
        !__xray_unpatch_function || !__xray_function_address || !__xray_max_function_id ||
        !__xray_patch || !__xray_unpatch || !__xray_remove_handler ||
        !__xray_set_handler_arg1)
        return;
    glue.version = INSTR_XRAY_GLUE_VERSION;
    glue.size = sizeof glue;
    glue.set_handler = __xray_set_handler;
    glue.remove_handler = __xray_remove_handler;
    glue.set_handler_arg1 = __xray_set_handler_arg1;
    glue.patch_all = __xray_patch;
    glue.unpatch_all = __xray_unpatch;
    glue.patch_function = __xray_patch_function;
    glue.unpatch_function = __xray_unpatch_function;
    glue.function_address = __xray_function_address;
    glue.max_function_id = __xray_max_function_id;
    glue.regions_begin = __start_instr_regions;
    glue.regions_end = __stop_instr_regions;
    __instr_xray_attach(&glue);
}
