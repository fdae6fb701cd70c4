/* mpi_jobdb.c — the job database <dir>/profile.jdb written by all ranks together
 * (docs/profile-format.md "Job database"; the core is jobdb.h).
 *
 * 1. Definitions are unified by a binomial reduction tree: in round k (k = 0 ..
 *    ceil(log2 P) - 1) a rank r with r mod 2^(k+1) == 2^k sends its set to r - 2^k, which
 *    merges it into its own; a rank holds at most the union of its subtree plus its own data.
 * 2. Rank 0 numbers the union canonically; down the same tree each rank learns the union's
 *    ids of its own paths and columns (through the maps each parent kept of its children's
 *    sets in step 1) and maps its rows to them: no rank but 0 holds the union itself.
 * 3. The summary goes to rank 0 by the same binomial tree as step 1, as sparse records: a
 *    subtree's message holds only the paths its ranks visited (each rank's own records are
 *    of its rows' size, not the union's), merged by path with instr_jdb_summary_combine
 *    (sums, minima, maxima, sums of squares); rank 0 alone lays them out union-sized.
 * 4. Rank 0 creates the file; down the tree every rank learns its rows' offset (rows offset
 *    + the row bytes of the ranks before it, an exclusive prefix sum by subtrees) and, in the
 *    same message, its offset in the pruned section (mpi_jobdb_pruned.c), opens the
 *    file and writes its rows and its own rank index record there with pwrite, rank 0 the
 *    header, definitions and summary; each syncs its writes (fdatasync). Once every rank's
 *    writes are done (a reduction up and down the tree), rank 0 writes the file size last: a
 *    file whose size field is 0 or wrong is unfinished. No collective MPI-IO: each rank's
 *    pieces are contiguous at known offsets, and Open MPI's OMPIO spent more CPU in its
 *    collective open, writes and close than the rest of the step together. It is written
 *    under a name of the job's own and renamed to profile.jdb once whole.
 * A rank without a part (profile off, out of memory, a part that does not fit the union) is
 * written as absent: 0 rows, flag 0; one line names the absent ranks. */
#include "../mpi/mpi_wrap.h"
#include "jobdb.h"
#include "mpi_tree.h"
#include "mpi_jobdb_pruned.h"
#include "../util/hash.h"
#include "../util/pages.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define TAG_DEFS 7302

static unsigned char *my_part;
static size_t my_part_len;

void instr_mpi_jobdb_keep(const void *part, size_t len)
{
    instr_mem_free(my_part);
    my_part = NULL;
    my_part_len = 0;
    if (part && len && (my_part = instr_mem_alloc(len))) {
        memcpy(my_part, part, len);
        my_part_len = len;
    }
}

/* This process's CPU time (all its threads), for the steps' CPU line (INSTR_VERBOSE=2). */
static double cpu_now(void)
{
    struct timespec ts;
    return clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts) == 0 ? (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec
                                                            : 0.0;
}

static void say(const char *fmt, ...)
{
    char msg[2048];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    fprintf(stderr, "instr: %s\n", msg);
    fflush(stderr);
}

/* Step 1: the union of every rank's definitions at rank 0 (others: their subtree's, sent).
 * A message is the subtree's serialized set, then one word: how many of its ranks are present
 * (only that word when the set could not be had). Each child's set is merged with its map
 * (the child's ids in this rank's set), kept for step 2; a child without one is lost (its
 * subtree's ranks end up absent). */
struct unify_ctx {
    instr_jdb_defs *acc;
    uint64_t present;
    unsigned char *out;
    int next;
    instr_jdb_map map[32];          /* path and col NULL: that child's subtree is lost */
    uint32_t npath[32], ncol[32];   /* the sizes of each child's set (its map's) */
};

static void unify_merge(void *ctx, const void *b, uint64_t len)
{
    struct unify_ctx *c = ctx;
    int i = c->next++;
    instr_jdb_defs other;
    char err[200];
    uint64_t present = 0;
    if (b && len >= 8)
        memcpy(&present, (const unsigned char *)b + len - 8, 8);
    c->present += present;
    if (!b || len <= 8 || instr_jdb_defs_deserialize(&other, b, len - 8, err, sizeof err) != 0)
        return;
    if (instr_jdb_defs_merge(c->acc, &other, &c->map[i]) == 0) {
        c->npath[i] = other.npath;
        c->ncol[i] = other.ncol;
    }
    instr_jdb_defs_free(&other);
}

