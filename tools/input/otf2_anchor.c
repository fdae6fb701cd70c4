/* otf2_anchor.c — the sanity check of an OTF2 anchor file before OTF2 reads it
 * (otf2_anchor.h; docs/tracing.md, "Damaged anchor files").
 *
 * The layout is OTF2's (3.x, anchor format 1 to 3): a buffer header (chunk-header byte 3, the
 * endianness byte 'B' little or '#' big), the string "OTF2", the anchor format (uint8), the
 * trace format and the version (4 × uint8), the chunk sizes of events and definitions
 * (2 × uint64), substrate and compression (2 × uint8), the numbers of locations and global
 * definitions (2 × uint64), three strings (machine, creator, description); from format 2 the
 * number of properties (uint32) and that many pairs of strings, and the trace id (uint64);
 * from format 3 the numbers of snapshots and thumbnails (2 × uint32) and the end-of-file
 * byte 2. Strings end with a NUL. */
#include "otf2_anchor.h"
#include "input_file.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct rd {
    const unsigned char *p;
    size_t n, at;
    int big;
    char *why;
    size_t whysize;
} rd;

static int fail(rd *r, const char *what)
{
    snprintf(r->why, r->whysize, "damaged OTF2 anchor file: %s at byte %zu", what, r->at);
    return -1;
}

static int u8(rd *r, unsigned *v)
{
    if (r->at + 1 > r->n)
        return fail(r, "cut short");
    *v = r->p[r->at++];
    return 0;
}

static int uint(rd *r, int bytes, uint64_t *v)
{
    if (r->at + (size_t)bytes > r->n)
        return fail(r, "cut short");
    uint64_t x = 0;
    for (int i = 0; i < bytes; i++) {
        unsigned b = r->p[r->at + (size_t)(r->big ? i : bytes - 1 - i)];
        x = x << 8 | b;
    }
    r->at += (size_t)bytes;
    *v = x;
    return 0;
}

/* A string that ends with a NUL inside the file. */
static int str(rd *r, const char **s)
{
    const unsigned char *end = memchr(r->p + r->at, 0, r->n - r->at);
    if (!end)
        return fail(r, "a string without its end");
    *s = (const char *)(r->p + r->at);
    r->at = (size_t)(end - r->p) + 1;
    return 0;
}

int instr_otf2_anchor_check_bytes(const void *data, size_t n, char *why, size_t whysize)
{
    rd r = {data, n, 0, 0, why, whysize};
    unsigned header, endian, format, b;
    uint64_t v, chunk_events, chunk_defs, locations, props;
    const char *s;
    if (n > INSTR_OTF2_ANCHOR_MAX)
        return fail(&r, "larger than 1 MiB");
    if (u8(&r, &header) || u8(&r, &endian))
        return -1;
    if (header != 3 || (endian != 0x42 && endian != 0x23))
        return fail(&r, "no OTF2 buffer header");
    r.big = endian == 0x23;
    if (str(&r, &s))
        return -1;
    if (strcmp(s, "OTF2") != 0)
        return fail(&r, "no OTF2 magic");
    if (u8(&r, &format))
        return -1;
    if (format == 0)
        return fail(&r, "anchor format 0");
    for (int i = 0; i < 4; i++) /* trace format, version major, minor, bugfix */
        if (u8(&r, &b))
            return -1;
    if (uint(&r, 8, &chunk_events) || uint(&r, 8, &chunk_defs))
        return -1;
    /* OTF2 writes chunks of 256 KiB to 16 MiB; a chunk size far from that range is damage
     * (and makes the readers step through the files in steps that never end). */
    if (chunk_events < 1024 || chunk_events > (1ull << 30) || chunk_defs < 1024 ||
        chunk_defs > (1ull << 30))
        return fail(&r, "a chunk size outside 1 KiB .. 1 GiB");
    unsigned substrate, compression;
    if (u8(&r, &substrate) || u8(&r, &compression))
        return -1;
    if (substrate > 3 || compression > 2)
        return fail(&r, "an unknown substrate or compression");
    if (uint(&r, 8, &locations) || uint(&r, 8, &v))
        return -1;
    if (locations > (1ull << 24))
        return fail(&r, "more than 16,777,216 locations");
    for (int i = 0; i < 3; i++) /* machine, creator, description */
        if (str(&r, &s))
            return -1;
    if (format > 1) {
        if (uint(&r, 4, &props))
            return -1;
        /* Each property is two strings, at least two bytes: a count the rest of the file
         * cannot hold is damage (OTF2 would allocate for it and read on past the end). */
        if (props > (r.n - r.at) / 2)
            return fail(&r, "more properties than the file can hold");
        for (uint64_t i = 0; i < 2 * props; i++)
            if (str(&r, &s))
                return -1;
        if (uint(&r, 8, &v)) /* trace id */
            return -1;
    }
    if (format > 2) {
        uint64_t snapshots, thumbnails;
        if (uint(&r, 4, &snapshots) || uint(&r, 4, &thumbnails))
            return -1;
        if (snapshots > (1u << 20) || thumbnails > (1u << 20))
            return fail(&r, "more than 1,048,576 snapshots or thumbnails");
        if (format == 3) {
            if (u8(&r, &b))
                return -1;
            if (b != 2)
                return fail(&r, "no end-of-file mark");
        }
    }
    return 0;
}

int instr_otf2_anchor_check(const char *path, char *why, size_t whysize)
{
    uint64_t size = 0;
    int fd = instr_input_open(path, &size, why, whysize);
    if (fd < 0)
        return -1;
    if (size > INSTR_OTF2_ANCHOR_MAX) {
        close(fd);
        snprintf(why, whysize, "damaged OTF2 anchor file: %llu bytes, larger than 1 MiB",
                 (unsigned long long)size);
        return -1;
    }
    unsigned char *buf = malloc(size + 1);
    size_t got = 0;
    while (buf && got < size) {
        ssize_t k = read(fd, buf + got, size - got);
        if (k <= 0)
            break;
        got += (size_t)k;
    }
    close(fd);
    int rc = -1;
    if (!buf)
        snprintf(why, whysize, "out of memory");
    else if (got != size)
        snprintf(why, whysize, "cannot read all of its %llu bytes", (unsigned long long)size);
    else
        rc = instr_otf2_anchor_check_bytes(buf, got, why, whysize);
    free(buf);
    return rc;
}
