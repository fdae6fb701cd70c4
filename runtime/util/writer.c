/* writer.c — buffered output without stdio (writer.h). */
#include "writer.h"

#include "pages.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define DEFAULT_CAP ((size_t)64 * 1024)
#define MEM_FIRST ((size_t)4 * 1024)

static int start(instr_writer *w, instr_writer_sink sink, void *arg, size_t cap)
{
    memset(w, 0, sizeof *w);
    w->sink = sink;
    w->arg = arg;
    w->buf = instr_mem_alloc(cap);
    if (!w->buf) {
        w->err = ENOMEM;
        return -1;
    }
    w->cap = cap;
    return 0;
}

int instr_writer_open(instr_writer *w, instr_writer_sink sink, void *arg, size_t cap)
{
    return start(w, sink, arg, cap ? cap : DEFAULT_CAP);
}

int instr_writer_open_mem(instr_writer *w) { return start(w, NULL, NULL, MEM_FIRST); }

int instr_writer_fd_sink(void *arg, const char *data, size_t len)
{
    int fd = *(const int *)arg;
    size_t done = 0;
    while (done < len) {
        ssize_t n = write(fd, data + done, len - done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return n < 0 ? errno : EIO;
        done += (size_t)n;
    }
    return 0;
}

int instr_writer_flush(instr_writer *w)
{
    if (w->sink && w->len) {
        if (!w->err)
            w->err = w->sink(w->arg, w->buf, w->len);
        w->len = 0;
    }
    return w->err;
}

/* Room for `need` more bytes in the buffer (a memory writer grows; a sink's is emptied):
 * 1, or 0 when there is none (a sink's buffer smaller than need, or no memory). */
static int room(instr_writer *w, size_t need)
{
    if (w->cap - w->len >= need)
        return 1;
    if (w->sink) {
        instr_writer_flush(w);
        return w->cap >= need;
    }
    if (w->err)
        return 0;
    size_t cap = w->cap;
    while (cap - w->len < need)
        cap *= 2;
    char *grown = instr_mem_realloc(w->buf, cap);
    if (!grown) {
        w->err = ENOMEM;
        return 0;
    }
    w->buf = grown;
    w->cap = cap;
    return 1;
}

void instr_wr_write(instr_writer *w, const void *data, size_t len)
{
    w->bytes += len;
    if (w->err || !w->buf)
        return;
    if (room(w, len)) {
        memcpy(w->buf + w->len, data, len);
        w->len += len;
    } else if (w->sink && !w->err) {
        w->err = w->sink(w->arg, data, len); /* larger than the buffer: passed as it is */
    }
}

void instr_wr_puts(instr_writer *w, const char *s) { instr_wr_write(w, s, strlen(s)); }

void instr_wr_putc(instr_writer *w, int c)
{
    char ch = (char)c;
    instr_wr_write(w, &ch, 1);
}

void instr_wr_printf(instr_writer *w, const char *fmt, ...)
{
    va_list ap, again;
    va_start(ap, fmt);
    va_copy(again, ap);
    size_t left = w->buf && !w->err ? w->cap - w->len : 0;
    int n = vsnprintf(left ? w->buf + w->len : NULL, left, fmt, ap);
    va_end(ap);
    if (n < 0) {
        if (!w->err)
            w->err = errno ? errno : EINVAL;
    } else if ((size_t)n < left) {
        w->len += (size_t)n;
        w->bytes += (size_t)n;
    } else if (w->err || !w->buf) {
        w->bytes += (size_t)n;
    } else if (room(w, (size_t)n + 1)) {
        vsnprintf(w->buf + w->len, (size_t)n + 1, fmt, again);
        w->len += (size_t)n;
        w->bytes += (size_t)n;
    } else {
        /* Longer than a sink's whole buffer: formatted on its own. */
        char *text = NULL;
        if (instr_mem_vasprintf(&text, fmt, again) < 0) {
            w->bytes += (size_t)n;
            if (!w->err)
                w->err = ENOMEM;
        } else {
            instr_wr_write(w, text, (size_t)n);
        }
        instr_mem_free(text);
    }
    va_end(again);
}

int instr_writer_close(instr_writer *w)
{
    instr_writer_flush(w);
    instr_mem_free(w->buf);
    w->buf = NULL;
    w->len = w->cap = 0;
    return w->err;
}

char *instr_writer_take(instr_writer *w, size_t *len)
{
    char *text = NULL;
    if (!w->sink && !w->err && w->buf && room(w, 1)) {
        w->buf[w->len] = '\0';
        text = w->buf;
        if (len)
            *len = w->len;
        w->buf = NULL;
    }
    instr_writer_close(w);
    return text;
}
