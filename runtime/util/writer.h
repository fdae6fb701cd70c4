/* writer.h — buffered output without stdio (writer.c, docs/runtime.md "The runtime's
 * memory").
 *
 * stdio takes every FILE (fopen, fdopen, fopencookie, open_memstream) and, for most of
 * them, its buffer from malloc: the program's heap. The runtime's end-of-run files, its
 * in-memory documents (the CUBE anchor, a rank's job blob) and the HTML page's escaped JSON
 * go through this writer instead, whose buffer comes from the runtime's pages. Formatting is
 * vsnprintf's into that buffer, so the bytes are those fprintf would write.
 *
 * A writer either passes its buffer to a sink when full (a file descriptor, or a function of
 * the caller's), or keeps growing it (memory: the whole text at the end). A failure is kept,
 * not returned by each call: the first errno stays in `err`, later output is counted in
 * `bytes` and dropped, so a writer needs no error handling between its lines. */
#ifndef INSTR_UTIL_WRITER_H
#define INSTR_UTIL_WRITER_H

#include <stddef.h>
#include <stdint.h>

/* Takes len bytes; 0, or the errno of the failure (then nothing more is passed to it). */
typedef int (*instr_writer_sink)(void *arg, const char *data, size_t len);

typedef struct instr_writer {
    char *buf;
    size_t len, cap;
    instr_writer_sink sink; /* NULL: memory, the buffer grows */
    void *arg;
    int err;        /* first errno (a failed sink, no memory), 0 */
    uint64_t bytes; /* everything written to the writer, failed or not */
} instr_writer;

/* Buffered towards sink(arg, ...), a buffer of `cap` bytes (0: the default, 64 KiB). 0, or
 * -1 when there is no memory for the buffer (w->err is ENOMEM; the calls below then count
 * and drop). */
int instr_writer_open(instr_writer *w, instr_writer_sink sink, void *arg, size_t cap);
/* Into memory: the text is taken with instr_writer_take. 0, or -1 as above. */
int instr_writer_open_mem(instr_writer *w);

/* The sink that writes to a file descriptor: arg is a pointer to the int descriptor. Writes
 * everything (EINTR and short writes retried) or returns the errno (EIO for a write of 0). */
int instr_writer_fd_sink(void *arg, const char *data, size_t len);

void instr_wr_write(instr_writer *w, const void *data, size_t len);
void instr_wr_puts(instr_writer *w, const char *s);
void instr_wr_putc(instr_writer *w, int c);
void instr_wr_printf(instr_writer *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Passes what is buffered to the sink (nothing for memory). w->err, or 0. */
int instr_writer_flush(instr_writer *w);
/* Flushes and releases the buffer (a memory writer's text too, if not taken). w->err, or 0. */
int instr_writer_close(instr_writer *w);
/* A memory writer's text, NUL-terminated, its length into *len (may be NULL): a block of the
 * runtime's pages for instr_mem_free; NULL after a failure (the text is released). The writer
 * is closed. */
char *instr_writer_take(instr_writer *w, size_t *len);

#endif