static void unify_pack(void *ctx, const void **b, uint64_t *len)
{
    struct unify_ctx *c = ctx;
    unsigned char *set = NULL, *grown;
    if (instr_jdb_defs_serialize(c->acc, &set, len) != 0)
        *len = 0; /* the receiver loses this subtree: its ranks are absent */
    if (!(grown = instr_mem_realloc(set, *len + 8))) {
        instr_mem_free(set);
        *len = 0;
        c->out = NULL;
        *b = NULL; /* the parent takes an empty message: the subtree's ranks are absent */
        return;
    }
    memcpy(grown + *len, &c->present, 8);
    c->out = grown;
    *len += 8;
    *b = grown;
}

/* Step 2: no rank but rank 0 needs the union itself, only where its own ids went: down the
 * tree each rank receives the union's ids of its set's paths and columns (its subtree's
 * union, what it sent up), gives each child the same of the child's set through the child's
 * map, and maps its own rows through its own. A rank's work and message are of its
 * subtree's union, not the job's: every rank deserializing the whole union and building its
 * hash tables cost more CPU than any other step.
 *
 * A message: struct down_head, the union's columns (ncol records), then the union ids of the
 * receiver's set's columns and paths (u32 each). */
enum { DOWN_OK, DOWN_NOBODY, DOWN_FAILED, DOWN_LOST };
struct down_head {
    uint64_t status, slen;
    uint32_t npath, nreg, ncol, set_ncol, set_npath, pad;
};

/* The message for a set whose ids in the union are col[set_ncol], path[set_npath]; NULL
 * without memory. */
static unsigned char *down_message(const struct down_head *h, const instr_jdb_column *cols,
                                   const uint32_t *col, const uint32_t *path, uint64_t *len)
{
    uint64_t n = sizeof *h + 16ull * h->ncol + 4ull * h->set_ncol + 4ull * h->set_npath;
    unsigned char *m = instr_mem_alloc(n);
    if (!m)
        return NULL;
    memcpy(m, h, sizeof *h);
    if (h->ncol)
        memcpy(m + sizeof *h, cols, 16ull * h->ncol);
    if (h->set_ncol)
        memcpy(m + sizeof *h + 16ull * h->ncol, col, 4ull * h->set_ncol);
    if (h->set_npath)
        memcpy(m + sizeof *h + 16ull * h->ncol + 4ull * h->set_ncol, path, 4ull * h->set_npath);
    *len = n;
    return m;
}

/* 0: *map holds this rank's own ids (own: its definitions in its set) in the union, and on
 * ranks other than 0, u is the union's skeleton (its counts and columns: the file's layout and
 * the summary need no more); 1 when no rank is present (nothing to write); 2 when this rank's
 * definitions are not in the union (it is absent); -1 on every rank below one that could not
 * go on (out of memory: as with MPI_Bcast, the job's end then cannot go on gracefully). */
