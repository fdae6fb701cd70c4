/* json.h — a small JSON reader for the tools that read profile.json: the whole document as a
 * tree of values (RFC 8259, UTF-8; \u escapes decoded, surrogate pairs joined). Integers keep
 * all 64 bits (profile.json's counts and ns); an error says line, column and what was
 * expected, and each tool words the place in its own messages. */
#ifndef INSTR_JSON_H
#define INSTR_JSON_H

#include <stddef.h>
#include <stdint.h>

typedef enum json_kind { JSON_NULL, JSON_BOOL, JSON_NUMBER, JSON_STRING, JSON_ARRAY, JSON_OBJECT } json_kind;

typedef struct json_value {
    json_kind kind;
    int is_int;               /* JSON_NUMBER written without sign, fraction or exponent */
    uint64_t u;               /* JSON_NUMBER that is_int: its exact value; JSON_BOOL: 0/1 */
    double num;               /* JSON_NUMBER; JSON_BOOL: 0/1 */
    char *str;                /* JSON_STRING, NUL-terminated (a \u0000 ends it early) */
    struct json_value *items; /* JSON_ARRAY, JSON_OBJECT: n values */
    char **keys;              /* JSON_OBJECT: n keys */
    size_t n;
} json_value;

/* Where and why a document did not parse: 1-based line and column of the offending byte. */
typedef struct json_error {
    size_t line, column;
    char what[160];
} json_error;

/* Parses text[0..len) into *out; 0, or -1 with *err filled (and nothing left to free). */
int json_parse(const char *text, size_t len, json_value *out, json_error *err);
void json_free(json_value *v);

/* The member `key` of an object, or NULL (also when obj is NULL or not an object). */
const json_value *json_get(const json_value *obj, const char *key);
/* The member as an unsigned integer, or def when missing or not an integer. */
uint64_t json_u64(const json_value *obj, const char *key, uint64_t def);
/* The member's string, or def when missing or not a string. */
const char *json_str(const json_value *obj, const char *key, const char *def);

#endif
