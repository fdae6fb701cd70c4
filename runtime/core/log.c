/* log.c — formatted one-line messages on stderr (never on the hot path). */
#include "log.h"

#include <stdarg.h>
#include <stdio.h>
#include <unistd.h>

int instr_verbose = 0;

static void emit(const char *fmt, va_list ap)
{
    char buf[4096]; /* values inside are quoted shortened (text.h): a line fits */
    int n = snprintf(buf, sizeof buf, "instr: ");
    int m = vsnprintf(buf + n, sizeof buf - (size_t)n - 1, fmt, ap);
    size_t len = (size_t)n + (m < 0 ? 0 : (size_t)m);
    if (len > sizeof buf - 2)
        len = sizeof buf - 2;
    buf[len++] = '\n';
    /* One write: a message is one line even when threads and the program write too. */
    ssize_t w = write(STDERR_FILENO, buf, len);
    (void)w;
}

void instr_warn(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    emit(fmt, ap);
    va_end(ap);
}

void instr_info(int level, const char *fmt, ...)
{
    if (instr_verbose < level)
        return;
    va_list ap;
    va_start(ap, fmt);
    emit(fmt, ap);
    va_end(ap);
}
