/* io_posix.c — I/O recording's POSIX functions (INSTR_IO=posix, docs/io.md): open, openat,
 * creat, close, read, write, pread, pwrite, readv, writev, preadv, pwritev, lseek, fsync,
 * fdatasync, dup, dup2, dup3, unlink, mmap of files, the stat family, with the 64-bit names the
 * C library has for them (open64, pread64, ...) and the checking forms _FORTIFY_SOURCE calls
 * (__read_chk, __pread_chk). Each forwards to the C library's function; recording (io.c)
 * wraps the call when the paradigm is on. errno is the C library's. */
#include "io.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
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

/* ---- preadv, pwritev ---- */

typedef ssize_t (*prwv_fn)(int, const struct iovec *, int, off_t);

NOINLINE ssize_t rec_prwv(enum instr_io_fn fn, int fd, const struct iovec *iov, int cnt,
                          off_t off, uintptr_t ra)
{
    instr_iorec_call c;
    int rec = instr_iorec_begin(&c, ra);
    ssize_t r = ((prwv_fn)instr_io_real(fn))(fd, iov, cnt, off);
    if (rec) {
        uint64_t n = 0;
        for (int i = 0; i < cnt; i++)
            n += iov[i].iov_len;
        end(&c, fn, (instr_iorec_what){.fd = fd, .new_fd = -1, .failed = r < 0, .requested = n,
                                       .bytes = r > 0 ? (uint64_t)r : 0});
    }
    return r;
}

EXPORT ssize_t preadv(int fd, const struct iovec *iov, int cnt, off_t off)
{
    if (OFF)
        return ((prwv_fn)instr_io_real(INSTR_IOF_PREADV))(fd, iov, cnt, off);
    return rec_prwv(INSTR_IOF_PREADV, fd, iov, cnt, off, RA());
}

EXPORT ssize_t preadv64(int fd, const struct iovec *iov, int cnt, off_t off)
{
    if (OFF)
        return ((prwv_fn)instr_io_real(INSTR_IOF_PREADV64))(fd, iov, cnt, off);
    return rec_prwv(INSTR_IOF_PREADV64, fd, iov, cnt, off, RA());
}

EXPORT ssize_t pwritev(int fd, const struct iovec *iov, int cnt, off_t off)
{
    if (OFF)
        return ((prwv_fn)instr_io_real(INSTR_IOF_PWRITEV))(fd, iov, cnt, off);
    return rec_prwv(INSTR_IOF_PWRITEV, fd, iov, cnt, off, RA());
}

EXPORT ssize_t pwritev64(int fd, const struct iovec *iov, int cnt, off_t off)
{
    if (OFF)
        return ((prwv_fn)instr_io_real(INSTR_IOF_PWRITEV64))(fd, iov, cnt, off);
    return rec_prwv(INSTR_IOF_PWRITEV64, fd, iov, cnt, off, RA());
}

/* ---- mmap ---- */

/* A mapping of a file is one operation on the descriptor's file, its bytes the length mapped
 * (the function's bytes: the page faults that move the data are not seen, so neither bytes
 * read nor written). An anonymous mapping is memory, not I/O: never recorded, so the
 * program's and its libraries' allocations cost one more test. munmap is not interposed. */
typedef void *(*mmap_fn)(void *, size_t, int, int, int, off_t);

NOINLINE void *rec_mmap(enum instr_io_fn fn, void *addr, size_t len, int prot, int flags, int fd,
                        off_t off, uintptr_t ra)
{
    instr_iorec_call c;
    int rec = instr_iorec_begin(&c, ra);
    void *r = ((mmap_fn)instr_io_real(fn))(addr, len, prot, flags, fd, off);
    if (rec)
        end(&c, fn, (instr_iorec_what){.fd = fd, .new_fd = -1, .failed = r == MAP_FAILED,
                                       .requested = len, .bytes = r == MAP_FAILED ? 0 : len});
    return r;
}

EXPORT void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
    if (OFF || (flags & MAP_ANONYMOUS))
        return ((mmap_fn)instr_io_real(INSTR_IOF_MMAP))(addr, len, prot, flags, fd, off);
    return rec_mmap(INSTR_IOF_MMAP, addr, len, prot, flags, fd, off, RA());
}

