/* report.c — kokkos.txt: what the profile's regions do not carry, counted over the run and
 * written when Kokkos finalizes (its last event: Views are gone then): the bytes of deep
 * copies by source and destination memory space, allocations and releases by memory space
 * with their live bytes and high-water mark, and the metadata Kokkos declared. Format:
 * docs/kokkos.md. A mutex: these events are per copy or allocation, not per iteration. */
#include "kokkos.h"
#include "../core/event.h"
#include "../core/experiment.h"
#include "../core/log.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>

#define SPACES 16
#define PAIRS 32
#define METADATA 64
#define NAME 64

typedef struct space {
    char name[NAME];
    uint64_t allocs, frees, bytes_allocated, bytes_freed, live, high_water;
} space;
typedef struct pair {
    char src[NAME], dst[NAME];
    uint64_t copies, bytes;
} pair;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static space spaces[SPACES];
static pair pairs[PAIRS];
static unsigned nspaces, npairs, nmeta;
static uint64_t other_copies, other_bytes, other_allocs; /* beyond the tables */
static struct { char key[NAME], value[256]; } meta[METADATA];
static uint64_t interface_version;
static uint32_t devices;
static int initialized, written;

void instr_kokkos_note_init(uint64_t version, uint32_t ndevices)
{
    pthread_mutex_lock(&lock);
    interface_version = version;
    devices = ndevices;
    initialized = 1;
    pthread_mutex_unlock(&lock);
}

void instr_kokkos_count_copy(const char *src, const char *dst, uint64_t bytes)
{
    pthread_mutex_lock(&lock);
    unsigned i = 0;
    while (i < npairs && (strcmp(pairs[i].src, src) != 0 || strcmp(pairs[i].dst, dst) != 0))
        i++;
    if (i == npairs && npairs < PAIRS) {
        snprintf(pairs[i].src, NAME, "%s", src);
        snprintf(pairs[i].dst, NAME, "%s", dst);
        npairs++;
    }
    if (i < npairs) {
        pairs[i].copies++;
        pairs[i].bytes += bytes;
    } else {
        other_copies++;
        other_bytes += bytes;
    }
    pthread_mutex_unlock(&lock);
}

void instr_kokkos_count_alloc(const char *name, uint64_t bytes, int release)
{
    pthread_mutex_lock(&lock);
    unsigned i = 0;
    while (i < nspaces && strcmp(spaces[i].name, name) != 0)
        i++;
    if (i == nspaces && nspaces < SPACES)
        snprintf(spaces[nspaces++].name, NAME, "%s", name);
    if (i < nspaces) {
        space *s = &spaces[i];
        if (release) {
            s->frees++;
            s->bytes_freed += bytes;
            s->live = s->live > bytes ? s->live - bytes : 0;
        } else {
            s->allocs++;
            s->bytes_allocated += bytes;
            s->live += bytes;
            if (s->live > s->high_water)
                s->high_water = s->live;
        }
    } else {
        other_allocs++;
    }
    pthread_mutex_unlock(&lock);
}

void instr_kokkos_metadata(const char *key, const char *value)
{
    pthread_mutex_lock(&lock);
    if (nmeta < METADATA) {
        snprintf(meta[nmeta].key, NAME, "%s", key);
        snprintf(meta[nmeta].value, sizeof meta[nmeta].value, "%s", value);
        nmeta++;
    }
    pthread_mutex_unlock(&lock);
}

/* Tabs and newlines would break the columns. */
static void field(instr_writer *f, const char *s)
{
    for (; *s; s++)
        instr_wr_putc(f, *s == '\t' || *s == '\n' || *s == '\r' ? ' ' : *s);
}

void instr_kokkos_write_report(void)
{
    int st = instr_state_get();
    if (st != INSTR_STATE_RUNNING && st != INSTR_STATE_PAUSED)
        return; /* nothing recorded, or the results are written already */
    pthread_mutex_lock(&lock);
    if (written || !initialized) {
        pthread_mutex_unlock(&lock);
        return;
    }
    written = 1;
    instr_outfile o;
    if (instr_out_open_rank(&o, "kokkos.txt") != 0) {
        pthread_mutex_unlock(&lock);
        return;
    }
    instr_writer *f = o.f;
    instr_wr_printf(f, "# instr Kokkos report (docs/kokkos.md)\n"
               "interface_version\t%llu\ndevices\t%u\n",
            (unsigned long long)interface_version, devices);
    instr_wr_puts(f, "# deep copies: src_space\tdst_space\tcopies\tbytes\n");
    for (unsigned i = 0; i < npairs; i++) {
        instr_wr_puts(f, "copy\t");
        field(f, pairs[i].src);
        instr_wr_putc(f, '\t');
        field(f, pairs[i].dst);
        instr_wr_printf(f, "\t%llu\t%llu\n", (unsigned long long)pairs[i].copies,
                (unsigned long long)pairs[i].bytes);
    }
    if (other_copies)
        instr_wr_printf(f, "copy\t(other)\t(other)\t%llu\t%llu\n", (unsigned long long)other_copies,
                (unsigned long long)other_bytes);
    instr_wr_puts(f, "# allocations: space\tallocations\tfrees\tbytes_allocated\tbytes_freed"
          "\tlive_bytes\thigh_water_bytes\n");
    for (unsigned i = 0; i < nspaces; i++) {
        const space *s = &spaces[i];
        instr_wr_puts(f, "space\t");
        field(f, s->name);
        instr_wr_printf(f, "\t%llu\t%llu\t%llu\t%llu\t%llu\t%llu\n", (unsigned long long)s->allocs,
                (unsigned long long)s->frees, (unsigned long long)s->bytes_allocated,
                (unsigned long long)s->bytes_freed, (unsigned long long)s->live,
                (unsigned long long)s->high_water);
    }
    if (other_allocs)
        instr_wr_printf(f, "space\t(other)\t%llu\n", (unsigned long long)other_allocs);
    instr_wr_puts(f, "# metadata: key\tvalue\n");
    for (unsigned i = 0; i < nmeta; i++) {
        instr_wr_puts(f, "metadata\t");
        field(f, meta[i].key);
        instr_wr_putc(f, '\t');
        field(f, meta[i].value);
        instr_wr_putc(f, '\n');
    }
    pthread_mutex_unlock(&lock);
    if (instr_out_close_rank(&o) == 0)
        instr_info(1, "kokkos: kokkos.txt written");
}
