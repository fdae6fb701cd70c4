/* jdb_view.h — the job database (profile.jdb, jobdb.h) mapped read-only by rank 0 and its
 * header's sections checked (tree_from_jdb.c): what the job's profile is read back from,
 * its tree (tree_from_jdb.c) and, above INSTR_JOB_PROFILE_MAX_RANKS, its profile.cubex's
 * values rank by rank (cube_from_jdb.c). Not a public interface. */
#ifndef INSTR_RT_JOB_JDB_VIEW_H
#define INSTR_RT_JOB_JDB_VIEW_H

#include <stdint.h>
#include <string.h>

typedef struct jdb_view {
    const unsigned char *p;
    uint64_t size;
    uint32_t nranks, nregions, npaths, ncols, rowsize;
    uint64_t duration, strings, slen, regions, paths, columns, summary, index, rows;
} jdb_view;

static inline uint32_t instr_jdb_rd32(const unsigned char *p) { uint32_t v; memcpy(&v, p, 4); return v; }
static inline uint64_t instr_jdb_rd64(const unsigned char *p) { uint64_t v; memcpy(&v, p, 8); return v; }

/* Maps the file at path into v and checks its header and sections: NULL when fine, else
 * what is wrong (v is unmapped then; err: the errno text when it could not be read). */
const char *instr_jdb_view_map(jdb_view *v, const char *path);
void instr_jdb_view_unmap(jdb_view *v);
/* Whether [off, off + n * rec) lies inside the file after the header. */
int instr_jdb_view_inside(const jdb_view *v, uint64_t off, uint64_t n, uint64_t rec);
/* The column named name followed by suffix, or -1. */
int32_t instr_jdb_view_col(const jdb_view *v, const char *name, const char *suffix);

#endif
