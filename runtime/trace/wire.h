/* wire.h — the byte buffers of an MPI job's trace definitions as they travel between the ranks
 * (job.c writes this rank's, runtime/job/trace_unify.c reads them on rank 0 and writes each
 * rank's mapping back): native-endian integers, strings with their length first. */
#ifndef INSTR_RT_TRACE_WIRE_H
#define INSTR_RT_TRACE_WIRE_H

#include "../util/array.h"
#include "../util/pages.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define INSTR_TRACE_BLOB_MAGIC 0x696e7472u /* "intr" */

typedef struct wbuf {
    char *p;
    size_t n, cap;
    int failed;
} wbuf;

static inline void instr_wire_put(wbuf *b, const void *data, size_t len)
{
    if (b->failed)
        return;
    if (instr_array_grow(&b->p, &b->cap, b->n + len, 1, 4096) != 0) {
        b->failed = 1;
        return;
    }
    memcpy(b->p + b->n, data, len);
    b->n += len;
}

static inline void put32(wbuf *b, uint32_t v) { instr_wire_put(b, &v, sizeof v); }
static inline void put64(wbuf *b, uint64_t v) { instr_wire_put(b, &v, sizeof v); }
static inline void putstr(wbuf *b, const char *s)
{
    s = s ? s : "";
    uint32_t len = (uint32_t)strlen(s);
    put32(b, len);
    instr_wire_put(b, s, len);
}

typedef struct rbuf {
    const char *p;
    size_t n, at;
    int bad;
} rbuf;

static inline int instr_wire_get(rbuf *b, void *out, size_t len)
{
    if (b->bad || b->n - b->at < len) {
        b->bad = 1;
        memset(out, 0, len);
        return -1;
    }
    memcpy(out, b->p + b->at, len);
    b->at += len;
    return 0;
}

static inline uint32_t get32(rbuf *b)
{
    uint32_t v;
    instr_wire_get(b, &v, sizeof v);
    return v;
}

static inline uint64_t get64(rbuf *b)
{
    uint64_t v;
    instr_wire_get(b, &v, sizeof v);
    return v;
}

/* A copy of the next string (NULL when malformed or out of memory). */
static inline char *getstr(rbuf *b)
{
    uint32_t len = get32(b);
    if (b->bad || b->n - b->at < len) {
        b->bad = 1;
        return NULL;
    }
    char *s = instr_mem_alloc((size_t)len + 1);
    if (!s) {
        b->bad = 1;
        return NULL;
    }
    memcpy(s, b->p + b->at, len);
    s[len] = '\0';
    b->at += len;
    return s;
}

#endif
