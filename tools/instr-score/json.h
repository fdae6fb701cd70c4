/* json.h — a small JSON reader for instr-score: the whole document as a tree of values.
 * Integers keep all 64 bits (profile.json's counts and ns); errors say line and column. */
#ifndef INSTR_SCORE_JSON_H
#define INSTR_SCORE_JSON_H

#include <stddef.h>
#include <stdint.h>

typedef enum json_kind { JSON_NULL, JSON_BOOL, JSON_NUMBER, JSON_STRING, JSON_ARRAY, JSON_OBJECT } json_kind;

typedef struct json_value {
    json_kind kind;
    int is_int;              /* a number written without fraction or exponent, >= 0 */
    uint64_t u;              /* JSON_NUMBER (is_int), JSON_BOOL */
    double d;                /* JSON_NUMBER */
    char *s;                 /* JSON_STRING, NUL-terminated (a \u0000 ends it early) */
    struct json_value *items; /* JSON_ARRAY, JSON_OBJECT (values) */
    char **keys;             /* JSON_OBJECT */
    size_t n;
} json_value;

/* Parses text[0..len); 0, or -1 with a message "line L, column C: what" in err. */
int json_parse(const char *text, size_t len, json_value *out, char *err, size_t errsize);
void json_free(json_value *v);
/* The member `key` of an object, or NULL. */
const json_value *json_get(const json_value *obj, const char *key);
/* Member as a number or string, with a default when missing or of another kind. */
uint64_t json_u64(const json_value *obj, const char *key, uint64_t def);
const char *json_str(const json_value *obj, const char *key, const char *def);

#endif
