/* io_stdio.c — I/O recording's ISO C functions (INSTR_IO=stdio, docs/io.md): fopen, fdopen,
 * fclose, fread, fwrite, fputs, puts, fputc, putc, fgets, fgetc, getc, fprintf, vfprintf,
 * printf, fflush, fseek, fseeko, with the 64-bit names and the checking forms
 * _FORTIFY_SOURCE calls. Not recorded (docs/io.md): the scanf family, getline, ungetc,
 * putchar/getchar, vprintf, the _unlocked forms and freopen. A stream's file is its
 * descriptor's (fileno). The C library's stdio calls its own read and write internally: a
 * stream's traffic is never counted again as POSIX I/O. */
#include "io.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define EXPORT __attribute__((visibility("default"), no_instrument_function))
#define RA() ((uintptr_t)__builtin_return_address(0))
#define OFF __builtin_expect(!(instr_io_mask & (1 << INSTR_IO_STDIO)), 1)
#define NOINLINE static __attribute__((noinline))

typedef FILE *(*fopen_fn)(const char *, const char *);
typedef FILE *(*fdopen_fn)(int, const char *);
typedef int (*fclose_fn)(FILE *);
typedef size_t (*fread_fn)(void *, size_t, size_t, FILE *);
typedef size_t (*fread_chk_fn)(void *, size_t, size_t, size_t, FILE *);
typedef int (*fputs_fn)(const char *, FILE *);
typedef int (*puts_fn)(const char *);
typedef int (*fputc_fn)(int, FILE *);
typedef char *(*fgets_fn)(char *, int, FILE *);
typedef char *(*fgets_chk_fn)(char *, size_t, int, FILE *);
typedef int (*fgetc_fn)(FILE *);
typedef int (*vfprintf_fn)(FILE *, const char *, va_list);
typedef int (*vfprintf_chk_fn)(FILE *, int, const char *, va_list);
typedef int (*fseek_fn)(FILE *, long, int);
typedef int (*fseeko_fn)(FILE *, off_t, int);

static void end(const instr_iorec_call *c, enum instr_io_fn fn, instr_iorec_what w)
{
    int e = errno;
    instr_iorec_end(c, fn, &w);
    errno = e;
}

static int fd_of(FILE *fp) { return fp ? fileno(fp) : -1; }

/* ---- open and close ---- */

NOINLINE FILE *rec_fopen(enum instr_io_fn fn, const char *path, int fd, const char *mode,
                         uintptr_t ra)
{
    instr_iorec_call c;
    int rec = instr_iorec_begin(&c, ra);
    FILE *f = fn == INSTR_IOF_FDOPEN ? ((fdopen_fn)instr_io_real(fn))(fd, mode)
                                     : ((fopen_fn)instr_io_real(fn))(path, mode);
    if (rec)
        end(&c, fn, (instr_iorec_what){.fd = fd, .path = path, .new_fd = path ? fd_of(f) : -1,
                                       .failed = !f});
    return f;
}

EXPORT FILE *fopen(const char *path, const char *mode)
{
    if (OFF)
        return ((fopen_fn)instr_io_real(INSTR_IOF_FOPEN))(path, mode);
    return rec_fopen(INSTR_IOF_FOPEN, path, -1, mode, RA());
}

EXPORT FILE *fopen64(const char *path, const char *mode)
{
    if (OFF)
        return ((fopen_fn)instr_io_real(INSTR_IOF_FOPEN64))(path, mode);
    return rec_fopen(INSTR_IOF_FOPEN64, path, -1, mode, RA());
}

EXPORT FILE *fdopen(int fd, const char *mode)
{
    if (OFF)
        return ((fdopen_fn)instr_io_real(INSTR_IOF_FDOPEN))(fd, mode);
    return rec_fopen(INSTR_IOF_FDOPEN, NULL, fd, mode, RA());
}

