/* test_util.c — unit tests of runtime/util/: run as `test_util GROUP`. */
#include "check.h"
#include "addr_map.h"
#include "array.h"
#include "hash.h"
#include "json_str.h"
#include "pages.h"
#include "sort.h"
#include "stack.h"
#include "table.h"
#include "utc.h"
#include "text.h"
#include "xml_str.h"

#include <errno.h>
#include <malloc.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

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
    instr_mem_free(a);

    uint64_t *b = NULL;
    uint32_t cap32 = 0;
    CHECK(instr_array_grow32(&b, &cap32, 3, sizeof *b, 2) == 0 && cap32 == 4);
    CHECK(instr_array_grow32(&b, &cap32, 4, sizeof *b, 2) == 0 && cap32 == 4);
    CHECK(instr_array_grow32(&b, &cap32, (size_t)UINT32_MAX + 1, sizeof *b, 2) == -1);
    CHECK(cap32 == 4);
    instr_mem_free(b);
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
    instr_mem_free(fixed.slots);

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
    instr_mem_free(m.slots);
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
    instr_mem_free(t);
}

/* What a writer puts out for s. */
static const char *written(void (*put)(instr_writer *, const char *), const char *s)
{
    static char *buf;
    instr_mem_free(buf);
    instr_writer w;
    instr_writer_open_mem(&w);
    put(&w, s);
    buf = instr_writer_take(&w, NULL);
    return buf;
}

/* The same through stdio (the tools' variant). */
static const char *written_stdio(void (*put)(FILE *, const char *), const char *s)
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
    CHECK_STR(written(instr_wr_json_str, mixed),
              "\"a\\\"b\\\\c\\n\\t\\u0001\x7f \xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80 \\ufffd "
              "\\ufffd\\ufffd \\ufffd\\ufffd\\ufffd \xc2\x85 <&>' \\ufffd\\ufffd\"");
    CHECK_STR(written(instr_wr_xml_str, mixed),
              "a&quot;b\\c\n\t\xef\xbf\xbd\x7f \xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80 \xef\xbf\xbd "
              "\xef\xbf\xbd\xef\xbf\xbd \xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd \xc2\x85 &lt;&amp;&gt;"
              "&apos; \xef\xbf\xbd\xef\xbf\xbd");
    CHECK_STR(written(instr_wr_escaped, mixed),
              "a\"b\\\\c\\n\\t\\x01\\x7f \xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80 \\x80 \\xc0\\xaf "
              "\\xed\\xa0\\x80 \\xc2\\x85 <&>' \\xe2\\x82");
    CHECK_STR(written(instr_wr_json_str, NULL), "\"\"");
    CHECK_STR(written_stdio(instr_json_str, mixed), written(instr_wr_json_str, mixed));
    CHECK_STR(written(instr_wr_xml_str, NULL), "");

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

/* Each thread allocates, fills, shrinks, grows and frees blocks of every class and large
 * ones, checking that no block was handed to two owners. */
static void *pages_worker(void *arg)
{
    unsigned seed = (unsigned)(uintptr_t)arg;
    enum { SLOTS = 64 };
    unsigned char *slot[SLOTS] = {0};
    size_t len[SLOTS] = {0};
    long bad = 0;
    for (int i = 0; i < 20000; i++) {
        seed = seed * 1103515245u + 12345u;
        int k = (int)((seed >> 16) % SLOTS);
        if (slot[k]) {
            for (size_t j = 0; j < len[k]; j++)
                bad += slot[k][j] != (unsigned char)(k + len[k]);
            if (i % 3 == 0) {
                size_t n = len[k] / 2 + 1;
                slot[k] = instr_mem_realloc(slot[k], n);
                bad += slot[k] == NULL;
                len[k] = n;
                memset(slot[k], (unsigned char)(k + n), n);
                continue;
            }
            instr_mem_free(slot[k]);
            slot[k] = NULL;
        } else {
            size_t n = (seed >> 8) % 64 == 0 ? 70000 + (seed >> 4) % 300000 : (seed >> 4) % 3000;
            slot[k] = instr_mem_alloc(n);
            bad += slot[k] == NULL;
            len[k] = n;
            memset(slot[k], (unsigned char)(k + n), n);
        }
    }
    for (int k = 0; k < SLOTS; k++)
        instr_mem_free(slot[k]);
    return (void *)bad;
}

