/* experiment.c — creating the experiment directory and the files in it (see experiment.h). */
#include "experiment.h"
#include "clock.h"
#include "config.h"
#include "log.h"
#include "signals.h"
#include "../util/text.h"
#include "../util/pages.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static char dir[PATH_MAX];
static int have_dir;
static int dfd = -1;          /* the experiment directory, open */
static int job_dfd = -1;      /* MPI: the job's directory (made by rank 0, joined by all) */
static char job_path[PATH_MAX];
static int job_made_here;     /* rank 0: publishes the job's directory too */
static int published;       /* this process's own directory */
static mode_t publish_mode;   /* 0777 less the umask, read once */
static int fork_pid; /* nonzero in a forked child whose directory is not made yet */
static int deferred; /* an MPI job: the directory is agreed on in MPI_Init (join) */
/* A rank without files of its own (join's own_now 0): dir names <job>/<sub>, made only when
 * something is written into it (materialize). */
static int lazy;
static char lazy_sub[32];
static int no_own_files; /* join's own_now 0: stays set when the directory is made later */
static int job_config_written; /* rank 0: the job's instr.cfg */
static int write_config_at(int at);

static void read_umask(void)
{
    static int done;
    if (done)
        return;
    done = 1;
    mode_t m = umask(077); /* at start-up, before the program's threads exist */
    umask(m);
    publish_mode = 0777 & ~m;
}

/* An open directory descriptor for `path` (relative to at), refusing a symlink in the last
 * component and a directory that is not the running user's own and private. -1 with errno
 * (EPERM: someone else's). */
static int open_private(int at, const char *path)
{
    int fd = openat(at, path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return -1;
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != geteuid() ||
        (st.st_mode & 077) != 0) {
        close(fd);
        errno = EPERM;
        return -1;
    }
    return fd;
}

/* mkdir `base` (relative to at), else base.1, base.2, ...; private (0700). The chosen path
 * into out; its descriptor into *fd_out. 0 or errno. */
static int make_unique(int at, const char *base, char *out, size_t size, int *suffix_used,
                       int *fd_out)
{
    read_umask();
    *suffix_used = 0;
    for (int i = 0; i < 1000; i++) {
        char path[PATH_MAX];
        int n = i ? snprintf(path, sizeof path, "%s.%d", base, i)
                  : snprintf(path, sizeof path, "%s", base);
        if (n < 0 || (size_t)n >= sizeof path)
            return ENAMETOOLONG;
        if (mkdirat(at, path, 0700) == 0) {
            int fd = open_private(at, path);
            if (fd < 0)
                return errno == EPERM ? EPERM : errno; /* replaced right after mkdir */
            snprintf(out, size, "%s", path);
            *suffix_used = i;
            *fd_out = fd;
            return 0;
        }
        if (errno != EEXIST)
            return errno;
    }
    return EEXIST;
}

static void absolutise(char *path, size_t size)
{
    if (path[0] == '/')
        return;
    char cwd[PATH_MAX], tmp[PATH_MAX];
    if (!getcwd(cwd, sizeof cwd))
        return;
    const char *rel = strncmp(path, "./", 2) == 0 ? path + 2 : path;
    if ((size_t)snprintf(tmp, sizeof tmp, "%s/%s", cwd, rel) < sizeof tmp)
        snprintf(path, size, "%s", tmp);
}

static void default_name(char *base, size_t size)
{
    time_t now = time(NULL);
    struct tm tm;
    localtime_r(&now, &tm);
    snprintf(base, size, "instr-%04d%02d%02d_%02d%02d%02d-%d", tm.tm_year + 1900, tm.tm_mon + 1,
             tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, (int)getpid());
}

static const char *why(int err)
{
    return err == EPERM ? "it was replaced by a directory that is not this user's own right "
                          "after it was made (someone else can write in its parent)"
                        : strerror(err);
}

static void set_dir(int fd)
{
    if (dfd >= 0 && dfd != job_dfd)
        close(dfd);
    dfd = fd;
    have_dir = 1;
    published = 0;
}

