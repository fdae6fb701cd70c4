/* test_jobdb_core.c — the job database writer's core (runtime/job/jobdb.h) on its own:
 * the union of definitions and its maps, the canonical numbering (the same union whatever
 * the order of the merges), the serialisation's round trip and its refusal of damaged
 * buffers, rows remapped and sorted, and the summary combined from parts equal to the one
 * accumulated rank by rank. Exit status 0 when all hold; each failure is printed. */
#include "jobdb.h"
#include "../../runtime/util/pages.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures;
#define CHECK(c)                                                                              \
    do {                                                                                      \
        if (!(c)) {                                                                           \
            printf("FAIL %s:%d: %s\n", __FILE__, __LINE__, #c);                               \
            failures++;                                                                       \
        }                                                                                     \
    } while (0)

static uint32_t region(instr_jdb_defs *d, const char *name, uint32_t paradigm)
{
    instr_jdb_region r = {instr_jdb_str(d, name), 0, instr_jdb_str(d, "a.c"),
                          instr_jdb_str(d, "app"), 1, 2, paradigm, 0};
    return instr_jdb_region_id(d, &r);
}

/* A rank's definitions: main -> names[0] -> names[1] ... (a chain), then main -> MPI_Send. */
static void rank_defs(instr_jdb_defs *d, const char *const *names, int n)
{
    instr_jdb_defs_init(d);
    instr_jdb_base_columns(d);
    uint32_t p = instr_jdb_path_id(d, INSTR_JDB_NONE, region(d, "main", 0));
    uint32_t top = p;
    for (int i = 0; i < n; i++)
        p = instr_jdb_path_id(d, p, region(d, names[i], 0));
    instr_jdb_path_id(d, top, region(d, "MPI_Send", 1));
}

static int same_bytes(const instr_jdb_defs *a, const instr_jdb_defs *b)
{
    unsigned char *x, *y;
    uint64_t nx, ny;
    if (instr_jdb_defs_serialize(a, &x, &nx) || instr_jdb_defs_serialize(b, &y, &ny))
        return 0;
    int same = nx == ny && memcmp(x, y, nx) == 0;
    instr_mem_free(x);
    instr_mem_free(y);
    return same;
}

static void test_union(void)
{
    static const char *const n1[] = {"solve", "smooth"}, *const n2[] = {"solve", "restrict"},
                             *const n3[] = {"setup"};
    instr_jdb_defs a, b, c, u1, u2;
    rank_defs(&a, n1, 2);
    rank_defs(&b, n2, 2);
    rank_defs(&c, n3, 1);
    /* a + b + c in two orders */
    instr_jdb_defs_init(&u1);
    instr_jdb_defs_init(&u2);
    instr_jdb_map m;
    CHECK(instr_jdb_defs_merge(&u1, &a, NULL) == 0);
    CHECK(instr_jdb_defs_merge(&u1, &b, &m) == 0);
    CHECK(instr_jdb_defs_merge(&u1, &c, NULL) == 0);
    CHECK(instr_jdb_defs_merge(&u2, &c, NULL) == 0);
    CHECK(instr_jdb_defs_merge(&u2, &b, NULL) == 0);
    CHECK(instr_jdb_defs_merge(&u2, &a, NULL) == 0);
    /* main, solve, smooth, restrict, setup, MPI_Send: 6 regions; paths main, main/solve,
     * main/solve/smooth, main/solve/restrict, main/setup, main/MPI_Send: 6 */
    CHECK(u1.nreg == 6 && u1.npath == 6 && u1.ncol == INSTR_JDB_NBASE_COLS);
    /* b's path main/solve/restrict in u1 */
    CHECK(u1.path[m.path[2]].parent == m.path[1] && u1.path[m.path[1]].parent == m.path[0]);
    CHECK(strcmp(u1.str + u1.reg[u1.path[m.path[2]].region].name, "restrict") == 0);
    instr_jdb_map_free(&m);
    CHECK(!same_bytes(&u1, &u2)); /* numbered in merge order ... */
    CHECK(instr_jdb_defs_canonical(&u1) == 0 && instr_jdb_defs_canonical(&u2) == 0);
    CHECK(same_bytes(&u1, &u2)); /* ... and alike once canonical */
    /* pre-order, children by region name: main, MPI_Send, setup, solve, restrict, smooth */
    static const char *const order[] = {"main", "MPI_Send", "setup", "solve", "restrict",
                                        "smooth"};
    for (uint32_t i = 0; i < 6 && u1.npath == 6; i++)
        CHECK(strcmp(u1.str + u1.reg[u1.path[i].region].name, order[i]) == 0);
    /* every set is found in the union without adding */
    instr_jdb_map f;
    CHECK(instr_jdb_defs_find(&u1, &a, &f) == 0);
    instr_jdb_map_free(&f);
    instr_jdb_defs d;
    static const char *const n4[] = {"other"};
    rank_defs(&d, n4, 1);
    CHECK(instr_jdb_defs_find(&u1, &d, &f) == -1 && !f.path);
    CHECK(u1.npath == 6);
    instr_jdb_defs_free(&a);
    instr_jdb_defs_free(&b);
    instr_jdb_defs_free(&c);
    instr_jdb_defs_free(&d);
    instr_jdb_defs_free(&u1);
    instr_jdb_defs_free(&u2);
}

static void test_serialize(void)
{
    static const char *const n1[] = {"solve", "smooth"};
    instr_jdb_defs a, back;
    rank_defs(&a, n1, 2);
    unsigned char *buf;
    uint64_t len;
    char err[200];
    CHECK(instr_jdb_defs_serialize(&a, &buf, &len) == 0);
    CHECK(instr_jdb_defs_deserialize(&back, buf, len, err, sizeof err) == 0);
    CHECK(same_bytes(&a, &back));
    /* still usable: an existing path is found, not added */
    CHECK(instr_jdb_path_id(&back, INSTR_JDB_NONE, back.path[0].region) == 0);
    instr_jdb_defs_free(&back);
    /* damaged: every truncation, a parent after its child, a string offset inside a string */
    for (uint64_t cut = 0; cut < len; cut += 3) {
        err[0] = '\0';
        CHECK(instr_jdb_defs_deserialize(&back, buf, cut, err, sizeof err) == -1 && err[0]);
    }
    uint64_t slen;
    memcpy(&slen, buf, 8);
    uint64_t paths = 24 + ((slen + 7) & ~7ull) + 32ull * a.nreg;
    unsigned char *bad = malloc(len);
    memcpy(bad, buf, len);
    uint32_t two = 2;
    memcpy(bad + paths + 8, &two, 4); /* path 1's parent := 2 */
    CHECK(instr_jdb_defs_deserialize(&back, bad, len, err, sizeof err) == -1 &&
          strstr(err, "parent"));
    memcpy(bad, buf, len);
    uint32_t inside = a.reg[0].name + 1; /* "ain" of "main" */
    memcpy(bad + 24 + ((slen + 7) & ~7ull), &inside, 4);
    CHECK(instr_jdb_defs_deserialize(&back, bad, len, err, sizeof err) == -1 &&
          strstr(err, "string"));
    free(bad);
    instr_mem_free(buf);
    instr_jdb_defs_free(&a);
}

static void test_rows_summary(void)
{
    instr_jdb_defs d;
    instr_jdb_defs_init(&d);
    instr_jdb_base_columns(&d);
    uint32_t dc = instr_jdb_column_id(&d, "flops", "", INSTR_JDB_KIND_DOUBLE, 0);
    CHECK(dc == INSTR_JDB_NBASE_COLS);
    uint32_t p0 = instr_jdb_path_id(&d, INSTR_JDB_NONE, region(&d, "main", 0));
    uint32_t p1 = instr_jdb_path_id(&d, p0, region(&d, "f", 0));
    (void)p1;
    uint32_t nc = d.ncol, np = d.npath;
    uint64_t words = instr_jdb_summary_words(nc) * np;
    uint64_t *all = malloc(words * 8), *half1 = malloc(words * 8), *half2 = malloc(words * 8);
    instr_jdb_summary_init(all, np, d.col, nc);
    instr_jdb_summary_init(half1, np, d.col, nc);
    instr_jdb_summary_init(half2, np, d.col, nc);
    /* the same summary as sparse records, merged rank by rank (as the job's tree does) */
    uint64_t e = 1 + instr_jdb_summary_words(nc), *sp = NULL, nsp = 0;
    for (uint32_t r = 0; r < 5; r++) {
        instr_jdb_rows rows = {nc, 0, 0, NULL};
        /* rank r: path 1 on threads 1, 0 (out of order), path 0 on thread 0; rank 3 lacks
         * path 1 */
        for (int t = 1; t >= 0 && r != 3; t--) {
            uint64_t *v = instr_jdb_rows_add(&rows, 1, (uint32_t)t);
            v[INSTR_JDB_COL_VISITS] = r + t;
            double x = 0.5 * r;
            memcpy(&v[dc], &x, 8);
        }
        uint64_t *v = instr_jdb_rows_add(&rows, 0, 0);
        v[INSTR_JDB_COL_VISITS] = 1;
        instr_jdb_rows_sort(&rows);
        CHECK(instr_jdb_row_path(instr_jdb_row(&rows, 0)) == 0);
        if (r != 3)
            CHECK(instr_jdb_row_thread(instr_jdb_row(&rows, 1)) == 0);
        instr_jdb_summary_add_rank(all, &rows, d.col);
        instr_jdb_summary_add_rank(r < 2 ? half1 : half2, &rows, d.col);
        uint64_t *one = NULL, n1 = 0, *merged = NULL, nm = 0;
        CHECK(instr_jdb_summary_sparse_of_rank(&rows, d.col, &one, &n1) == 0);
        CHECK(n1 == (r == 3 ? 1u : 2u) && one[0] == 0 && (r == 3 || one[e] == 1));
        CHECK(instr_jdb_summary_sparse_merge(one, n1, sp, nsp, d.col, nc, &merged, &nm) == 0);
        instr_mem_free(one);
        instr_mem_free(sp);
        sp = merged;
        nsp = nm;
        instr_jdb_rows_free(&rows);
    }
    instr_jdb_summary_combine(half1, half2, np, d.col, nc);
    CHECK(memcmp(all, half1, words * 8) == 0);
    CHECK(nsp == np);
    for (uint64_t i = 0; i < nsp; i++)
        CHECK(sp[i * e] == i && memcmp(sp + i * e + 1, all + i * (e - 1), (e - 1) * 8) == 0);
    instr_mem_free(sp);
    uint64_t *s1 = all + instr_jdb_summary_words(nc);
    /* path 1: 4 ranks; visits per rank 2r+1 for r in 0,1,2,4: sum 18, min 1, max 9,
     * squares 1 + 9 + 25 + 81 */
    const uint64_t *vis = s1 + 1 + 4 * INSTR_JDB_COL_VISITS;
    double sq;
    memcpy(&sq, &vis[3], 8);
    CHECK(s1[0] == 4 && vis[0] == 18 && vis[1] == 1 && vis[2] == 9 && sq == 116.0);
    double fmax;
    memcpy(&fmax, &s1[1 + 4 * dc + 2], 8);
    CHECK(fmax == 4.0); /* rank 4: 2 threads x 2.0 */
    free(all);
    free(half1);
    free(half2);
    instr_jdb_defs_free(&d);
}

int main(void)
{
    test_union();
    test_serialize();
    test_rows_summary();
    CHECK(instr_jdb_rounds(1) == 0 && instr_jdb_rounds(2) == 1 && instr_jdb_rounds(64) == 6 &&
          instr_jdb_rounds(65) == 7 && instr_jdb_rounds(100000) == 17);
    if (!failures)
        printf("job database core: all checks passed\n");
    return failures ? 1 : 0;
}
