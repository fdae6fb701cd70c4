/* load.c — reading a spec: the file, its spelling, and all-or-nothing appending. */
#include "filter_internal.h"
#include "spec_text.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* Binary garbage is refused up front with where it starts, rather than parsed into a
 * confusing "unknown keyword". */
static int check_text(const char *origin, const char *data, size_t size,
                      instr_filter_error *err)
{
    unsigned line = 1, column = 1;
    for (size_t i = 0; i < size; i++) {
        unsigned char c = (unsigned char)data[i];
        if (c == '\n') {
            line++;
            column = 1;
            continue;
        }
        if (c == 0 || c == 0x7f || (c < 0x20 && c != '\t' && c != '\r' && c != '\v' && c != '\f')) {
            filter_error(err, origin, line, column,
                         "binary data (byte 0x%02x) in a selection spec; is this the right "
                         "file?", c);
            return -1;
        }
        column++;
    }
    return 0;
}

int instr_filter_load_buffer(instr_filter *f, const char *origin, const char *data,
                             size_t size, instr_spec_format format, instr_filter_error *err)
{
    const char *kept = filter_keep(f, origin, strlen(origin));
    if (!kept) {
        filter_error_oom(err, origin);
        return -1;
    }
    if (check_text(kept, data, size, err) != 0)
        return -1;
    if (format == INSTR_SPEC_AUTO)
        format = instr_spec_detect(origin, data, size);

    size_t rules_before = f->rule_count;
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
    if (rc != 0) {
        /* strings stay owned by the filter until it is freed; only the rules go */
        f->rule_count = rules_before;
        f->min_instructions = min_before;
        f->min_origin = min_origin_before;
        f->min_line = min_line_before;
    }
    return rc;
}

int instr_filter_load_file(instr_filter *f, const char *path, instr_spec_format format,
                           instr_filter_error *err)
{
    FILE *fp = fopen(path, "rb");
    if (!fp) {
        filter_error(err, path, 0, 0, "cannot read the spec: %s", strerror(errno));
        return -1;
    }
    size_t cap = 4096, size = 0;
    char *data = malloc(cap);
    int failed = data == NULL;
    while (!failed) {
        size_t got = fread(data + size, 1, cap - size, fp);
        size += got;
        if (got == 0) {
            failed = ferror(fp) != 0;
            break;
        }
        if (size == cap) {
            char *grown = realloc(data, cap * 2);
            if (!grown) {
                failed = 1;
                break;
            }
            data = grown;
            cap *= 2;
        }
    }
    const char *why = failed ? (data ? strerror(errno) : "out of memory") : NULL;
    fclose(fp);
    if (failed) {
        filter_error(err, path, 0, 0, "cannot read the spec: %s", why);
        free(data);
        return -1;
    }
    int rc = instr_filter_load_buffer(f, path, data, size, format, err);
    free(data);
    return rc;
}
