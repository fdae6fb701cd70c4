/* io.c — I/O recording (INSTR_IO=posix,stdio,mpiio|all, docs/io.md): the recorder behind the
 * POSIX and ISO C wrappers (io_posix.c, io_stdio.c). Per thread, per call path (the calling
 * thread's cursor node) and per paradigm: operations, failed ones, bytes read and written,
 * time inside the C library's function; per file (by name, or the handle's when it has none)
 * the same figures summed over threads; per function, calls, failed calls and bytes.
 *
 * Off (INSTR_IO unset), each wrapper is one load and one predictable branch in front of the C
 * library's function (found with dlsym(RTLD_NEXT) when the library is loaded, or at its first
 * call when that comes earlier, from another library's constructor).
 *
 * Left out, as memory recording does (interpose/memory.c): calls from the runtime's own code
 * (return address in libinstr-rt, libinstr-rt-mpi, the OTF2 library the trace writes with,
 * libunwind, which sampling unwinds with, or PAPI and libpfm, the metrics'), calls before measurement starts or after it ends, and calls while the runtime works
 * on the thread (the registry lock held, a substrate on the generic path, a cursor slow
 * path). The C library's function itself runs outside the runtime: only the bookkeeping after
 * it takes the event core's guard, so a stream's callbacks or a blocking read hold nothing.
 * A call that finds the guard taken comes from a signal handler that interrupted the
 * bookkeeping or the runtime on that thread: not recorded, and counted when it interrupted
 * the recorder. The file table takes a spin lock only when a file is opened (inside the
 * guard: a handler on the same thread cannot wait for it), released around fork. */
#include "io.h"
#include "../core/config.h"
#include "../core/clock.h"
#include "../core/log.h"
#include "../core/registry.h"
#include "../profile/profile.h"
#ifdef INSTR_RT_HAVE_TRACE
#include "../trace/io_events.h"
#endif

#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

int instr_io_mask;

