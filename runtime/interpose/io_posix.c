/* io_posix.c — I/O recording's POSIX functions (INSTR_IO=posix, docs/io.md): open, openat,
 * creat, close, read, write, pread, pwrite, readv, writev, lseek, fsync, fdatasync, dup, dup2,
 * dup3, unlink, with the 64-bit names the C library has for them (open64, pread64, ...) and
 * the checking forms _FORTIFY_SOURCE calls (__read_chk, __pread_chk). Each forwards to the C
 * library's function; recording (io.c) wraps the call when the paradigm is on. errno is the
 * C library's. */
#include "io.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <unistd.h>

#define EXPORT __attribute__((visibility("default"), no_instrument_function))
#define RA() ((uintptr_t)__builtin_return_address(0))
#define OFF __builtin_expect(!(instr_io_mask & (1 << INSTR_IO_POSIX)), 1)
#define NOINLINE static __attribute__((noinline))

typedef int (*open_fn)(const char *, int, ...);
typedef int (*openat_fn)(int, const char *, int, ...);
typedef int (*creat_fn)(const char *, mode_t);
typedef int (*fd_fn)(int);
typedef int (*dup2_fn)(int, int);
typedef int (*dup3_fn)(int, int, int);
typedef ssize_t (*rw_fn)(int, void *, size_t);
typedef ssize_t (*rw_chk_fn)(int, void *, size_t, size_t);
typedef ssize_t (*prw_fn)(int, void *, size_t, off_t);
typedef ssize_t (*prw_chk_fn)(int, void *, size_t, off_t, size_t);
typedef ssize_t (*rwv_fn)(int, const struct iovec *, int);
typedef off_t (*lseek_fn)(int, off_t, int);
typedef int (*unlink_fn)(const char *);

static void end(const instr_iorec_call *c, enum instr_io_fn fn, instr_iorec_what w)
{
    int e = errno;
    instr_iorec_end(c, fn, &w);
    errno = e;
}

static int wants_mode(int flags)
{
#ifdef O_TMPFILE
    if ((flags & O_TMPFILE) == O_TMPFILE)
        return 1;
#endif
    return (flags & O_CREAT) != 0;
}

/* ---- open, close, dup, unlink ---- */

NOINLINE int rec_open(enum instr_io_fn fn, int dirfd, const char *path, int flags, mode_t mode,
                      uintptr_t ra)
{
    instr_iorec_call c;
    int rec = instr_iorec_begin(&c, ra);
    int r;
    switch (fn) {
    case INSTR_IOF_OPENAT:
    case INSTR_IOF_OPENAT64:
        r = ((openat_fn)instr_io_real(fn))(dirfd, path, flags, mode);
        break;
    case INSTR_IOF_CREAT:
    case INSTR_IOF_CREAT64:
        r = ((creat_fn)instr_io_real(fn))(path, mode);
        break;
    default:
        r = ((open_fn)instr_io_real(fn))(path, flags, mode);
    }
    if (rec)
        end(&c, fn, (instr_iorec_what){.fd = -1, .path = path, .new_fd = r, .failed = r < 0});
    return r;
}

#define OPEN_MODE(flags)                                                                        \
    mode_t mode = 0;                                                                            \
    if (wants_mode(flags)) {                                                                    \
        va_list ap;                                                                             \
        va_start(ap, flags);                                                                    \
        mode = (mode_t)va_arg(ap, int);                                                         \
        va_end(ap);                                                                             \
    }

EXPORT int open(const char *path, int flags, ...)
{
    OPEN_MODE(flags)
    if (OFF)
        return ((open_fn)instr_io_real(INSTR_IOF_OPEN))(path, flags, mode);
    return rec_open(INSTR_IOF_OPEN, AT_FDCWD, path, flags, mode, RA());
}

