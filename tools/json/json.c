/* json.c — the JSON reader of json.h: recursive descent, nesting capped so that no input (a
 * damaged or hostile file) can exhaust the stack. */
#include "json.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_DEPTH 200

typedef struct parser {
    const char *p, *end, *start;
    json_error *err;
    int failed;
} parser;

static void fail(parser *ps, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Only the first failure counts: the innermost place the document went wrong. */
static void fail(parser *ps, const char *fmt, ...)
{
    if (ps->failed)
        return;
    ps->failed = 1;
    size_t line = 1, col = 1;
    for (const char *q = ps->start; q < ps->p && q < ps->end; q++) {
        if (*q == '\n') {
            line++;
            col = 1;
        } else {
            col++;
        }
    }
    ps->err->line = line;
    ps->err->column = col;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(ps->err->what, sizeof ps->err->what, fmt, ap);
    va_end(ap);
}

static void ws(parser *ps)
{
    while (ps->p < ps->end && (*ps->p == ' ' || *ps->p == '\t' || *ps->p == '\n' || *ps->p == '\r'))
        ps->p++;
}

static int lit(parser *ps, const char *word)
{
    size_t n = strlen(word);
    if ((size_t)(ps->end - ps->p) >= n && memcmp(ps->p, word, n) == 0) {
        ps->p += n;
        return 1;
    }
    return 0;
}

static int hex4(parser *ps, unsigned *out)
{
    if (ps->end - ps->p < 4)
        return -1;
    unsigned v = 0;
    for (int i = 0; i < 4; i++) {
        char c = ps->p[i];
        v <<= 4;
        if (c >= '0' && c <= '9') v |= (unsigned)(c - '0');
        else if (c >= 'a' && c <= 'f') v |= (unsigned)(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F') v |= (unsigned)(c - 'A' + 10);
        else return -1;
    }
    ps->p += 4;
    *out = v;
    return 0;
}

static size_t utf8(char *o, unsigned cp)
{
    if (cp < 0x80) { o[0] = (char)cp; return 1; }
    if (cp < 0x800) { o[0] = (char)(0xc0 | cp >> 6); o[1] = (char)(0x80 | (cp & 0x3f)); return 2; }
    if (cp < 0x10000) {
        o[0] = (char)(0xe0 | cp >> 12); o[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
        o[2] = (char)(0x80 | (cp & 0x3f));
        return 3;
    }
    o[0] = (char)(0xf0 | cp >> 18); o[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
    o[2] = (char)(0x80 | ((cp >> 6) & 0x3f)); o[3] = (char)(0x80 | (cp & 0x3f));
    return 4;
}

static char *string(parser *ps)
{
    ps->p++; /* the opening quote */
    const char *q = ps->p;
    while (q < ps->end && *q != '"')
        q += *q == '\\' ? 2 : 1;
    if (q >= ps->end) {
        fail(ps, "unterminated string");
        return NULL;
    }
    char *s = malloc((size_t)(q - ps->p) + 1), *o = s; /* escapes never grow the text */
    if (!s) {
        fail(ps, "out of memory");
        return NULL;
    }
    while (*ps->p != '"') {
        unsigned char c = (unsigned char)*ps->p++;
        if (c < 0x20) {
            ps->p--;
            fail(ps, "control character in a string (escape it)");
            free(s);
            return NULL;
        }
        if (c != '\\') {
            *o++ = (char)c;
            continue;
        }
        const char *esc = ps->p - 1; /* errors point at the backslash */
        char e = *ps->p++;
        switch (e) {
        case '"': *o++ = '"'; break;
        case '\\': *o++ = '\\'; break;
        case '/': *o++ = '/'; break;
        case 'b': *o++ = '\b'; break;
        case 'f': *o++ = '\f'; break;
        case 'n': *o++ = '\n'; break;
        case 'r': *o++ = '\r'; break;
        case 't': *o++ = '\t'; break;
        case 'u': {
            unsigned cp, lo;
            if (hex4(ps, &cp) != 0) {
                ps->p = esc;
                fail(ps, "\\u needs four hex digits");
                free(s);
                return NULL;
            }
            if (cp >= 0xd800 && cp < 0xdc00 && ps->end - ps->p >= 6 && ps->p[0] == '\\' &&
                ps->p[1] == 'u') {
                const char *next = ps->p;
                ps->p += 2;
                if (hex4(ps, &lo) == 0 && lo >= 0xdc00 && lo < 0xe000) {
                    cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
                } else {
                    cp = 0xfffd; /* a lone high surrogate; the next escape stands alone */
                    ps->p = next;
                }
            } else if (cp >= 0xd800 && cp < 0xe000) {
                cp = 0xfffd; /* a lone surrogate */
            }
            o += utf8(o, cp);
            break;
        }
        default:
            ps->p = esc;
            if (isprint((unsigned char)e))
                fail(ps, "unknown escape \\%c in a string", e);
            else
                fail(ps, "unknown escape in a string");
            free(s);
            return NULL;
        }
    }
    ps->p++;
    *o = '\0';
    return s;
}

static int value(parser *ps, json_value *v, int depth);

static int push(parser *ps, json_value *v, size_t *cap)
{
    if (v->n < *cap)
        return 0;
    size_t c = *cap ? 2 * *cap : 8;
    json_value *items = realloc(v->items, c * sizeof *items);
    if (!items) {
        fail(ps, "out of memory");
        return -1;
    }
    v->items = items;
    if (v->kind == JSON_OBJECT) {
        char **keys = realloc(v->keys, c * sizeof *keys);
        if (!keys) {
            fail(ps, "out of memory");
            return -1;
        }
        v->keys = keys;
    }
    *cap = c;
    return 0;
}

static int container(parser *ps, json_value *v, int depth, char close)
{
    size_t cap = 0;
    ps->p++;
    ws(ps);
    if (ps->p < ps->end && *ps->p == close) {
        ps->p++;
        return 0;
    }
    for (;;) {
        if (push(ps, v, &cap) != 0)
            return -1;
        ws(ps);
        if (v->kind == JSON_OBJECT) {
            if (ps->p >= ps->end || *ps->p != '"') {
                fail(ps, "expected a member name in quotes");
                return -1;
            }
            char *k = string(ps);
            if (!k)
                return -1;
            v->keys[v->n] = k;
            ws(ps);
            if (ps->p >= ps->end || *ps->p != ':') {
                free(k);
                fail(ps, "expected ':' after a member name");
                return -1;
            }
            ps->p++;
        }
        memset(&v->items[v->n], 0, sizeof *v->items);
        v->n++;
        if (value(ps, &v->items[v->n - 1], depth + 1) != 0)
            return -1;
        ws(ps);
        if (ps->p < ps->end && *ps->p == ',') {
            ps->p++;
            continue;
        }
        if (ps->p < ps->end && *ps->p == close) {
            ps->p++;
            return 0;
        }
        fail(ps, "expected ',' or '%c'", close);
        return -1;
    }
}

static int number(parser *ps, json_value *v)
{
    char buf[64];
    size_t n = 0;
    while (ps->p + n < ps->end && n < sizeof buf - 1 && strchr("+-0123456789.eE", ps->p[n]))
        n++;
    memcpy(buf, ps->p, n);
    buf[n] = '\0';
    char *end;
    v->kind = JSON_NUMBER;
    v->num = strtod(buf, &end);
    if (end != buf + n || !isfinite(v->num)) {
        fail(ps, "malformed number '%s'", buf);
        return -1;
    }
    if (strspn(buf, "0123456789") == n) {
        errno = 0;
        v->u = strtoull(buf, NULL, 10);
        v->is_int = errno != ERANGE;
        if (!v->is_int)
            v->u = 0;
    }
    ps->p += n;
    return 0;
}

static int value(parser *ps, json_value *v, int depth)
{
    memset(v, 0, sizeof *v);
    if (depth >= MAX_DEPTH) {
        fail(ps, "nested deeper than %d levels", MAX_DEPTH);
        return -1;
    }
    ws(ps);
    if (ps->p >= ps->end) {
        fail(ps, "unexpected end of the document");
        return -1;
    }
    char c = *ps->p;
    if (c == '{' || c == '[') {
        v->kind = c == '{' ? JSON_OBJECT : JSON_ARRAY;
        return container(ps, v, depth, c == '{' ? '}' : ']');
    }
    if (c == '"') {
        v->kind = JSON_STRING;
        v->str = string(ps);
        return v->str ? 0 : -1;
    }
    if (lit(ps, "true")) { v->kind = JSON_BOOL; v->u = 1; v->num = 1; return 0; }
    if (lit(ps, "false")) { v->kind = JSON_BOOL; return 0; }
    if (lit(ps, "null")) { v->kind = JSON_NULL; return 0; }
    if (c == '-' || (c >= '0' && c <= '9'))
        return number(ps, v);
    if (isprint((unsigned char)c))
        fail(ps, "unexpected character '%c': expected a value (object, array, string, "
                 "number, true, false or null)", c);
    else
        fail(ps, "unexpected byte 0x%02x: expected a value (object, array, string, number, "
                 "true, false or null)", (unsigned char)c);
    return -1;
}

int json_parse(const char *text, size_t len, json_value *out, json_error *err)
{
    parser ps = {text, text + len, text, err, 0};
    if (value(&ps, out, 0) == 0) {
        ws(&ps);
        if (ps.p == ps.end)
            return 0;
        fail(&ps, "text after the end of the document");
    }
    json_free(out);
    return -1;
}

void json_free(json_value *v)
{
    if (!v)
        return;
    /* Recursive: the depth is capped by the parser. */
    for (size_t i = 0; i < v->n; i++) {
        json_free(&v->items[i]);
        if (v->keys)
            free(v->keys[i]);
    }
    free(v->items);
    free(v->keys);
    free(v->str);
    memset(v, 0, sizeof *v);
}

const json_value *json_get(const json_value *obj, const char *key)
{
    if (!obj || obj->kind != JSON_OBJECT)
        return NULL;
    for (size_t i = 0; i < obj->n; i++)
        if (strcmp(obj->keys[i], key) == 0)
            return &obj->items[i];
    return NULL;
}

uint64_t json_u64(const json_value *obj, const char *key, uint64_t def)
{
    const json_value *v = json_get(obj, key);
    return v && v->kind == JSON_NUMBER && v->is_int ? v->u : def;
}

const char *json_str(const json_value *obj, const char *key, const char *def)
{
    const json_value *v = json_get(obj, key);
    return v && v->kind == JSON_STRING ? v->str : def;
}
