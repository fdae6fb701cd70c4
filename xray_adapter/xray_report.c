/* xray_report.c — xray.txt in the experiment directory: which functions have sleds, which
 * are patched at the end, which were ever patched, which were ever entered (entered while
 * patched and recorded: they have a region). Written as a substrate that wants no events,
 * so the end of measurement lists it with the other files; a program without XRay writes
 * nothing. Format: docs/xray.md. */
#include "xray_internal.h"
#include "../runtime/core/experiment.h"
#include "../runtime/core/log.h"
#include "../runtime/include/instr_abi.h"

#include <string.h>

static int wanted(void) { return 1; }

static void field(instr_writer *f, const char *s)
{
    /* Tab-separated: names with tabs or newlines (none in practice) are written escaped. */
    for (; *s; s++) {
        if (*s == '\t')
            instr_wr_puts(f, "\\t");
        else if (*s == '\n')
            instr_wr_puts(f, "\\n");
        else if (*s == '\\')
            instr_wr_puts(f, "\\\\");
        else
            instr_wr_putc(f, *s);
    }
}

static int write_report(const instr_run *run, char *files, size_t size)
{
    (void)run;
    if (!__atomic_load_n(&instr_xray.attached, __ATOMIC_ACQUIRE))
        return 0;
    pthread_mutex_lock(&instr_xray_lock);
    uint32_t patched = 0, ever = 0, entered = 0;
    for (uint32_t id = 1; id <= instr_xray.max_id; id++) {
        const xray_fn *fn = &instr_xray.fns[id];
        uint32_t h = __atomic_load_n(&instr_xray.handles[id], __ATOMIC_ACQUIRE);
        patched += fn->addr && fn->patched;
        ever += fn->addr && fn->ever_patched;
        entered += (h != INSTR_HANDLE_UNREGISTERED && h != INSTR_HANDLE_EXCLUDED) || fn->throttled;
    }
    instr_outfile o;
    if (instr_out_open(&o, "xray.txt") != 0) {
        pthread_mutex_unlock(&instr_xray_lock);
        return -1;
    }
    instr_writer *f = o.f;
    instr_wr_printf(f, "# instr XRay report (docs/xray.md)\n"
               "patch_mode\t%s\nfunctions_with_sleds\t%u\nnamed_by_descriptors\t%u\n"
               "patched_at_end\t%u\never_patched\t%u\never_entered\t%u\n"
               "# id\tpatched\tever_patched\tentered\tname\tmangled\tfile\tnamed_by\n",
            instr_xray.patch_mode == XRAY_PATCH_MANUAL ? "manual" : "startup",
            instr_xray.n_functions, instr_xray.n_described, patched, ever, entered);
    for (uint32_t id = 1; id <= instr_xray.max_id; id++) {
        const xray_fn *fn = &instr_xray.fns[id];
        if (!fn->addr)
            continue;
        uint32_t h = __atomic_load_n(&instr_xray.handles[id], __ATOMIC_ACQUIRE);
        instr_wr_printf(f, "%u\t%d\t%d\t%d\t", id, fn->patched, fn->ever_patched,
                (h != INSTR_HANDLE_UNREGISTERED && h != INSTR_HANDLE_EXCLUDED) || fn->throttled);
        field(f, fn->name);
        instr_wr_putc(f, '\t');
        field(f, fn->mangled);
        instr_wr_putc(f, '\t');
        field(f, fn->file);
        instr_wr_printf(f, "\t%s\n", fn->from_descriptor ? "descriptor" : "symbol");
    }
    pthread_mutex_unlock(&instr_xray_lock);
    if (instr_out_close(&o) != 0)
        return -1; /* noted: the end-of-run line says what and why */
    size_t len = strlen(files);
    snprintf(files + len, size - len, "%sxray.txt", len ? ", " : "");
    instr_info(1, "xray: %u function%s with sleds, %u patched at the end (%u ever), %u entered",
               instr_xray.n_functions, instr_xray.n_functions == 1 ? "" : "s", patched, ever,
               entered);
    return 0;
}

const instr_substrate instr_xray_substrate = {
    .name = "xray",
    .wanted = wanted,
    .write = write_report,
};