static int map_down(instr_jdb_defs *u, struct unify_ctx *uc, const instr_jdb_map *own,
                    uint32_t own_npath, uint32_t own_ncol, uint64_t anyone, instr_jdb_map *map,
                    int rank, int size, MPI_Comm comm)
{
    struct down_head h = {DOWN_FAILED, 0, 0, 0, 0, 0, 0, 0};
    unsigned char *in = NULL;
    uint32_t *col = NULL, *path = NULL; /* this rank's set's ids in the union */
    instr_jdb_column *cols = NULL;
    uint32_t set_npath = u->npath, set_ncol = u->ncol;
    if (rank == 0) {
        h.status = !anyone ? DOWN_NOBODY : DOWN_FAILED;
        if (anyone && (path = instr_mem_alloc(4ull * set_npath + 4)) &&
            (col = instr_mem_alloc(4ull * set_ncol + 4)) &&
            instr_jdb_defs_canonical_map(u, path) == 0) {
            for (uint32_t i = 0; i < set_ncol; i++)
                col[i] = i;
            h = (struct down_head){DOWN_OK, u->slen, u->npath, u->nreg, u->ncol, 0, 0, 0};
            cols = u->col;
        }
    } else {
        uint64_t len = 0;
        in = instr_job_tree_recv(&len, instr_job_tree_parent(rank), TAG_DEFS, comm);
        struct down_head g;
        if (in && len >= sizeof g) {
            memcpy(&g, in, sizeof g);
            if (g.status == DOWN_OK && g.set_npath == set_npath && g.set_ncol == set_ncol &&
                len == sizeof g + 16ull * g.ncol + 4ull * set_ncol + 4ull * set_npath) {
                h = g;
                cols = (instr_jdb_column *)(in + sizeof g);
                col = (uint32_t *)(in + sizeof g + 16ull * g.ncol);
                path = col + set_ncol;
            } else if (g.status == DOWN_LOST && !g.set_npath && !g.set_ncol &&
                       len == sizeof g + 16ull * g.ncol) {
                h = g;
                cols = (instr_jdb_column *)(in + sizeof g);
            } else if (g.status == DOWN_NOBODY) {
                h.status = g.status;
            }
        }
    }
    /* the children's, the largest subtree first: it has the most rounds left */
    int child[32], n = instr_job_tree_children(rank, size, child);
    const void *bufs[32];
    uint64_t lens[32];
    int to[32];
    unsigned char *msg[32] = {NULL};
    for (int k = 0; k < n; k++) {
        int i = n - 1 - k;
        struct down_head ch = h;
        const instr_jdb_map *cm = &uc->map[i];
        uint32_t *cc = NULL, *cp = NULL;
        if (h.status == DOWN_OK && !(cm->path && cm->col))
            ch.status = DOWN_LOST;
        ch.set_npath = ch.set_ncol = 0;
        if (ch.status == DOWN_OK) {
            ch.set_npath = uc->npath[i];
            ch.set_ncol = uc->ncol[i];
            cc = instr_mem_alloc(4ull * ch.set_ncol + 4);
            cp = instr_mem_alloc(4ull * ch.set_npath + 4);
            if (cc && cp) {
                for (uint32_t j = 0; j < ch.set_ncol; j++)
                    cc[j] = col[cm->col[j]];
                for (uint32_t j = 0; j < ch.set_npath; j++)
                    cp[j] = path[cm->path[j]];
            } else {
                ch.status = DOWN_FAILED;
            }
        }
        if (ch.status != DOWN_OK)
            ch.set_ncol = ch.set_npath = 0;
        if (ch.status != DOWN_OK && ch.status != DOWN_LOST)
            ch.ncol = 0;
        msg[k] = down_message(&ch, cols, cc, cp, &lens[k]);
        instr_mem_free(cc);
        instr_mem_free(cp);
        bufs[k] = msg[k];
        if (!msg[k])
            lens[k] = 0; /* an empty message: the child cannot go on */
        to[k] = child[i];
    }
    instr_job_tree_send_many(bufs, lens, to, n, TAG_DEFS, comm);
    for (int k = 0; k < n; k++)
        instr_mem_free(msg[k]);
    int rc = h.status == DOWN_OK ? 0 : h.status == DOWN_NOBODY ? 1 : h.status == DOWN_LOST ? 2 : -1;
    /* this rank's own ids */
    memset(map, 0, sizeof *map);
    if (rc == 0 && own->path && own->col) {
        map->path = instr_mem_alloc(4ull * own_npath + 4);
        map->col = instr_mem_alloc(4ull * own_ncol + 4);
        if (map->path && map->col) {
            for (uint32_t j = 0; j < own_npath; j++)
                map->path[j] = path[own->path[j]];
            for (uint32_t j = 0; j < own_ncol; j++)
                map->col[j] = col[own->col[j]];
        } else {
            instr_jdb_map_free(map);
        }
    }
    if (rc == 0 && !map->path)
        rc = 2;
    if (rank == 0) {
        instr_mem_free(col);
        instr_mem_free(path);
    } else if (rc >= 0 && rc != 1) {
        /* the union's skeleton: its counts and columns */
        instr_jdb_column *c = instr_mem_alloc(16ull * h.ncol + 16);
        instr_jdb_defs_free(u);
        memset(u, 0, sizeof *u);
        if (!c) {
            instr_jdb_map_free(map);
            rc = -1;
        } else {
            if (h.ncol)
                memcpy(c, cols, 16ull * h.ncol);
            u->col = c;
            u->ncol = u->capcol = h.ncol;
            u->npath = h.npath;
            u->nreg = h.nreg;
            u->slen = h.slen;
        }
    }
    instr_mem_free(in);
    return rc;
}

/* Step 3's message from a subtree: its entries, or, when a part of the subtree's records could
 * not be had, one word (no whole number of entries: an entry has at least 29 words); then
 * what step 4 needs of the subtree (struct sub_info: its ranks' row bytes, longest duration,
 * whether all could keep their parts), then its ranks' presence, one byte each in rank order
 * (the subtree is the ranks r .. r + span - 1), padded to whole words. */
struct sub_info {
    uint64_t bytes, duration, ok;
};

static uint64_t tail_bytes(int span) { return sizeof(struct sub_info) + (((uint64_t)span + 7) & ~7ull); }