#define P INSTR_IO_POSIX
#define S INSTR_IO_STDIO
#define M INSTR_IO_MPIIO
const instr_io_fn_info instr_io_fns[INSTR_IOF_N] = {
    [INSTR_IOF_OPEN] = {"open", P, INSTR_IOK_OPEN},
    [INSTR_IOF_OPEN64] = {"open64", P, INSTR_IOK_OPEN},
    [INSTR_IOF_OPENAT] = {"openat", P, INSTR_IOK_OPEN},
    [INSTR_IOF_OPENAT64] = {"openat64", P, INSTR_IOK_OPEN},
    [INSTR_IOF_CREAT] = {"creat", P, INSTR_IOK_OPEN},
    [INSTR_IOF_CREAT64] = {"creat64", P, INSTR_IOK_OPEN},
    [INSTR_IOF_CLOSE] = {"close", P, INSTR_IOK_CLOSE},
    [INSTR_IOF_READ] = {"read", P, INSTR_IOK_READ},
    [INSTR_IOF_WRITE] = {"write", P, INSTR_IOK_WRITE},
    [INSTR_IOF_PREAD] = {"pread", P, INSTR_IOK_READ},
    [INSTR_IOF_PREAD64] = {"pread64", P, INSTR_IOK_READ},
    [INSTR_IOF_PWRITE] = {"pwrite", P, INSTR_IOK_WRITE},
    [INSTR_IOF_PWRITE64] = {"pwrite64", P, INSTR_IOK_WRITE},
    [INSTR_IOF_READV] = {"readv", P, INSTR_IOK_READ},
    [INSTR_IOF_WRITEV] = {"writev", P, INSTR_IOK_WRITE},
    [INSTR_IOF_LSEEK] = {"lseek", P, INSTR_IOK_SEEK},
    [INSTR_IOF_LSEEK64] = {"lseek64", P, INSTR_IOK_SEEK},
    [INSTR_IOF_FSYNC] = {"fsync", P, INSTR_IOK_FLUSH},
    [INSTR_IOF_FDATASYNC] = {"fdatasync", P, INSTR_IOK_FLUSH},
    [INSTR_IOF_DUP] = {"dup", P, INSTR_IOK_DUP},
    [INSTR_IOF_DUP2] = {"dup2", P, INSTR_IOK_DUP},
    [INSTR_IOF_DUP3] = {"dup3", P, INSTR_IOK_DUP},
    [INSTR_IOF_UNLINK] = {"unlink", P, INSTR_IOK_UNLINK},
    [INSTR_IOF_READ_CHK] = {"__read_chk", P, INSTR_IOK_READ},
    [INSTR_IOF_PREAD_CHK] = {"__pread_chk", P, INSTR_IOK_READ},
    [INSTR_IOF_PREAD64_CHK] = {"__pread64_chk", P, INSTR_IOK_READ},
    [INSTR_IOF_PREADV] = {"preadv", P, INSTR_IOK_READ},
    [INSTR_IOF_PREADV64] = {"preadv64", P, INSTR_IOK_READ},
    [INSTR_IOF_PWRITEV] = {"pwritev", P, INSTR_IOK_WRITE},
    [INSTR_IOF_PWRITEV64] = {"pwritev64", P, INSTR_IOK_WRITE},
    [INSTR_IOF_MMAP] = {"mmap", P, INSTR_IOK_MAP},
    [INSTR_IOF_MMAP64] = {"mmap64", P, INSTR_IOK_MAP},
    [INSTR_IOF_STAT] = {"stat", P, INSTR_IOK_STAT},
    [INSTR_IOF_STAT64] = {"stat64", P, INSTR_IOK_STAT},
    [INSTR_IOF_FSTAT] = {"fstat", P, INSTR_IOK_STAT},
    [INSTR_IOF_FSTAT64] = {"fstat64", P, INSTR_IOK_STAT},
    [INSTR_IOF_LSTAT] = {"lstat", P, INSTR_IOK_STAT},
    [INSTR_IOF_LSTAT64] = {"lstat64", P, INSTR_IOK_STAT},
    [INSTR_IOF_FSTATAT] = {"fstatat", P, INSTR_IOK_STAT},
    [INSTR_IOF_FSTATAT64] = {"fstatat64", P, INSTR_IOK_STAT},
    [INSTR_IOF_XSTAT] = {"__xstat", P, INSTR_IOK_STAT},
    [INSTR_IOF_XSTAT64] = {"__xstat64", P, INSTR_IOK_STAT},
    [INSTR_IOF_FXSTAT] = {"__fxstat", P, INSTR_IOK_STAT},
    [INSTR_IOF_FXSTAT64] = {"__fxstat64", P, INSTR_IOK_STAT},
    [INSTR_IOF_LXSTAT] = {"__lxstat", P, INSTR_IOK_STAT},
    [INSTR_IOF_LXSTAT64] = {"__lxstat64", P, INSTR_IOK_STAT},
    [INSTR_IOF_FXSTATAT] = {"__fxstatat", P, INSTR_IOK_STAT},
    [INSTR_IOF_FXSTATAT64] = {"__fxstatat64", P, INSTR_IOK_STAT},
    [INSTR_IOF_FOPEN] = {"fopen", S, INSTR_IOK_OPEN},
    [INSTR_IOF_FOPEN64] = {"fopen64", S, INSTR_IOK_OPEN},
    [INSTR_IOF_FDOPEN] = {"fdopen", S, INSTR_IOK_OPEN},
    [INSTR_IOF_FCLOSE] = {"fclose", S, INSTR_IOK_CLOSE},
    [INSTR_IOF_FREAD] = {"fread", S, INSTR_IOK_READ},
    [INSTR_IOF_FWRITE] = {"fwrite", S, INSTR_IOK_WRITE},
    [INSTR_IOF_FPUTS] = {"fputs", S, INSTR_IOK_WRITE},
    [INSTR_IOF_PUTS] = {"puts", S, INSTR_IOK_WRITE},
    [INSTR_IOF_FPUTC] = {"fputc", S, INSTR_IOK_WRITE},
    [INSTR_IOF_PUTC] = {"putc", S, INSTR_IOK_WRITE},
    [INSTR_IOF_FGETS] = {"fgets", S, INSTR_IOK_READ},
    [INSTR_IOF_FGETC] = {"fgetc", S, INSTR_IOK_READ},
    [INSTR_IOF_GETC] = {"getc", S, INSTR_IOK_READ},
    [INSTR_IOF_FPRINTF] = {"fprintf", S, INSTR_IOK_WRITE},
    [INSTR_IOF_VFPRINTF] = {"vfprintf", S, INSTR_IOK_WRITE},
    [INSTR_IOF_PRINTF] = {"printf", S, INSTR_IOK_WRITE},
    [INSTR_IOF_FFLUSH] = {"fflush", S, INSTR_IOK_FLUSH},
    [INSTR_IOF_FSEEK] = {"fseek", S, INSTR_IOK_SEEK},
    [INSTR_IOF_FSEEKO] = {"fseeko", S, INSTR_IOK_SEEK},
    [INSTR_IOF_FSEEKO64] = {"fseeko64", S, INSTR_IOK_SEEK},
    [INSTR_IOF_FPRINTF_CHK] = {"__fprintf_chk", S, INSTR_IOK_WRITE},
    [INSTR_IOF_VFPRINTF_CHK] = {"__vfprintf_chk", S, INSTR_IOK_WRITE},
    [INSTR_IOF_PRINTF_CHK] = {"__printf_chk", S, INSTR_IOK_WRITE},
    [INSTR_IOF_FGETS_CHK] = {"__fgets_chk", S, INSTR_IOK_READ},
    [INSTR_IOF_FREAD_CHK] = {"__fread_chk", S, INSTR_IOK_READ},
    [INSTR_IOF_MPI_FILE_OPEN] = {"MPI_File_open", M, INSTR_IOK_OPEN},
    [INSTR_IOF_MPI_FILE_CLOSE] = {"MPI_File_close", M, INSTR_IOK_CLOSE},
    [INSTR_IOF_MPI_FILE_DELETE] = {"MPI_File_delete", M, INSTR_IOK_UNLINK},
    [INSTR_IOF_MPI_FILE_SET_VIEW] = {"MPI_File_set_view", M, INSTR_IOK_SEEK},
    [INSTR_IOF_MPI_FILE_SYNC] = {"MPI_File_sync", M, INSTR_IOK_FLUSH},
    [INSTR_IOF_MPI_FILE_SEEK] = {"MPI_File_seek", M, INSTR_IOK_SEEK},
    [INSTR_IOF_MPI_FILE_SEEK_SHARED] = {"MPI_File_seek_shared", M, INSTR_IOK_SEEK},
    [INSTR_IOF_MPI_FILE_READ_AT] = {"MPI_File_read_at", M, INSTR_IOK_READ},
    [INSTR_IOF_MPI_FILE_READ_AT_ALL] = {"MPI_File_read_at_all", M, INSTR_IOK_READ},
    [INSTR_IOF_MPI_FILE_WRITE_AT] = {"MPI_File_write_at", M, INSTR_IOK_WRITE},
    [INSTR_IOF_MPI_FILE_WRITE_AT_ALL] = {"MPI_File_write_at_all", M, INSTR_IOK_WRITE},
    [INSTR_IOF_MPI_FILE_IREAD_AT] = {"MPI_File_iread_at", M, INSTR_IOK_READ},
    [INSTR_IOF_MPI_FILE_IWRITE_AT] = {"MPI_File_iwrite_at", M, INSTR_IOK_WRITE},
    [INSTR_IOF_MPI_FILE_IREAD_AT_ALL] = {"MPI_File_iread_at_all", M, INSTR_IOK_READ},
    [INSTR_IOF_MPI_FILE_IWRITE_AT_ALL] = {"MPI_File_iwrite_at_all", M, INSTR_IOK_WRITE},
    [INSTR_IOF_MPI_FILE_READ] = {"MPI_File_read", M, INSTR_IOK_READ},
    [INSTR_IOF_MPI_FILE_READ_ALL] = {"MPI_File_read_all", M, INSTR_IOK_READ},
    [INSTR_IOF_MPI_FILE_WRITE] = {"MPI_File_write", M, INSTR_IOK_WRITE},
    [INSTR_IOF_MPI_FILE_WRITE_ALL] = {"MPI_File_write_all", M, INSTR_IOK_WRITE},
    [INSTR_IOF_MPI_FILE_IREAD] = {"MPI_File_iread", M, INSTR_IOK_READ},
    [INSTR_IOF_MPI_FILE_IWRITE] = {"MPI_File_iwrite", M, INSTR_IOK_WRITE},
    [INSTR_IOF_MPI_FILE_IREAD_ALL] = {"MPI_File_iread_all", M, INSTR_IOK_READ},
    [INSTR_IOF_MPI_FILE_IWRITE_ALL] = {"MPI_File_iwrite_all", M, INSTR_IOK_WRITE},
    [INSTR_IOF_MPI_FILE_READ_SHARED] = {"MPI_File_read_shared", M, INSTR_IOK_READ},
    [INSTR_IOF_MPI_FILE_WRITE_SHARED] = {"MPI_File_write_shared", M, INSTR_IOK_WRITE},
    [INSTR_IOF_MPI_FILE_IREAD_SHARED] = {"MPI_File_iread_shared", M, INSTR_IOK_READ},
    [INSTR_IOF_MPI_FILE_IWRITE_SHARED] = {"MPI_File_iwrite_shared", M, INSTR_IOK_WRITE},
    [INSTR_IOF_MPI_FILE_READ_ORDERED] = {"MPI_File_read_ordered", M, INSTR_IOK_READ},
    [INSTR_IOF_MPI_FILE_WRITE_ORDERED] = {"MPI_File_write_ordered", M, INSTR_IOK_WRITE},
    [INSTR_IOF_MPI_FILE_READ_AT_ALL_BEGIN] = {"MPI_File_read_at_all_begin", M, INSTR_IOK_READ},
    [INSTR_IOF_MPI_FILE_WRITE_AT_ALL_BEGIN] = {"MPI_File_write_at_all_begin", M, INSTR_IOK_WRITE},
    [INSTR_IOF_MPI_FILE_READ_ALL_BEGIN] = {"MPI_File_read_all_begin", M, INSTR_IOK_READ},
    [INSTR_IOF_MPI_FILE_WRITE_ALL_BEGIN] = {"MPI_File_write_all_begin", M, INSTR_IOK_WRITE},
    [INSTR_IOF_MPI_FILE_READ_ORDERED_BEGIN] = {"MPI_File_read_ordered_begin", M, INSTR_IOK_READ},
    [INSTR_IOF_MPI_FILE_WRITE_ORDERED_BEGIN] = {"MPI_File_write_ordered_begin", M,
                                                INSTR_IOK_WRITE},
};
#undef P
#undef S
#undef M

