/* tool.c — the OMPT tool: LLVM's libomp (and any OpenMP runtime with OMPT) looks up
 * ompt_start_tool in the process when it initialises; libinstr-rt exports it, so a program
 * linked with (or preloading) the runtime records its OpenMP constructs without further
 * setup. GNU libgomp has no OMPT: runtime/gomp/ records its constructs through its GOMP_*
 * entry points; the constructor below says once when those calls do not reach it. */
#include "ompt.h"
#include "model.h"
#include "../core/event.h"
#include "../core/log.h"

#include <dlfcn.h>
#include <omp-tools.h>
#include <stddef.h>

#define EXPORT __attribute__((visibility("default")))

int instr_ompt_register(ompt_set_callback_t set); /* callbacks.c */

int instr_ompt_tool_active;

static int initialize(ompt_function_lookup_t lookup, int initial_device_num,
                      ompt_data_t *tool_data)
{
    (void)initial_device_num, (void)tool_data;
    ompt_set_callback_t set = (ompt_set_callback_t)lookup("ompt_set_callback");
    if (!set) {
        instr_warn("OpenMP: the OpenMP runtime offers no ompt_set_callback: OpenMP constructs "
                   "are not recorded");
        return 0;
    }
    int missing = instr_ompt_register(set);
    if (missing)
        instr_info(1, "OpenMP: %d construct callbacks are not (always) delivered by this "
                      "runtime; those constructs may be missing", missing);
    /* The master closes its workers' late-ending constructs in their locations (callbacks.c),
     * also on the direct trace path, where their records are their stacks. */
    instr_ompt_tool_active = 1;
    instr_info(1, "OpenMP: recording constructs through OMPT");
    return 1;
}

static void finalize(ompt_data_t *tool_data) { (void)tool_data; }

EXPORT ompt_start_tool_result_t *ompt_start_tool(unsigned int omp_version,
                                                 const char *runtime_version)
{
    /* Nothing to record (INSTR_ENABLE_PROFILING=0 and no trace): stay out of the way, so the
     * OpenMP runtime does not even call us. */
    if (!instr_events_wanted())
        return NULL;
    instr_info(1, "OpenMP: runtime \"%s\" (OpenMP %u) offers OMPT", runtime_version ? runtime_version : "?",
               omp_version);
    static ompt_start_tool_result_t result = {initialize, finalize, {.value = 0}};
    return &result;
}

/* After the OpenMP runtime's own start-up would have asked for a tool. On GNU libgomp the
 * GOMP_* wrappers record (runtime/gomp/, in the shared runtime only: weak here), unless the
 * program's search order puts libgomp before libinstr-rt. GOMP_parallel is defined by libgomp
 * and by libomp (its GCC compatibility layer); only libomp also defines __kmpc_fork_call. */
__attribute__((weak)) int instr_gomp_on_libgomp(void);
__attribute__((weak)) int instr_gomp_recording(void);

__attribute__((constructor)) static void notice_libgomp(void)
{
    if (!instr_events_wanted() || instr_ompt_tool_active)
        return;
    if (!instr_gomp_on_libgomp) {
        if (dlsym(RTLD_DEFAULT, "GOMP_parallel") && !dlsym(RTLD_DEFAULT, "__kmpc_fork_call"))
            instr_notice("OpenMP: this program runs on GNU libgomp and is linked with the "
                         "static runtime, which does not wrap its GOMP_* entry points: its "
                         "OpenMP constructs are not recorded (its functions are). Use the "
                         "shared runtime (docs/openmp.md)");
        return;
    }
    if (instr_gomp_on_libgomp() && !instr_gomp_recording())
        instr_notice("OpenMP: this program runs on GNU libgomp, and its GOMP_* calls do not "
                     "reach libinstr-rt (libgomp comes first in its search order): its OpenMP "
                     "constructs are not recorded (its functions are). Link libinstr-rt "
                     "before libgomp (the instr wrapper does), or run it on LLVM's libomp "
                     "(docs/openmp.md)");
}