NOINLINE int rec_fclose(FILE *fp, uintptr_t ra)
{
    instr_iorec_call c;
    int rec = instr_iorec_begin(&c, ra);
    int fd = rec ? fd_of(fp) : -1; /* before the stream is gone */
    int r = ((fclose_fn)instr_io_real(INSTR_IOF_FCLOSE))(fp);
    if (rec)
        end(&c, INSTR_IOF_FCLOSE,
            (instr_iorec_what){.fd = fd, .new_fd = -1, .closes = 1, .failed = r != 0});
    return r;
}

EXPORT int fclose(FILE *fp)
{
    if (OFF)
        return ((fclose_fn)instr_io_real(INSTR_IOF_FCLOSE))(fp);
    return rec_fclose(fp, RA());
}

/* ---- reading and writing: every form funnels into one recorder per shape ---- */

/* A stream's call that moved bytes: failed when `failed`. */
static void moved(const instr_iorec_call *c, enum instr_io_fn fn, FILE *fp, int failed,
                  uint64_t requested, uint64_t bytes)
{
    end(c, fn, (instr_iorec_what){.fd = fd_of(fp), .new_fd = -1, .failed = failed,
                                  .requested = requested, .bytes = bytes});
}

NOINLINE size_t rec_fread(enum instr_io_fn fn, void *p, size_t size, size_t n, size_t buflen,
                          FILE *fp, uintptr_t ra)
{
    instr_iorec_call c;
    int rec = instr_iorec_begin(&c, ra);
    size_t r;
    switch (fn) {
    case INSTR_IOF_FREAD_CHK:
        r = ((fread_chk_fn)instr_io_real(fn))(p, buflen, size, n, fp);
        break;
    default:
        r = ((fread_fn)instr_io_real(fn))(p, size, n, fp);
    }
    if (rec) {
        /* Fewer items than asked: at the end of the file (not a failure) or an error. */
        int failed = r < n && (fn == INSTR_IOF_FWRITE || ferror(fp));
        moved(&c, fn, fp, failed, (uint64_t)size * n, (uint64_t)size * r);
    }
    return r;
}

EXPORT size_t fread(void *p, size_t size, size_t n, FILE *fp)
{
    if (OFF)
        return ((fread_fn)instr_io_real(INSTR_IOF_FREAD))(p, size, n, fp);
    return rec_fread(INSTR_IOF_FREAD, p, size, n, 0, fp, RA());
}

EXPORT size_t __fread_chk(void *p, size_t buflen, size_t size, size_t n, FILE *fp)
{
    if (OFF)
        return ((fread_chk_fn)instr_io_real(INSTR_IOF_FREAD_CHK))(p, buflen, size, n, fp);
    return rec_fread(INSTR_IOF_FREAD_CHK, p, size, n, buflen, fp, RA());
}

EXPORT size_t fwrite(const void *p, size_t size, size_t n, FILE *fp)
{
    if (OFF)
        return ((fread_fn)instr_io_real(INSTR_IOF_FWRITE))((void *)p, size, n, fp);
    return rec_fread(INSTR_IOF_FWRITE, (void *)p, size, n, 0, fp, RA());
}

NOINLINE int rec_fputs(enum instr_io_fn fn, const char *s, FILE *fp, uintptr_t ra)
{
    instr_iorec_call c;
    int rec = instr_iorec_begin(&c, ra);
    int r = fn == INSTR_IOF_PUTS ? ((puts_fn)instr_io_real(fn))(s)
                                 : ((fputs_fn)instr_io_real(fn))(s, fp);
    if (rec) {
        uint64_t n = strlen(s) + (fn == INSTR_IOF_PUTS); /* puts adds a newline */
        moved(&c, fn, fn == INSTR_IOF_PUTS ? stdout : fp, r == EOF, n, r == EOF ? 0 : n);
    }
    return r;
}

EXPORT int fputs(const char *s, FILE *fp)
{
    if (OFF)
        return ((fputs_fn)instr_io_real(INSTR_IOF_FPUTS))(s, fp);
    return rec_fputs(INSTR_IOF_FPUTS, s, fp, RA());
}

EXPORT int puts(const char *s)
{
    if (OFF)
        return ((puts_fn)instr_io_real(INSTR_IOF_PUTS))(s);
    return rec_fputs(INSTR_IOF_PUTS, s, NULL, RA());
}