EXPORT void *mmap64(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
    if (OFF || (flags & MAP_ANONYMOUS))
        return ((mmap_fn)instr_io_real(INSTR_IOF_MMAP64))(addr, len, prot, flags, fd, off);
    return rec_mmap(INSTR_IOF_MMAP64, addr, len, prot, flags, fd, off, RA());
}

/* The runtime's own mappings (the page allocator, the trace's and the call-path tree's
 * chunks, the sampler's buffers, the ELF files it reads) never reach the wrappers above: the
 * shared library is linked with --wrap=mmap (runtime/CMakeLists.txt), which sends its own
 * references to mmap here, to the system call. So they cost no lookup, need no C library
 * function found first (a signal handler's first chunk), and are never the program's I/O.
 * (Not in the ThreadSanitizer and AddressSanitizer builds, whose interceptor must see every
 * mapping: there the wrapper lets them through as anonymous or the runtime's own.) */
void *__wrap_mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off);
void *__wrap_mmap64(void *addr, size_t len, int prot, int flags, int fd, off_t off);

static void *own_mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
#if defined(SYS_mmap) && UINTPTR_MAX == UINT64_MAX
    /* 64-bit Linux: the system call takes the arguments as they are; -1 and errno on failure
     * (MAP_FAILED), as the C library's */
    return (void *)syscall(SYS_mmap, addr, len, prot, flags, fd, off);
#else
    return ((mmap_fn)instr_io_real(INSTR_IOF_MMAP))(addr, len, prot, flags, fd, off);
#endif
}

__attribute__((visibility("hidden"), no_instrument_function)) void *
__wrap_mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
    return own_mmap(addr, len, prot, flags, fd, off);
}

__attribute__((visibility("hidden"), no_instrument_function)) void *
__wrap_mmap64(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
    return own_mmap(addr, len, prot, flags, fd, off);
}

/* ---- the stat family ---- */

/* An operation (no bytes) on the path's file as the program named it, or the descriptor's.
 * glibc's stat, fstat, lstat, fstatat (2.33 on) and the __xstat family that programs built
 * against older glibc call (ver: the struct's layout, passed on). */
enum stat_form { ST_PATH, ST_FD, ST_AT, ST_XPATH, ST_XFD, ST_XAT };
typedef int (*stat_fn)(const char *, void *);
typedef int (*fstat_fn)(int, void *);
typedef int (*fstatat_fn)(int, const char *, void *, int);
typedef int (*xstat_fn)(int, const char *, void *);
typedef int (*fxstat_fn)(int, int, void *);
typedef int (*fxstatat_fn)(int, int, const char *, void *, int);

static int stat_real(enum instr_io_fn fn, enum stat_form form, int ver, int fd,
                     const char *path, void *buf, int flags)
{
    void *f = instr_io_real(fn);
    switch (form) {
    case ST_PATH:
        return ((stat_fn)f)(path, buf);
    case ST_FD:
        return ((fstat_fn)f)(fd, buf);
    case ST_AT:
        return ((fstatat_fn)f)(fd, path, buf, flags);
    case ST_XPATH:
        return ((xstat_fn)f)(ver, path, buf);
    case ST_XFD:
        return ((fxstat_fn)f)(ver, fd, buf);
    default:
        return ((fxstatat_fn)f)(ver, fd, path, buf, flags);
    }
}

NOINLINE int rec_stat(enum instr_io_fn fn, enum stat_form form, int ver, int fd,
                      const char *path, void *buf, int flags, uintptr_t ra)
{
    instr_iorec_call c;
    int rec = instr_iorec_begin(&c, ra);
    int r = stat_real(fn, form, ver, fd, path, buf, flags);
    if (rec) {
        /* fstatat with an empty path (AT_EMPTY_PATH) is the descriptor's own */
        int on_fd = form == ST_FD || form == ST_XFD ||
                    ((form == ST_AT || form == ST_XAT) && path && !*path);
        end(&c, fn, (instr_iorec_what){.fd = on_fd ? fd : -1, .path = on_fd ? NULL : path,
                                       .new_fd = -1, .failed = r < 0});
    }
    return r;
}

