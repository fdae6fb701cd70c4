/* test_json.c — unit tests of tools/json (json.h): run as `test_json GROUP`. */
#include "check.h"
#include "json.h"

#include <stdlib.h>

static json_value doc;
static json_error err;

static int parse(const char *text)
{
    memset(&err, 0, sizeof err);
    return json_parse(text, strlen(text), &doc, &err);
}

/* "line:column: what" of the error text gives, or "" when it parses. */
static const char *error_of(const char *text)
{
    static char buf[256];
    if (parse(text) == 0) {
        json_free(&doc);
        return "";
    }
    snprintf(buf, sizeof buf, "%zu:%zu: %s", err.line, err.column, err.what);
    return buf;
}

static void test_values(void)
{
    CHECK(parse(" {\"a\": [1, true, false, null, \"s\", {}], \"b\": {\"c\": []}}\n") == 0);
    CHECK(doc.kind == JSON_OBJECT && doc.n == 2);
    const json_value *a = json_get(&doc, "a");
    CHECK(a && a->kind == JSON_ARRAY && a->n == 6);
    CHECK(a->items[0].kind == JSON_NUMBER && a->items[0].u == 1);
    CHECK(a->items[1].kind == JSON_BOOL && a->items[1].u == 1 && a->items[1].num == 1);
    CHECK(a->items[2].kind == JSON_BOOL && a->items[2].u == 0);
    CHECK(a->items[3].kind == JSON_NULL);
    CHECK_STR(a->items[4].str, "s");
    CHECK(a->items[5].kind == JSON_OBJECT && a->items[5].n == 0);
    CHECK(json_get(json_get(&doc, "b"), "c")->kind == JSON_ARRAY);
    CHECK(!json_get(&doc, "missing") && !json_get(a, "a") && !json_get(NULL, "a"));
    CHECK_STR(json_str(&doc, "missing", "def"), "def");
    CHECK(json_u64(&doc, "a", 7) == 7); /* not a number */
    json_free(&doc);
    json_free(&doc); /* freed twice: the first left it empty */
    json_free(NULL);
}

static void test_numbers(void)
{
    CHECK(parse("{\"max\": 18446744073709551615, \"over\": 18446744073709551616, \"neg\": -3,"
                " \"frac\": 2.5, \"exp\": 1e3, \"zero\": 0}") == 0);
    /* All 64 bits of a count; what is not a non-negative integer is not one for json_u64. */
    CHECK(json_u64(&doc, "max", 0) == UINT64_MAX);
    CHECK(json_u64(&doc, "over", 9) == 9 && json_get(&doc, "over")->num > 1.8e19);
    CHECK(json_u64(&doc, "neg", 9) == 9 && json_get(&doc, "neg")->num == -3);
    CHECK(json_u64(&doc, "frac", 9) == 9 && json_get(&doc, "frac")->num == 2.5);
    CHECK(json_u64(&doc, "exp", 9) == 9 && json_get(&doc, "exp")->num == 1000);
    CHECK(json_u64(&doc, "zero", 9) == 0 && json_get(&doc, "zero")->is_int);
    json_free(&doc);
    CHECK_STR(error_of("[1e999]"), "1:2: malformed number '1e999'");
    CHECK_STR(error_of("[1.2.3]"), "1:2: malformed number '1.2.3'");
    CHECK_STR(error_of("[-]"), "1:2: malformed number '-'");
}

static void test_strings(void)
{
    CHECK(parse("[\"q\\\" b\\\\ s\\/ \\b\\f\\n\\r\\t\", \"\\u00e9\\u20ac\", \"\\ud83d\\ude00\","
                " \"\\ud800x\", \"\\udc00\", \"caf\xc3\xa9\", \"\\ud800\\u0041\","
                " \"\\ud800\\ud800\\udc00\"]") == 0);
    CHECK_STR(doc.items[0].str, "q\" b\\ s/ \b\f\n\r\t");
    CHECK_STR(doc.items[1].str, "\xc3\xa9\xe2\x82\xac");
    CHECK_STR(doc.items[2].str, "\xf0\x9f\x98\x80"); /* a surrogate pair joined */
    CHECK_STR(doc.items[3].str, "\xef\xbf\xbdx");     /* lone surrogates: U+FFFD */
    CHECK_STR(doc.items[4].str, "\xef\xbf\xbd");
    CHECK_STR(doc.items[5].str, "caf\xc3\xa9");
    CHECK_STR(doc.items[6].str, "\xef\xbf\xbd" "A"); /* the escape after a lone one stays */
    CHECK_STR(doc.items[7].str, "\xef\xbf\xbd\xf0\x90\x80\x80");
    json_free(&doc);
    CHECK_STR(error_of("[\"a\\qb\"]"), "1:4: unknown escape \\q in a string");
    CHECK_STR(error_of("[\"a\\u12\"]"), "1:4: \\u needs four hex digits");
    CHECK_STR(error_of("[\"a\tb\"]"), "1:4: control character in a string (escape it)");
    CHECK_STR(error_of("[\"abc"), "1:3: unterminated string");
}

