/* experiment.c — creating the experiment directory and files in it (see experiment.h). */
#include "experiment.h"
#include "clock.h"
#include "config.h"
#include "log.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static char dir[PATH_MAX];
static int have_dir;
static int fork_pid; /* nonzero in a forked child whose directory is not made yet */
static int deferred; /* an MPI job: the directory is agreed on in MPI_Init (join) */

/* mkdir `base`, else base.1, base.2, ...; the chosen path into dir. 0 or errno. */
static int make_unique(const char *base, int *suffix_used)
{
    *suffix_used = 0;
    for (int i = 0; i < 1000; i++) {
        char path[PATH_MAX];
        int n = i ? snprintf(path, sizeof path, "%s.%d", base, i)
                  : snprintf(path, sizeof path, "%s", base);
        if (n < 0 || (size_t)n >= sizeof path)
            return ENAMETOOLONG;
        if (mkdir(path, 0777) == 0) {
            snprintf(dir, sizeof dir, "%s", path);
            *suffix_used = i;
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

int instr_experiment_create(void)
{
    char base[PATH_MAX];
    const char *asked = instr_cfg.experiment_directory;
    if (asked) {
        snprintf(base, sizeof base, "%s", asked);
        size_t len = strlen(base);
        while (len > 1 && base[len - 1] == '/')
            base[--len] = '\0';
    } else {
        time_t now = time(NULL);
        struct tm tm;
        localtime_r(&now, &tm);
        snprintf(base, sizeof base, "instr-%04d%02d%02d_%02d%02d%02d-%d", tm.tm_year + 1900,
                 tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, (int)getpid());
    }
    int suffix;
    int err = make_unique(base, &suffix);
    if (err) {
        instr_warn("cannot create the experiment directory '%s'%s: %s; nothing will be recorded "
                   "(set INSTR_EXPERIMENT_DIRECTORY to a writable place)",
                   base, asked ? " (INSTR_EXPERIMENT_DIRECTORY)" : "", strerror(err));
        return -1;
    }
    absolutise(dir, sizeof dir);
    have_dir = 1;
    if (suffix)
        instr_warn("experiment directory '%s' exists already and is left as it is; writing to "
                   "'%s' instead", base, dir);
    instr_info(1, "experiment directory: %s", dir);
    return 0;
}

const char *instr_experiment_dir(void) { return have_dir ? dir : NULL; }

void instr_experiment_forked(int pid) { fork_pid = pid; }

void instr_experiment_defer(void) { deferred = 1; }

int instr_experiment_join(const char *jobdir, const char *sub)
{
    char base[PATH_MAX];
    if ((size_t)snprintf(base, sizeof base, "%s/%s", jobdir, sub) >= sizeof base) {
        instr_warn("experiment directory name '%s/%s' is too long; nothing will be written",
                   jobdir, sub);
        have_dir = 0;
        return -1;
    }
    int suffix, err = make_unique(base, &suffix);
    if (err) {
        instr_warn("cannot create '%s': %s; this process's results will not be written", base,
                   strerror(err));
        have_dir = 0;
        return -1;
    }
    have_dir = 1;
    deferred = 0;
    return instr_experiment_write_config();
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
    if (!fork_pid)
        return 0;
    char base[PATH_MAX];
    if ((size_t)snprintf(base, sizeof base, "%s/fork-%d", dir, fork_pid) >= sizeof base) {
        instr_warn("experiment directory name too long for the forked child %d", fork_pid);
        have_dir = 0;
        return -1;
    }
    int suffix, err = make_unique(base, &suffix);
    fork_pid = 0;
    if (err) {
        instr_warn("forked child: cannot create '%s': %s; its profile is not written", base,
                   strerror(err));
        have_dir = 0;
        return -1;
    }
    return 0;
}

FILE *instr_experiment_fopen(const char *name)
{
    char path[PATH_MAX];
    if (!have_dir || (size_t)snprintf(path, sizeof path, "%s/%s", dir, name) >= sizeof path)
        return NULL;
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd < 0) {
        instr_warn("cannot create '%s': %s", path, strerror(errno));
        return NULL;
    }
    FILE *f = fdopen(fd, "w");
    if (!f) {
        instr_warn("cannot write '%s': %s", path, strerror(errno));
        close(fd);
    }
    return f;
}

int instr_experiment_write_config(void)
{
    FILE *f = instr_experiment_fopen("instr.cfg");
    if (!f)
        return -1;
    fprintf(f, "# instr: effective configuration of this run (variable=value  # origin)\n");
    for (int i = 0; i < instr_config_count(); i++)
        fprintf(f, "%s=%s  # %s\n", instr_config_name(i), instr_config_value(i),
                instr_config_origin(i));
    fprintf(f, "# timer: %s, resolution %.1f ns, %.1f ns per read (measured at start-up)\n",
            instr_clock_name(), instr_clock_resolution_ns(), instr_clock_cost_ns());
    return fclose(f) == 0 ? 0 : -1;
}
