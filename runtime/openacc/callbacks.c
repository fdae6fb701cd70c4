/* callbacks.c — the OpenACC Profiling Interface's callbacks (acc_prof.h, OpenACC 2.6
 * section 5; docs/openacc.md). Each start event enters the construct's region on the calling
 * thread, under whatever call path the thread is in (the instrumented function around the
 * construct), and its end event exits it. A data construct is one region from its entry's
 * enter-data start to its exit's exit-data end, so that the constructs inside it nest under
 * it; every other construct is the region between its own start and end events.
 *
 * A construct's place is the call into the OpenACC runtime that started it: the first frame
 * on the stack below libgomp's (this library's frames come first, libgomp's next), found
 * with the unwinder of C++'s exceptions (libgcc's _Unwind_Backtrace): GCC's libgomp says
 * nothing of the place itself.
 *
 * The types are acc_prof.h's, restated (the header is GCC's, not every compiler's): the
 * fields read here are at the same places in every version of the interface. */
#include "openacc.h"
#include "../core/event.h"
#include "../core/log.h"

#include <dlfcn.h>
#include <stddef.h>
#include <unwind.h>

#define TLS __attribute__((tls_model("initial-exec")))
#define OPEN_MAX 64

/* acc_event_t */
enum {
    EV_DEVICE_INIT_START = 1, EV_DEVICE_INIT_END,
    EV_DEVICE_SHUTDOWN_START, EV_DEVICE_SHUTDOWN_END,
    EV_ENTER_DATA_START = 10, EV_ENTER_DATA_END,
    EV_EXIT_DATA_START, EV_EXIT_DATA_END,
    EV_UPDATE_START, EV_UPDATE_END,
    EV_COMPUTE_START, EV_COMPUTE_END,
    EV_LAUNCH_START, EV_LAUNCH_END,
    EV_UPLOAD_START, EV_UPLOAD_END,
    EV_DOWNLOAD_START, EV_DOWNLOAD_END,
    EV_WAIT_START, EV_WAIT_END,
};
/* acc_construct_t */
enum { CONSTRUCT_DATA = 3 };
/* acc_register_t */
enum { ACC_REG = 0 };

typedef struct prof_info { /* acc_prof_info */
    int event_type, valid_bytes, version, device_type, device_number, thread_id;
    long async, async_queue;
    const char *src_file, *func_name;
    int line_no, end_line_no, func_line_no, func_end_line_no;
} prof_info;
typedef struct event_info { /* what acc_event_info's variants begin with */
    int event_type, valid_bytes, parent_construct, implicit;
    void *tool_info;
} event_info;

static const char *const constructs[] = {
    "parallel", "kernels", "loop", "data", "enter data", "exit data", "host_data",
    "atomic", "declare", "init", "shutdown", "set", "update", "routine", "wait",
    "runtime api", "serial",
};

/* The open regions of this thread: each with the event that ends it. Beyond the stack's
 * size regions are not recorded (their ends must not close someone else's). */
static _Thread_local struct { uint32_t handle; int end; } open_regions[OPEN_MAX] TLS;
static _Thread_local unsigned nopen TLS;

/* The load address of libgomp (the object acc_prof_register is in). */
static const void *gomp_base;

static const void *base_of(const void *addr)
{
    Dl_info dl;
    return addr && dladdr(addr, &dl) ? dl.dli_fbase : NULL;
}

typedef struct walk {
    uintptr_t site;
    int frames, in_gomp;
} walk;

static _Unwind_Reason_Code frame(struct _Unwind_Context *ctx, void *arg)
{
    walk *w = arg;
    uintptr_t ip = _Unwind_GetIP(ctx);
    if (!ip || ++w->frames > 16)
        return _URC_END_OF_STACK;
    int gomp = base_of((const void *)(ip - 1)) == gomp_base;
    if (gomp || !w->in_gomp) {
        w->in_gomp |= gomp;
        return _URC_NO_REASON; /* this library's frames, then libgomp's */
    }
    w->site = ip;
    return _URC_END_OF_STACK;
}

