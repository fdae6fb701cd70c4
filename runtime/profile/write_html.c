/* write_html.c — profile.html around a profile.json (write_html.h, docs/report.md).
 *
 * The JSON goes through a stdio cookie stream that escapes it on the way, so the profile is
 * never held in memory twice and every JSON writer (the process's, the job's) is reused as
 * it is. */
#include "write_html.h"

#include <string.h>

typedef struct escaper {
    FILE *out;
    int failed;
} escaper;

static ssize_t escape_write(void *cookie, const char *buf, size_t size)
{
    escaper *e = cookie;
    size_t from = 0;
    for (size_t i = 0; i < size; i++) {
        if (buf[i] != '<')
            continue;
        if (fwrite(buf + from, 1, i - from, e->out) != i - from || fputs("\\u003c", e->out) < 0)
            e->failed = 1;
        from = i + 1;
    }
    if (fwrite(buf + from, 1, size - from, e->out) != size - from)
        e->failed = 1;
    return e->failed ? -1 : (ssize_t)size;
}

int instr_html_write(FILE *f, void (*write_json)(FILE *json, void *arg), void *arg)
{
    escaper e = {f, 0};
    cookie_io_functions_t io = {.write = escape_write};
    fwrite(instr_report_head, 1, instr_report_head_len, f);
    FILE *json = fopencookie(&e, "w", io);
    if (!json)
        return -1;
    write_json(json, arg);
    if (fclose(json) != 0)
        e.failed = 1;
    fwrite(instr_report_tail, 1, instr_report_tail_len, f);
    return e.failed || ferror(f) ? -1 : 0;
}
