/* ustar.h — the members of a POSIX tar (ustar) archive, read in place: instr-score's cubex
 * reader (read_cubex.c) walks profile.cubex with it. Regular members only; GNU base-256
 * sizes are read, pax extended headers are skipped. */
#ifndef INSTR_SCORE_USTAR_H
#define INSTR_SCORE_USTAR_H

#include <stddef.h>
#include <stdint.h>

typedef struct ustar_member {
    char name[272]; /* prefix (155) / name (100) */
    uint64_t off, size;
} ustar_member;

typedef struct ustar {
    int fd;
    const char *path; /* for messages */
    ustar_member *m;
    size_t n;
} ustar;

/* Lists the members of the archive open as a->fd (fsize bytes). 0, or -1 with a message
 * saying where the archive is damaged. */
int ustar_walk(ustar *a, uint64_t fsize, char *err, size_t errsize);
/* The member called name, or NULL. */
const ustar_member *ustar_find(const ustar *a, const char *name);
/* A member's bytes (NUL-terminated, malloc'ed); NULL with a message when it is larger than
 * cap or cannot be read. */
char *ustar_load(const ustar *a, const ustar_member *m, uint64_t cap, char *err, size_t errsize);
/* len bytes at off of the archive; 0 or -1. */
int ustar_read_at(const ustar *a, void *buf, size_t len, uint64_t off);

#endif
