/* find_program.c — see find_program.h. */
#include "find_program.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int runnable(const char *path, int *err)
{
    struct stat st;
    if (stat(path, &st) != 0) {
        *err = errno;
        return 0;
    }
    if (!S_ISREG(st.st_mode)) {
        *err = EACCES;
        return 0;
    }
    if (access(path, X_OK) != 0) {
        *err = errno;
        return 0;
    }
    return 1;
}

int find_program(const char *name, char *why, size_t why_size)
{
    int err = ENOENT;
    if (strchr(name, '/')) {
        if (runnable(name, &err))
            return 0;
        snprintf(why, why_size, "%s", strerror(err));
        return -1;
    }
    const char *path = getenv("PATH");
    if (!path || !*path)
        path = "/usr/local/bin:/usr/bin:/bin";
    const char *p = path;
    for (;;) {
        const char *end = strchr(p, ':');
        size_t n = end ? (size_t)(end - p) : strlen(p);
        char full[4096];
        if (n + strlen(name) + 2 < sizeof full) {
            /* an empty element means the current directory, as for execvp */
            snprintf(full, sizeof full, "%.*s%s%s", (int)n, n ? p : ".", "/", name);
            if (runnable(full, &err))
                return 0;
        }
        if (!end)
            break;
        p = end + 1;
    }
    snprintf(why, why_size, "not found in PATH");
    return -1;
}
