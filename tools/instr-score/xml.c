/* xml.c — the small XML reader of xml.h. */
#define _GNU_SOURCE /* memmem, strndup */
#include "xml.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct buf {
    char *s;
    size_t n, cap;
} buf;

static int put(buf *b, const char *p, size_t n)
{
    if (b->n + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 256;
        while (cap < b->n + n + 1)
            cap *= 2;
        char *s = realloc(b->s, cap);
        if (!s)
            return -1;
        b->s = s;
        b->cap = cap;
    }
    memcpy(b->s + b->n, p, n);
    b->n += n;
    b->s[b->n] = '\0';
    return 0;
}

typedef struct parser {
    const char *t;
    size_t len, pos;
    char *err;
    size_t errsize;
    buf text, attrs;
    char **stack;
    size_t depth, cap;
} parser;

static int fail(parser *P, size_t at, const char *what)
{
    size_t line = 1, col = 1;
    for (size_t i = 0; i < at && i < P->len; i++) {
        if (P->t[i] == '\n') {
            line++;
            col = 1;
        } else {
            col++;
        }
    }
    snprintf(P->err, P->errsize, "line %zu, column %zu: %s", line, col, what);
    return -1;
}

static int oom(parser *P) { return fail(P, P->pos, "out of memory"); }

static int starts(const parser *P, const char *s)
{
    size_t n = strlen(s);
    return P->len - P->pos >= n && memcmp(P->t + P->pos, s, n) == 0;
}

static int is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

static void skip_space(parser *P)
{
    while (P->pos < P->len && is_space(P->t[P->pos]))
        P->pos++;
}

/* Moves past the next `end` (from the current position); -1 when there is none. */
static int skip_past(parser *P, const char *end, const char *what)
{
    const char *e = memmem(P->t + P->pos, P->len - P->pos, end, strlen(end));
    if (!e)
        return fail(P, P->pos, what);
    P->pos = (size_t)(e - P->t) + strlen(end);
    return 0;
}

static void utf8(uint32_t c, char *out, size_t *n)
{
    if (c < 0x80) {
        out[0] = (char)c;
        *n = 1;
    } else if (c < 0x800) {
        out[0] = (char)(0xc0 | c >> 6);
        out[1] = (char)(0x80 | (c & 0x3f));
        *n = 2;
    } else if (c < 0x10000) {
        out[0] = (char)(0xe0 | c >> 12);
        out[1] = (char)(0x80 | ((c >> 6) & 0x3f));
        out[2] = (char)(0x80 | (c & 0x3f));
        *n = 3;
    } else {
        out[0] = (char)(0xf0 | c >> 18);
        out[1] = (char)(0x80 | ((c >> 12) & 0x3f));
        out[2] = (char)(0x80 | ((c >> 6) & 0x3f));
        out[3] = (char)(0x80 | (c & 0x3f));
        *n = 4;
    }
}

/* Character data t[from..to) with its entities replaced, appended to out. */
static int decode(parser *P, size_t from, size_t to, buf *out)
{
    static const struct { const char *name, *text; } named[] = {
        {"lt", "<"}, {"gt", ">"}, {"amp", "&"}, {"quot", "\""}, {"apos", "'"}};
    size_t i = from;
    while (i < to) {
        const char *amp = memchr(P->t + i, '&', to - i);
        size_t plain = amp ? (size_t)(amp - P->t) : to;
        if (put(out, P->t + i, plain - i) != 0)
            return oom(P);
        if (!amp)
            break;
        const char *semi = memchr(amp, ';', (size_t)(P->t + to - amp));
        if (!semi || semi - amp > 12)
            return fail(P, plain, "'&' that begins no entity (write &amp;)");
        const char *name = amp + 1;
        size_t nlen = (size_t)(semi - name);
        char ch[4];
        size_t chn = 0;
        if (nlen > 1 && name[0] == '#') {
            char *end;
            unsigned long c = name[1] == 'x' ? strtoul(name + 2, &end, 16) : strtoul(name + 1, &end, 10);
            if (end != semi || c == 0 || c > 0x10ffff)
                return fail(P, plain, "bad character reference");
            utf8((uint32_t)c, ch, &chn);
        } else {
            for (size_t k = 0; k < sizeof named / sizeof *named && !chn; k++)
                if (strlen(named[k].name) == nlen && memcmp(name, named[k].name, nlen) == 0) {
                    ch[0] = named[k].text[0];
                    chn = 1;
                }
            if (!chn)
                return fail(P, plain, "unknown entity (XML knows lt, gt, amp, quot, apos)");
        }
        if (put(out, ch, chn) != 0)
            return oom(P);
        i = (size_t)(semi - P->t) + 1;
    }
    return 0;
}