/* The return address of the program's call into libgomp that led here; 0 when not found. */
static uintptr_t call_site(void)
{
    if (!gomp_base)
        return 0;
    walk w = {0, 0, 0};
    _Unwind_Backtrace(frame, &w);
    return w.site;
}

static const char *construct_name(const event_info *e)
{
    int c = e ? e->parent_construct : -1;
    return c >= 0 && c < (int)(sizeof constructs / sizeof *constructs) ? constructs[c]
                                                                       : "construct";
}

static void start(const prof_info *p, const char *what, int end)
{
    const char *file = NULL;
    int line = 0;
    if (p && p->valid_bytes >= (int)(offsetof(prof_info, line_no) + sizeof(int))) {
        file = p->src_file;
        line = p->line_no;
    }
    uint32_t h = instr_openacc_region(what, file && line > 0 ? 0 : call_site(), file, line);
    if (nopen < OPEN_MAX) {
        open_regions[nopen].handle = h;
        open_regions[nopen].end = end;
    }
    nopen++;
    if (h && nopen <= OPEN_MAX)
        instr_event_enter(h);
}

static void finish(int end)
{
    if (nopen == 0)
        return;
    if (nopen <= OPEN_MAX && open_regions[nopen - 1].end != end)
        return; /* not the innermost open construct's end: left as it is */
    nopen--;
    if (nopen < OPEN_MAX && open_regions[nopen].handle)
        instr_event_exit(open_regions[nopen].handle);
}

static void callback(void *prof, void *event, void *api)
{
    (void)api;
    const prof_info *p = prof;
    const event_info *e = event;
    int data = e && e->parent_construct == CONSTRUCT_DATA;
    switch (p ? p->event_type : 0) {
    case EV_DEVICE_INIT_START: start(p, "device init", EV_DEVICE_INIT_END); break;
    case EV_DEVICE_SHUTDOWN_START: start(p, "device shutdown", EV_DEVICE_SHUTDOWN_END); break;
    case EV_ENTER_DATA_START:
        /* a data construct's entry opens its region until its exit's end */
        if (data)
            start(p, "data", EV_EXIT_DATA_END);
        else
            start(p, "enter data", EV_ENTER_DATA_END);
        break;
    case EV_EXIT_DATA_START:
        if (!data)
            start(p, "exit data", EV_EXIT_DATA_END);
        break;
    case EV_ENTER_DATA_END:
        if (!data)
            finish(EV_ENTER_DATA_END);
        break;
    case EV_UPDATE_START: start(p, "update", EV_UPDATE_END); break;
    case EV_COMPUTE_START: start(p, construct_name(e), EV_COMPUTE_END); break;
    case EV_LAUNCH_START: start(p, "enqueue launch", EV_LAUNCH_END); break;
    case EV_UPLOAD_START: start(p, "enqueue upload", EV_UPLOAD_END); break;
    case EV_DOWNLOAD_START: start(p, "enqueue download", EV_DOWNLOAD_END); break;
    case EV_WAIT_START: start(p, "wait", EV_WAIT_END); break;
    case EV_DEVICE_INIT_END:
    case EV_DEVICE_SHUTDOWN_END:
    case EV_EXIT_DATA_END:
    case EV_UPDATE_END:
    case EV_COMPUTE_END:
    case EV_LAUNCH_END:
    case EV_UPLOAD_END:
    case EV_DOWNLOAD_END:
    case EV_WAIT_END:
        finish(p->event_type);
        break;
    default:
        break;
    }
}

void instr_openacc_register(instr_openacc_reg reg)
{
    static int done;
    if (!reg || __atomic_exchange_n(&done, 1, __ATOMIC_ACQ_REL))
        return;
    gomp_base = base_of((const void *)reg);
    /* Every start and end event the interface defines (create/delete/alloc/free are
     * points without a region, and GCC does not deliver them on the host). */
    for (int ev = EV_DEVICE_INIT_START; ev <= EV_DEVICE_SHUTDOWN_END; ev++)
        reg(ev, callback, ACC_REG);
    for (int ev = EV_ENTER_DATA_START; ev <= EV_WAIT_END; ev++)
        reg(ev, callback, ACC_REG);
    instr_info(2, "openacc: callbacks registered");
}
