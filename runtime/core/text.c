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

/* The escaped form of the character at p into out (at least 9 bytes); returns how many
 * source bytes it covers, and the output length in *len. */
static size_t escape_one(const unsigned char *p, char *out, size_t *len)
{
    static const char hex[] = "0123456789abcdef";
    unsigned c = *p;
    int n = instr_utf8_len(p);
    if (c == '\\' || c == '\n' || c == '\r' || c == '\t') {
        out[0] = '\\';
        out[1] = c == '\\' ? '\\' : c == '\n' ? 'n' : c == '\r' ? 'r' : 't';
        *len = 2;
        return 1;
    }
    if (n == 1 && c >= 0x20 && c != 0x7f) {
        out[0] = (char)c;
        *len = 1;
        return 1;
    }
    if (n == 2 && c == 0xc2 && p[1] < 0xa0) { /* a C1 control: escape both bytes */
        memcpy(out, "\\xc2\\x", 6);
        out[6] = hex[p[1] >> 4];
        out[7] = hex[p[1] & 15];
        *len = 8;
        return 2;
    }
    if (n > 1) {
        memcpy(out, p, (size_t)n);
        *len = (size_t)n;
        return (size_t)n;
    }
    out[0] = '\\';
    out[1] = 'x';
    out[2] = hex[c >> 4];
    out[3] = hex[c & 15];
    *len = 4;
    return 1;
}

void instr_fputs_escaped(FILE *f, const char *s)
{
    const unsigned char *p = (const unsigned char *)(s ? s : "");
    while (*p) {
        char buf[16];
        size_t len;
        p += escape_one(p, buf, &len);
        fwrite(buf, 1, len, f);
    }
}

const char *instr_escaped(char *out, size_t size, const char *s)
{
    const unsigned char *p = (const unsigned char *)(s ? s : "");
    size_t o = 0;
    while (*p) {
        char buf[16];
        size_t len, n = escape_one(p, buf, &len);
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
        char buf[16];
        size_t len, n = escape_one(p + used, buf, &len);
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