int instr_experiment_create(void)
{
    char base[PATH_MAX];
    const char *asked = instr_cfg.experiment_directory;
    if (asked) {
        snprintf(base, sizeof base, "%s", asked);
        size_t len = strlen(base);
        while (len > 1 && base[len - 1] == '/')
            base[--len] = '\0';
        struct stat st;
        if (stat(base, &st) == 0 && !S_ISDIR(st.st_mode)) {
            /* /dev/null: never a /dev/null.1 beside a device or a file. */
            char q[INSTR_QUOTE_SIZE];
            default_name(base, sizeof base);
            instr_warn("INSTR_EXPERIMENT_DIRECTORY=%s names an existing file, not a directory; "
                       "writing to %s in the current directory instead",
                       instr_quote(q, asked), base);
            asked = NULL;
        }
    } else {
        default_name(base, sizeof base);
    }
    int suffix, fd = -1;
    int err = make_unique(AT_FDCWD, base, dir, sizeof dir, &suffix, &fd);
    if (err) {
        char q[INSTR_QUOTE_SIZE];
        instr_warn("cannot create the experiment directory %s%s: %s; nothing will be recorded "
                   "(set INSTR_EXPERIMENT_DIRECTORY to a writable place)",
                   instr_quote(q, base), asked ? " (INSTR_EXPERIMENT_DIRECTORY)" : "", why(err));
        return -1;
    }
    absolutise(dir, sizeof dir);
    set_dir(fd);
    if (suffix) {
        char q1[INSTR_QUOTE_SIZE], q2[INSTR_QUOTE_SIZE];
        instr_warn("experiment directory %s exists already and is left as it is; writing to "
                   "%s instead", instr_quote(q1, base), instr_quote(q2, dir));
    }
    char shown[PATH_MAX];
    instr_info(1, "experiment directory: %s", instr_escaped(shown, sizeof shown, dir));
    return 0;
}

const char *instr_experiment_dir(void) { return have_dir ? dir : NULL; }

/* /proc/thread-self/fd/N when it reaches the same directory as fd (else /proc/self/fd/N on
 * kernels before 3.17), else the plain path. thread-self first: it resolves through the
 * thread that opens the file, and /proc/self is gone once the main thread has ended with
 * pthread_exit while the last thread writes the results. */