EXPORT int open64(const char *path, int flags, ...)
{
    OPEN_MODE(flags)
    if (OFF)
        return ((open_fn)instr_io_real(INSTR_IOF_OPEN64))(path, flags, mode);
    return rec_open(INSTR_IOF_OPEN64, AT_FDCWD, path, flags, mode, RA());
}

EXPORT int openat(int dirfd, const char *path, int flags, ...)
{
    OPEN_MODE(flags)
    if (OFF)
        return ((openat_fn)instr_io_real(INSTR_IOF_OPENAT))(dirfd, path, flags, mode);
    return rec_open(INSTR_IOF_OPENAT, dirfd, path, flags, mode, RA());
}

EXPORT int openat64(int dirfd, const char *path, int flags, ...)
{
    OPEN_MODE(flags)
    if (OFF)
        return ((openat_fn)instr_io_real(INSTR_IOF_OPENAT64))(dirfd, path, flags, mode);
    return rec_open(INSTR_IOF_OPENAT64, dirfd, path, flags, mode, RA());
}

EXPORT int creat(const char *path, mode_t mode)
{
    if (OFF)
        return ((creat_fn)instr_io_real(INSTR_IOF_CREAT))(path, mode);
    return rec_open(INSTR_IOF_CREAT, AT_FDCWD, path, 0, mode, RA());
}

EXPORT int creat64(const char *path, mode_t mode)
{
    if (OFF)
        return ((creat_fn)instr_io_real(INSTR_IOF_CREAT64))(path, mode);
    return rec_open(INSTR_IOF_CREAT64, AT_FDCWD, path, 0, mode, RA());
}

/* close, fsync, fdatasync, dup. */
NOINLINE int rec_fd(enum instr_io_fn fn, int fd, uintptr_t ra)
{
    instr_iorec_call c;
    int rec = instr_iorec_begin(&c, ra);
    int r = ((fd_fn)instr_io_real(fn))(fd);
    if (rec)
        end(&c, fn, (instr_iorec_what){.fd = fd, .new_fd = fn == INSTR_IOF_DUP ? r : -1,
                                       .closes = fn == INSTR_IOF_CLOSE && r == 0,
                                       .failed = r < 0});
    return r;
}

EXPORT int close(int fd)
{
    if (OFF)
        return ((fd_fn)instr_io_real(INSTR_IOF_CLOSE))(fd);
    return rec_fd(INSTR_IOF_CLOSE, fd, RA());
}

EXPORT int fsync(int fd)
{
    if (OFF)
        return ((fd_fn)instr_io_real(INSTR_IOF_FSYNC))(fd);
    return rec_fd(INSTR_IOF_FSYNC, fd, RA());
}

EXPORT int fdatasync(int fd)
{
    if (OFF)
        return ((fd_fn)instr_io_real(INSTR_IOF_FDATASYNC))(fd);
    return rec_fd(INSTR_IOF_FDATASYNC, fd, RA());
}

EXPORT int dup(int fd)
{
    if (OFF)
        return ((fd_fn)instr_io_real(INSTR_IOF_DUP))(fd);
    return rec_fd(INSTR_IOF_DUP, fd, RA());
}

NOINLINE int rec_dup23(enum instr_io_fn fn, int old, int fd, int flags, uintptr_t ra)
{
    instr_iorec_call c;
    int rec = instr_iorec_begin(&c, ra);
    int r = fn == INSTR_IOF_DUP2 ? ((dup2_fn)instr_io_real(fn))(old, fd)
                                 : ((dup3_fn)instr_io_real(fn))(old, fd, flags);
    if (rec)
        end(&c, fn, (instr_iorec_what){.fd = old, .new_fd = r, .failed = r < 0});
    return r;
}

EXPORT int dup2(int old, int fd)
{
    if (OFF)
        return ((dup2_fn)instr_io_real(INSTR_IOF_DUP2))(old, fd);
    return rec_dup23(INSTR_IOF_DUP2, old, fd, 0, RA());
}