static int entries_valid(const uint64_t *v, uint64_t n, uint64_t e, uint32_t npath)
{
    for (uint64_t i = 0; i < n; i++)
        if (v[i * e] >= npath || (i && v[i * e] <= v[(i - 1) * e]))
            return 0;
    return 1;
}

/* Step 3: *sp (n entries of e words, this rank's own records) becomes its subtree's; at rank
 * 0 the job's; info and presence (span bytes) likewise. lost: records were lost here or below
 * (every message is still taken, so that no sender waits). */
struct summary_ctx {
    uint64_t **sp, *n, e;
    int lost, rank, size, nchild, next;
    const instr_jdb_defs *u;
    struct sub_info info, child_info[32];
    unsigned char *presence;
    int child[32];
    unsigned char *lost_msg;
    /* rank 0: the job's summary, union-sized, which the children's records are added to
     * directly (no merged copy per child); NULL: merged sparse as on the other ranks */
    uint64_t *dense;
};

/* Adds n sparse entries to the union-sized summary: a path's first record is copied, the
 * later ones combined into it, in the order they come (the sums bit for bit those of the
 * sparse merge, which combines in the same order). */
static void add_to_dense(uint64_t *dense, const uint64_t *v, uint64_t n, uint64_t e,
                         const instr_jdb_defs *u)
{
    uint64_t w = e - 1;
    for (uint64_t i = 0; i < n; i++) {
        const uint64_t *ent = v + i * e;
        uint64_t *r = dense + ent[0] * w;
        if (r[0] == 0)
            memcpy(r, ent + 1, 8 * w);
        else
            instr_jdb_summary_combine(r, ent + 1, 1, u->col, u->ncol);
    }
}

static void summary_merge(void *ctx, const void *buf, uint64_t len)
{
    struct summary_ctx *c = ctx;
    const unsigned char *b = buf;
    int who = c->child[c->next], span = instr_job_tree_span(who, c->size);
    struct sub_info *ci = &c->child_info[c->next++];
    uint64_t tail = tail_bytes(span);
    if (!b || len < tail) {
        c->lost = 1;
        c->info.ok = 0;
        memset(ci, 0, sizeof *ci);
        return;
    }
    len -= tail;
    memcpy(ci, b + len, sizeof *ci);
    c->info.bytes += ci->bytes;
    c->info.duration = ci->duration > c->info.duration ? ci->duration : c->info.duration;
    c->info.ok &= ci->ok;
    if (c->presence)
        memcpy(c->presence + (who - c->rank), b + len + sizeof *ci, (size_t)span);
    uint64_t m = 0, *merged = NULL, head = len / 8 / c->e;
    if (len % (8 * c->e) != 0 || !entries_valid((const uint64_t *)buf, head, c->e, c->u->npath))
        c->lost = 1;
    else if (!c->lost && c->dense)
        add_to_dense(c->dense, buf, head, c->e, c->u);
    else if (!c->lost && instr_jdb_summary_sparse_merge(*c->sp, *c->n, buf, head, c->u->col,
                                                        c->u->ncol, &merged, &m) != 0)
        c->lost = 1;
    if (merged) {
        instr_mem_free(*c->sp);
        *c->sp = merged;
        *c->n = m;
    }
}

static void summary_pack(void *ctx, const void **b, uint64_t *len)
{
    struct summary_ctx *c = ctx;
    int span = instr_job_tree_span(c->rank, c->size);
    uint64_t head = c->lost ? 8 : *c->n * c->e * 8, tail = tail_bytes(span);
    unsigned char *m = c->lost ? (c->lost_msg = instr_mem_calloc(1, head + tail))
                               : instr_mem_realloc(*c->sp, head + tail);
    if (!m) { /* the parent takes an empty message: this subtree is lost */
        *b = NULL;
        *len = 0;
        return;
    }
    if (!c->lost)
        *c->sp = (uint64_t *)m;
    memcpy(m + head, &c->info, sizeof c->info);
    memset(m + head + sizeof c->info, 0, tail - sizeof c->info);
    if (c->presence)
        memcpy(m + head + sizeof c->info, c->presence, (size_t)span);
    *b = m;
    *len = head + tail;
}

/* Step 4's numbers, down the tree from rank 0: whether the file is written, its rows' bytes,
 * and where this rank's subtree's rows begin; the same of the pruned section's rows. */
struct sub_place {
    uint64_t ok, total, offset;
    uint64_t pruned_on, pruned_total, pruned_offset;
};