static const char *io_path(int fd, const char *path, char *buf, size_t size)
{
    static const char *const dirs[] = {"/proc/thread-self/fd", "/proc/self/fd"};
    struct stat a, b;
    if (fd < 0 || fstat(fd, &a) != 0)
        return path;
    for (size_t i = 0; i < sizeof dirs / sizeof *dirs; i++) {
        snprintf(buf, size, "%s/%d", dirs[i], fd);
        if (stat(buf, &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino)
            return buf;
    }
    return path;
}

const char *instr_experiment_io_path(void)
{
    static char buf[64];
    if (lazy)
        instr_experiment_materialize(); /* a library writes there by path */
    return have_dir ? io_path(dfd, dir, buf, sizeof buf) : NULL;
}

const char *instr_experiment_job_io_path(const char *jobdir)
{
    static char buf[64];
    if (job_dfd < 0 || strcmp(jobdir, job_path) != 0)
        return jobdir;
    return io_path(job_dfd, jobdir, buf, sizeof buf);
}

void instr_experiment_forked(int pid) { fork_pid = pid; }

void instr_experiment_defer(void) { deferred = 1; }

int instr_experiment_join(const char *jobdir, const char *sub, int own_now)
{
    char q[INSTR_QUOTE_SIZE];
    int jfd;
    if (have_dir && strcmp(jobdir, dir) == 0) { /* rank 0 made it */
        jfd = dfd;
        job_made_here = 1;
    } else {
        jfd = open_private(AT_FDCWD, jobdir);
        if (jfd < 0) {
            instr_warn("cannot enter the job's experiment directory %s: %s; this process's "
                       "results will not be written", instr_quote(q, jobdir),
                       errno == EPERM ? "it is not this user's own private directory" : strerror(errno));
            have_dir = 0;
            return -1;
        }
    }
    job_dfd = jfd;
    snprintf(job_path, sizeof job_path, "%s", jobdir);
    if (job_made_here) { /* the job's instr.cfg: rank 0's configuration, at the top */
        instr_io_guard g;
        instr_io_guard_begin(&g);
        job_config_written = write_config_at(job_dfd) == 0;
        instr_io_guard_end(&g);
    }
    if (!own_now) {
        if ((size_t)snprintf(dir, sizeof dir, "%s/%s", jobdir, sub) >= sizeof dir ||
            (size_t)snprintf(lazy_sub, sizeof lazy_sub, "%s", sub) >= sizeof lazy_sub) {
            instr_warn("cannot name %s in %s: %s; this process's results will not be written",
                       sub, instr_quote(q, jobdir), strerror(ENAMETOOLONG));
            have_dir = 0;
            return -1;
        }
        dfd = -1; /* the job directory's descriptor stays open as job_dfd */
        have_dir = 1;
        published = 0;
        lazy = 1;
        no_own_files = 1;
        deferred = 0;
        return 0;
    }
    char path[PATH_MAX];
    int suffix, fd = -1, err = make_unique(jfd, sub, path, sizeof path, &suffix, &fd);
    if (err || (size_t)snprintf(dir, sizeof dir, "%s/%s", jobdir, path) >= sizeof dir) {
        instr_warn("cannot create %s in %s: %s; this process's results will not be written",
                   sub, instr_quote(q, jobdir), err ? why(err) : strerror(ENAMETOOLONG));
        if (fd >= 0)
            close(fd);
        have_dir = 0;
        return -1;
    }
    if (dfd >= 0 && dfd != jfd)
        close(dfd);
    dfd = -1; /* the job directory's descriptor stays open as job_dfd */
    set_dir(fd);
    deferred = 0;
    return instr_experiment_write_config();
}

int instr_experiment_own_deferred(void) { return have_dir && no_own_files; }

int instr_experiment_job_config_written(void) { return job_config_written; }

int instr_experiment_materialize(void)
{
    if (!have_dir)
        return -1;
    if (!lazy)
        return 0;
    lazy = 0;
    char path[PATH_MAX], q[INSTR_QUOTE_SIZE];
    int suffix, fd = -1, err = make_unique(job_dfd, lazy_sub, path, sizeof path, &suffix, &fd);
    if (err || (size_t)snprintf(dir, sizeof dir, "%s/%s", job_path, path) >= sizeof dir) {
        instr_warn("cannot create %s in %s: %s; this process's own files are not written",
                   lazy_sub, instr_quote(q, job_path), err ? why(err) : strerror(ENAMETOOLONG));
        if (fd >= 0)
            close(fd);
        have_dir = 0;
        return -1;
    }
    set_dir(fd);
    return 0;
}

/* The directory's name may have been moved (by someone who can write in its parent) while
 * the run recorded: the files go where the descriptor points, and the user is told where
 * that is now. */
static void check_not_moved(void)
{
    struct stat a, b;
    if (dfd < 0 || fstat(dfd, &a) != 0 || (stat(dir, &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino))
        return;
    char link[64], now[PATH_MAX], q1[INSTR_QUOTE_SIZE], q2[INSTR_QUOTE_SIZE];
    snprintf(link, sizeof link, "/proc/thread-self/fd/%d", dfd);
    ssize_t n = readlink(link, now, sizeof now - 1);
    now[n > 0 ? n : 0] = '\0';
    instr_warn("the experiment directory %s was moved or replaced during the run; the results "
               "are written into the directory made at start-up, now %s", instr_quote(q1, dir),
               n > 0 ? instr_quote(q2, now) : "unknown");
    if (n > 0 && now[0] == '/')
        snprintf(dir, sizeof dir, "%s", now);
}

int instr_experiment_prepare(void)
{
    if (deferred && !have_dir) {
        /* A job process whose MPI_Init never ran (or failed): an experiment of its own. */
        deferred = 0;
        if (instr_experiment_create() != 0)
            return -1;
        instr_experiment_write_config();
    }
    if (!have_dir)
        return -1;
    if (!fork_pid) {
        check_not_moved();
        return 0;
    }
    if (instr_experiment_materialize() != 0)
        return -1;
    char sub[32], made[64], path[PATH_MAX];
    snprintf(sub, sizeof sub, "fork-%d", fork_pid);
    int suffix, fd = -1, err = make_unique(dfd, sub, made, sizeof made, &suffix, &fd);
    fork_pid = 0;
    if (!err && (size_t)snprintf(path, sizeof path, "%s/%s", dir, made) >= sizeof path)
        err = ENAMETOOLONG;
    if (err) {
        char q[INSTR_QUOTE_SIZE];
        instr_warn("forked child: cannot create %s in %s: %s; its profile is not written", sub,
                   instr_quote(q, dir), why(err));
        if (fd >= 0)
            close(fd);
        have_dir = 0;
        return -1;
    }
    snprintf(dir, sizeof dir, "%s", path);
    if (dfd != job_dfd)
        close(dfd);
    dfd = -1;
    job_dfd = -1; /* the parent's job directory is the parent's to publish */
    job_made_here = 0;
    set_dir(fd);
    return 0;
}

void instr_experiment_publish_own(void)
{
    if (published || fork_pid)
        return; /* a forked child publishes its own directory, never the parent's */
    published = 1;
    if (have_dir && dfd >= 0)
        (void)fchmod(dfd, publish_mode);
}

void instr_experiment_publish(void)
{
    instr_experiment_publish_own();
    if (job_made_here && job_dfd >= 0) {
        (void)fchmod(job_dfd, publish_mode);
        job_made_here = 0;
    }
}

/* ---- files ---------------------------------------------------------------------------- */

enum { MAX_FAILURES = 16 };
static struct {
    char what[64];
    int err;
    uint64_t bytes;
} failures[MAX_FAILURES];
static int nfailures, more_failures;

void instr_experiment_note_failure(const char *what, int err, uint64_t bytes)
{
    if (nfailures == MAX_FAILURES) {
        more_failures++;
        return;
    }
    snprintf(failures[nfailures].what, sizeof failures[nfailures].what, "%s", what);
    failures[nfailures].err = err;
    failures[nfailures].bytes = bytes;
    nfailures++;
}

static void size_text(char *buf, size_t size, uint64_t b)
{
    if (b >= (10ull << 20))
        snprintf(buf, size, "%llu MiB", (unsigned long long)(b >> 20));
    else if (b >= (10ull << 10))
        snprintf(buf, size, "%llu KiB", (unsigned long long)(b >> 10));
    else
        snprintf(buf, size, "%llu bytes", (unsigned long long)b);
}

int instr_experiment_report_failures(void)
{
    int n = nfailures + more_failures;
    if (!n)
        return 0;
    char line[2048];
    size_t len = 0;
    for (int i = 0; i < nfailures && len < sizeof line; i++) {
        char sz[32];
        size_text(sz, sizeof sz, failures[i].bytes);
        len += (size_t)snprintf(line + len, sizeof line - len, "%s%s (%s lost: %s)",
                                i ? ", " : "", failures[i].what, sz, strerror(failures[i].err));
    }
    if (more_failures && len < sizeof line)
        snprintf(line + len, sizeof line - len, " and %d more", more_failures);
    char q[INSTR_QUOTE_SIZE];
    instr_warn("could not write into %s: %s", instr_quote(q, have_dir ? dir : "(none)"), line);
    nfailures = more_failures = 0;
    return n;
}

static int partial_name(char *buf, size_t size, const char *name)
{
    return (size_t)snprintf(buf, size, "%s.partial", name) < size ? 0 : -1;
}

/* The writer (util/writer.h) writes everything or keeps the first error and counts the
 * rest, so that the writers above need no error handling of their own and the end-of-run
 * line can say exactly what was lost. No stdio: its FILE and buffer are malloc's, and the
 * program's heap is the program's (docs/runtime.md, "The runtime's memory"). */
static int out_open_at(instr_outfile *o, int at, const char *name)
{
    memset(o, 0, sizeof *o);
    o->f = &o->w;
    o->fd = -1;
    o->dfd = at;
    snprintf(o->name, sizeof o->name, "%s", name);
    char tmp[96];
    if (at < 0 || partial_name(tmp, sizeof tmp, name) != 0)
        return -1;
    o->fd = openat(at, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
    if (o->fd < 0) {
        instr_experiment_note_failure(name, errno, 0);
        return -1;
    }
    if (instr_writer_open(&o->w, instr_writer_fd_sink, &o->fd, 0) != 0) {
        instr_experiment_note_failure(name, o->w.err, 0);
        close(o->fd);
        unlinkat(at, tmp, 0);
        o->fd = -1;
        return -1;
    }
    return 0;
}

void instr_files_add(char *files, size_t size, const char *name)
{
    size_t len = strlen(files);
    snprintf(files + len, size - len, "%s%s", len ? ", " : "", name);
}

int instr_out_open(instr_outfile *o, const char *name)
{
    if (lazy && instr_experiment_materialize() != 0) {
        memset(o, 0, sizeof *o);
        o->fd = -1;
        instr_experiment_note_failure(name, ENOENT, 0);
        return -1;
    }
    return out_open_at(o, have_dir ? dfd : -1, name);
}

int instr_out_open_job(instr_outfile *o, const char *name)
{
    return out_open_at(o, job_dfd, name);
}

/* Renames without ever replacing a file of the same name. */
static int publish_file(int at, const char *tmp, const char *name)
{
    if (renameat2(at, tmp, at, name, RENAME_NOREPLACE) == 0)
        return 0;
    if (errno != EINVAL && errno != ENOSYS)
        return -1;
    /* A file system without RENAME_NOREPLACE: a hard link fails on an existing name too. */
    if (linkat(at, tmp, at, name, 0) != 0)
        return -1;
    unlinkat(at, tmp, 0);
    return 0;
}

int instr_out_close(instr_outfile *o)
{
    if (o->fd < 0)
        return -1;
    /* A failed write is the cause; o->err may only say that the writer then gave up. */
    if (instr_writer_close(&o->w) != 0)
        o->err = o->w.err;
    o->bytes = o->w.bytes;
    if (close(o->fd) != 0 && !o->err && errno != EINTR)
        o->err = errno; /* NFS and quotas report some failures only here */
    o->fd = -1;
    char tmp[96];
    partial_name(tmp, sizeof tmp, o->name);
    if (!o->err && publish_file(o->dfd, tmp, o->name) != 0)
        o->err = errno;
    if (o->err) {
        unlinkat(o->dfd, tmp, 0);
        instr_experiment_note_failure(o->name, o->err, o->bytes);
        return -1;
    }
    return 0;
}

/* text grown by what fmt makes; on failure it stays as it was and *bad is set */
static void cat(char **text, size_t *len, int *bad, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void cat(char **text, size_t *len, int *bad, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *more = NULL;
    int n = instr_mem_vasprintf(&more, fmt, ap);
    va_end(ap);
    char *grown = n < 0 ? NULL : instr_mem_realloc(*text, *len + (size_t)n + 1);
    if (!grown) {
        *bad = 1;
    } else {
        memcpy(grown + *len, more, (size_t)n + 1);
        *text = grown;
        *len += (size_t)n;
    }
    instr_mem_free(more);
}

/* Written at start-up, while the program runs: without stdio, whose FILE comes from
 * malloc (docs/runtime.md, "The runtime's memory"). */
static int write_config_at(int at)
{
    char *text = NULL;
    size_t len = 0;
    int bad = 0;
    cat(&text, &len, &bad,
        "# instr: effective configuration of this run (variable=value  # origin)\n"
        "# values are escaped: a backslash, control bytes and bytes that are not UTF-8 appear "
        "as \\\\, \\n, \\xHH\n");
    for (int i = 0; i < instr_config_count(); i++) {
        const char *v = instr_config_value(i);
        size_t room = 4 * strlen(v ? v : "") + 1; /* \xHH: four bytes for one at most */
        char *esc = instr_mem_alloc(room);
        if (!esc) {
            bad = 1;
            break;
        }
        cat(&text, &len, &bad, "%s=%s  # %s\n", instr_config_name(i),
            instr_escaped(esc, room, v), instr_config_origin(i));
        instr_mem_free(esc);
    }
    cat(&text, &len, &bad,
        "# timer: %s, resolution %.1f ns, %.1f ns per read (measured at start-up)\n",
        instr_clock_name(), instr_clock_resolution_ns(), instr_clock_cost_ns());
    instr_outfile o;
    int rc = -1;
    if (!bad && out_open_at(&o, at, "instr.cfg") == 0) {
        instr_wr_write(o.f, text, len);
        rc = instr_out_close(&o);
    }
    instr_mem_free(text);
    return rc;
}

int instr_experiment_write_config(void)
{
    instr_io_guard g; /* also at start-up and in MPI_Init: a file-size limit never kills */
    instr_io_guard_begin(&g);
    int rc = write_config_at(have_dir ? dfd : -1);
    instr_io_guard_end(&g);
    return rc;
}

/* ---- files written per process that an MPI job gathers into one (instr_out_open_rank) ---- */

typedef struct rank_section {
    char name[64];
    char *text;
    size_t len;
} rank_section;

#define MAX_SECTIONS 8
static rank_section sections[MAX_SECTIONS];
static int nsections, sections_taken;

int instr_out_open_rank(instr_outfile *o, const char *name)
{
    if (job_dfd < 0 || sections_taken)
        return instr_out_open(o, name);
    memset(o, 0, sizeof *o);
    o->f = &o->w;
    o->fd = -1;
    o->dfd = -1;
    snprintf(o->name, sizeof o->name, "%s", name);
    if (instr_writer_open_mem(&o->w) != 0) {
        instr_experiment_note_failure(name, ENOMEM, 0);
        return -1;
    }
    return 0;
}

/* A section written into this process's own directory (a rank that ends alone, or that
 * INSTR_RANK_FILES names). */
static int section_to_own(const rank_section *s)
{
    instr_outfile o;
    if (instr_out_open(&o, s->name) != 0)
        return -1;
    instr_wr_write(o.f, s->text, s->len);
    return instr_out_close(&o);
}

int instr_out_close_rank(instr_outfile *o)
{
    if (o->fd >= 0 || o->dfd >= 0)
        return instr_out_close(o);
    size_t len = 0;
    char *text = instr_writer_take(&o->w, &len);
    if (!text || nsections == MAX_SECTIONS) {
        instr_mem_free(text);
        instr_experiment_note_failure(o->name, ENOMEM, len);
        return -1;
    }
    rank_section *s = &sections[nsections++];
    snprintf(s->name, sizeof s->name, "%s", o->name);
    s->text = text;
    s->len = len;
    return !no_own_files ? section_to_own(s) : 0;
}

size_t instr_experiment_rank_sections(char **out)
{
    sections_taken = 1;
    *out = NULL;
    size_t total = 0;
    for (int i = 0; i < nsections; i++)
        total += strlen(sections[i].name) + 24 + sections[i].len;
    if (!total)
        return 0;
    char *buf = instr_mem_alloc(total + 1);
    if (!buf)
        return 0;
    size_t used = 0;
    for (int i = 0; i < nsections; i++) {
        used += (size_t)snprintf(buf + used, total + 1 - used, "%s\n%zu\n", sections[i].name,
                                 sections[i].len);
        memcpy(buf + used, sections[i].text, sections[i].len);
        used += sections[i].len;
    }
    *out = buf;
    return used;
}

void instr_experiment_rank_sections_own(void)
{
    sections_taken = 1;
    for (int i = 0; i < nsections; i++)
        if (no_own_files && section_to_own(&sections[i]) != 0)
            instr_experiment_report_failures();
}
