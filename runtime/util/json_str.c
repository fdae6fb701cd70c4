/* json_str.c — a string as a JSON string literal, shared by the profile writers and the tools
 * that write JSON (instr-export). */
#include "json_str.h"
#include "text.h"

#include <stdio.h>
#include <string.h>

static size_t json_ascii(unsigned c, char *out)
{
    switch (c) {
    case '"': memcpy(out, "\\\"", 2); return 2;
    case '\\': memcpy(out, "\\\\", 2); return 2;
    case '\n': memcpy(out, "\\n", 2); return 2;
    case '\t': memcpy(out, "\\t", 2); return 2;
    case '\r': memcpy(out, "\\r", 2); return 2;
    default: return c < 0x20 ? (size_t)snprintf(out, INSTR_ESCAPED_MAX, "\\u%04x", c) : 0;
    }
}

/* Always valid UTF-8 (RFC 8259): a byte that does not belong to a well-formed UTF-8 sequence
 * becomes U+FFFD, the replacement character (docs/profile-format.md). */
static size_t json_invalid(unsigned c, char *out)
{
    (void)c;
    memcpy(out, "\\ufffd", 6);
    return 6;
}

const instr_escaper instr_escaper_json = {json_ascii, json_invalid, 0};

void instr_wr_json_str(instr_writer *w, const char *s)
{
    instr_wr_putc(w, '"');
    instr_wr_escaped_with(w, s, &instr_escaper_json);
    instr_wr_putc(w, '"');
}

void instr_json_str(FILE *f, const char *s)
{
    fputc('"', f);
    instr_fputs_with(f, s, &instr_escaper_json);
    fputc('"', f);
}