NOINLINE int rec_fputc(enum instr_io_fn fn, int ch, FILE *fp, uintptr_t ra)
{
    instr_iorec_call c;
    int rec = instr_iorec_begin(&c, ra);
    int r = ((fputc_fn)instr_io_real(fn))(ch, fp);
    if (rec)
        moved(&c, fn, fp, r == EOF, 1, r == EOF ? 0 : 1);
    return r;
}

EXPORT int fputc(int ch, FILE *fp)
{
    if (OFF)
        return ((fputc_fn)instr_io_real(INSTR_IOF_FPUTC))(ch, fp);
    return rec_fputc(INSTR_IOF_FPUTC, ch, fp, RA());
}

EXPORT int putc(int ch, FILE *fp)
{
    if (OFF)
        return ((fputc_fn)instr_io_real(INSTR_IOF_PUTC))(ch, fp);
    return rec_fputc(INSTR_IOF_PUTC, ch, fp, RA());
}

NOINLINE char *rec_fgets(enum instr_io_fn fn, char *s, int n, size_t buflen, FILE *fp,
                         uintptr_t ra)
{
    instr_iorec_call c;
    int rec = instr_iorec_begin(&c, ra);
    char *r = fn == INSTR_IOF_FGETS_CHK ? ((fgets_chk_fn)instr_io_real(fn))(s, buflen, n, fp)
                                        : ((fgets_fn)instr_io_real(fn))(s, n, fp);
    if (rec)
        moved(&c, fn, fp, !r && ferror(fp), n > 0 ? (uint64_t)n - 1 : 0, r ? strlen(r) : 0);
    return r;
}

EXPORT char *fgets(char *s, int n, FILE *fp)
{
    if (OFF)
        return ((fgets_fn)instr_io_real(INSTR_IOF_FGETS))(s, n, fp);
    return rec_fgets(INSTR_IOF_FGETS, s, n, 0, fp, RA());
}

EXPORT char *__fgets_chk(char *s, size_t buflen, int n, FILE *fp)
{
    if (OFF)
        return ((fgets_chk_fn)instr_io_real(INSTR_IOF_FGETS_CHK))(s, buflen, n, fp);
    return rec_fgets(INSTR_IOF_FGETS_CHK, s, n, buflen, fp, RA());
}

NOINLINE int rec_fgetc(enum instr_io_fn fn, FILE *fp, uintptr_t ra)
{
    instr_iorec_call c;
    int rec = instr_iorec_begin(&c, ra);
    int r = ((fgetc_fn)instr_io_real(fn))(fp);
    if (rec)
        moved(&c, fn, fp, r == EOF && ferror(fp), 1, r == EOF ? 0 : 1);
    return r;
}

EXPORT int fgetc(FILE *fp)
{
    if (OFF)
        return ((fgetc_fn)instr_io_real(INSTR_IOF_FGETC))(fp);
    return rec_fgetc(INSTR_IOF_FGETC, fp, RA());
}

EXPORT int getc(FILE *fp)
{
    if (OFF)
        return ((fgetc_fn)instr_io_real(INSTR_IOF_GETC))(fp);
    return rec_fgetc(INSTR_IOF_GETC, fp, RA());
}

/* ---- formatted output: the C library's vfprintf (or __vfprintf_chk) does the work ---- */

/* flag < 0: vfprintf, else __vfprintf_chk with it. */
static int do_vfprintf(FILE *fp, int flag, const char *fmt, va_list ap)
{
    if (flag < 0)
        return ((vfprintf_fn)instr_io_real(INSTR_IOF_VFPRINTF))(fp, fmt, ap);
    return ((vfprintf_chk_fn)instr_io_real(INSTR_IOF_VFPRINTF_CHK))(fp, flag, fmt, ap);
}

NOINLINE int rec_vfprintf(enum instr_io_fn fn, FILE *fp, int flag, const char *fmt, va_list ap,
                          uintptr_t ra)
{
    instr_iorec_call c;
    int rec = instr_iorec_begin(&c, ra);
    int r = do_vfprintf(fp, flag, fmt, ap);
    if (rec)
        moved(&c, fn, fp, r < 0, r > 0 ? (uint64_t)r : 0, r > 0 ? (uint64_t)r : 0);
    return r;
}

