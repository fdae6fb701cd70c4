/* fuzz_query.c — libFuzzer target for the analysis library's query parser
 * (tools/analysis/select.c, docs/analysis.md "Queries"): the input is a query, evaluated on
 * a small job database built in memory (4 call paths, 3 regions, 2 columns). A query may
 * fail, with a message; it must never crash, overflow the stack (nesting is bounded) or
 * select a path twice or out of range. */
#include "jdb_internal.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char strings[] = "\0main\0MPI_Send\0a.c\0time_incl\0visits\0work";
enum { S_EMPTY = 0, S_MAIN = 1, S_SEND = 6, S_FILE = 15, S_TIME = 19, S_VISITS = 29, S_WORK = 36 };

static unsigned char regions[3 * JDB_REGION_SIZE], paths[4 * JDB_PATH_SIZE];
static unsigned char columns[2 * JDB_COLUMN_SIZE];
static unsigned char summary[4 * (JDB_SUMMARY_HEAD + 2 * JDB_SUMMARY_COLUMN)];
static uint32_t depth[4] = {0, 1, 1, 2};
/* children: path 0 has 1 and 2, path 2 has 3; the top level (slot 4) has 0 */
static uint32_t child_start[6] = {0, 2, 2, 3, 3, 4}, child[4] = {1, 2, 3, 0};

static void put32(unsigned char *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (unsigned char)(v >> 8 * i);
}

static void put64(unsigned char *p, uint64_t v)
{
    put32(p, (uint32_t)v);
    put32(p + 4, (uint32_t)(v >> 32));
}

static instr_jdb *database(void)
{
    static instr_jdb db;
    if (db.npaths)
        return &db;
    const uint32_t rname[3] = {S_MAIN, S_SEND, S_WORK}, rpar[3] = {0, 1, 0};
    for (int r = 0; r < 3; r++) {
        put32(regions + r * JDB_REGION_SIZE, rname[r]);
        put32(regions + r * JDB_REGION_SIZE + 8, r == 1 ? S_EMPTY : S_FILE);
        put32(regions + r * JDB_REGION_SIZE + 24, rpar[r]);
    }
    const uint32_t parent[4] = {INSTR_JDB_NO_PARENT, 0, 0, 2}, region[4] = {0, 1, 2, 1};
    for (int p = 0; p < 4; p++) {
        put32(paths + p * JDB_PATH_SIZE, parent[p]);
        put32(paths + p * JDB_PATH_SIZE + 4, region[p]);
    }
    put32(columns, S_TIME);
    put32(columns + 8, INSTR_JDB_DOUBLE);
    put32(columns + 12, INSTR_JDB_INCLUSIVE);
    put32(columns + JDB_COLUMN_SIZE, S_VISITS);
    put32(columns + JDB_COLUMN_SIZE + 8, 0);
    size_t rec = JDB_SUMMARY_HEAD + 2 * JDB_SUMMARY_COLUMN;
    for (int p = 0; p < 4; p++) {
        unsigned char *s = summary + p * rec;
        put32(s, 1);
        double t = 4.0 - p;
        uint64_t bits;
        memcpy(&bits, &t, sizeof bits);
        for (int k = 0; k < 3; k++)
            put64(s + JDB_SUMMARY_HEAD + 8 * k, bits);
        for (int k = 0; k < 3; k++)
            put64(s + JDB_SUMMARY_HEAD + JDB_SUMMARY_COLUMN + 8 * k, (uint64_t)(p + 1) * 10);
    }
    db.file = "fuzz.jdb";
    db.nranks = db.nranks_present = 1;
    db.nregions = 3;
    db.ncols = 2;
    db.strings = strings;
    db.strings_len = sizeof strings;
    db.regions = regions;
    db.paths = paths;
    db.columns = columns;
    db.summary = summary;
    db.summary_size = rec;
    db.depth = depth;
    db.child_start = child_start;
    db.child = child;
    db.npaths = 4;
    return &db;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    instr_jdb *db = database();
    char *query = malloc(size + 1);
    if (!query)
        return 0;
    memcpy(query, data, size);
    query[size] = '\0';
    uint32_t out[4];
    long n = instr_jdb_select(db, query, out);
    if (n < -1 || n > 4)
        abort();
    for (long i = 0; i < n; i++)
        if (out[i] >= 4 || (i && out[i] <= out[i - 1]))
            abort(); /* ascending, each once, in range */
    free(query);
    return 0;
}