void *instr_io_real_fn[INSTR_IOF_N];

/* The C library's function: the next one after this library in the lookup order, or, where
 * this library comes after the C library (a dependency of a preloaded library), the first one
 * when it is not this library's; NULL when none. */
static void *find_real(const char *name)
{
    void *p = dlsym(RTLD_NEXT, name);
    if (p)
        return p;
    p = dlsym(RTLD_DEFAULT, name);
    Dl_info a, self;
    if (p && dladdr(p, &a) && dladdr((void *)find_real, &self) && a.dli_fbase != self.dli_fbase)
        return p;
    return NULL;
}

/* Without the C library's function nothing can go on: said on stderr by a system call (the
 * program's stdio may be what is missing). */
void *instr_io_resolve(enum instr_io_fn fn)
{
    void *p = find_real(instr_io_fns[fn].name);
    if (!p) {
        static const char msg[] = "instr: I/O recording: a C library function is missing\n";
        syscall(SYS_write, 2, msg, sizeof msg - 1);
        abort();
    }
    __atomic_store_n(&instr_io_real_fn[fn], p, __ATOMIC_RELAXED);
    return p;
}

/* ---- the files ---- */

#define FILES_CAP 4096u          /* files with a table entry; more share entry 0 */
#define NAMES_CAP (8u << 20)     /* bytes of interned names */
#define FD_CAP 65536             /* descriptors with a slot; higher ones share entry 0 */

static instr_iorec_file *files;  /* FILES_CAP entries, mmap'd */
static uint32_t nfiles;          /* entries in use (entry 0 always) */
static uint32_t *by_name;        /* 2 * FILES_CAP indices + 1, 0: empty */
static char *names;              /* NAMES_CAP bytes */
static size_t names_used;
static uint32_t *fd_file;        /* FD_CAP entries: the file index + 1, 0: unknown */
static int files_lock;

