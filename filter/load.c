/* load.c — reading a spec: the file, its spelling, and all-or-nothing appending. */
#define _GNU_SOURCE /* O_CLOEXEC, S_ISSOCK */
#include "filter_internal.h"
#include "spec_text.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

const char *instr_spec_format_name(instr_spec_format format)
{
    switch (format) {
    case INSTR_SPEC_AUTO: return "auto";
    case INSTR_SPEC_NATIVE: return "native";
    case INSTR_SPEC_YAML: return "yaml";
    case INSTR_SPEC_SCOREP: return "scorep";
    case INSTR_SPEC_TAU: return "tau";
    }
    return "?";
}

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcmp(s + n - m, suffix) == 0;
}

static int starts_with(const spec_line *l, const char *prefix)
{
    size_t n = strlen(prefix);
    return l->len >= n && memcmp(l->text, prefix, n) == 0;
}

/* "key:" at the start of a line is YAML; the native spelling has no colons in keywords. */
static int looks_like_yaml_key(const spec_line *l)
{
    size_t i = 0;
    while (i < l->len && ((l->text[i] >= 'a' && l->text[i] <= 'z') || l->text[i] == '-' ||
                          l->text[i] == '_'))
        i++;
    return i > 0 && i < l->len && l->text[i] == ':';
}

instr_spec_format instr_spec_detect(const char *path, const char *data, size_t size)
{
    if (path && (ends_with(path, ".yaml") || ends_with(path, ".yml")))
        return INSTR_SPEC_YAML;
    spec_reader r;
    spec_line raw;
    spec_reader_init(&r, data, size);
    while (spec_next_line(&r, &raw)) {
        unsigned col;
        spec_line l = spec_line_trim(&raw, &col);
        if (l.len == 0 || l.text[0] == '#')
            continue;
        if (starts_with(&l, "SCOREP_"))
            return INSTR_SPEC_SCOREP;
        if (starts_with(&l, "BEGIN_") || starts_with(&l, "END_"))
            return INSTR_SPEC_TAU;
        if (starts_with(&l, "---") || starts_with(&l, "%YAML") || looks_like_yaml_key(&l) ||
            starts_with(&l, "- "))
            return INSTR_SPEC_YAML;
        return INSTR_SPEC_NATIVE;
    }
    return INSTR_SPEC_NATIVE;
}

/* Where the text scan stands: line and column of the next byte. */
typedef struct text_scan {
    unsigned line, column;
} text_scan;

/* Binary garbage is refused up front with where it starts, rather than parsed into a
 * confusing "unknown keyword". Called on each piece as it arrives. */
static int check_text(const char *origin, text_scan *at, const char *data, size_t size,
                      instr_filter_error *err)
{
    for (size_t i = 0; i < size; i++) {
        unsigned char c = (unsigned char)data[i];
        if (c == '\n') {
            at->line++;
            at->column = 1;
            continue;
        }
        if (c == 0 || c == 0x7f || (c < 0x20 && c != '\t' && c != '\r' && c != '\v' && c != '\f')) {
            filter_error(err, origin, at->line, at->column,
                         "binary data (byte 0x%02x) in a selection spec; is this the right "
                         "file?", c);
            return -1;
        }
        at->column++;
    }
    return 0;
}

static const char utf8_bom[] = "\xef\xbb\xbf";

int instr_filter_load_buffer(instr_filter *f, const char *origin, const char *data,
                             size_t size, instr_spec_format format, instr_filter_error *err)
{
    instr_filter_error local;
    if (!err)
        err = &local;
    filter_error_reset(err);
    const char *kept = filter_keep(f, origin, strlen(origin));
    if (!kept) {
        filter_error_oom(err, origin);
        return -1;
    }
    /* a byte-order mark (editors on Windows write one) is no part of the text */
    if (size >= 3 && memcmp(data, utf8_bom, 3) == 0) {
        data += 3;
        size -= 3;
    }
    text_scan at = {1, 1};
    if (check_text(kept, &at, data, size, err) != 0)
        return -1;
    if (format == INSTR_SPEC_AUTO)
        format = instr_spec_detect(origin, data, size);

    size_t rules_before = f->rule_count, warnings_before = f->warning_count;
    long min_before = f->min_instructions;
    const char *min_origin_before = f->min_origin;
    unsigned min_line_before = f->min_line;
    int rc;
    switch (format) {
    case INSTR_SPEC_YAML: rc = parse_yaml(f, kept, data, size, err); break;
    case INSTR_SPEC_SCOREP: rc = parse_scorep(f, kept, data, size, err); break;
    case INSTR_SPEC_TAU: rc = parse_tau(f, kept, data, size, err); break;
    case INSTR_SPEC_NATIVE:
    default: rc = parse_native(f, kept, data, size, err); break;
    }
    if (err->count > 0)
        rc = -1;
    if (rc != 0) {
        if (err->count == 0) /* a loader must say what went wrong */
            filter_error(err, kept, 0, 0, "cannot read the spec");
        if (err->count > INSTR_FILTER_MAX_ERRORS) {
            size_t used = strlen(err->message);
            snprintf(err->message + used, sizeof err->message - used,
                     "\n%s: %u more errors not shown", kept,
                     err->count - INSTR_FILTER_MAX_ERRORS);
        }
        /* strings stay owned by the filter until it is freed; only the rules go */
        f->rule_count = rules_before;
        rule_index_truncate(&f->files, rules_before);
        rule_index_truncate(&f->functions, rules_before);
        while (f->warning_count > warnings_before)
            free(f->warnings[--f->warning_count]);
        f->min_instructions = min_before;
        f->min_origin = min_origin_before;
        f->min_line = min_line_before;
    }
    return rc;
}

