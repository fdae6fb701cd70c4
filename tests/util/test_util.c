/* test_util.c — unit tests of runtime/util/: run as `test_util GROUP`. */
#include "check.h"
#include "addr_map.h"
#include "array.h"
#include "hash.h"
#include "json_str.h"
#include "table.h"
#include "text.h"
#include "xml_str.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static void test_array(void)
{
    CHECK(instr_grown_cap(0, 1, 64, SIZE_MAX) == 64);
    CHECK(instr_grown_cap(64, 64, 64, SIZE_MAX) == 64);
    CHECK(instr_grown_cap(64, 65, 8, SIZE_MAX) == 128);
    CHECK(instr_grown_cap(4, 1000, 8, SIZE_MAX) == 1024);
    CHECK(instr_grown_cap(0, 5, 0, SIZE_MAX) == 8);
    CHECK(instr_grown_cap(96, 100, 8, 150) == 150); /* doubling stops at the most */
    CHECK(instr_grown_cap(0, 151, 8, 150) == 0);

    int *a = NULL;
    size_t cap = 0;
    for (int i = 0; i < 1000; i++) {
        CHECK(instr_array_grow(&a, &cap, (size_t)i + 1, sizeof *a, 16) == 0);
        a[i] = i;
    }
    CHECK(cap == 1024);
    int sum_ok = 1;
    for (int i = 0; i < 1000; i++)
        sum_ok &= a[i] == i;
    CHECK(sum_ok);
    /* Failure leaves the array as it was. */
    CHECK(instr_array_grow(&a, &cap, SIZE_MAX / 2, sizeof *a, 16) == -1);
    CHECK(cap == 1024 && a[999] == 999);
    free(a);

    uint64_t *b = NULL;
    uint32_t cap32 = 0;
    CHECK(instr_array_grow32(&b, &cap32, 3, sizeof *b, 2) == 0 && cap32 == 4);
    CHECK(instr_array_grow32(&b, &cap32, 4, sizeof *b, 2) == 0 && cap32 == 4);
    CHECK(instr_array_grow32(&b, &cap32, (size_t)UINT32_MAX + 1, sizeof *b, 2) == -1);
    CHECK(cap32 == 4);
    free(b);
}

static void test_hash(void)
{
    /* FNV-1a's published values: "" is the basis, "a" 0xaf63dc4c8601ec8c. */
    CHECK(instr_fnv1a_str(INSTR_FNV1A_BASIS, "") == 0xcbf29ce484222325ull);
    CHECK(instr_fnv1a_str(INSTR_FNV1A_BASIS, "a") == 0xaf63dc4c8601ec8cull);
    CHECK(instr_fnv1a(INSTR_FNV1A_BASIS, "a", 1) == 0xaf63dc4c8601ec8cull);
    CHECK(instr_hash_mix(0) == 0);
    CHECK(instr_hash_bits(1, 18) == (uint32_t)(INSTR_HASH_GOLDEN >> 46));
    CHECK(instr_hash_bits(UINT64_MAX, 32) <= UINT32_MAX);
    /* The top bits of the product: what every table took before it was shared. */
    int same = 1;
    for (uint64_t k = 1; k < (1u << 20); k = k * 3 + 1)
        same &= instr_hash_bits(k, 14) == (uint32_t)((k * INSTR_HASH_GOLDEN) >> 50);
    CHECK(same);
}

static void test_addr_map(void)
{
    /* Fixed: 2^4 slots, no growing, full at three quarters. */
    instr_addr_map fixed = {0};
    CHECK(instr_addr_map_find(&fixed, 0x1000) == NULL);
    CHECK(instr_addr_map_max_fill(4) == 12);
    for (uintptr_t k = 1; k <= 12; k++)
        CHECK(instr_addr_map_insert(&fixed, k * 0x40, (uint32_t)k, 4, 4) == 0);
    CHECK(fixed.bits == 4 && fixed.fill == 12);
    CHECK(instr_addr_map_reserve(&fixed, 4, 4) == -1);
    CHECK(instr_addr_map_insert(&fixed, 13 * 0x40, 13, 4, 4) == -1);
    int all = 1;
    for (uintptr_t k = 1; k <= 12; k++) {
        instr_addr_slot *s = instr_addr_map_find(&fixed, k * 0x40);
        all &= s && s->value == k && instr_addr_map_probe(fixed.slots, 4, k * 0x40) == s;
    }
    CHECK(all);
    CHECK(instr_addr_map_find(&fixed, 13 * 0x40) == NULL);
    instr_addr_map_set(instr_addr_map_find(&fixed, 0x40), 99);
    CHECK(instr_addr_map_find(&fixed, 0x40)->value == 99);
    free(fixed.slots);

    /* Growing: from 2^2 slots, doubled at half full. */
    instr_addr_map m = {0};
    for (uintptr_t k = 1; k <= 1000; k++)
        CHECK(instr_addr_map_insert(&m, k << 12, (uint32_t)k, 2, 20) == 0);
    CHECK(m.fill == 1000 && m.bits == 11);
    all = 1;
    for (uintptr_t k = 1; k <= 1000; k++) {
        instr_addr_slot *s = instr_addr_map_find(&m, k << 12);
        all &= s && s->value == k;
    }
    CHECK(all);
    free(m.slots);
}

