/* response_file.c — see response_file.h. The quoting follows libiberty's buildargv, which
 * GCC and clang (in its GNU mode) use for @file. */
#define _GNU_SOURCE /* O_CLOEXEC */
#include "response_file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void push(response_args *a, const char *s, size_t n)
{
    if (a->oom)
        return;
    if (a->n + 2 > a->cap) {
        int cap = a->cap ? 2 * a->cap : 32;
        char **g = realloc(a->v, (size_t)cap * sizeof *g);
        if (!g) {
            a->oom = 1;
            return;
        }
        a->v = g;
        a->cap = cap;
    }
    char *copy = malloc(n + 1);
    if (!copy) {
        a->oom = 1;
        return;
    }
    memcpy(copy, s, n);
    copy[n] = '\0';
    a->v[a->n++] = copy;
    a->v[a->n] = NULL;
}

static int is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

void response_split(const char *text, size_t size, response_args *out)
{
    char *word = malloc(size + 1);
    if (!word) {
        out->oom = 1;
        return;
    }
    size_t i = 0;
    while (i < size) {
        while (i < size && is_space(text[i]))
            i++;
        if (i >= size)
            break;
        size_t len = 0;
        char quote = 0;
        while (i < size && (quote || !is_space(text[i]))) {
            char c = text[i++];
            if (c == '\\' && i < size)
                word[len++] = text[i++];
            else if (quote && c == quote)
                quote = 0;
            else if (!quote && (c == '\'' || c == '"'))
                quote = c;
            else
                word[len++] = c;
        }
        push(out, word, len);
    }
    free(word);
}

/* The file's text, or NULL: *unreadable when it is not there to read (the argument then
 * stays as it is), else why says what is wrong with it. */
static char *read_response_file(const char *path, size_t *size, int *unreadable, char *why,
                                size_t why_size)
{
    *unreadable = 0;
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        if (fd >= 0)
            close(fd);
        *unreadable = 1;
        return NULL;
    }
    if ((unsigned long long)st.st_size > RESPONSE_FILE_MAX_BYTES) {
        snprintf(why, why_size, "@%s: the response file is %lld bytes, more than the limit of "
                 "%lu bytes (16 MiB)", path, (long long)st.st_size, RESPONSE_FILE_MAX_BYTES);
        close(fd);
        return NULL;
    }
    size_t cap = (size_t)st.st_size, len = 0;
    char *text = malloc(cap + 1);
    while (text && len < cap) {
        ssize_t got = read(fd, text + len, cap - len);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0)
            break; /* a file that shrank is read as far as it goes; one that grows, to its
                      size at fstat */
        len += (size_t)got;
    }
    close(fd);
    if (!text) {
        snprintf(why, why_size, "@%s: out of memory", path);
        return NULL;
    }
    *size = len;
    return text;
}

static int expand(int argc, char *const *argv, int depth, response_args *out, char *why,
                  size_t why_size)
{
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        if (a[0] != '@' || a[1] == '\0') {
            push(out, a, strlen(a));
            continue;
        }
        if (depth >= RESPONSE_FILE_MAX_DEPTH) {
            snprintf(why, why_size, "%s: response files nested more than %d deep (does one "
                     "name itself?)", a, RESPONSE_FILE_MAX_DEPTH);
            return -1;
        }
        size_t size = 0;
        int unreadable;
        char *text = read_response_file(a + 1, &size, &unreadable, why, why_size);
        if (!text) {
            if (!unreadable)
                return -1;
            push(out, a, strlen(a)); /* GCC passes it on as an argument */
            continue;
        }
        response_args inner = {0};
        response_split(text, size, &inner);
        free(text);
        int rc = inner.oom ? -1 : expand(inner.n, inner.v, depth + 1, out, why, why_size);
        if (inner.oom)
            snprintf(why, why_size, "%s: out of memory", a);
        response_args_free(&inner);
        if (rc != 0)
            return -1;
    }
    if (out->oom) {
        snprintf(why, why_size, "out of memory expanding response files");
        return -1;
    }
    return 0;
}

int response_expand(int argc, char *const *argv, response_args *out, char *why, size_t why_size)
{
    memset(out, 0, sizeof *out);
    out->v = calloc(1, sizeof *out->v); /* an empty, NULL-terminated list */
    if (!out->v) {
        snprintf(why, why_size, "out of memory expanding response files");
        return -1;
    }
    out->cap = 1;
    return expand(argc, argv, 0, out, why, why_size);
}

void response_args_free(response_args *a)
{
    for (int i = 0; i < a->n; i++)
        free(a->v[i]);
    free(a->v);
    memset(a, 0, sizeof *a);
}