static instr_iorec_thread *threads;
static uint64_t g_dropped;
static uint64_t fn_calls[INSTR_IOF_N], fn_failed[INSTR_IOF_N], fn_bytes[INSTR_IOF_N];
static int cursor_slot = -2;

static _Thread_local instr_iorec_thread *tls_thread __attribute__((tls_model("initial-exec")));
/* 1 while this thread is inside the recorder: a call then comes from a signal handler. */
static _Thread_local int tls_recording __attribute__((tls_model("initial-exec")));

static void *map(size_t size)
{
    void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    return p == MAP_FAILED ? NULL : p;
}

static void lock(void)
{
    while (__atomic_exchange_n(&files_lock, 1, __ATOMIC_ACQUIRE))
        while (__atomic_load_n(&files_lock, __ATOMIC_RELAXED))
            __builtin_ia32_pause();
}

static void unlock(void) { __atomic_store_n(&files_lock, 0, __ATOMIC_RELEASE); }

static uint64_t str_hash(const char *s)
{
    uint64_t h = 1469598103934665603ull;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

/* With the lock held: the entry of name, added when new (0 when there is no room). */
static uint32_t intern_locked(const char *name)
{
    uint32_t mask = 2 * FILES_CAP - 1;
    uint32_t i = (uint32_t)str_hash(name) & mask;
    for (; by_name[i]; i = (i + 1) & mask)
        if (strcmp(files[by_name[i]].name, name) == 0)
            return by_name[i];
    size_t len = strlen(name) + 1;
    if (nfiles >= FILES_CAP || names_used + len > NAMES_CAP)
        return 0;
    char *copy = names + names_used;
    memcpy(copy, name, len);
    names_used += len;
    uint32_t f = nfiles;
    files[f].name = copy;
    __atomic_store_n(&nfiles, f + 1, __ATOMIC_RELEASE);
    by_name[i] = f;
    return f;
}

static void fd_set_file(int fd, uint32_t f)
{
    if (fd >= 0 && fd < FD_CAP)
        __atomic_store_n(&fd_file[fd], f + 1, __ATOMIC_RELAXED);
}

/* Inside the guard (the lock: a signal handler on this thread never waits for it). */
static uint32_t file_named(const char *path)
{
    lock();
    uint32_t f = intern_locked(path);
    unlock();
    return f;
}

static uint32_t file_of_fd(int fd)
{
    if (fd < 0)
        return file_named("<no descriptor>");
    if (fd >= FD_CAP)
        return 0;
    uint32_t f = __atomic_load_n(&fd_file[fd], __ATOMIC_RELAXED);
    if (f)
        return f - 1;
    /* A descriptor the program did not open while recorded: the handle's name. */
    char name[32];
    static const char *const std[3] = {"<stdin>", "<stdout>", "<stderr>"};
    if (fd < 3)
        snprintf(name, sizeof name, "%s", std[fd]);
    else
        snprintf(name, sizeof name, "<fd %d>", fd);
    f = file_named(name);
    fd_set_file(fd, f);
    return f;
}

/* MPI_File handle values to files: open addressing under the lock; a closed handle keeps
 * its slot (file UINT32_MAX) until the same value is opened again. */
#define FH_CAP 1024u
static struct {
    uintptr_t fh;
    uint32_t file;
} fh_file[FH_CAP];

static uint32_t file_of_fh(uintptr_t fh, const char *path, int closes)
{
    uint32_t f = path ? file_named(path) : UINT32_MAX;
    lock();
    uint32_t i = (uint32_t)((fh >> 4) * 0x9e3779b97f4a7c15ull >> 40) & (FH_CAP - 1), n = 0;
    while (fh_file[i].fh && fh_file[i].fh != fh && n++ < FH_CAP)
        i = (i + 1) & (FH_CAP - 1);
    if (n >= FH_CAP) {
        unlock();
        return path ? f : 0;
    }
    if (path) {
        fh_file[i].fh = fh;
        fh_file[i].file = f;
    } else if (fh_file[i].fh == fh && fh_file[i].file != UINT32_MAX) {
        f = fh_file[i].file;
        if (closes)
            fh_file[i].file = UINT32_MAX;
    }
    unlock();
    return f != UINT32_MAX ? f : file_named("<MPI_File>");
}

/* The call's file, with the descriptor table brought up to date. */
static uint32_t file_of(const instr_iorec_what *w)
{
    if (w->mpi_fh)
        return file_of_fh(w->mpi_fh, w->path, w->closes);
    uint32_t f = w->path ? file_named(w->path) : file_of_fd(w->fd);
    if (w->new_fd >= 0)
        fd_set_file(w->new_fd, f);
    if (w->closes && w->fd >= 0 && w->fd < FD_CAP)
        __atomic_store_n(&fd_file[w->fd], 0, __ATOMIC_RELAXED);
    return f;
}

/* ---- per thread: counts per call path ---- */

static instr_iorec_thread *thread_self(void)
{
    instr_iorec_thread *th = tls_thread;
    if (th)
        return th;
    th = map(sizeof *th);
    if (!th)
        return NULL;
    th->tid = (int)syscall(SYS_gettid);
    th->next = __atomic_load_n(&threads, __ATOMIC_RELAXED);
    while (!__atomic_compare_exchange_n(&threads, &th->next, th, 1, __ATOMIC_RELEASE,
                                        __ATOMIC_RELAXED))
        ;
    return tls_thread = th;
}

static uint32_t slot_hash(const instr_pnode *n, uint32_t cap)
{
    uint64_t h = (uint64_t)((uintptr_t)n >> 4) * 0x9e3779b97f4a7c15ull;
    return (uint32_t)(h ^ (h >> 29)) & (cap - 1);
}

/* The thread's slot of node (NULL: outside any region); NULL when no memory. Only the thread
 * adds slots; the report reads them after the end. Tables outgrown stay mapped. */
static instr_iorec_slot *slot_of(instr_iorec_thread *th, const instr_pnode *node)
{
    if (!node) {
        th->has_outside = 1;
        return &th->outside;
    }
    if (th->slots) {
        for (uint32_t i = slot_hash(node, th->cap);; i = (i + 1) & (th->cap - 1)) {
            if (th->slots[i].node == node)
                return &th->slots[i];
            if (!th->slots[i].node)
                break;
        }
    }
    if (!th->slots || (th->n + 1) * 2 > th->cap) {
        uint32_t cap = th->slots ? th->cap * 2 : 64;
        instr_iorec_slot *t = map((size_t)cap * sizeof *t);
        if (!t)
            return NULL;
        for (uint32_t i = 0; th->slots && i < th->cap; i++) {
            if (!th->slots[i].node)
                continue;
            uint32_t k = slot_hash(th->slots[i].node, cap);
            while (t[k].node)
                k = (k + 1) & (cap - 1);
            t[k] = th->slots[i];
        }
        __atomic_store_n(&th->cap, cap, __ATOMIC_RELAXED);
        __atomic_store_n(&th->slots, t, __ATOMIC_RELEASE);
    }
    uint32_t i = slot_hash(node, th->cap);
    while (th->slots[i].node)
        i = (i + 1) & (th->cap - 1);
    th->slots[i].node = node;
    th->n++;
    return &th->slots[i];
}

#ifdef INSTR_RT_HAVE_TRACE
/* ---- the trace (trace/io_events.c) ---- */

static uint32_t fn_region[INSTR_IOF_N];
/* The trace's refs (dense, first traced use first): per file and handle (file * paradigms +
 * paradigm) its ref + 1, and back. Assigned under the file table's lock, inside the guard. */
#define HANDLES_CAP (FILES_CAP * INSTR_IO_NPARADIGMS)
static uint32_t file_ref[FILES_CAP], handle_ref[HANDLES_CAP];
static uint32_t ref_file[FILES_CAP], ref_handle[HANDLES_CAP];
static uint32_t nfile_refs, nhandle_refs;

static uint32_t trace_handle(uint32_t file, int paradigm)
{
    uint32_t h = file * INSTR_IO_NPARADIGMS + (uint32_t)paradigm;
    uint32_t r = __atomic_load_n(&handle_ref[h], __ATOMIC_ACQUIRE);
    if (r)
        return r - 1;
    lock();
    if (!file_ref[file]) {
        ref_file[nfile_refs] = file;
        file_ref[file] = ++nfile_refs;
    }
    if (!handle_ref[h]) {
        ref_handle[nhandle_refs] = h;
        __atomic_store_n(&handle_ref[h], ++nhandle_refs, __ATOMIC_RELEASE);
    }
    r = handle_ref[h];
    unlock();
    return r - 1;
}

/* The function's region, registered at its first traced call (inside the guard, the
 * registry's own I/O and allocations are the runtime's). */
static uint32_t fn_region_of(enum instr_io_fn fn)
{
    uint32_t r = __atomic_load_n(&fn_region[fn], __ATOMIC_ACQUIRE);
    if (r)
        return r;
    instr_registry_lock();
    if (!fn_region[fn]) {
        instr_region_info info = {.name = instr_io_fns[fn].name,
                                  .mangled = instr_io_fns[fn].name, .file = "", .object = "",
                                  .source = INSTR_SOURCE_IO};
        __atomic_store_n(&fn_region[fn], instr_registry_add_locked(&info), __ATOMIC_RELEASE);
    }
    r = fn_region[fn];
    instr_registry_unlock();
    return r;
}

static void trace_call(instr_location *loc, enum instr_io_fn fn, uint32_t file, uint64_t t0,
                       uint64_t t1, const instr_iorec_what *w)
{
    static const unsigned op_of[] = {
        [INSTR_IOK_OPEN] = INSTR_TRACE_IO_CREATE, [INSTR_IOK_CLOSE] = INSTR_TRACE_IO_DESTROY,
        [INSTR_IOK_READ] = INSTR_TRACE_IO_READ,   [INSTR_IOK_WRITE] = INSTR_TRACE_IO_WRITE,
        [INSTR_IOK_SEEK] = INSTR_TRACE_IO_OTHER,  [INSTR_IOK_FLUSH] = INSTR_TRACE_IO_FLUSH,
        [INSTR_IOK_DUP] = INSTR_TRACE_IO_OTHER,   [INSTR_IOK_UNLINK] = INSTR_TRACE_IO_OTHER,
        /* OTF2's operation modes are read, write and flush: a mapping or a stat is neither */
        [INSTR_IOK_MAP] = INSTR_TRACE_IO_OTHER,   [INSTR_IOK_STAT] = INSTR_TRACE_IO_OTHER,
    };
    const instr_io_fn_info *fi = &instr_io_fns[fn];
    instr_trace_iocall tc = {.region = fn_region_of(fn), .handle = trace_handle(file, fi->paradigm), .op = op_of[fi->kind],
                             .failed = (unsigned)w->failed, .nonblocking = w->pending != NULL,
                             .t_begin = t0, .t_end = t1,
                             .requested = w->requested, .bytes = w->bytes};
    /* The trace's own work is the runtime's. */
    tls_recording = 0;
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    uint64_t match = instr_trace_io_call(loc, &tc);
    if (w->pending && match && !w->failed) {
        w->pending->match = match;
        w->pending->handle = tc.handle;
        w->pending->loc = loc->id;
    }
}

/* For the definitions, after the end. */
static uint32_t trace_nfiles(void) { return nfile_refs; }
static const char *trace_file_name(uint32_t ref) { return files[ref_file[ref]].name; }
static uint32_t trace_nhandles(void) { return nhandle_refs; }
static void trace_handle_of(uint32_t ref, uint32_t *file, uint32_t *paradigm)
{
    uint32_t h = ref_handle[ref];
    *file = file_ref[h / INSTR_IO_NPARADIGMS] - 1;
    *paradigm = h % INSTR_IO_NPARADIGMS;
}
static const instr_trace_io_files trace_files = {trace_nfiles, trace_file_name, trace_nhandles,
                                                 trace_handle_of};
#endif

/* ---- one recorded call ---- */

/* The runtime's own code: the executable segments of libinstr-rt, libinstr-rt-mpi, the
 * OTF2 library, libunwind (sampling's unwinder reads /proc/self/maps and maps ELF files,
 * from the profiling signal's handler too) and PAPI with its libpfm (the metrics' counters:
 * they open, read and map perf_event descriptors and files of /sys). */
#define OWN_MAX 16
static uintptr_t own_lo[OWN_MAX], own_hi[OWN_MAX];
static unsigned own_n;

static int own_caller(uintptr_t ra)
{
    for (unsigned i = 0; i < own_n; i++)
        if (ra - own_lo[i] < own_hi[i] - own_lo[i])
            return 1;
    return 0;
}

int instr_iorec_begin(instr_iorec_call *c, uintptr_t ra)
{
    if (own_caller(ra))
        return 0;
    int st = instr_state_get();
    if (st != INSTR_STATE_RUNNING && st != INSTR_STATE_PAUSED)
        return 0;
    c->ra = ra;
    c->t0 = instr_clock_now();
    return 1;
}

/* Inside the guard: the calling thread's call path now (*node, NULL outside any region);
 * -1 when nothing may be recorded now (the registry's or the location's own work). */
static int current_node(instr_location *loc, const instr_pnode **node)
{
    *node = NULL;
    if (instr_registry_held)
        return -1;
    if (!loc)
        return 0;
    if (loc->busy)
        return -1;
    int slot = __atomic_load_n(&cursor_slot, __ATOMIC_RELAXED);
    if (slot == -2) {
        slot = instr_substrate_slot_with(INSTR_SUBSTRATE_CURSOR);
        __atomic_store_n(&cursor_slot, slot, __ATOMIC_RELAXED);
    }
    instr_pstate *ps = loc->cct ? loc->cct : slot >= 0 ? loc->sub[slot] : NULL;
    if (ps) {
        if (ps->cursor == &ps->busy)
            return -1;
        *node = instr_cct_current(ps);
    }
    return 0;
}

void instr_iorec_end(const instr_iorec_call *c, enum instr_io_fn fn, const instr_iorec_what *w)
{
    uint64_t t1 = instr_clock_now();
    if (!instr_core_guard_begin()) {
        if (tls_recording)
            __atomic_fetch_add(&g_dropped, 1, __ATOMIC_RELAXED);
        return;
    }
    const instr_pnode *node;
    instr_location *loc = instr_tls_loc;
    if (current_node(loc, &node) != 0)
        goto out;
    instr_iorec_thread *th = thread_self();
    if (!th)
        goto out;
    if (!th->loc && loc)
        th->loc = loc;
    tls_recording = 1;
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    const instr_io_fn_info *fi = &instr_io_fns[fn];
    uint32_t file = file_of(w);
    int failed = w->failed;
    uint64_t bytes = w->bytes;
    uint64_t rd = fi->kind == INSTR_IOK_READ ? bytes : 0;
    uint64_t wr = fi->kind == INSTR_IOK_WRITE ? bytes : 0;
    instr_iorec_slot *s = slot_of(th, node);
    if (s) {
        instr_iorec_counts *k = &s->c[fi->paradigm];
        k->ops++;
        k->failed += failed != 0;
        k->bytes_read += rd;
        k->bytes_written += wr;
        k->ticks += t1 - c->t0;
    }
    instr_iorec_counts *k = &files[file].c[fi->paradigm];
    __atomic_fetch_add(&k->ops, 1, __ATOMIC_RELAXED);
    if (failed)
        __atomic_fetch_add(&k->failed, 1, __ATOMIC_RELAXED);
    if (rd)
        __atomic_fetch_add(&k->bytes_read, rd, __ATOMIC_RELAXED);
    if (wr)
        __atomic_fetch_add(&k->bytes_written, wr, __ATOMIC_RELAXED);
    __atomic_fetch_add(&k->ticks, t1 - c->t0, __ATOMIC_RELAXED);
    __atomic_fetch_add(&fn_calls[fn], 1, __ATOMIC_RELAXED);
    if (failed)
        __atomic_fetch_add(&fn_failed[fn], 1, __ATOMIC_RELAXED);
    if (bytes)
        __atomic_fetch_add(&fn_bytes[fn], bytes, __ATOMIC_RELAXED);
    if (w->pending && !failed) /* its bytes when it completes (instr_ext_io_mpi_done) */
        *w->pending = (instr_io_pending){.profile = 1, .fn = fn, .file = file, .node = node,
                                         .thread = th};
#ifdef INSTR_RT_HAVE_TRACE
    if (instr_trace_io_wanted(loc))
        trace_call(loc, fn, file, c->t0, t1, w);
#endif
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    tls_recording = 0;
out:
    instr_core_guard_end();
}

/* ---- MPI-IO, from libinstr-rt-mpi ---- */

int instr_ext_io_mask(void) { return __atomic_load_n(&instr_io_mask, __ATOMIC_RELAXED); }

void instr_ext_io_mpi(int fn, uintptr_t fh, const char *name, int closes, int failed,
                      uint64_t requested, uint64_t bytes, uint64_t t0)
{
    if (fn < 0 || fn >= INSTR_IOF_N || !(instr_ext_io_mask() & (1 << INSTR_IO_MPIIO)))
        return;
    int st = instr_state_get();
    if (st != INSTR_STATE_RUNNING && st != INSTR_STATE_PAUSED)
        return;
    instr_iorec_call c = {0, t0};
    instr_iorec_what w = {.fd = -1, .path = fh ? name : name ? name : "<MPI_File>",
                          .new_fd = -1, .closes = closes, .mpi_fh = fh, .failed = failed,
                          .requested = requested, .bytes = bytes};
    if (!fh && !name)
        w.path = "<MPI_File>";
    instr_iorec_end(&c, (enum instr_io_fn)fn, &w);
}

void instr_ext_io_mpi_started(int fn, uintptr_t fh, int failed, uint64_t requested, uint64_t t0,
                              instr_io_pending *pending)
{
    *pending = (instr_io_pending){0};
    if (fn < 0 || fn >= INSTR_IOF_N || !(instr_ext_io_mask() & (1 << INSTR_IO_MPIIO)))
        return;
    int st = instr_state_get();
    if (st != INSTR_STATE_RUNNING && st != INSTR_STATE_PAUSED)
        return;
    instr_iorec_call c = {0, t0};
    instr_iorec_what w = {.fd = -1, .path = fh ? NULL : "<MPI_File>", .new_fd = -1,
                          .mpi_fh = fh, .failed = failed, .requested = requested,
                          .bytes = 0, .pending = pending};
    instr_iorec_end(&c, (enum instr_io_fn)fn, &w);
}

/* A non-blocking operation's bytes, at its completion: no operation more (it counted when it
 * started), no time (the wait's or test's time is MPI's and may cover other requests). */
static void completed_bytes(const instr_io_pending *p, uint64_t bytes)
{
    int st = instr_state_get();
    if (!bytes || (st != INSTR_STATE_RUNNING && st != INSTR_STATE_PAUSED))
        return;
    if (!instr_core_guard_begin()) {
        if (tls_recording)
            __atomic_fetch_add(&g_dropped, 1, __ATOMIC_RELAXED);
        return;
    }
    const instr_pnode *node;
    instr_iorec_thread *th;
    if (current_node(instr_tls_loc, &node) != 0 || !(th = thread_self()))
        goto out;
    tls_recording = 1;
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    if (p->thread == th)
        node = p->node;
    const instr_io_fn_info *fi = &instr_io_fns[p->fn];
    uint64_t rd = fi->kind == INSTR_IOK_READ ? bytes : 0;
    uint64_t wr = fi->kind == INSTR_IOK_WRITE ? bytes : 0;
    instr_iorec_slot *s = slot_of(th, node);
    if (s) {
        s->c[fi->paradigm].bytes_read += rd;
        s->c[fi->paradigm].bytes_written += wr;
    }
    instr_iorec_counts *k = &files[p->file].c[fi->paradigm];
    if (rd)
        __atomic_fetch_add(&k->bytes_read, rd, __ATOMIC_RELAXED);
    if (wr)
        __atomic_fetch_add(&k->bytes_written, wr, __ATOMIC_RELAXED);
    __atomic_fetch_add(&fn_bytes[p->fn], bytes, __ATOMIC_RELAXED);
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    tls_recording = 0;
out:
    instr_core_guard_end();
}

void instr_ext_io_mpi_done(const instr_io_pending *pending, int how, uint64_t bytes)
{
    if (pending && pending->profile && how == 0 && pending->fn >= 0 && pending->fn < INSTR_IOF_N)
        completed_bytes(pending, bytes);
#ifdef INSTR_RT_HAVE_TRACE
    /* As the MPI records of the job's trace: the thread's own buffer, signals blocked while
     * it is converted (runtime/trace/buffer.c). */
    if (pending && pending->match)
        instr_trace_io_done(pending->loc, pending->handle, pending->match, how, bytes);
#else
    (void)pending, (void)how, (void)bytes;
#endif
}

/* ---- what the report reads ---- */

instr_iorec_thread *instr_iorec_threads(void) { return __atomic_load_n(&threads, __ATOMIC_ACQUIRE); }

uint32_t instr_iorec_nfiles(void) { return files ? __atomic_load_n(&nfiles, __ATOMIC_ACQUIRE) : 0; }

const instr_iorec_file *instr_iorec_file_at(uint32_t i) { return &files[i]; }

void instr_iorec_fn_totals(enum instr_io_fn fn, uint64_t *calls, uint64_t *failed,
                           uint64_t *bytes)
{
    *calls = __atomic_load_n(&fn_calls[fn], __ATOMIC_RELAXED);
    *failed = __atomic_load_n(&fn_failed[fn], __ATOMIC_RELAXED);
    *bytes = __atomic_load_n(&fn_bytes[fn], __ATOMIC_RELAXED);
}

uint64_t instr_iorec_dropped(void) { return __atomic_load_n(&g_dropped, __ATOMIC_RELAXED); }

instr_iorec_counts instr_iorec_counts_of(const instr_iorec_thread *th, const instr_pnode *node,
                                         int paradigm)
{
    instr_iorec_counts none = {0};
    if (!node)
        return th->has_outside ? th->outside.c[paradigm] : none;
    const instr_iorec_slot *t = __atomic_load_n(&th->slots, __ATOMIC_ACQUIRE);
    uint32_t cap = __atomic_load_n(&th->cap, __ATOMIC_RELAXED);
    if (!t)
        return none;
    for (uint32_t i = slot_hash(node, cap);; i = (i + 1) & (cap - 1)) {
        if (t[i].node == node)
            return t[i].c[paradigm];
        if (!t[i].node)
            return none;
    }
}

/* ---- start ---- */

static void fork_prepare(void) { lock(); }
static void fork_after(void) { unlock(); }

extern const instr_profile_io instr_iorec_profile_writers; /* io_report.c */

static int own_segments(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    const char *n = info->dlpi_name;
    int mine = info->dlpi_addr == (uintptr_t)data ||
               (n && (strstr(n, "libinstr-rt-mpi") || strstr(n, "libotf2") ||
                      strstr(n, "libopen-trace-format2") || strstr(n, "/libunwind") ||
                      strstr(n, "/libpapi") || strstr(n, "/libpfm")));
    for (int i = 0; mine && i < info->dlpi_phnum && own_n < OWN_MAX; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X)) {
            own_lo[own_n] = info->dlpi_addr + ph->p_vaddr;
            own_hi[own_n++] = info->dlpi_addr + ph->p_vaddr + ph->p_memsz;
        }
    }
    return 0;
}

