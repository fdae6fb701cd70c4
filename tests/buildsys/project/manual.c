/* The manual API (<instr.h>), built with the flags of pkg-config or instr-config. */
#include <instr.h>
#include <stdio.h>

int main(void)
{
    instr_region_begin("manual_phase");
    printf("manual\n");
    instr_region_end("manual_phase");
    return 0;
}
