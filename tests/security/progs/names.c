/* names.c — manual regions whose names are not clean text: invalid UTF-8, a terminal escape
 * sequence, a C1 control, a newline. */
#include <instr.h>
#include <stdio.h>

int main(void)
{
    static const char *const names[] = {
        "bad\xff\xfe utf8", "esc \x1b[31mred\x1b[0m", "c1 \xc2\x9b" "31m", "new\nline",
        "ok \xc3\xa9t\xc3\xa9",
    };
    for (int k = 0; k < 3; k++)
        for (unsigned i = 0; i < sizeof names / sizeof *names; i++) {
            instr_region_begin(names[i]);
            instr_region_end(names[i]);
        }
    printf("done\n");
    return 0;
}
