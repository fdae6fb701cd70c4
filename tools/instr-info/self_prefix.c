/* self_prefix.c — see self_prefix.h. */
#define _GNU_SOURCE
#include "self_prefix.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int self_prefix(char *out, size_t size)
{
    char self[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0)
        return -1;
    self[n] = '\0';
    for (int up = 0; up < 2; up++) {
        char *s = strrchr(self, '/');
        if (s)
            *s = '\0';
    }
    snprintf(out, size, "%s", self);
    return 0;
}