#define VF(fn, fp, flag, last)                                                                  \
    va_list ap;                                                                                 \
    va_start(ap, last);                                                                         \
    int r = OFF ? do_vfprintf(fp, flag, fmt, ap) : rec_vfprintf(fn, fp, flag, fmt, ap, RA());   \
    va_end(ap);                                                                                 \
    return r;

EXPORT int fprintf(FILE *fp, const char *fmt, ...) { VF(INSTR_IOF_FPRINTF, fp, -1, fmt) }

EXPORT int printf(const char *fmt, ...) { VF(INSTR_IOF_PRINTF, stdout, -1, fmt) }

EXPORT int __fprintf_chk(FILE *fp, int flag, const char *fmt, ...)
{
    VF(INSTR_IOF_FPRINTF_CHK, fp, flag, fmt)
}

EXPORT int __printf_chk(int flag, const char *fmt, ...)
{
    VF(INSTR_IOF_PRINTF_CHK, stdout, flag, fmt)
}

EXPORT int vfprintf(FILE *fp, const char *fmt, va_list ap)
{
    if (OFF)
        return do_vfprintf(fp, -1, fmt, ap);
    return rec_vfprintf(INSTR_IOF_VFPRINTF, fp, -1, fmt, ap, RA());
}

EXPORT int __vfprintf_chk(FILE *fp, int flag, const char *fmt, va_list ap)
{
    if (OFF)
        return do_vfprintf(fp, flag, fmt, ap);
    return rec_vfprintf(INSTR_IOF_VFPRINTF_CHK, fp, flag, fmt, ap, RA());
}

/* ---- flush and seek ---- */

NOINLINE int rec_fflush(FILE *fp, uintptr_t ra)
{
    instr_iorec_call c;
    int rec = instr_iorec_begin(&c, ra);
    int r = ((fclose_fn)instr_io_real(INSTR_IOF_FFLUSH))(fp);
    if (rec)
        end(&c, INSTR_IOF_FFLUSH, (instr_iorec_what){.fd = fd_of(fp),
                                                     .path = fp ? NULL : "<all streams>",
                                                     .new_fd = -1, .failed = r != 0});
    return r;
}

EXPORT int fflush(FILE *fp)
{
    if (OFF)
        return ((fclose_fn)instr_io_real(INSTR_IOF_FFLUSH))(fp);
    return rec_fflush(fp, RA());
}

NOINLINE int rec_fseek(enum instr_io_fn fn, FILE *fp, off_t off, int whence, uintptr_t ra)
{
    instr_iorec_call c;
    int rec = instr_iorec_begin(&c, ra);
    int r = fn == INSTR_IOF_FSEEK ? ((fseek_fn)instr_io_real(fn))(fp, (long)off, whence)
                                  : ((fseeko_fn)instr_io_real(fn))(fp, off, whence);
    if (rec)
        moved(&c, fn, fp, r != 0, 0, 0);
    return r;
}

EXPORT int fseek(FILE *fp, long off, int whence)
{
    if (OFF)
        return ((fseek_fn)instr_io_real(INSTR_IOF_FSEEK))(fp, off, whence);
    return rec_fseek(INSTR_IOF_FSEEK, fp, off, whence, RA());
}

EXPORT int fseeko(FILE *fp, off_t off, int whence)
{
    if (OFF)
        return ((fseeko_fn)instr_io_real(INSTR_IOF_FSEEKO))(fp, off, whence);
    return rec_fseek(INSTR_IOF_FSEEKO, fp, off, whence, RA());
}

EXPORT int fseeko64(FILE *fp, off_t off, int whence)
{
    if (OFF)
        return ((fseeko_fn)instr_io_real(INSTR_IOF_FSEEKO64))(fp, off, whence);
    return rec_fseek(INSTR_IOF_FSEEKO64, fp, off, whence, RA());
}