static void test_pages(void)
{
    /* None of it touches the malloc heap. */
    struct mallinfo2 before = mallinfo2();
    size_t mapped0 = instr_mem_mapped();
    size_t sizes[] = {0, 1, 15, 16, 17, 100, 1000, 4000, 65520, 65521, 1 << 20, 5 << 20};
    void *p[sizeof sizes / sizeof sizes[0]];
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        p[i] = instr_mem_alloc(sizes[i]);
        CHECK(p[i] != NULL && ((uintptr_t)p[i] & 15) == 0);
        CHECK(instr_mem_usable(p[i]) >= sizes[i]);
        CHECK(instr_mem_owns(p[i]) && instr_mem_owns((char *)p[i] + sizes[i] / 2));
        memset(p[i], 0xab, sizes[i]);
    }
    for (size_t i = 0; i + 1 < sizeof sizes / sizeof sizes[0]; i++)
        CHECK(p[i] != p[i + 1]);
    size_t with_large = instr_mem_mapped();
    CHECK(with_large >= mapped0 + (6u << 20));
    instr_mem_free(p[11]);
    CHECK(instr_mem_mapped() <= with_large - (5u << 20)); /* a large block goes back */
    /* A freed small block is the next one of its class; calloc zeroes a reused block. */
    instr_mem_free(p[5]);
    int *z = instr_mem_calloc(25, sizeof *z);
    CHECK((void *)z == p[5]);
    int zero = 1;
    for (int i = 0; i < 25; i++)
        zero &= z[i] == 0;
    CHECK(zero);
    CHECK(instr_mem_calloc(SIZE_MAX / 2, 4) == NULL);
    CHECK(instr_mem_alloc(SIZE_MAX) == NULL && instr_mem_alloc(SIZE_MAX - 8) == NULL);
    /* realloc keeps the contents across classes and into and out of a mapping. */
    char *r = instr_mem_alloc(10);
    memcpy(r, "0123456789", 10);
    r = instr_mem_realloc(r, 100000);
    CHECK(memcmp(r, "0123456789", 10) == 0);
    r[99999] = 'x';
    r = instr_mem_realloc(r, 20);
    CHECK(memcmp(r, "0123456789", 10) == 0);
    CHECK(instr_mem_realloc(r, 0) == NULL);
    char *s = instr_mem_strdup("pages");
    CHECK_STR(s, "pages");
    char *sn = instr_mem_strndup("pages", 3);
    CHECK_STR(sn, "pag");
    char *f = NULL;
    CHECK(instr_mem_asprintf(&f, "%s-%d-%.1f", "a", 42, 1.5) == 8);
    CHECK_STR(f, "a-42-1.5");
    instr_mem_free(s);
    instr_mem_free(sn);
    instr_mem_free(f);
    instr_mem_free(z);
    instr_mem_free(NULL);
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
        if (i != 5 && i != 11)
            instr_mem_free(p[i]);
    struct mallinfo2 after = mallinfo2();
    CHECK(after.arena == before.arena && after.uordblks == before.uordblks &&
          after.hblks == before.hblks);

    /* Not its own: the heap, the stack, a freed block. */
    void *heap = malloc(64);
    int local;
    CHECK(!instr_mem_owns(heap) && !instr_mem_owns(&local));
    for (int kind = 0; kind < 2; kind++) {
        pid_t pid = fork();
        if (pid == 0) {
            if (kind == 0)
                instr_mem_free(heap);
            void *twice = instr_mem_alloc(8);
            instr_mem_free(twice);
            instr_mem_free(twice);
            _exit(0);
        }
        int st = 0;
        CHECK(waitpid(pid, &st, 0) == pid && WIFSIGNALED(st) && WTERMSIG(st) == SIGABRT);
    }
    free(heap);

    pthread_t t[4];
    for (uintptr_t i = 0; i < 4; i++)
        CHECK(pthread_create(&t[i], NULL, pages_worker, (void *)(i + 1)) == 0);
    for (int i = 0; i < 4; i++) {
        void *bad = (void *)1;
        CHECK(pthread_join(t[i], &bad) == 0 && bad == NULL);
    }
}

struct keyed {
    int key, order;
};

static int by_key(const void *a, const void *b)
{
    const struct keyed *x = a, *y = b;
    return (x->key > y->key) - (x->key < y->key);
}

static void test_sort(void)
{
    /* Sorted and stable (equal keys keep their order), for short and long arrays, without
     * malloc (glibc's qsort takes a buffer from malloc above 1 KiB). */
    size_t counts[] = {0, 1, 2, 7, 9, 100, 5000};
    for (size_t c = 0; c < sizeof counts / sizeof counts[0]; c++) {
        size_t n = counts[c];
        struct keyed *a = instr_mem_alloc((n ? n : 1) * sizeof *a);
        unsigned seed = 7;
        for (size_t i = 0; i < n; i++) {
            seed = seed * 1103515245u + 12345u;
            a[i].key = (int)((seed >> 16) % 50);
            a[i].order = (int)i;
        }
        struct mallinfo2 before = mallinfo2();
        instr_sort(a, n, sizeof *a, by_key);
        struct mallinfo2 after = mallinfo2();
        CHECK(after.uordblks == before.uordblks && after.arena == before.arena);
        int ok = 1;
        for (size_t i = 1; i < n; i++)
            ok &= a[i - 1].key < a[i].key ||
                  (a[i - 1].key == a[i].key && a[i - 1].order < a[i].order);
        CHECK(ok);
        instr_mem_free(a);
    }
}

static void *stack_of_thread(void *arg)
{
    (void)arg;
    int local;
    uintptr_t lo = 0, hi = 0;
    long ok = instr_thread_stack(&lo, &hi) == 0 && lo <= (uintptr_t)&local &&
              (uintptr_t)&local < hi && hi - lo <= (64u << 20);
    return (void *)ok;
}