/* Each forwards through stat_real when off, as the functions above do. */
#define ST_OFF_OR(fn, form, ver, fd, path, buf, flags)                                           \
    if (OFF)                                                                                    \
        return stat_real(fn, form, ver, fd, path, buf, flags);                                  \
    return rec_stat(fn, form, ver, fd, path, buf, flags, RA())

EXPORT int stat(const char *path, struct stat *buf)
{
    ST_OFF_OR(INSTR_IOF_STAT, ST_PATH, 0, -1, path, buf, 0);
}

EXPORT int stat64(const char *path, struct stat64 *buf)
{
    ST_OFF_OR(INSTR_IOF_STAT64, ST_PATH, 0, -1, path, buf, 0);
}

EXPORT int lstat(const char *path, struct stat *buf)
{
    ST_OFF_OR(INSTR_IOF_LSTAT, ST_PATH, 0, -1, path, buf, 0);
}

EXPORT int lstat64(const char *path, struct stat64 *buf)
{
    ST_OFF_OR(INSTR_IOF_LSTAT64, ST_PATH, 0, -1, path, buf, 0);
}

EXPORT int fstat(int fd, struct stat *buf)
{
    ST_OFF_OR(INSTR_IOF_FSTAT, ST_FD, 0, fd, NULL, buf, 0);
}

EXPORT int fstat64(int fd, struct stat64 *buf)
{
    ST_OFF_OR(INSTR_IOF_FSTAT64, ST_FD, 0, fd, NULL, buf, 0);
}

EXPORT int fstatat(int dirfd, const char *path, struct stat *buf, int flags)
{
    ST_OFF_OR(INSTR_IOF_FSTATAT, ST_AT, 0, dirfd, path, buf, flags);
}

EXPORT int fstatat64(int dirfd, const char *path, struct stat64 *buf, int flags)
{
    ST_OFF_OR(INSTR_IOF_FSTATAT64, ST_AT, 0, dirfd, path, buf, flags);
}

/* The C library's headers no longer declare these (glibc 2.33); it still exports them. */
int __xstat(int ver, const char *path, struct stat *buf);
int __xstat64(int ver, const char *path, struct stat64 *buf);
int __lxstat(int ver, const char *path, struct stat *buf);
int __lxstat64(int ver, const char *path, struct stat64 *buf);
int __fxstat(int ver, int fd, struct stat *buf);
int __fxstat64(int ver, int fd, struct stat64 *buf);
int __fxstatat(int ver, int dirfd, const char *path, struct stat *buf, int flags);
int __fxstatat64(int ver, int dirfd, const char *path, struct stat64 *buf, int flags);

EXPORT int __xstat(int ver, const char *path, struct stat *buf)
{
    ST_OFF_OR(INSTR_IOF_XSTAT, ST_XPATH, ver, -1, path, buf, 0);
}

EXPORT int __xstat64(int ver, const char *path, struct stat64 *buf)
{
    ST_OFF_OR(INSTR_IOF_XSTAT64, ST_XPATH, ver, -1, path, buf, 0);
}

EXPORT int __lxstat(int ver, const char *path, struct stat *buf)
{
    ST_OFF_OR(INSTR_IOF_LXSTAT, ST_XPATH, ver, -1, path, buf, 0);
}

EXPORT int __lxstat64(int ver, const char *path, struct stat64 *buf)
{
    ST_OFF_OR(INSTR_IOF_LXSTAT64, ST_XPATH, ver, -1, path, buf, 0);
}

EXPORT int __fxstat(int ver, int fd, struct stat *buf)
{
    ST_OFF_OR(INSTR_IOF_FXSTAT, ST_XFD, ver, fd, NULL, buf, 0);
}

EXPORT int __fxstat64(int ver, int fd, struct stat64 *buf)
{
    ST_OFF_OR(INSTR_IOF_FXSTAT64, ST_XFD, ver, fd, NULL, buf, 0);
}

EXPORT int __fxstatat(int ver, int dirfd, const char *path, struct stat *buf, int flags)
{
    ST_OFF_OR(INSTR_IOF_FXSTATAT, ST_XAT, ver, dirfd, path, buf, flags);
}

EXPORT int __fxstatat64(int ver, int dirfd, const char *path, struct stat64 *buf, int flags)
{
    ST_OFF_OR(INSTR_IOF_FXSTATAT64, ST_XAT, ver, dirfd, path, buf, flags);
}
