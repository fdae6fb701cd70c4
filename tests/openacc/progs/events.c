/* events.c — which events GCC's libgomp delivers: registers one callback for every event of
 * the OpenACC Profiling Interface and prints each delivery (event, parent construct,
 * implicit, source file, line), then runs constructs.c's program (tests/openacc/check.py,
 * case events; docs/openacc.md lists what it prints on the host). */
#include <acc_prof.h>
#include <stdio.h>

static const char *const names[acc_ev_last] = {
    "none", "device_init_start", "device_init_end", "device_shutdown_start",
    "device_shutdown_end", "runtime_shutdown", "create", "delete", "alloc", "free",
    "enter_data_start", "enter_data_end", "exit_data_start", "exit_data_end", "update_start",
    "update_end", "compute_construct_start", "compute_construct_end", "enqueue_launch_start",
    "enqueue_launch_end", "enqueue_upload_start", "enqueue_upload_end",
    "enqueue_download_start", "enqueue_download_end", "wait_start", "wait_end",
};

static void print_event(acc_prof_info *p, acc_event_info *e, acc_api_info *a)
{
    (void)a;
    printf("event %s %d %d %s %d\n", names[p->event_type], (int)e->other_event.parent_construct,
           e->other_event.implicit, p->src_file ? p->src_file : "-", p->line_no);
    fflush(stdout);
}

__attribute__((constructor)) static void register_all(void)
{
    for (int ev = acc_ev_none + 1; ev < acc_ev_last; ev++)
        acc_prof_register((acc_event_t)ev, print_event, acc_reg);
}

#include "constructs.c"
