/* libinstr_substrate_callcount.so — a substrate plugin (docs/plugins.md) that counts the
 * enters of every region exactly, per location (thread), and writes them at the end.
 *
 * Events: enter only. Per location it keeps a counter array indexed by region handle in the
 * location's data slot (no lock in the event); when a location is deleted its counts join the
 * process's list. write_data writes <experiment>/callcount.txt (INSTR_CALLCOUNT_FILE: another
 * name in the same directory), tab-separated, a header line first:
 *
 *   scope     rank  location  thread  calls  region
 *   location  0     0         4711    3      a        per location of this process
 *   process   0     -         -       6      a        the process's sum
 *   job       -     -         -       24     a        rank 0 only: the sum over the job
 *
 * The job rows come from the communication callbacks: every process sends its per-region
 * sums (by region name: handles differ between processes) to rank 0 with comm_gather; in a
 * process without MPI they are the process rows again. */
#define _GNU_SOURCE
#include <instr/instr_substrate_plugin.h>

#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const instr_substrate_callbacks *cb;
static uint32_t my_id;
static const char *file_name = "callcount.txt";

typedef struct counts {
    uint64_t *n; /* by region handle */
    uint32_t cap;
    uint32_t location;
    int32_t thread;
    struct counts *next;
} counts;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static counts *done; /* deleted locations */

static int32_t initialize(const instr_substrate_init *init)
{
    cb = init->cb;
    my_id = init->plugin_id;
    const char *f = cb->config(my_id, "FILE");
    if (f) {
        if (!*f || strchr(f, '/') || strcmp(f, ".") == 0 || strcmp(f, "..") == 0) {
            fprintf(stderr, "callcount: INSTR_CALLCOUNT_FILE=%s is not a file name (no '/'); "
                            "give a name for the file in the experiment directory\n", f);
            return -1;
        }
        file_name = f;
    }
    return 0;
}

static void create_location(instr_substrate_location *loc, uint32_t type)
{
    (void)type;
    counts *c = calloc(1, sizeof *c);
    if (!c)
        return; /* this location's calls are not counted */
    c->location = cb->location_id(loc);
    c->thread = cb->location_thread(loc);
    cb->location_set_data(loc, my_id, c);
}

static void enter(instr_substrate_location *loc, uint64_t t, uint32_t region,
                  const uint64_t *metrics)
{
    (void)t;
    (void)metrics;
    counts *c = cb->location_get_data(loc, my_id);
    if (!c)
        return;
    if (region >= c->cap) {
        uint32_t cap = c->cap ? c->cap : 64;
        while (cap <= region)
            cap *= 2;
        uint64_t *n = realloc(c->n, cap * sizeof *n);
        if (!n)
            return;
        memset(n + c->cap, 0, (cap - c->cap) * sizeof *n);
        c->n = n;
        c->cap = cap;
    }
    c->n[region]++;
}

static void delete_location(instr_substrate_location *loc)
{
    counts *c = cb->location_get_data(loc, my_id);
    if (!c)
        return;
    cb->location_set_data(loc, my_id, NULL);
    pthread_mutex_lock(&lock);
    c->next = done;
    done = c;
    pthread_mutex_unlock(&lock);
}

/* The process's sums, as "calls\tname\n" lines (the job's exchange format). */
static char *process_sums(size_t *len)
{
    uint32_t nregions = cb->region_count();
    uint64_t *sum = calloc(nregions + 1, sizeof *sum);
    char *text = NULL;
    size_t size = 0;
    FILE *f = open_memstream(&text, &size);
    if (!sum || !f) {
        free(sum);
        if (f)
            fclose(f);
        free(text);
        return NULL;
    }
    for (counts *c = done; c; c = c->next)
        for (uint32_t r = 1; r < c->cap && r <= nregions; r++)
            sum[r] += c->n[r];
    for (uint32_t r = 1; r <= nregions; r++)
        if (sum[r])
            fprintf(f, "%llu\t%s\n", (unsigned long long)sum[r], cb->region_name(r));
    fclose(f);
    free(sum);
    *len = size;
    return text;
}

typedef struct total {
    char *name;
    uint64_t calls;
} total;

static int by_name(const void *a, const void *b)
{
    return strcmp(((const total *)a)->name, ((const total *)b)->name);
}

/* Adds "calls\tname\n" lines to the totals (one entry per name). */
static void add_lines(total **t, size_t *n, size_t *cap, char *text, size_t len)
{
    char *end = text + len;
    for (char *p = text; p < end && *p;) {
        char *nl = memchr(p, '\n', (size_t)(end - p));
        if (!nl)
            break;
        *nl = '\0';
        char *tab = strchr(p, '\t');
        if (tab) {
            uint64_t calls = strtoull(p, NULL, 10);
            size_t i = 0;
            while (i < *n && strcmp((*t)[i].name, tab + 1) != 0)
                i++;
            if (i == *n) {
                if (*n == *cap) {
                    size_t c = *cap ? 2 * *cap : 64;
                    total *g = realloc(*t, c * sizeof *g);
                    if (!g)
                        return;
                    *t = g;
                    *cap = c;
                }
                (*t)[i].name = strdup(tab + 1);
                (*t)[i].calls = 0;
                if (!(*t)[i].name)
                    return;
                (*n)++;
            }
            (*t)[i].calls += calls;
        }
        p = nl + 1;
    }
}

