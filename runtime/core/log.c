/* log.c — formatted one-line messages on stderr (never on the hot path). */
#include "log.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int instr_verbose = 0;

/* Notices (log.h): printed now, held until an MPI job's rank is known, or dropped (a rank
 * other than 0). Held ones are a few lines at start-up; one that does not fit is printed at
 * once rather than lost. */
enum { NOTICE_PRINT, NOTICE_HOLD, NOTICE_DROP };
static int notice_mode = NOTICE_PRINT;
static char held[4096];
static size_t held_len;
static pthread_mutex_t held_lock = PTHREAD_MUTEX_INITIALIZER;

static void put(const char *buf, size_t len)
{
    ssize_t w = write(STDERR_FILENO, buf, len);
    (void)w;
}

/* "instr: " + the message + "\n" into buf; its length. */
static size_t format(char *buf, size_t size, const char *fmt, va_list ap)
{
    int n = snprintf(buf, size, "instr: ");
    int m = vsnprintf(buf + n, size - (size_t)n - 1, fmt, ap);
    size_t len = (size_t)n + (m < 0 ? 0 : (size_t)m);
    if (len > size - 2)
        len = size - 2;
    buf[len++] = '\n';
    return len;
}

static void emit(const char *fmt, va_list ap)
{
    char buf[4096]; /* values inside are quoted shortened (text.h): a line fits */
    /* One write: a message is one line even when threads and the program write too. */
    put(buf, format(buf, sizeof buf, fmt, ap));
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

void instr_notice(const char *fmt, ...)
{
    char buf[4096];
    va_list ap;
    va_start(ap, fmt);
    size_t len = format(buf, sizeof buf, fmt, ap);
    va_end(ap);
    pthread_mutex_lock(&held_lock);
    int mode = notice_mode;
    if (mode == NOTICE_HOLD && held_len + len <= sizeof held) {
        memcpy(held + held_len, buf, len);
        held_len += len;
    } else if (mode != NOTICE_DROP) {
        put(buf, len);
    }
    pthread_mutex_unlock(&held_lock);
}

void instr_log_job_hold(void)
{
    pthread_mutex_lock(&held_lock);
    notice_mode = NOTICE_HOLD;
    pthread_mutex_unlock(&held_lock);
}

void instr_log_job_rank(int rank)
{
    pthread_mutex_lock(&held_lock);
    if (rank >= 0 || notice_mode == NOTICE_HOLD) {
        if (notice_mode == NOTICE_HOLD && rank <= 0 && held_len)
            put(held, held_len); /* whole lines: one write keeps them together */
        held_len = 0;
        notice_mode = rank > 0 ? NOTICE_DROP : NOTICE_PRINT;
    }
    pthread_mutex_unlock(&held_lock);
}
