/* fuzz_response_file.c — libFuzzer target for the wrapper's @file reading: the input is a
 * response file's text, split as GCC splits it, then written to a file and expanded through
 * an @ argument (nested @ inside it name files that mostly do not exist, which stay as they
 * are; a file naming itself stops at the nesting limit). */
#define _GNU_SOURCE /* mkstemp */
#include "response_file.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    response_args split = {0};
    response_split((const char *)data, size, &split);
    for (int i = 0; i < split.n; i++)
        if (!split.v[i])
            abort(); /* every argument is a string */
    response_args_free(&split);

    static char path[] = "/tmp/instr-fuzz-rsp-XXXXXX";
    static int fd = -1;
    if (fd < 0 && (fd = mkstemp(path)) < 0)
        return 0;
    if (ftruncate(fd, 0) != 0 || pwrite(fd, data, size, 0) != (ssize_t)size)
        return 0;
    char arg[64];
    snprintf(arg, sizeof arg, "@%s", path);
    char *argv[] = {"-c", arg, NULL};
    response_args out;
    char why[256];
    if (response_expand(2, argv, &out, why, sizeof why) != 0 && why[0] == '\0')
        abort(); /* a failure always says why */
    response_args_free(&out);
    return 0;
}