EXPORT int dup3(int old, int fd, int flags)
{
    if (OFF)
        return ((dup3_fn)instr_io_real(INSTR_IOF_DUP3))(old, fd, flags);
    return rec_dup23(INSTR_IOF_DUP3, old, fd, flags, RA());
}

NOINLINE int rec_unlink(const char *path, uintptr_t ra)
{
    instr_iorec_call c;
    int rec = instr_iorec_begin(&c, ra);
    int r = ((unlink_fn)instr_io_real(INSTR_IOF_UNLINK))(path);
    if (rec)
        end(&c, INSTR_IOF_UNLINK,
            (instr_iorec_what){.fd = -1, .path = path, .new_fd = -1, .failed = r < 0});
    return r;
}

EXPORT int unlink(const char *path)
{
    if (OFF)
        return ((unlink_fn)instr_io_real(INSTR_IOF_UNLINK))(path);
    return rec_unlink(path, RA());
}

/* ---- read and write ---- */

/* read, write, __read_chk (buflen: its buffer's size), pread, pwrite, __pread_chk. */
NOINLINE ssize_t rec_rw(enum instr_io_fn fn, int fd, void *buf, size_t n, off_t off,
                        size_t buflen, uintptr_t ra)
{
    instr_iorec_call c;
    int rec = instr_iorec_begin(&c, ra);
    ssize_t r;
    switch (fn) {
    case INSTR_IOF_READ_CHK:
        r = ((rw_chk_fn)instr_io_real(fn))(fd, buf, n, buflen);
        break;
    case INSTR_IOF_PREAD:
    case INSTR_IOF_PREAD64:
    case INSTR_IOF_PWRITE:
    case INSTR_IOF_PWRITE64:
        r = ((prw_fn)instr_io_real(fn))(fd, buf, n, off);
        break;
    case INSTR_IOF_PREAD_CHK:
    case INSTR_IOF_PREAD64_CHK:
        r = ((prw_chk_fn)instr_io_real(fn))(fd, buf, n, off, buflen);
        break;
    default:
        r = ((rw_fn)instr_io_real(fn))(fd, buf, n);
    }
    if (rec)
        end(&c, fn, (instr_iorec_what){.fd = fd, .new_fd = -1, .failed = r < 0, .requested = n,
                                       .bytes = r > 0 ? (uint64_t)r : 0});
    return r;
}

EXPORT ssize_t read(int fd, void *buf, size_t n)
{
    if (OFF)
        return ((rw_fn)instr_io_real(INSTR_IOF_READ))(fd, buf, n);
    return rec_rw(INSTR_IOF_READ, fd, buf, n, 0, 0, RA());
}

EXPORT ssize_t write(int fd, const void *buf, size_t n)
{
    if (OFF)
        return ((rw_fn)instr_io_real(INSTR_IOF_WRITE))(fd, (void *)buf, n);
    return rec_rw(INSTR_IOF_WRITE, fd, (void *)buf, n, 0, 0, RA());
}

EXPORT ssize_t __read_chk(int fd, void *buf, size_t n, size_t buflen)
{
    if (OFF)
        return ((rw_chk_fn)instr_io_real(INSTR_IOF_READ_CHK))(fd, buf, n, buflen);
    return rec_rw(INSTR_IOF_READ_CHK, fd, buf, n, 0, buflen, RA());
}

EXPORT ssize_t pread(int fd, void *buf, size_t n, off_t off)
{
    if (OFF)
        return ((prw_fn)instr_io_real(INSTR_IOF_PREAD))(fd, buf, n, off);
    return rec_rw(INSTR_IOF_PREAD, fd, buf, n, off, 0, RA());
}

EXPORT ssize_t pread64(int fd, void *buf, size_t n, off_t off)
{
    if (OFF)
        return ((prw_fn)instr_io_real(INSTR_IOF_PREAD64))(fd, buf, n, off);
    return rec_rw(INSTR_IOF_PREAD64, fd, buf, n, off, 0, RA());
}