static struct sub_place place_subtrees(const struct summary_ctx *c, const instr_mpi_pruned *pr,
                                       struct sub_place mine, uint64_t my_bytes, MPI_Comm comm)
{
    if (c->rank != 0) {
        uint64_t len = 0;
        void *b = instr_job_tree_recv(&len, instr_job_tree_parent(c->rank), TAG_DEFS, comm);
        if (b && len == sizeof mine)
            memcpy(&mine, b, sizeof mine);
        else
            mine.ok = 0;
        instr_mem_free(b);
    }
    struct sub_place to[32];
    const void *bufs[32];
    uint64_t lens[32];
    uint64_t at = mine.offset + my_bytes, pruned_at = mine.pruned_offset + pr->bytes;
    for (int i = 0; i < c->nchild; i++) {
        to[i] = (struct sub_place){mine.ok, mine.total, at, mine.pruned_on, mine.pruned_total,
                                   pruned_at};
        at += c->child_info[i].bytes;
        pruned_at += pr->child_bytes[i];
        bufs[i] = &to[i];
        lens[i] = sizeof to[i];
    }
    instr_job_tree_send_many(bufs, lens, c->child, c->nchild, TAG_DEFS, comm);
    return mine;
}

/* n bytes at offset at, in pieces (a write may be short): 0, or the errno. */
static int write_at(int fd, const void *p, uint64_t n, uint64_t at)
{
    const unsigned char *b = p;
    while (n > 0) {
        ssize_t w = pwrite(fd, b, n > (1u << 30) ? (1u << 30) : (size_t)n, (off_t)at);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return w < 0 ? errno : EIO;
        b += w;
        n -= (uint64_t)w;
        at += (uint64_t)w;
    }
    return 0;
}

/* Names the absent ranks in one line (ranges: 3-7). */
static void say_absent(const unsigned char *present, int size, const char *path)
{
    char list[1024] = "";
    size_t used = 0;
    int n = 0;
    for (int r = 0; r < size; r++) {
        if (present[r])
            continue;
        int e = r;
        while (e + 1 < size && !present[e + 1])
            e++;
        n += e - r + 1;
        if (used < sizeof list - 40) {
            int w = e > r ? snprintf(list + used, sizeof list - used, "%s%d-%d", used ? ", " : "", r, e)
                          : snprintf(list + used, sizeof list - used, "%s%d", used ? ", " : "", r);
            used += w > 0 ? (size_t)w : 0;
        } else if (used < sizeof list - 5) {
            used += (size_t)snprintf(list + used, sizeof list - used, ", ...");
        }
        r = e;
    }
    /* The job's one line names them too (outputs.c); this one only with INSTR_VERBOSE. */
    if (n && instr_ext_verbose() > 0)
        say("job database %s: %d rank%s absent (no profile to write: ended early, profiling "
            "off or out of memory): rank%s %s; the other ranks' data is written",
            path, n, n == 1 ? "" : "s", n == 1 ? "" : "s", list);
}