static const char *file_kind(mode_t mode)
{
    if (S_ISDIR(mode)) return "a directory";
    if (S_ISFIFO(mode)) return "a FIFO";
    if (S_ISCHR(mode)) return "a character device";
    if (S_ISBLK(mode)) return "a block device";
    if (S_ISSOCK(mode)) return "a socket";
    return "not a file";
}

/* Reads the whole spec file into *out. Never waits for data that may never come (a FIFO is
 * opened without blocking and refused), never reads past the size cap, and stops at the
 * first control byte, so /dev/zero, /dev/urandom or a file that keeps growing fail at once. */
static int read_spec_file(const char *path, char **out, size_t *out_size,
                          instr_filter_error *err)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
    if (fd < 0) {
        filter_error(err, path, 0, 0, "cannot read the spec: %s", strerror(errno));
        return -1;
    }
    struct stat st;
    if (fstat(fd, &st) != 0) {
        filter_error(err, path, 0, 0, "cannot read the spec: %s", strerror(errno));
        close(fd);
        return -1;
    }
    if (!S_ISREG(st.st_mode)) {
        filter_error(err, path, 0, 0,
                     "not a regular file (%s); a selection spec is a text file", file_kind(st.st_mode));
        close(fd);
        return -1;
    }
    if ((unsigned long long)st.st_size > INSTR_SPEC_MAX_BYTES) {
        filter_error(err, path, 0, 0,
                     "the spec is %lld bytes, more than the limit of %lu bytes (16 MiB); "
                     "is this the right file? split a larger rule set into several specs",
                     (long long)st.st_size, INSTR_SPEC_MAX_BYTES);
        close(fd);
        return -1;
    }
    size_t cap = (size_t)st.st_size + 1, size = 0;
    char *data = malloc(cap);
    text_scan at = {1, 1};
    int failed = data == NULL;
    const char *why = failed ? "out of memory" : NULL;
    while (!failed) {
        if (size == cap) { /* the file grew since fstat */
            if (cap > INSTR_SPEC_MAX_BYTES) {
                filter_error(err, path, 0, 0,
                             "the spec grew past the limit of %lu bytes (16 MiB) while being "
                             "read; is this the right file?",
                             INSTR_SPEC_MAX_BYTES);
                free(data);
                close(fd);
                return -1;
            }
            size_t grown_cap = cap * 2 > INSTR_SPEC_MAX_BYTES + 1 ? INSTR_SPEC_MAX_BYTES + 1
                                                                  : cap * 2;
            char *grown = realloc(data, grown_cap);
            if (!grown) {
                failed = 1;
                why = "out of memory";
                break;
            }
            data = grown;
            cap = grown_cap;
        }
        ssize_t got = read(fd, data + size, cap - size);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0) {
            failed = 1;
            why = strerror(errno);
            break;
        }
        if (got == 0)
            break;
        /* a BOM at the start is skipped by the parser; it is not binary data */
        size_t from = size == 0 && got >= 3 && memcmp(data, utf8_bom, 3) == 0 ? 3 : 0;
        if (check_text(path, &at, data + size + from, (size_t)got - from, err) != 0) {
            free(data);
            close(fd);
            return -1;
        }
        size += (size_t)got;
    }
    close(fd);
    if (failed) {
        filter_error(err, path, 0, 0, "cannot read the spec: %s", why);
        free(data);
        return -1;
    }
    *out = data;
    *out_size = size;
    return 0;
}

int instr_filter_load_file(instr_filter *f, const char *path, instr_spec_format format,
                           instr_filter_error *err)
{
    instr_filter_error local;
    if (!err)
        err = &local;
    filter_error_reset(err);
    char *data = NULL;
    size_t size = 0;
    if (read_spec_file(path, &data, &size, err) != 0)
        return -1;
    int rc = instr_filter_load_buffer(f, path, data, size, format, err);
    free(data);
    return rc;
}