static void test_stack(void)
{
    /* The main thread's (to its limit) and another thread's, without malloc. */
    int local;
    uintptr_t lo = 0, hi = 0;
    struct mallinfo2 before = mallinfo2();
    CHECK(instr_thread_stack(&lo, &hi) == 0);
    struct mallinfo2 after = mallinfo2();
    CHECK(after.uordblks == before.uordblks && after.arena == before.arena);
    CHECK(lo <= (uintptr_t)&local && (uintptr_t)&local < hi);
    struct rlimit rl;
    if (getrlimit(RLIMIT_STACK, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
        CHECK(hi - lo >= rl.rlim_cur / 2); /* not just the pages touched so far */
    pthread_t t;
    void *ok = NULL;
    CHECK(pthread_create(&t, NULL, stack_of_thread, NULL) == 0 && pthread_join(t, &ok) == 0 &&
          ok == (void *)1);
}

/* The writer's sink for the test: appends to a fixed buffer; fails with ENOSPC when it is
 * full. */
typedef struct sink_buf {
    char data[1 << 16];
    size_t len;
    int calls;
} sink_buf;

static int to_sink_buf(void *arg, const char *data, size_t len)
{
    sink_buf *b = arg;
    b->calls++;
    if (len > sizeof b->data - b->len)
        return ENOSPC;
    memcpy(b->data + b->len, data, len);
    b->len += len;
    return 0;
}

static void test_writer(void)
{
    /* What fprintf would write, through a buffer smaller than one line and than a whole
     * formatted text; a memory writer's text grows past its first block. */
    static sink_buf b;
    instr_writer w;
    CHECK(instr_writer_open(&w, to_sink_buf, &b, 16) == 0);
    char expect[4096] = "", *at = expect;
    instr_writer m;
    CHECK(instr_writer_open_mem(&m) == 0);
    for (int i = 0; i < 60; i++) {
        instr_wr_printf(&w, "%d:%s %.3f|", i, i % 7 ? "x" : "a longer piece of text", i / 3.0);
        instr_wr_printf(&m, "%d:%s %.3f|", i, i % 7 ? "x" : "a longer piece of text", i / 3.0);
        at += sprintf(at, "%d:%s %.3f|", i, i % 7 ? "x" : "a longer piece of text", i / 3.0);
    }
    size_t lines = strlen(expect); /* what the memory writer has */
    instr_wr_puts(&w, "tail");
    instr_wr_putc(&w, '\n');
    instr_wr_write(&w, "0123456789abcdefghij", 20); /* larger than the buffer */
    at += sprintf(at, "tail\n0123456789abcdefghij");
    CHECK(b.calls > 1);
    CHECK(instr_writer_close(&w) == 0);
    CHECK(b.len == strlen(expect) && memcmp(b.data, expect, b.len) == 0);
    CHECK(w.bytes == strlen(expect));
    char big[9000];
    memset(big, 'q', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    instr_wr_printf(&m, "%s", big);
    size_t len = 0;
    char *text = instr_writer_take(&m, &len);
    CHECK(text && len == lines + sizeof big - 1 && strlen(text) == len);
    CHECK(text && memcmp(text, expect, lines) == 0 && text[len - 1] == 'q');
    instr_mem_free(text);

    /* A failing sink: the first errno is kept, later output counted and dropped. */
    static sink_buf full;
    full.len = sizeof full.data - 4;
    CHECK(instr_writer_open(&w, to_sink_buf, &full, 8) == 0);
    instr_wr_printf(&w, "%s", "0123456789");
    instr_wr_puts(&w, "more");
    CHECK(w.err == ENOSPC);
    CHECK(instr_writer_close(&w) == ENOSPC && w.bytes == 14);
}

/* The same text as gmtime_r and strftime, across leap years and centuries. */
static void test_utc(void)
{
    int same = 1;
    for (long long t = -2208988800LL; t < 7258118400LL; t += 86400 * 13 + 3607) {
        struct tm tm;
        time_t tt = (time_t)t;
        char want[64], got[INSTR_UTC_ISO_SIZE];
        gmtime_r(&tt, &tm);
        strftime(want, sizeof want, "%Y-%m-%dT%H:%M:%SZ", &tm);
        same &= strcmp(instr_utc_iso(got, tt), want) == 0;
    }
    CHECK(same);
    char got[INSTR_UTC_ISO_SIZE];
    CHECK_STR(instr_utc_iso(got, 951782400), "2000-02-29T00:00:00Z");
    CHECK_STR(instr_utc_iso(got, -1), "1969-12-31T23:59:59Z");
}

int main(int argc, char **argv)
{
    static const check_group groups[] = {
        {"array", test_array}, {"hash", test_hash},     {"addr_map", test_addr_map},
        {"table", test_table}, {"escape", test_escape}, {"pages", test_pages},
        {"sort", test_sort}, {"stack", test_stack}, {"writer", test_writer},
        {"utc", test_utc},
    };
    return check_run_groups("test_util", groups, sizeof groups / sizeof groups[0],
                            argc < 2 ? NULL : argv[1]);
}