static size_t name_end(const parser *P, size_t at)
{
    while (at < P->len && !is_space(P->t[at]) && !strchr("/>=<\"'", P->t[at]))
        at++;
    return at;
}

static int end_element(parser *P, const xml_handler *h)
{
    char *name = P->stack[--P->depth];
    int rc = 0;
    if (h->end && h->end(h->ctx, name, P->text.s ? P->text.s : "", P->err, P->errsize) != 0)
        rc = -1;
    free(name);
    P->text.n = 0;
    if (P->text.s)
        P->text.s[0] = '\0';
    return rc;
}

static int start_tag(parser *P, const xml_handler *h)
{
    size_t at = P->pos++;
    size_t ne = name_end(P, P->pos);
    if (ne == P->pos)
        return fail(P, at, "'<' without an element name");
    char *name = strndup(P->t + P->pos, ne - P->pos);
    if (!name)
        return oom(P);
    P->pos = ne;
    /* Attributes: name NUL value NUL ..., offsets into P->attrs. */
    P->attrs.n = 0;
    size_t offs[2 * 64], nattr = 0;
    int self_closing = 0;
    for (;;) {
        skip_space(P);
        if (P->pos >= P->len) {
            free(name);
            return fail(P, at, "element not closed by '>'");
        }
        if (starts(P, "/>")) {
            P->pos += 2;
            self_closing = 1;
            break;
        }
        if (P->t[P->pos] == '>') {
            P->pos++;
            break;
        }
        size_t an = name_end(P, P->pos);
        if (an == P->pos || nattr == 64) {
            free(name);
            return fail(P, P->pos, an == P->pos ? "expected an attribute name, '>' or '/>'"
                                                : "more than 64 attributes");
        }
        offs[2 * nattr] = P->attrs.n;
        if (put(&P->attrs, P->t + P->pos, an - P->pos) != 0 || put(&P->attrs, "", 1) != 0) {
            free(name);
            return oom(P);
        }
        P->pos = an;
        skip_space(P);
        if (P->pos >= P->len || P->t[P->pos] != '=') {
            free(name);
            return fail(P, P->pos, "expected '=' after the attribute name");
        }
        P->pos++;
        skip_space(P);
        char q = P->pos < P->len ? P->t[P->pos] : 0;
        if (q != '"' && q != '\'') {
            free(name);
            return fail(P, P->pos, "expected a quoted attribute value");
        }
        const char *close = memchr(P->t + P->pos + 1, q, P->len - P->pos - 1);
        if (!close) {
            free(name);
            return fail(P, P->pos, "attribute value not closed");
        }
        offs[2 * nattr + 1] = P->attrs.n;
        if (decode(P, P->pos + 1, (size_t)(close - P->t), &P->attrs) != 0 ||
            put(&P->attrs, "", 1) != 0) {
            free(name);
            return -1;
        }
        P->pos = (size_t)(close - P->t) + 1;
        nattr++;
    }
    xml_attr attrs[64];
    for (size_t i = 0; i < nattr; i++)
        attrs[i] = (xml_attr){P->attrs.s + offs[2 * i], P->attrs.s + offs[2 * i + 1]};
    if (h->start && h->start(h->ctx, name, attrs, nattr, P->err, P->errsize) != 0) {
        free(name);
        return -1;
    }
    if (P->depth == P->cap) {
        size_t cap = P->cap ? 2 * P->cap : 64;
        char **s = realloc(P->stack, cap * sizeof *s);
        if (!s) {
            free(name);
            return oom(P);
        }
        P->stack = s;
        P->cap = cap;
    }
    P->stack[P->depth++] = name;
    P->text.n = 0;
    if (P->text.s)
        P->text.s[0] = '\0';
    return self_closing ? end_element(P, h) : 0;
}