static void test_errors(void)
{
    /* Line and column of the byte where the document stops making sense. */
    CHECK_STR(error_of("{\"format\": \"instr-profile\",\n \"tree\": [1,"),
              "2:13: unexpected end of the document");
    CHECK_STR(error_of(""), "1:1: unexpected end of the document");
    CHECK_STR(error_of("{\"a\": 1,\n\n  @}"),
              "3:3: expected a member name in quotes");
    CHECK_STR(error_of("{\"a\" 1}"), "1:6: expected ':' after a member name");
    CHECK_STR(error_of("[1 2]"), "1:4: expected ',' or ']'");
    CHECK_STR(error_of("{\"a\": 1 \"b\": 2}"), "1:9: expected ',' or '}'");
    CHECK_STR(error_of("[tru]"),
              "1:2: unexpected character 't': expected a value (object, array, string, "
              "number, true, false or null)");
    CHECK_STR(error_of("[\x01]"),
              "1:2: unexpected byte 0x01: expected a value (object, array, string, number, "
              "true, false or null)");
    CHECK_STR(error_of("{} x"), "1:4: text after the end of the document");
    /* A failed parse leaves nothing to free. */
    CHECK(parse("[[1, 2], {\"a\": \"b\", \"c\": [") != 0 && doc.n == 0 && !doc.items);
}

static void test_depth(void)
{
    /* Nesting is capped so that no input exhausts the stack: 200 levels parse, 201 do not. */
    char text[2 * 202 + 1];
    for (int levels = 200; levels <= 201; levels++) {
        memset(text, '[', (size_t)levels);
        memset(text + levels, ']', (size_t)levels);
        text[2 * levels] = '\0';
        if (levels == 200) {
            CHECK(parse(text) == 0);
            json_free(&doc);
        } else {
            CHECK_STR(error_of(text), "1:201: nested deeper than 200 levels");
        }
    }
    char *deep = malloc(1000001);
    if (!deep)
        return;
    memset(deep, '{', 1000000);
    deep[1000000] = '\0';
    CHECK_STR(error_of(deep), "1:2: expected a member name in quotes");
    memset(deep, '[', 1000000);
    CHECK_STR(error_of(deep), "1:201: nested deeper than 200 levels");
    free(deep);
}

static void test_truncated(void)
{
    /* Every proper prefix of a document is refused, at a place inside the text. */
    static const char full[] =
        "{\"format\": \"instr-profile\", \"version\": 2,\n"
        " \"regions\": [{\"id\": 1, \"name\": \"main \\u00e9\\ud83d\\ude00\"}],\n"
        " \"tree\": [{\"id\": 0, \"parent\": null, \"inclusive\": 12.5e-1, \"ok\": true}]}";
    size_t len = strlen(full);
    CHECK(json_parse(full, len, &doc, &err) == 0);
    json_free(&doc);
    for (size_t n = 0; n < len; n++) {
        char *part = malloc(n + 1); /* exactly n bytes of text: a read past them is caught */
        if (!part)
            return;
        memcpy(part, full, n);
        part[n] = '\0';
        int rc = json_parse(part, n, &doc, &err);
        CHECK(rc != 0);
        CHECK(err.line >= 1 && err.line <= 3 && err.column >= 1 && err.what[0]);
        if (rc == 0)
            json_free(&doc);
        free(part);
    }
}

int main(int argc, char **argv)
{
    static const check_group groups[] = {
        {"values", test_values}, {"numbers", test_numbers}, {"strings", test_strings},
        {"errors", test_errors}, {"depth", test_depth},     {"truncated", test_truncated},
    };
    return check_run_groups("test_json", groups, sizeof groups / sizeof groups[0],
                            argc < 2 ? NULL : argv[1]);
}
