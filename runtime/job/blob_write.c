/* blob_write.c — this process's profile as a blob (blob.h), at the end, for rank 0. */
#include "blob.h"
#include "merged_metrics.h"
#include "messages.h"
#include "../core/clock.h"
#include "../core/ext.h"
#include "../core/event.h"
#include "../core/registry.h"
#include "../profile/profile.h"
#include "../throttle/throttle.h"
#include "../util/pages.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void instr_job_clean_field(instr_writer *f, const char *s)
{
    for (; s && *s; s++)
        instr_wr_putc(f, *s == '\t' || *s == '\n' || *s == '\r' ? ' ' : *s);
}

void instr_job_clean_fields(instr_writer *f, const char *const *fields, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        instr_job_clean_field(f, fields[i]);
        instr_wr_putc(f, i + 1 < n ? '\t' : '\n');
    }
}

static void blob_node(instr_writer *f, const instr_pnode *n, int64_t parent, uint32_t loc, uint32_t nm)
{
    uint64_t m[5] = {0}; /* bytes sent, bytes received, sends, receives, collectives */
    instr_job_messages_of(n, m);
    instr_wr_printf(f, "N %" PRId64 " %u %u %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64
               " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64
               " %" PRIu64 "\n",
            parent, n->region, loc, n->s.visits, instr_profile_ns(n->s.incl),
            instr_profile_ns(n->s.excl), instr_profile_min_ns(n->s.min_incl),
            instr_profile_ns(n->s.max_incl), instr_profile_min_ns(n->s.min_excl),
            instr_profile_ns(n->s.max_excl), m[0], m[1], m[2], m[3], m[4]);
    instr_job_blob_metric_values(f, n, nm);
}

char *instr_job_blob(const instr_run *run, size_t *len, int with_tree)
{
    int slot = instr_substrate_slot(&instr_profile_substrate);
    if (slot < 0)
        return NULL;
    instr_writer w, *f = &w;
    if (instr_writer_open_mem(f) != 0)
        return NULL;
    char host[256] = "";
    gethostname(host, sizeof host - 1);
    uint64_t dropped = 0;
    for (uint32_t i = 0; i < run->nlocations; i++) {
        instr_pstate *ps = run->locations[i]->sub[slot];
        if (ps)
            dropped += ps->dropped;
    }
    instr_wr_printf(f, "instr-job-profile 1\nP %d %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %s %.0f\t",
            run->pid, instr_clock_to_ns(run->t_end - run->t_start), dropped,
            run->unmatched_exits, run->closed_at_end, instr_clock_name(), instr_clock_hz());
    instr_job_clean_field(f, host);
    instr_wr_putc(f, '\n');
    const instr_profile_memory *mem = instr_profile_memory_of();
    if (mem) {
        instr_profile_mem_totals m;
        mem->totals(&m);
        instr_wr_printf(f, "Y %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64
                   " %" PRIu64 "\n", m.allocs, m.frees, m.bytes_allocated, m.bytes_freed,
                m.high_water, m.live_bytes, m.live_blocks);
    }
    const instr_profile_io *io = instr_profile_io_of();
    if (io) {
        instr_profile_io_totals t[INSTR_PROFILE_IO_PARADIGMS];
        io->totals(t);
        for (int p = 0; p < INSTR_PROFILE_IO_PARADIGMS; p++)
            instr_wr_printf(f, "O %d %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 "\n", p,
                    t[p].ops, t[p].failed, t[p].bytes_read, t[p].bytes_written, t[p].ns);
    }
    instr_job_blob_metric_defs(f);
    for (uint32_t i = 0; i < run->nlocations; i++) {
        const instr_location *l = run->locations[i];
        instr_wr_printf(f, "L %u %d %s\n", l->id, l->tid,
                l->ended == INSTR_LOC_THREAD_EXIT ? "thread-exit" : "program-end");
    }
    uint32_t nreg = instr_registry_count();
    for (uint32_t h = 1; h <= nreg; h++) {
        const instr_region_info *r = instr_registry_get(h);
        if (!r)
            continue;
        instr_wr_printf(f, "R %u %u %u %s\t", h, r->line_begin, r->line_end,
                instr_region_source_name(r->source));
        const char *fields[] = {r->name, r->mangled, r->file, r->object};
        instr_job_clean_fields(f, fields, 4);
        instr_throttle_mark mark;
        if (instr_throttle_mark_of(h, &mark))
            instr_wr_printf(f, "T %u %" PRIu64 " %u %" PRIu64 " %d\n", h, mark.visit, mark.location,
                    mark.mean_ns, mark.excluded);
    }
    int64_t next = 0;
    for (uint32_t i = 0; i < run->nlocations && with_tree; i++) {
        instr_pstate *ps = run->locations[i]->sub[slot];
        if (!ps)
            continue;
        /* Pre-order walk; `merged` (free once the profile is written) holds the line number. */
        instr_pnode *root = &ps->root;
        for (instr_pnode *n = root->child; n; n = instr_pnode_next(root, n)) {
            int64_t parent = n->parent == root ? -1 : (int64_t)n->parent->merged;
            n->merged = (uint32_t)next++;
            blob_node(f, n, parent, run->locations[i]->id, ps->nm);
        }
    }
    return instr_writer_take(f, len);
}

INSTR_EXT_EXPORT size_t instr_ext_job_blob_process_len(const char *blob, size_t len)
{
    /* The magic line, then the P, Y and O lines: they come first (above). */
    size_t pos = 0;
    for (int first = 1; pos < len; first = 0) {
        if (!first && blob[pos] != 'P' && blob[pos] != 'Y' && blob[pos] != 'O')
            break;
        const char *nl = memchr(blob + pos, '\n', len - pos);
        if (!nl)
            return first ? 0 : pos;
        pos = (size_t)(nl - blob) + 1;
    }
    return pos;
}