static int end_tag(parser *P, const xml_handler *h)
{
    size_t at = P->pos;
    P->pos += 2;
    size_t ne = name_end(P, P->pos);
    size_t nlen = ne - P->pos;
    if (!P->depth || strlen(P->stack[P->depth - 1]) != nlen ||
        memcmp(P->stack[P->depth - 1], P->t + P->pos, nlen) != 0) {
        char what[160];
        snprintf(what, sizeof what, "end tag </%.*s> does not close <%s>", (int)(nlen < 60 ? nlen : 60),
                 P->t + P->pos, P->depth ? P->stack[P->depth - 1] : "(no open element)");
        return fail(P, at, what);
    }
    P->pos = ne;
    skip_space(P);
    if (P->pos >= P->len || P->t[P->pos] != '>')
        return fail(P, P->pos, "expected '>' to end the end tag");
    P->pos++;
    return end_element(P, h);
}

int xml_parse(const char *text, size_t len, const xml_handler *h, char *err, size_t errsize)
{
    parser P = {text, len, 0, err, errsize, {0}, {0}, NULL, 0, 0};
    int rc = 0, root = 0;
    while (rc == 0 && P.pos < len) {
        if (text[P.pos] != '<') {
            const char *lt = memchr(text + P.pos, '<', len - P.pos);
            size_t to = lt ? (size_t)(lt - text) : len;
            if (P.depth)
                rc = decode(&P, P.pos, to, &P.text);
            P.pos = to;
        } else if (starts(&P, "<!--")) {
            rc = skip_past(&P, "-->", "comment not closed by -->");
        } else if (starts(&P, "<![CDATA[")) {
            const char *e = memmem(text + P.pos, len - P.pos, "]]>", 3);
            if (!e)
                rc = fail(&P, P.pos, "CDATA section not closed by ]]>");
            else if (put(&P.text, text + P.pos + 9, (size_t)(e - text) - P.pos - 9) != 0)
                rc = oom(&P);
            else
                P.pos = (size_t)(e - text) + 3;
        } else if (starts(&P, "<?")) {
            rc = skip_past(&P, "?>", "processing instruction not closed by ?>");
        } else if (starts(&P, "<!")) {
            const char *gt = memchr(text + P.pos, '>', len - P.pos);
            const char *br = memchr(text + P.pos, '[', len - P.pos);
            if (br && (!gt || br < gt))
                rc = fail(&P, P.pos, "a DOCTYPE with an internal subset is not read");
            else
                rc = skip_past(&P, ">", "declaration not closed by '>'");
        } else if (starts(&P, "</")) {
            rc = end_tag(&P, h);
        } else {
            if (!P.depth && root)
                rc = fail(&P, P.pos, "a second root element");
            else {
                root = 1;
                rc = start_tag(&P, h);
            }
        }
    }
    if (rc == 0 && P.depth) {
        char what[160];
        snprintf(what, sizeof what, "the document ends inside <%s> (cut short?)", P.stack[P.depth - 1]);
        rc = fail(&P, len, what);
    } else if (rc == 0 && !root) {
        rc = fail(&P, len, "no element");
    }
    while (P.depth)
        free(P.stack[--P.depth]);
    free(P.stack);
    free(P.text.s);
    free(P.attrs.s);
    return rc;
}

const char *xml_attr_get(const xml_attr *attrs, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(attrs[i].name, name) == 0)
            return attrs[i].value;
    return NULL;
}