/* Rank 0: the job's sums from every process's lines; the others send theirs. Collective. */
static int job_rows(FILE *out, char *mine, size_t len)
{
    int32_t size = cb->comm_size(), rank = cb->comm_rank();
    uint64_t l = len, max = 0;
    if (cb->comm_reduce(&l, &max, 1, INSTR_SUBSTRATE_UINT64, INSTR_SUBSTRATE_MAX, 0) != 0 ||
        cb->comm_bcast(&max, 1, INSTR_SUBSTRATE_UINT64, 0) != 0)
        return -1;
    char *send = calloc(1, max + 1);
    char *all = rank == 0 ? calloc((size_t)size, max + 1) : NULL;
    /* Every process learns whether all have their buffers: the gather happens everywhere or
     * nowhere, so that no process waits for one that left it out. */
    int32_t ok = send && (rank != 0 || all), all_ok = 0;
    if (cb->comm_reduce(&ok, &all_ok, 1, INSTR_SUBSTRATE_INT32, INSTR_SUBSTRATE_MIN, 0) != 0 ||
        cb->comm_bcast(&all_ok, 1, INSTR_SUBSTRATE_INT32, 0) != 0 || !all_ok) {
        if (rank == 0)
            fprintf(stderr, "callcount: out of memory: the job's sums are not written\n");
        free(send);
        free(all);
        return -1;
    }
    memcpy(send, mine, len);
    int rc = cb->comm_gather(send, all, max + 1, INSTR_SUBSTRATE_BYTE, 0);
    if (rc == 0 && rank == 0) {
        total *t = NULL;
        size_t n = 0, cap = 0;
        for (int32_t r = 0; r < size; r++) {
            char *part = all + (size_t)r * (max + 1);
            add_lines(&t, &n, &cap, part, strnlen(part, max));
        }
        qsort(t, n, sizeof *t, by_name);
        for (size_t i = 0; i < n; i++) {
            fprintf(out, "job\t-\t-\t-\t%llu\t%s\n", (unsigned long long)t[i].calls, t[i].name);
            free(t[i].name);
        }
        free(t);
    }
    free(send);
    free(all);
    return rc;
}

static int32_t write_data(const char *dir)
{
    int dfd = open(dir, O_DIRECTORY | O_RDONLY | O_CLOEXEC);
    int fd = dfd < 0 ? -1
                      : openat(dfd, file_name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
                               0644);
    if (dfd >= 0)
        close(dfd);
    FILE *out = fd < 0 ? NULL : fdopen(fd, "w");
    if (!out) {
        perror("callcount: cannot create its file in the experiment directory");
        if (fd >= 0)
            close(fd);
    }
    int32_t rank = cb->comm_rank();
    if (out) {
        fprintf(out, "scope\trank\tlocation\tthread\tcalls\tregion\n");
        for (counts *c = done; c; c = c->next)
            for (uint32_t r = 1; r < c->cap; r++)
                if (c->n[r])
                    fprintf(out, "location\t%d\t%u\t%d\t%llu\t%s\n", (int)rank, c->location,
                            (int)c->thread, (unsigned long long)c->n[r], cb->region_name(r));
    }
    size_t len = 0;
    char *mine = process_sums(&len);
    if (out && mine) {
        /* The same lines with their scope in front. */
        for (char *p = mine; p < mine + len;) {
            char *nl = memchr(p, '\n', (size_t)(mine + len - p));
            if (!nl)
                break;
            char *tab = memchr(p, '\t', (size_t)(nl - p));
            if (tab)
                fprintf(out, "process\t%d\t-\t-\t%.*s\n", (int)rank, (int)(nl - p), p);
            p = nl + 1;
        }
    }
    /* Collective: every process takes part, whatever went wrong here. */
    int rc = job_rows(out ? out : stderr, mine ? mine : "", mine ? len : 0);
    free(mine);
    if (out && fclose(out) != 0) {
        perror("callcount: writing its file");
        return -1;
    }
    return out && rc == 0 ? 0 : -1;
}

static void finalize(void)
{
    while (done) {
        counts *c = done;
        done = c->next;
        free(c->n);
        free(c);
    }
}

INSTR_SUBSTRATE_PLUGIN_ENTRY
{
    static const instr_substrate_plugin_info info = {
        .plugin_version = INSTR_SUBSTRATE_PLUGIN_VERSION,
        .initialize = initialize,
        .create_location = create_location,
        .delete_location = delete_location,
        .write_data = write_data,
        .finalize = finalize,
        .events = {.enter_region = enter},
        /* No INSTR_SUBSTRATE_PLUGIN_REENTRANT: enter is not reentrant. A signal handler's
         * enter arriving while it runs on the same location could meet it inside realloc
         * (neither reentrant nor async-signal-safe), or between the new array and its new
         * capacity (the nested call would write into freed memory, or grow the array again
         * and the interrupted call then store the stale one), or between the load and the
         * store of c->n[region]++ for the same region (one count lost). Per-location
         * counters without a lock are not enough: they must also never move and be counted
         * with one indivisible instruction. */
    };
    return &info;
}
