/* text.c — escaping and quoting untrusted text (see text.h). */
#include "text.h"

#include <string.h>

int instr_utf8_len(const unsigned char *p)
{
    unsigned c = p[0];
    if (c < 0x80)
        return 1;
    int n;
    unsigned min;
    if (c >= 0xc2 && c <= 0xdf) { n = 2; min = 0x80; }
    else if ((c & 0xf0) == 0xe0) { n = 3; min = 0x800; }
    else if (c >= 0xf0 && c <= 0xf4) { n = 4; min = 0x10000; }
    else
        return 0;
    unsigned cp = c & (0x7fu >> n);
    for (int i = 1; i < n; i++) {
        if ((p[i] & 0xc0) != 0x80) /* also stops at the terminating NUL */
            return 0;
        cp = (cp << 6) | (p[i] & 0x3fu);
    }
    if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
        return 0;
    return n;
}

static const char hex[] = "0123456789abcdef";

static size_t hex_byte(unsigned c, char *out)
{
    out[0] = '\\';
    out[1] = 'x';
    out[2] = hex[c >> 4];
    out[3] = hex[c & 15];
    return 4;
}

/* What a terminal or a line-based reader would take for structure: C0 controls and DEL as
 * \n \r \t or \xHH, the backslash as \\. */
static size_t text_ascii(unsigned c, char *out)
{
    if (c == '\\' || c == '\n' || c == '\r' || c == '\t') {
        out[0] = '\\';
        out[1] = c == '\\' ? '\\' : c == '\n' ? 'n' : c == '\r' ? 'r' : 't';
        return 2;
    }
    return c < 0x20 || c == 0x7f ? hex_byte(c, out) : 0;
}

const instr_escaper instr_escaper_text = {text_ascii, hex_byte, 1};

size_t instr_escape_one(const instr_escaper *e, const unsigned char *p, char *out, size_t *len)
{
    int n = instr_utf8_len(p);
    if (e->c1 && n == 2 && p[0] == 0xc2 && p[1] < 0xa0) { /* both bytes, or neither */
        size_t k = e->invalid(p[0], out);
        *len = k + e->invalid(p[1], out + k);
        return 2;
    }
    if (n == 0) {
        *len = e->invalid(p[0], out);
        return 1;
    }
    if (n > 1) {
        memcpy(out, p, (size_t)n);
        *len = (size_t)n;
        return (size_t)n;
    }
    if (!(*len = e->ascii(p[0], out))) {
        out[0] = (char)p[0];
        *len = 1;
    }
    return 1;
}

void instr_fputs_with(FILE *f, const char *s, const instr_escaper *e)
{
    const unsigned char *p = (const unsigned char *)(s ? s : "");
    while (*p) {
        char buf[INSTR_ESCAPED_MAX];
        size_t len;
        p += instr_escape_one(e, p, buf, &len);
        fwrite(buf, 1, len, f);
    }
}

void instr_wr_escaped_with(instr_writer *w, const char *s, const instr_escaper *e)
{
    const unsigned char *p = (const unsigned char *)(s ? s : "");
    while (*p) {
        char buf[INSTR_ESCAPED_MAX];
        size_t len;
        p += instr_escape_one(e, p, buf, &len);
        instr_wr_write(w, buf, len);
    }
}

void instr_wr_escaped(instr_writer *w, const char *s) { instr_wr_escaped_with(w, s, &instr_escaper_text); }

const char *instr_escaped(char *out, size_t size, const char *s)
{
    const unsigned char *p = (const unsigned char *)(s ? s : "");
    size_t o = 0;
    while (*p) {
        char buf[INSTR_ESCAPED_MAX];
        size_t len, n = instr_escape_one(&instr_escaper_text, p, buf, &len);
        if (o + len >= size)
            break;
        memcpy(out + o, buf, len);
        o += len;
        p += n;
    }
    if (size)
        out[o < size ? o : size - 1] = '\0';
    return out;
}

const char *instr_quote(char out[INSTR_QUOTE_SIZE], const char *s)
{
    /* What is shown of a long value: enough to recognise it, little enough that the
     * message's own words always fit on the line. */
    enum { SHOWN = 200 }; /* most paths show whole */
    const unsigned char *p = (const unsigned char *)(s ? s : "");
    size_t total = strlen((const char *)p), o = 0, used = 0;
    out[o++] = '\'';
    while (p[used]) {
        char buf[INSTR_ESCAPED_MAX];
        size_t len, n = instr_escape_one(&instr_escaper_text, p + used, buf, &len);
        if (o + len > 1 + SHOWN)
            break;
        memcpy(out + o, buf, len);
        o += len;
        used += n;
    }
    if (p[used])
        snprintf(out + o, INSTR_QUOTE_SIZE - o, "\xe2\x80\xa6' (%zu bytes)", total);
    else
        snprintf(out + o, INSTR_QUOTE_SIZE - o, "'");
    return out;
}
