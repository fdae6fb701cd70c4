/* json.c — see json.h. Recursive descent with a depth limit: profile.json is shallow, and a
 * damaged or hostile file must not exhaust the stack. */
#include "json.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_DEPTH 64

typedef struct parser {
    const char *p, *start, *end;
    char *err;
    size_t errsize;
    int failed;
} parser;

static void fail(parser *ps, const char *fmt, ...)
{
    if (ps->failed)
        return;
    ps->failed = 1;
    unsigned line = 1, col = 1;
    for (const char *q = ps->start; q < ps->p && q < ps->end; q++) {
        if (*q == '\n') {
            line++;
            col = 1;
        } else {
            col++;
        }
    }
    int n = snprintf(ps->err, ps->errsize, "line %u, column %u: ", line, col);
    va_list ap;
    va_start(ap, fmt);
    if (n >= 0 && (size_t)n < ps->errsize)
        vsnprintf(ps->err + n, ps->errsize - (size_t)n, fmt, ap);
    va_end(ap);
}

static void skip_ws(parser *ps)
{
    while (ps->p < ps->end && (*ps->p == ' ' || *ps->p == '\t' || *ps->p == '\n' || *ps->p == '\r'))
        ps->p++;
}

static int put_utf8(char *out, unsigned cp)
{
    if (cp < 0x80) { out[0] = (char)cp; return 1; }
    if (cp < 0x800) { out[0] = (char)(0xc0 | cp >> 6); out[1] = (char)(0x80 | (cp & 0x3f)); return 2; }
    if (cp < 0x10000) {
        out[0] = (char)(0xe0 | cp >> 12);
        out[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
        out[2] = (char)(0x80 | (cp & 0x3f));
        return 3;
    }
    out[0] = (char)(0xf0 | cp >> 18);
    out[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
    out[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
    out[3] = (char)(0x80 | (cp & 0x3f));
    return 4;
}

static int hex4(parser *ps, unsigned *out)
{
    unsigned v = 0;
    for (int i = 0; i < 4; i++, ps->p++) {
        if (ps->p >= ps->end) return -1;
        char c = *ps->p;
        v <<= 4;
        if (c >= '0' && c <= '9') v |= (unsigned)(c - '0');
        else if (c >= 'a' && c <= 'f') v |= (unsigned)(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F') v |= (unsigned)(c - 'A' + 10);
        else return -1;
    }
    *out = v;
    return 0;
}

static char *string(parser *ps)
{
    ps->p++; /* the opening quote */
    const char *q = ps->p;
    size_t cap = 0;
    while (q < ps->end && *q != '"') {
        if (*q == '\\')
            q++;
        q++;
        cap++;
    }
    char *out = malloc(4 * cap + 1), *o = out;
    if (!out) {
        fail(ps, "out of memory");
        return NULL;
    }
    while (ps->p < ps->end && *ps->p != '"') {
        unsigned char c = (unsigned char)*ps->p;
        if (c < 0x20) {
            fail(ps, "control character in a string");
            free(out);
            return NULL;
        }
        if (c != '\\') {
            *o++ = (char)c;
            ps->p++;
            continue;
        }
        if (++ps->p >= ps->end)
            break;
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
                fail(ps, "bad \\u escape");
                free(out);
                return NULL;
            }
            if (cp >= 0xd800 && cp < 0xdc00 && ps->end - ps->p >= 6 && ps->p[0] == '\\' &&
                ps->p[1] == 'u') {
                ps->p += 2;
                if (hex4(ps, &lo) == 0 && lo >= 0xdc00 && lo < 0xe000)
                    cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
                else
                    cp = 0xfffd;
            } else if (cp >= 0xd800 && cp < 0xe000) {
                cp = 0xfffd;
            }
            o += put_utf8(o, cp);
            break;
        }
        default:
            fail(ps, "unknown escape \\%c", e);
            free(out);
            return NULL;
        }
    }
    if (ps->p >= ps->end) {
        fail(ps, "unterminated string");
        free(out);
        return NULL;
    }
    ps->p++;
    *o = '\0';
    return out;
}

static int value(parser *ps, json_value *v, int depth);

static int push(parser *ps, json_value *v, size_t *cap, char *key)
{
    if (v->n == *cap) {
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
    }
    memset(&v->items[v->n], 0, sizeof v->items[v->n]);
    if (v->kind == JSON_OBJECT)
        v->keys[v->n] = key;
    v->n++;
    return 0;
}

static int container(parser *ps, json_value *v, int depth, char close)
{
    size_t cap = 0;
    ps->p++;
    skip_ws(ps);
    if (ps->p < ps->end && *ps->p == close) {
        ps->p++;
        return 0;
    }
    for (;;) {
        char *key = NULL;
        if (v->kind == JSON_OBJECT) {
            skip_ws(ps);
            if (ps->p >= ps->end || *ps->p != '"') {
                fail(ps, "expected a member name in quotes");
                return -1;
            }
            if (!(key = string(ps)))
                return -1;
            skip_ws(ps);
            if (ps->p >= ps->end || *ps->p != ':') {
                free(key);
                fail(ps, "expected ':' after a member name");
                return -1;
            }
            ps->p++;
        }
        if (push(ps, v, &cap, key) != 0) {
            free(key);
            return -1;
        }
        if (value(ps, &v->items[v->n - 1], depth + 1) != 0)
            return -1;
        skip_ws(ps);
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

static int value(parser *ps, json_value *v, int depth)
{
    memset(v, 0, sizeof *v);
    if (depth > MAX_DEPTH) {
        fail(ps, "nested deeper than %d levels", MAX_DEPTH);
        return -1;
    }
    skip_ws(ps);
    if (ps->p >= ps->end) {
        fail(ps, "unexpected end of the file");
        return -1;
    }
    char c = *ps->p;
    if (c == '{') {
        v->kind = JSON_OBJECT;
        return container(ps, v, depth, '}');
    }
    if (c == '[') {
        v->kind = JSON_ARRAY;
        return container(ps, v, depth, ']');
    }
    if (c == '"') {
        v->kind = JSON_STRING;
        return (v->s = string(ps)) ? 0 : -1;
    }
    static const struct { const char *word; json_kind kind; uint64_t u; } words[] = {
        {"null", JSON_NULL, 0}, {"true", JSON_BOOL, 1}, {"false", JSON_BOOL, 0}};
    for (size_t i = 0; i < 3; i++) {
        size_t l = strlen(words[i].word);
        if ((size_t)(ps->end - ps->p) >= l && memcmp(ps->p, words[i].word, l) == 0) {
            v->kind = words[i].kind;
            v->u = words[i].u;
            ps->p += l;
            return 0;
        }
    }
    if (c == '-' || (c >= '0' && c <= '9')) {
        char buf[64];
        size_t l = 0;
        int integer = c != '-';
        while (ps->p + l < ps->end && l < sizeof buf - 1 && strchr("+-0123456789.eE", ps->p[l])) {
            if (strchr(".eE", ps->p[l]))
                integer = 0;
            l++;
        }
        memcpy(buf, ps->p, l);
        buf[l] = '\0';
        char *end;
        v->kind = JSON_NUMBER;
        v->d = strtod(buf, &end);
        if (end != buf + l) {
            fail(ps, "malformed number '%s'", buf);
            return -1;
        }
        if (integer) {
            v->is_int = 1;
            v->u = strtoull(buf, NULL, 10);
        }
        ps->p += l;
        return 0;
    }
    fail(ps, "unexpected character '%c'", c);
    return -1;
}

int json_parse(const char *text, size_t len, json_value *out, char *err, size_t errsize)
{
    parser ps = {text, text, text + len, err, errsize, 0};
    if (value(&ps, out, 0) == 0) {
        skip_ws(&ps);
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
    for (size_t i = 0; i < v->n; i++) {
        json_free(&v->items[i]);
        if (v->keys)
            free(v->keys[i]);
    }
    free(v->items);
    free(v->keys);
    free(v->s);
    memset(v, 0, sizeof *v);
}

const json_value *json_get(const json_value *obj, const char *key)
{
    if (!obj || obj->kind != JSON_OBJECT)
        return NULL;
    for (size_t i = 0; i < obj->n; i++)
        if (obj->keys[i] && strcmp(obj->keys[i], key) == 0)
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
    return v && v->kind == JSON_STRING ? v->s : def;
}