int instr_mpi_jobdb_write(MPI_Comm comm, int rank, int size, const char *dir)
{
    int result = -1;
    double t0 = PMPI_Wtime(), c[6] = {cpu_now()};
    instr_jdb_local local;
    char err[256];
    int present = 0;
    if (my_part && instr_jdb_local_deserialize(&local, my_part, my_part_len, err, sizeof err) == 0)
        present = 1;
    else if (my_part)
        say("job database: rank %d's part is unreadable (%s); the rank is written as absent",
            rank, err);
    instr_mem_free(my_part);
    my_part = NULL;
    my_part_len = 0;
    if (!present) {
        memset(&local, 0, sizeof local);
        instr_jdb_defs_init(&local.defs);
    }
    /* 1: unification, and how many ranks are present */
    instr_jdb_defs u;
    instr_jdb_map own = {NULL, NULL, NULL};
    uint32_t own_npath = local.defs.npath, own_ncol = local.defs.ncol;
    struct unify_ctx uc;
    memset(&uc, 0, sizeof uc);
    uc.acc = &u;
    uc.present = (uint64_t)present;
    if (instr_jdb_defs_init(&u) != 0 || instr_jdb_defs_merge(&u, &local.defs, &own) != 0)
        memset(&own, 0, sizeof own); /* this rank's own definitions are not in the union */
    instr_job_tree_reduce(rank, size, comm, TAG_DEFS, unify_merge, unify_pack, &uc);
    instr_mem_free(uc.out);
    uint64_t anyone = uc.present;
    double t_unified = PMPI_Wtime();
    c[1] = cpu_now();
    /* 2: the union's ids of this rank's own, down the tree */
    instr_jdb_map map;
    int bc = map_down(&u, &uc, &own, own_npath, own_ncol, anyone, &map, rank, size, comm);
    for (int i = 0; i < 32; i++)
        instr_jdb_map_free(&uc.map[i]);
    instr_jdb_map_free(&own);
    if (bc == 1 || bc < 0) { /* nothing to write when no rank has a profile: said by nobody */
        if (bc < 0 && rank == 0)
            say("job database %s/profile.jdb is not written: the ranks' call paths could not "
                "be unified (out of memory); the ranks' own profiles are in %s/rank-*", dir, dir);
        instr_jdb_local_free(&local);
        instr_jdb_defs_free(&u);
        return bc < 0 ? -1 : 0;
    }
    double t_bcast = PMPI_Wtime();
    c[2] = cpu_now();
    /* this rank's rows in union ids */
    instr_jdb_rows rows = {u.ncol, 0, 0, NULL};
    if (bc == 2)
        present = 0;
    if (present && instr_jdb_rows_remap(&local.rows, &map, u.ncol, &rows) != 0)
        present = 0;
    instr_jdb_map_free(&map);
    instr_jdb_rows_free(&local.rows); /* the union-id copy is the one written */
    instr_jdb_layout lay;
    instr_jdb_layout_of(&u, (uint32_t)size, &lay);
    double t_mapped = PMPI_Wtime();
    c[3] = cpu_now();
    /* 3: the summary, with each subtree's row bytes, duration and presence */
    uint64_t words = instr_jdb_summary_words(u.ncol), *sparse = NULL, nsparse = 0, *sum = NULL;
    uint64_t my_bytes = present ? rows.n * lay.row_bytes : 0;
    uint64_t my_dur = present ? local.duration_ns : 0;
    instr_jdb_rows none = {u.ncol, 0, 0, NULL};
    struct summary_ctx sc = {&sparse, &nsparse, 1 + words, 0, rank, size, 0, 0, &u,
                             {my_bytes, my_dur, 1}, {{0, 0, 0}}, NULL, {0}, NULL, NULL};
    sc.lost = instr_jdb_summary_sparse_of_rank(present ? &rows : &none, u.col, &sparse,
                                               &nsparse) != 0;
    sc.nchild = instr_job_tree_children(rank, size, sc.child);
    if ((sc.presence = instr_mem_alloc((size_t)instr_job_tree_span(rank, size))))
        sc.presence[0] = (unsigned char)present;
    else
        sc.info.ok = 0;
    if (rank == 0 && !sc.lost && (sc.dense = instr_mem_alloc(lay.summary_bytes + 8))) {
        instr_jdb_summary_init(sc.dense, u.npath, u.col, u.ncol);
        add_to_dense(sc.dense, sparse, nsparse, 1 + words, &u);
    }
    instr_job_tree_reduce(rank, size, comm, TAG_DEFS, summary_merge, summary_pack, &sc);
    instr_mem_free(sc.lost_msg);
    if (sc.dense) {
        if (!sc.lost && sc.info.ok) {
            sum = sc.dense;
            instr_jdb_summary_finish(sum, u.npath, u.col, u.ncol);
        } else {
            instr_mem_free(sc.dense);
        }
    } else if (rank == 0 && !sc.lost && sc.info.ok &&
               (sum = instr_mem_alloc(lay.summary_bytes + 8))) {
        instr_jdb_summary_init(sum, u.npath, u.col, u.ncol);
        for (uint64_t i = 0; i < nsparse; i++)
            memcpy(sum + sparse[i * (1 + words)] * words, sparse + i * (1 + words) + 1,
                   8 * words);
        instr_jdb_summary_finish(sum, u.npath, u.col, u.ncol);
    }
    instr_mem_free(sparse);
    /* the pruned section: its set from rank 0's summary, every rank's rows of it and their
     * bytes up (mpi_jobdb_pruned.c); their offsets come down with the rows' (step 4). Its
     * time counts to the summary step of INSTR_VERBOSE=2. */
    instr_mpi_pruned pr;
    instr_jdb_pruned_layout pl = {0, 0, 0, 0, 0, 0};
    instr_mpi_jobdb_pruned_up(&pr, sum, &u, present ? &rows : &none, rank, size, comm, TAG_DEFS);
    double t_summary = PMPI_Wtime();
    c[4] = cpu_now();
    /* 4: the file, created by rank 0 before the offsets go down the tree, so that every
     * rank that learns its offset can open it. Written under a name of this job's own,
     * then renamed once whole: a file called profile.jdb is always finished. */
    char path[PATH_MAX + 16], part[PATH_MAX + 48];
    snprintf(path, sizeof path, "%s/profile.jdb", dir);
    snprintf(part, sizeof part, "%s/.profile.jdb.%016llx", dir,
             (unsigned long long)instr_fnv1a(INSTR_FNV1A_BASIS, dir, strlen(dir)));
    int fd = -1, failed = 0, err_no = 0, npresent = 0;
    if (rank == 0 && sum) {
        fd = open(part, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
        if (fd < 0)
            say("job database %s cannot be created: %s; the ranks' own profiles are in "
                "%s/rank-*", path, strerror(errno), dir);
    } else if (rank == 0) {
        say("job database %s is not written: out of memory for the summary of %u call paths",
            path, u.npath);
    }
    /* offsets down the tree (an exclusive prefix sum of the row bytes by subtrees), the
     * rows area's and the pruned section's; the rows area moves behind the section */
    struct sub_place place = {rank != 0 || fd >= 0, sc.info.bytes, 0, pr.subtree_ok,
                              pr.subtree_bytes, 0};
    place = place_subtrees(&sc, &pr, place, my_bytes, comm);
    instr_mpi_jobdb_pruned_placed(&pr, place.pruned_on != 0, place.pruned_total,
                                  place.pruned_offset);
    if (pr.on)
        instr_jdb_pruned_place(&lay, (uint32_t)size, pr.nset, pr.total,
                               INSTR_JDB_PRUNED_THRESHOLD, &pl);
    uint64_t off = place.offset, total = place.total, duration = sc.info.duration;
    unsigned char *presence = sc.presence;
    if (!place.ok)
        goto done;
    if (rank == 0)
        for (int r = 0; r < size; r++)
            npresent += presence[r] != 0;
    if (rank != 0 && (fd = open(part, O_WRONLY | O_CLOEXEC)) < 0)
        failed = errno;
    /* 5: every rank writes its own index record and rows at their offsets, rank 0 the
     * header, definitions and summary: plain positioned writes into one file, no collective
     * I/O (each rank's pieces are contiguous and their offsets known). */
    instr_jdb_header_info hi = {(uint32_t)size, (uint32_t)npresent, instr_jdb_rounds((uint32_t)size),
                                duration, 0};
    unsigned char hdr[INSTR_JDB_HEADER_SIZE], idx[32], pidx[16];
    instr_jdb_index_encode(idx, lay.rows + off, present ? rows.n : 0,
                           present ? local.nthreads : 0, present ? INSTR_JDB_RANK_PRESENT : 0,
                           my_dur);
    if (rank == 0)
        instr_jdb_header_encode(hdr, &u, &lay, &hi);
    if (rank == 0 && pr.on)
        instr_jdb_pruned_header(hdr, &pl);
    if (pr.on)
        instr_jdb_pruned_index_encode(pidx, pl.rows + pr.offset, pr.rows.n);
    uint64_t pbytes = pr.on ? pr.rows.n * lay.row_bytes : 0;
    struct { uint64_t at; const void *p; uint64_t n; } parts[] = {
        {lay.index + 32ull * (uint64_t)rank, idx, sizeof idx},
        {lay.rows + off, rows.v, my_bytes},
        {0, hdr, rank == 0 ? sizeof hdr : 0},
        {lay.strings, u.str, rank == 0 ? u.slen : 0},
        {lay.regions, u.reg, rank == 0 ? 32ull * u.nreg : 0},
        {lay.paths, u.path, rank == 0 ? 8ull * u.npath : 0},
        {lay.columns, u.col, rank == 0 ? 16ull * u.ncol : 0},
        {lay.summary, sum, rank == 0 ? lay.summary_bytes : 0},
        {pr.on ? pl.index + 16ull * (uint64_t)rank : 0, pidx, pr.on ? sizeof pidx : 0},
        {pr.on ? pl.rows + pr.offset : 0, pr.rows.v, pbytes},
        {pr.on ? pl.set : 0, pr.set, rank == 0 && pr.on ? 4ull * pr.nset : 0},
    };
    for (size_t i = 0; i < sizeof parts / sizeof parts[0] && !failed; i++)
        failed = write_at(fd, parts[i].p, parts[i].n, parts[i].at);
    /* Every rank's rows on storage before the size field says the file is whole. */
    if (!failed && fdatasync(fd) != 0)
        failed = errno;
    if (fd >= 0 && rank != 0 && close(fd) != 0 && !failed)
        failed = errno;
    err_no = failed;
    uint64_t failed_any = (uint64_t)(failed != 0);
    const unsigned char max_op = INSTR_JOB_MAX;
    instr_job_tree_allreduce(&failed_any, &max_op, 1, 1, rank, size, comm, TAG_DEFS);
    int any_failed = failed_any != 0;
    /* Every rank's rows are written: the file size, last. */
    if (rank == 0 && !any_failed) {
        uint64_t size_field = lay.rows + total;
        if ((err_no = write_at(fd, &size_field, 8, 16)) != 0)
            any_failed = 1;
    }
    if (rank == 0 && fd >= 0 && close(fd) != 0 && !any_failed)
        any_failed = 1, err_no = errno;
    /* Collective: every rank's writes are done. A database that is not whole keeps its
     * part's name (its size field 0), and nothing is called profile.jdb. */
    int unnamed = 0;
    if (rank == 0 && !any_failed && rename(part, path) != 0) {
        say("job database %s cannot be named so (%s): it is %s", path, strerror(errno), part);
        unnamed = 1;
    }
    double t_end = PMPI_Wtime();
    c[5] = cpu_now();
    /* The whole and its steps' times, each the slowest rank's (the steps: INSTR_VERBOSE=2). */
    double steps[6] = {t_end - t0, t_unified - t0, t_bcast - t_unified, t_mapped - t_bcast,
                       t_summary - t_mapped, t_end - t_summary}, steps_max[6] = {0};
    /* And each step's CPU time summed over the ranks: against the wall time times the cores,
     * what the ranks spent computing and what waiting cost. */
    double cpu[6] = {c[5] - c[0], c[1] - c[0], c[2] - c[1], c[3] - c[2], c[4] - c[3],
                     c[5] - c[4]}, cpu_sum[6] = {0};
    uint64_t w[14];
    unsigned char ops[14];
    for (int i = 0; i < 6; i++) {
        memcpy(&w[i], &steps[i], 8);
        memcpy(&w[6 + i], &cpu[i], 8);
        ops[i] = INSTR_JOB_FMAX;
        ops[6 + i] = INSTR_JOB_FSUM;
    }
    /* and how the ranks' naps ended so far: by a doorbell's ring or at their timeout */
    instr_mpi_wait_counts(&w[12], &w[13]);
    ops[12] = ops[13] = INSTR_JOB_SUM;
    instr_job_tree_allreduce(w, ops, 14, 0, rank, size, comm, TAG_DEFS);
    for (int i = 0; i < 6; i++) {
        memcpy(&steps_max[i], &w[i], 8);
        memcpy(&cpu_sum[i], &w[6 + i], 8);
    }
    double slowest = steps_max[0], unif_max = steps_max[1];
    result = any_failed || unnamed ? -1 : 1;
    if (rank == 0) {
        if (any_failed)
            say("job database %s is unfinished (a write failed: %s); its size field stays 0; the "
                "ranks' own profiles are in %s/rank-*", part,
                err_no ? strerror(err_no) : "on another rank", dir);
        else if (presence)
            say_absent(presence, size, path);
        if (!any_failed && instr_ext_verbose() >= 1)
            say("job database %s: %d ranks (%d present), %u call paths, %llu rows, "
                "definitions unified in %u rounds (%.3f s), written in %.3f s (slowest rank)",
                path, size, npresent, u.npath, (unsigned long long)(total / lay.row_bytes),
                hi.rounds, unif_max, slowest);
        if (!any_failed && instr_ext_verbose() >= 2)
            say("job database %s steps (slowest rank each): unification %.3f s, union's ids "
                "down the tree %.3f s, rows mapped %.3f s, summary %.3f s, offsets and file %.3f s",
                path, steps_max[1], steps_max[2], steps_max[3], steps_max[4], steps_max[5]);
        if (!any_failed && instr_ext_verbose() >= 2)
            say("job database %s CPU time summed over the ranks: %.3f s (unification %.3f s, "
                "ids down %.3f s, mapping %.3f s, summary %.3f s, offsets and file %.3f s)",
                path, cpu_sum[0], cpu_sum[1], cpu_sum[2], cpu_sum[3], cpu_sum[4], cpu_sum[5]);
        if (!any_failed && instr_ext_verbose() >= 2)
            say("job database %s waits of the job's end so far, all ranks: %llu naps cut short "
                "by a doorbell, %llu ended at their timeout", path, (unsigned long long)w[12],
                (unsigned long long)w[13]);
    }
done:
    instr_mpi_jobdb_pruned_free(&pr);
    instr_mem_free(presence);
    instr_mem_free(sum);
    instr_jdb_rows_free(&rows);
    instr_jdb_local_free(&local);
    instr_jdb_defs_free(&u);
    return result;
}