EXPORT ssize_t pwrite(int fd, const void *buf, size_t n, off_t off)
{
    if (OFF)
        return ((prw_fn)instr_io_real(INSTR_IOF_PWRITE))(fd, (void *)buf, n, off);
    return rec_rw(INSTR_IOF_PWRITE, fd, (void *)buf, n, off, 0, RA());
}

EXPORT ssize_t pwrite64(int fd, const void *buf, size_t n, off_t off)
{
    if (OFF)
        return ((prw_fn)instr_io_real(INSTR_IOF_PWRITE64))(fd, (void *)buf, n, off);
    return rec_rw(INSTR_IOF_PWRITE64, fd, (void *)buf, n, off, 0, RA());
}

EXPORT ssize_t __pread_chk(int fd, void *buf, size_t n, off_t off, size_t buflen)
{
    if (OFF)
        return ((prw_chk_fn)instr_io_real(INSTR_IOF_PREAD_CHK))(fd, buf, n, off, buflen);
    return rec_rw(INSTR_IOF_PREAD_CHK, fd, buf, n, off, buflen, RA());
}

EXPORT ssize_t __pread64_chk(int fd, void *buf, size_t n, off_t off, size_t buflen)
{
    if (OFF)
        return ((prw_chk_fn)instr_io_real(INSTR_IOF_PREAD64_CHK))(fd, buf, n, off, buflen);
    return rec_rw(INSTR_IOF_PREAD64_CHK, fd, buf, n, off, buflen, RA());
}

NOINLINE ssize_t rec_rwv(enum instr_io_fn fn, int fd, const struct iovec *iov, int cnt,
                         uintptr_t ra)
{
    instr_iorec_call c;
    int rec = instr_iorec_begin(&c, ra);
    ssize_t r = ((rwv_fn)instr_io_real(fn))(fd, iov, cnt);
    if (rec) {
        uint64_t n = 0;
        for (int i = 0; i < cnt; i++)
            n += iov[i].iov_len;
        end(&c, fn, (instr_iorec_what){.fd = fd, .new_fd = -1, .failed = r < 0, .requested = n,
                                       .bytes = r > 0 ? (uint64_t)r : 0});
    }
    return r;
}

EXPORT ssize_t readv(int fd, const struct iovec *iov, int cnt)
{
    if (OFF)
        return ((rwv_fn)instr_io_real(INSTR_IOF_READV))(fd, iov, cnt);
    return rec_rwv(INSTR_IOF_READV, fd, iov, cnt, RA());
}

EXPORT ssize_t writev(int fd, const struct iovec *iov, int cnt)
{
    if (OFF)
        return ((rwv_fn)instr_io_real(INSTR_IOF_WRITEV))(fd, iov, cnt);
    return rec_rwv(INSTR_IOF_WRITEV, fd, iov, cnt, RA());
}

/* ---- lseek ---- */

NOINLINE off_t rec_lseek(enum instr_io_fn fn, int fd, off_t off, int whence, uintptr_t ra)
{
    instr_iorec_call c;
    int rec = instr_iorec_begin(&c, ra);
    off_t r = ((lseek_fn)instr_io_real(fn))(fd, off, whence);
    if (rec)
        end(&c, fn, (instr_iorec_what){.fd = fd, .new_fd = -1, .failed = r < 0});
    return r;
}

EXPORT off_t lseek(int fd, off_t off, int whence)
{
    if (OFF)
        return ((lseek_fn)instr_io_real(INSTR_IOF_LSEEK))(fd, off, whence);
    return rec_lseek(INSTR_IOF_LSEEK, fd, off, whence, RA());
}

EXPORT off_t lseek64(int fd, off_t off, int whence)
{
    if (OFF)
        return ((lseek_fn)instr_io_real(INSTR_IOF_LSEEK64))(fd, off, whence);
    return rec_lseek(INSTR_IOF_LSEEK64, fd, off, whence, RA());
}
