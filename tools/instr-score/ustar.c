/* ustar.c — the members of a tar archive (ustar.h). */
#define _GNU_SOURCE /* pread */
#include "ustar.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static uint64_t octal(const unsigned char *p, size_t n, int *ok)
{
    if (p[0] & 0x80) { /* GNU base-256 for sizes of 8 GiB and more */
        uint64_t v = p[0] & 0x7f;
        for (size_t i = 1; i < n; i++) {
            if (v >> 56)
                *ok = 0; /* beyond 64 bits */
            v = v << 8 | p[i];
        }
        return v;
    }
    uint64_t v = 0;
    size_t i = 0;
    while (i < n && p[i] == ' ')
        i++;
    int digits = 0;
    for (; i < n && p[i] >= '0' && p[i] <= '7'; i++, digits++)
        v = v * 8 + (uint64_t)(p[i] - '0');
    if (!digits || (i < n && p[i] != ' ' && p[i] != '\0'))
        *ok = 0;
    return v;
}

int ustar_read_at(const ustar *a, void *buf, size_t len, uint64_t off)
{
    int fd = a->fd;
    size_t got = 0;
    while (got < len) {
        ssize_t r = pread(fd, (char *)buf + got, len - got, (off_t)(off + got));
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return -1;
        got += (size_t)r;
    }
    return 0;
}

int ustar_walk(ustar *a, uint64_t fsize, char *err, size_t errsize)
{
    size_t cap = 0;
    for (uint64_t off = 0;;) {
        unsigned char h[512];
        if (off + 512 > fsize) {
            if (off == fsize && a->n) /* no end blocks: tolerated, like tar does */
                return 0;
            snprintf(err, errsize, "%s: cut short at byte %llu (a tar header was expected)",
                     a->path, (unsigned long long)off);
            return -1;
        }
        if (ustar_read_at(a, h, sizeof h, off) != 0) {
            snprintf(err, errsize, "%s: %s", a->path, strerror(errno ? errno : EIO));
            return -1;
        }
        int zero = 1;
        for (size_t i = 0; i < sizeof h && zero; i++)
            zero = h[i] == 0;
        if (zero) {
            if (a->n)
                return 0;
            snprintf(err, errsize, "%s: an empty tar archive", a->path);
            return -1;
        }
        int ok = 1;
        uint64_t sum = octal(h + 148, 8, &ok), mine = 0;
        for (size_t i = 0; i < sizeof h; i++)
            mine += i >= 148 && i < 156 ? ' ' : h[i];
        uint64_t size = octal(h + 124, 12, &ok);
        if (!ok || sum != mine) {
            snprintf(err, errsize, "%s: not a tar archive (bad header at byte %llu)%s", a->path,
                     (unsigned long long)off,
                     off ? "; the file is damaged" : "; profile.cubex is a ustar archive");
            return -1;
        }
        if (size > fsize - off - 512) { /* fsize >= off + 512 here: no overflow */
            snprintf(err, errsize, "%s: member at byte %llu is cut short (the file is damaged "
                                   "or was not written to its end)", a->path, (unsigned long long)off);
            return -1;
        }
        if (h[156] == '0' || h[156] == '\0') {
            if (a->n == cap) {
                cap = cap ? 2 * cap : 32;
                ustar_member *m = realloc(a->m, cap * sizeof *m);
                if (!m) {
                    snprintf(err, errsize, "out of memory");
                    return -1;
                }
                a->m = m;
            }
            ustar_member *m = &a->m[a->n++];
            if (memcmp(h + 257, "ustar", 5) == 0 && h[345])
                snprintf(m->name, sizeof m->name, "%.155s/%.100s", (const char *)h + 345,
                         (const char *)h);
            else
                snprintf(m->name, sizeof m->name, "%.100s", (const char *)h);
            m->off = off + 512;
            m->size = size;
        }
        off += 512 + (size + 511) / 512 * 512;
    }
}

const ustar_member *ustar_find(const ustar *a, const char *name)
{
    for (size_t i = 0; i < a->n; i++)
        if (strcmp(a->m[i].name, name) == 0)
            return &a->m[i];
    return NULL;
}

char *ustar_load(const ustar *a, const ustar_member *m, uint64_t cap, char *err, size_t errsize)
{
    if (m->size > cap) {
        snprintf(err, errsize, "%s: %s is larger than instr-score reads (%llu bytes)", a->path,
                 m->name, (unsigned long long)m->size);
        return NULL;
    }
    char *buf = malloc((size_t)m->size + 1);
    if (!buf || ustar_read_at(a, buf, (size_t)m->size, m->off) != 0) {
        snprintf(err, errsize, "%s: %s: %s", a->path, m->name,
                 buf ? "could not be read" : "out of memory");
        free(buf);
        return NULL;
    }
    buf[m->size] = '\0';
    return buf;
}