/* INSTR_IO's paradigms: a comma-separated list of posix, stdio, mpiio, or all; -1 when a
 * word is none of them. */
static int parse_mask(const char *v)
{
    int mask = 0;
    while (*v) {
        size_t n = strcspn(v, ",");
        if (n == 3 && strncmp(v, "all", 3) == 0)
            mask |= (1 << INSTR_IO_NPARADIGMS) - 1;
        else if (n == 5 && strncmp(v, "posix", 5) == 0)
            mask |= 1 << INSTR_IO_POSIX;
        else if (n == 5 && strncmp(v, "stdio", 5) == 0)
            mask |= 1 << INSTR_IO_STDIO;
        else if (n == 5 && strncmp(v, "mpiio", 5) == 0)
            mask |= 1 << INSTR_IO_MPIIO;
        else if (n != 0)
            return -1;
        v += n;
        if (*v == ',')
            v++;
    }
    return mask;
}

/* At load time, before the program's main. The C library's functions are found now, whether
 * recording is on or not: a first call from a signal handler (the runtime's own write in
 * one) must not run dlsym there. The MPI-IO entries are libinstr-rt-mpi's, not looked up. */
__attribute__((constructor)) static void start(void)
{
    for (int fn = 0; fn < INSTR_IOF_MPI_FILE_OPEN; fn++)
        if (!instr_io_real_fn[fn])
            __atomic_store_n(&instr_io_real_fn[fn], find_real(instr_io_fns[fn].name),
                             __ATOMIC_RELAXED);
    const char *v = instr_env("INSTR_IO");
    if (!v || !*v)
        return;
    int mask = parse_mask(v);
    if (mask < 0) {
        instr_warn("INSTR_IO=%s: not a list of posix, stdio, mpiio or all: I/O recording is "
                   "off (docs/io.md)", v);
        return;
    }
    if (!mask)
        return;
    /* Where the C library's write comes first (this library a preloaded one's dependency),
     * the program's calls never reach the wrappers (MPI-IO's still do). */
    void *first = dlsym(RTLD_DEFAULT, "write");
    Dl_info fi, me;
    if ((mask & ~(1 << INSTR_IO_MPIIO)) && first && dladdr(first, &fi) &&
        dladdr((void *)start, &me) && fi.dli_fbase != me.dli_fbase) {
        instr_warn("INSTR_IO=%s: POSIX and ISO C I/O are not recorded: the C library's "
                   "functions (in %s) come before instr's runtime (docs/io.md)",
                   v, fi.dli_fname ? fi.dli_fname : "?");
        mask &= 1 << INSTR_IO_MPIIO;
        if (!mask)
            return;
    }
    files = map((size_t)FILES_CAP * sizeof *files);
    by_name = map((size_t)2 * FILES_CAP * sizeof *by_name);
    names = map(NAMES_CAP);
    fd_file = map((size_t)FD_CAP * sizeof *fd_file);
    if (!files || !by_name || !names || !fd_file) {
        instr_warn("INSTR_IO=%s: no memory for the file table: I/O recording is off", v);
        return;
    }
    files[0].name = "(other files)";
    nfiles = 1;
    Dl_info self;
    if (dladdr((void *)start, &self))
        dl_iterate_phdr(own_segments, self.dli_fbase);
    pthread_atfork(fork_prepare, fork_after, fork_after);
#ifdef INSTR_RT_HAVE_TRACE
    instr_trace_io_enable(&trace_files);
#endif
    instr_profile_set_io(&instr_iorec_profile_writers);
    __atomic_store_n(&instr_io_mask, mask, __ATOMIC_RELEASE);
    instr_info(1, "I/O recording: on (INSTR_IO=%s)", v);
}