typedef struct kv {
    uint64_t key; /* 0: empty; 1: a tombstone */
    uint32_t val;
} kv;

static size_t kv_hash(const void *s) { return (size_t)instr_hash_mix(((const kv *)s)->key); }
static int kv_live(const void *s) { return ((const kv *)s)->key > 1; }

static kv *kv_find(kv *t, size_t cap, uint64_t key)
{
    size_t j = (size_t)instr_hash_mix(key) & (cap - 1);
    while (t[j].key && t[j].key != key)
        j = (j + 1) & (cap - 1);
    return &t[j];
}

static void test_table(void)
{
    kv *t = NULL;
    size_t cap = 0, n = 0;
    for (uint64_t k = 2; k < 502; k++) {
        if (2 * (n + 1) > cap)
            CHECK(instr_table_grow(&t, &cap, sizeof *t, 8, kv_hash, kv_live) == 0);
        kv *s = kv_find(t, cap, k);
        CHECK(s->key == 0);
        *s = (kv){k, (uint32_t)k * 3};
        n++;
        if (k % 5 == 0) /* every fifth: a tombstone, which the next growing drops */
            s->key = 1;
    }
    CHECK(cap == 1024);
    int all = 1;
    for (uint64_t k = 2; k < 502; k++) {
        kv *s = kv_find(t, cap, k);
        all &= k % 5 == 0 ? s->key == 0 : s->key == k && s->val == k * 3;
    }
    CHECK(all);
    size_t tomb = 0;
    for (size_t i = 0; i < cap; i++)
        tomb += t[i].key == 1;
    CHECK(tomb > 0);
    CHECK(instr_table_grow(&t, &cap, sizeof *t, 8, kv_hash, kv_live) == 0 && cap == 2048);
    tomb = 0;
    for (size_t i = 0; i < cap; i++)
        tomb += t[i].key == 1;
    CHECK(tomb == 0);
    all = 1;
    for (uint64_t k = 2; k < 502; k++)
        if (k % 5)
            all &= kv_find(t, cap, k)->val == k * 3;
    CHECK(all);
    free(t);
}

/* What a writer puts out for s. */
static const char *written(void (*put)(FILE *, const char *), const char *s)
{
    static char *buf;
    size_t len;
    free(buf);
    FILE *f = open_memstream(&buf, &len);
    put(f, s);
    fclose(f);
    return buf;
}

static void test_escape(void)
{
    /* Well-formed UTF-8 stays as it is; a lone continuation byte, an overlong form, a
     * surrogate and a cut sequence do not. */
    const char *mixed = "a\"b\\c\n\t\x01\x7f \xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80 \x80 \xc0\xaf "
                        "\xed\xa0\x80 \xc2\x85 <&>' \xe2\x82";
    CHECK_STR(written(instr_json_str, mixed),
              "\"a\\\"b\\\\c\\n\\t\\u0001\x7f \xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80 \\ufffd "
              "\\ufffd\\ufffd \\ufffd\\ufffd\\ufffd \xc2\x85 <&>' \\ufffd\\ufffd\"");
    CHECK_STR(written(instr_xml_str, mixed),
              "a&quot;b\\c\n\t\xef\xbf\xbd\x7f \xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80 \xef\xbf\xbd "
              "\xef\xbf\xbd\xef\xbf\xbd \xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd \xc2\x85 &lt;&amp;&gt;"
              "&apos; \xef\xbf\xbd\xef\xbf\xbd");
    CHECK_STR(written(instr_fputs_escaped, mixed),
              "a\"b\\\\c\\n\\t\\x01\\x7f \xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80 \\x80 \\xc0\\xaf "
              "\\xed\\xa0\\x80 \\xc2\\x85 <&>' \\xe2\\x82");
    CHECK_STR(written(instr_json_str, NULL), "\"\"");
    CHECK_STR(written(instr_xml_str, NULL), "");

    /* A bounded copy cuts before a whole escaped form, never inside one (a C1 control's two
     * bytes are one form). */
    char out[8];
    CHECK_STR(instr_escaped(out, sizeof out, "ab\xc2\x85z"), "ab");
    CHECK_STR(instr_escaped(out, sizeof out, "abc\ndef"), "abc\\nde");
    char q[INSTR_QUOTE_SIZE];
    CHECK_STR(instr_quote(q, "x\ty"), "'x\\ty'");

    char one[INSTR_ESCAPED_MAX];
    size_t len;
    CHECK(instr_escape_one(&instr_escaper_text, (const unsigned char *)"\xc2\x85", one, &len) ==
              2 &&
          len == 8 && memcmp(one, "\\xc2\\x85", 8) == 0);
    CHECK(instr_escape_one(&instr_escaper_json, (const unsigned char *)"\xc2\x85", one, &len) ==
              2 &&
          len == 2);
}

int main(int argc, char **argv)
{
    static const check_group groups[] = {
        {"array", test_array}, {"hash", test_hash},     {"addr_map", test_addr_map},
        {"table", test_table}, {"escape", test_escape},
    };
    return check_run_groups("test_util", groups, sizeof groups / sizeof groups[0],
                            argc < 2 ? NULL : argv[1]);
}
