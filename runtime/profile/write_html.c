/* write_html.c — profile.html around a profile.json (write_html.h, docs/report.md).
 *
 * The JSON goes through a writer whose sink escapes it on the way, so the profile is
 * never held in memory twice and every JSON writer (the process's, the job's) is reused as
 * it is. */
#include "write_html.h"

/* The JSON writer's sink: the JSON with '<' escaped, into the page's writer. */
static int escape_sink(void *arg, const char *buf, size_t size)
{
    instr_writer *out = arg;
    size_t from = 0;
    for (size_t i = 0; i < size; i++) {
        if (buf[i] != '<')
            continue;
        instr_wr_write(out, buf + from, i - from);
        instr_wr_puts(out, "\\u003c");
        from = i + 1;
    }
    instr_wr_write(out, buf + from, size - from);
    return out->err;
}

int instr_html_write(instr_writer *f, void (*write_json)(instr_writer *json, void *arg), void *arg)
{
    instr_wr_write(f, instr_report_head, instr_report_head_len);
    instr_writer json;
    if (instr_writer_open(&json, escape_sink, f, 0) != 0)
        return -1;
    write_json(&json, arg);
    int failed = instr_writer_close(&json) != 0;
    instr_wr_write(f, instr_report_tail, instr_report_tail_len);
    return failed || f->err ? -1 : 0;
}
