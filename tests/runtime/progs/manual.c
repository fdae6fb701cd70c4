/* The manual API: named regions (also from a reused buffer), pause and resume. Built once
 * with the runtime and once with -DINSTR_DISABLE and no runtime at all. Expected visits:
 * phase 3, "step 0".."step 2" 1 each, hidden 0 (entered while paused), outer 1,
 * paused_inside 0, after 1. */
#include <instr.h>
#include <stdio.h>

int main(void)
{
    char buf[32];
    instr_region_begin("outer");
    for (int i = 0; i < 3; i++) {
        instr_region_begin("phase");
        snprintf(buf, sizeof buf, "step %d", i);
        instr_region_begin(buf);
        instr_region_end(buf);
        instr_region_end("phase");
    }
    instr_pause();
    int rec_paused = instr_is_recording();
    instr_region_begin("hidden");
    instr_region_begin("paused_inside");
    instr_region_end("paused_inside");
    instr_region_end("hidden");
    instr_resume();
    instr_region_end("outer"); /* entered before the pause: still closed */
    instr_region_begin("after");
    instr_region_end("after");
    printf("recording while paused: %d\n", rec_paused);
    return 0;
}
