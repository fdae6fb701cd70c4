/* input_file.c — instr_input_open (input_file.h). */
#define _GNU_SOURCE
#include "input_file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *kind(mode_t mode)
{
    if (S_ISDIR(mode)) return "a directory";
    if (S_ISFIFO(mode)) return "a FIFO";
    if (S_ISCHR(mode)) return "a character device";
    if (S_ISBLK(mode)) return "a block device";
    if (S_ISSOCK(mode)) return "a socket";
    return "not a file";
}

int instr_input_open(const char *path, uint64_t *size, char *why, size_t whysize)
{
    /* O_NONBLOCK: opening a FIFO without a writer returns at once, so that fstat can say
     * what it is; O_NOCTTY: a terminal never becomes the tool's. */
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0) {
        snprintf(why, whysize, "cannot open: %s", strerror(errno));
        if (fd >= 0)
            close(fd);
        return -1;
    }
    if (!S_ISREG(st.st_mode)) {
        snprintf(why, whysize, "not a regular file (%s)", kind(st.st_mode));
        close(fd);
        return -1;
    }
    int fl = fcntl(fd, F_GETFL);
    if (fl < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) != 0) {
        snprintf(why, whysize, "cannot open: %s", strerror(errno));
        close(fd);
        return -1;
    }
    if (size)
        *size = (uint64_t)st.st_size;
    return fd;
}
