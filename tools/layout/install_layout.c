/* install_layout.c — see install_layout.h. */
#define _GNU_SOURCE
#include "install_layout.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* How many path components the bin directory has below the prefix ("bin": 1). */
static int components(const char *dir)
{
    int n = 0;
    for (const char *p = dir; *p;) {
        while (*p == '/')
            p++;
        if (!*p)
            break;
        n++;
        while (*p && *p != '/')
            p++;
    }
    return n;
}

int instr_layout_find(instr_layout *out)
{
    char self[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0)
        return -1;
    self[n] = '\0';
    /* the executable's name, then the bin directory's components */
    for (int up = components(INSTR_LAYOUT_BINDIR) + 1; up > 0; up--) {
        char *s = strrchr(self, '/');
        if (!s)
            return -1;
        *s = '\0';
    }
    int a = snprintf(out->prefix, sizeof out->prefix, "%s", self);
    int b = snprintf(out->lib, sizeof out->lib, "%s/%s", self, INSTR_LAYOUT_LIBDIR);
    int c = snprintf(out->include, sizeof out->include, "%s/%s/instr", self,
                     INSTR_LAYOUT_INCLUDEDIR);
    if (a < 0 || b < 0 || c < 0 || (size_t)a >= sizeof out->prefix ||
        (size_t)b >= sizeof out->lib || (size_t)c >= sizeof out->include)
        return -1;
    return 0;
}
