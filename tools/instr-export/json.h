/* json.h — a small JSON reader for instr-export: the whole document as a tree of values.
 * Enough for profile.json (RFC 8259, UTF-8; \u escapes decoded, surrogate pairs joined). */
#ifndef INSTR_EXPORT_JSON_H
#define INSTR_EXPORT_JSON_H

#include <stddef.h>
#include <stdint.h>

typedef enum { JSON_NULL, JSON_BOOL, JSON_NUMBER, JSON_STRING, JSON_ARRAY, JSON_OBJECT } json_type;

typedef struct json {
    json_type type;
    double num;             /* JSON_NUMBER, JSON_BOOL (0/1) */
    uint64_t u;             /* JSON_NUMBER that is a non-negative integer: its exact value */
    char *str;              /* JSON_STRING */
    struct json *items;     /* JSON_ARRAY, JSON_OBJECT: n values */
    char **keys;            /* JSON_OBJECT: n keys */
    size_t n;
} json;

/* Parses text[0..len); 0, or -1 with "line:column: what was expected" in err. */
int json_parse(const char *text, size_t len, json *out, char *err, size_t errsize);
void json_free(json *v);

/* Member of an object by key, or NULL (also when v is not an object). */
const json *json_get(const json *v, const char *key);
/* The number of a member as an unsigned integer, or def when missing or not a number. */
uint64_t json_u64(const json *v, const char *key, uint64_t def);
/* The string of a member, or def. */
const char *json_str(const json *v, const char *key, const char *def);

#endif
