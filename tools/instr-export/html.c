/* html.c — instr-export --html: profile.html from a profile.json that a run or an MPI job
 * wrote (the same template as the runtime's, write_html.h). The JSON is checked to be a
 * whole instr profile (a page that cannot parse its data would show nothing) and then
 * streamed through unchanged. */
#include "export.h"
#include "input_file.h"
#include "profile_read.h"
#include "write_html.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

#define HEAD_CHECK 4096 /* "format" is the first field of every instr profile.json */

typedef struct copy_args {
    FILE *in;
    const char *head;
    size_t nhead;
} copy_args;

static void copy_json(instr_writer *json, void *arg)
{
    copy_args *a = arg;
    char buf[1 << 16];
    instr_wr_write(json, a->head, a->nhead);
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, a->in)) > 0)
        instr_wr_write(json, buf, n);
}

/* The page's writer into the tool's stream. */
static int to_stream(void *arg, const char *data, size_t len)
{
    return fwrite(data, 1, len, arg) == len ? 0 : (errno ? errno : EIO);
}

int instr_export_html(const char *path, FILE *out)
{
    profile p;
    if (profile_read(&p, path) != 0)
        return 1;
    profile_free(&p);
    char why[160];
    int fd = instr_input_open(path, NULL, why, sizeof why);
    FILE *in = fd >= 0 ? fdopen(fd, "rb") : NULL;
    if (!in) {
        if (fd >= 0)
            close(fd);
        fprintf(stderr, "instr-export: %s: %s\n", path, fd >= 0 ? strerror(errno) : why);
        return 1;
    }
    char head[HEAD_CHECK + 1];
    size_t n = fread(head, 1, HEAD_CHECK, in);
    head[n] = '\0';
    const char *at = strstr(head, "\"format\"");
    if (!at || !strstr(at, "\"instr-profile\"") || head[strspn(head, " \t\r\n")] != '{') {
        fprintf(stderr, "instr-export: %s:1:1: not an instr profile.json (expected a JSON object "
                        "with \"format\": \"instr-profile\" at its start); give the profile.json "
                        "of an experiment directory\n", path);
        fclose(in);
        return 1;
    }
    copy_args a = {in, head, n};
    instr_writer page;
    int rc = instr_writer_open(&page, to_stream, out, 0);
    if (rc == 0)
        rc = instr_html_write(&page, copy_json, &a);
    if (instr_writer_close(&page) != 0)
        rc = -1;
    if (ferror(in)) {
        fprintf(stderr, "instr-export: %s: read error: %s\n", path, strerror(errno));
        rc = 1;
    }
    fclose(in);
    return rc;
}
