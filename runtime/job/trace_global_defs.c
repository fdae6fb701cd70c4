/* trace_global_defs.c — the global definitions of an MPI job's trace archive, written by
 * rank 0 from the union of the ranks' definitions (trace_unify.h). */
#include "trace_unify.h"
#include "../core/clock.h"
#include "../core/ext.h"
#include "../core/log.h"
#include "../core/registry.h"
#include "../util/pages.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

/* An inter-communicator (ref c; members: group A's size, A's world ranks, B's; see
 * INSTR_EXT_TRACE_INTERCOMM): its two groups, and an InterComm of them (OTF2 3.0, which the
 * communicators' definitions need anyway). */
static OTF2_ErrorCode write_intercomm(OTF2_GlobalDefWriter *w, instr_strtab *st, uint32_t c,
                                      const gcomm *g, OTF2_GroupRef *next_group)
{
    uint32_t n = g->nmembers ? g->nmembers - 1 : 0;
    uint32_t na = g->nmembers && g->members[0] <= n ? g->members[0] : 0;
    if (na == 0)
        n = 0; /* the leader's members did not come: empty groups rather than wrong ones */
    uint64_t *m = instr_mem_calloc(n ? n : 1, sizeof *m);
    if (!m)
        return OTF2_ERROR_MEM_ALLOC_FAILED;
    for (uint32_t k = 0; k < n; k++)
        m[k] = g->members[1 + k];
    OTF2_StringRef name = instr_strtab_ref(st, g->name);
    OTF2_GroupRef a = (*next_group)++, b = (*next_group)++;
    OTF2_ErrorCode rc = OTF2_GlobalDefWriter_WriteGroup(w, a, name, OTF2_GROUP_TYPE_COMM_GROUP,
                                         OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE, na, m);
    if (rc == OTF2_SUCCESS)
        rc = OTF2_GlobalDefWriter_WriteGroup(w, b, name, OTF2_GROUP_TYPE_COMM_GROUP,
                                             OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE, n - na,
                                             m + na);
    if (rc == OTF2_SUCCESS)
        rc = OTF2_GlobalDefWriter_WriteInterComm(w, c, name, a, b, OTF2_UNDEFINED_COMM,
                                                 OTF2_COMM_FLAG_NONE);
    instr_mem_free(m);
    return rc;
}

/* Rank 0: the global definitions of the whole job from the union. */
int instr_trace_unify_write_global(OTF2_Archive *a, void *arg)
{
    instr_unifier *u = arg;
    OTF2_GlobalDefWriter *w = OTF2_Archive_GetGlobalDefWriter(a);
    if (!w)
        return -1;
    OTF2_ErrorCode rc = OTF2_SUCCESS;
#define CHECK(call) do { if (rc == OTF2_SUCCESS) rc = (call); } while (0)
    uint64_t hz = (uint64_t)(instr_clock_hz() + 0.5);
    uint64_t first = u->t_first > u->margin ? u->t_first - u->margin : 0;
    uint64_t len = u->t_last + u->margin - first;
    CHECK(OTF2_GlobalDefWriter_WriteClockProperties(w, hz ? hz : 1, first, len,
                                                    instr_trace_realtime_of(first)));
    instr_strtab st = {.w = w};
    /* Names built here live in one buffer until the table is done with them. */
    size_t nnames = 0;
    for (int r = 0; r < u->nranks; r++)
        nnames += 1 + u->ranks[r].nloc;
    nnames += u->ncomms;
    char *names = instr_mem_calloc(nnames ? nnames : 1, 48);
    if (!names)
        return -1;
    size_t ni = 0;
#define NAME(...) (snprintf(names + 48 * ni, 48, __VA_ARGS__), names + 48 * ni++)

    struct utsname un;
    if (uname(&un) != 0)
        strcpy(un.sysname, "unknown");
    CHECK(OTF2_GlobalDefWriter_WriteSystemTreeNode(w, 0, instr_strtab_ref(&st, un.sysname),
                                                   instr_strtab_ref(&st, "machine"),
                                                   OTF2_UNDEFINED_SYSTEM_TREE_NODE));
    for (uint32_t h = 0; h < u->nhosts; h++)
        CHECK(OTF2_GlobalDefWriter_WriteSystemTreeNode(w, 1 + h,
                                                       instr_strtab_ref(&st, u->hosts[h]),
                                                       instr_strtab_ref(&st, "node"), 0));
    for (int r = 0; r < u->nranks; r++)
        CHECK(OTF2_GlobalDefWriter_WriteLocationGroup(
            w, (uint32_t)r, instr_strtab_ref(&st, NAME("MPI Rank %d", r)),
            OTF2_LOCATION_GROUP_TYPE_PROCESS, 1 + u->ranks[r].host,
            OTF2_UNDEFINED_LOCATION_GROUP));
    OTF2_StringRef tid_name = instr_strtab_ref(&st, "instr::tid");
    for (int r = 0; r < u->nranks; r++) {
        grank *g = &u->ranks[r];
        for (uint32_t i = 0; i < g->nloc; i++) {
            uint64_t ref = ((uint64_t)r << 32) | g->loc_id[i];
            CHECK(OTF2_GlobalDefWriter_WriteLocation(
                w, ref, instr_strtab_ref(&st, NAME("thread %u", g->loc_id[i])),
                OTF2_LOCATION_TYPE_CPU_THREAD, g->loc_events[i], (uint32_t)r));
            OTF2_AttributeValue v = {.uint64 = g->loc_tid[i]};
            CHECK(OTF2_GlobalDefWriter_WriteLocationProperty(w, ref, tid_name, OTF2_TYPE_UINT64,
                                                             v));
        }
        if (g->async_events)
            CHECK(OTF2_GlobalDefWriter_WriteLocation(
                w, ((uint64_t)r << 32) | g->async_id,
                instr_strtab_ref(&st, "asynchronous metrics"), OTF2_LOCATION_TYPE_METRIC,
                g->async_events, (uint32_t)r));
    }
    OTF2_StringRef empty = instr_strtab_ref(&st, "");
    for (uint32_t i = 0; i < u->nregions; i++) {
        gregion *r = &u->regions[i];
        OTF2_RegionRole role;
        OTF2_Paradigm paradigm;
        instr_trace_region_kind((int)r->source, r->name, r->canonical, &role, &paradigm);
        CHECK(OTF2_GlobalDefWriter_WriteRegion(
            w, i, instr_strtab_ref(&st, r->name), instr_strtab_ref(&st, r->canonical),
            instr_strtab_ref(&st, instr_region_source_name((int)r->source)), role, paradigm,
            OTF2_REGION_FLAG_NONE, *r->file ? instr_strtab_ref(&st, r->file) : empty, r->lb,
            r->le));
    }
    /* Samples' calling contexts, each sampled frame's with its source code location (refs
     * from 0: the job's regions have none), and the interrupt generator: the ranks share
     * INSTR_SAMPLING's settings, so rank 0's hook writes it. */
    if (u->nctxs) {
        OTF2_SourceCodeLocationRef scl = 0;
        for (uint32_t i = 0; i < u->nctxs; i++) {
            gctx *c = &u->ctxs[i];
            OTF2_SourceCodeLocationRef where = OTF2_UNDEFINED_SOURCE_CODE_LOCATION;
            if (*c->file && c->line) {
                CHECK(OTF2_GlobalDefWriter_WriteSourceCodeLocation(
                    w, scl, instr_strtab_ref(&st, c->file), c->line));
                where = scl++;
            }
            CHECK(OTF2_GlobalDefWriter_WriteCallingContext(w, i, c->region, where, c->parent));
        }
        const instr_trace_sample_hook *sh = instr_trace_samples;
        if (sh && sh->generator)
            CHECK(sh->generator(w, &st));
        else
            CHECK(OTF2_GlobalDefWriter_WriteInterruptGenerator(
                w, 0, instr_strtab_ref(&st, "instr sampling"), OTF2_INTERRUPT_GENERATOR_MODE_TIME,
                OTF2_BASE_DECIMAL, -9, 0));
    }
    /* Metrics: the ranks agreed on one set at MPI_Init (metric_events.c), so rank 0's
     * definitions are everyone's, with the same refs. */
    CHECK(instr_trace_metric_defs(w, &st));
    CHECK(instr_trace_memory_defs(w, &st)); /* the same on every rank: refs 0.. */
    /* I/O: the paradigms (the same refs on every rank), one file per name, scoped to its
     * node (the machine when ranks on several nodes used it), one handle per rank's. */
    if (u->nhandles) {
        CHECK(instr_trace_io_paradigm_defs(w, &st));
        for (uint32_t i = 0; i < u->nfiles; i++)
            CHECK(OTF2_GlobalDefWriter_WriteIoRegularFile(
                w, i, instr_strtab_ref(&st, u->files[i].name),
                u->files[i].host == UINT32_MAX ? 0 : 1 + u->files[i].host));
        for (uint32_t i = 0; i < u->nhandles; i++)
            CHECK(OTF2_GlobalDefWriter_WriteIoHandle(
                w, i, instr_strtab_ref(&st, u->files[u->handles[i].file].name),
                u->handles[i].file, u->handles[i].paradigm, OTF2_IO_HANDLE_FLAG_NONE,
                OTF2_UNDEFINED_COMM, OTF2_UNDEFINED_IO_HANDLE));
    }
    /* Groups: 0 the MPI locations by world rank, 1 MPI_COMM_SELF's, then one per other
     * communicator: its members (world ranks). */
    uint64_t *members = instr_mem_calloc((size_t)u->nranks, sizeof *members);
    if (!members) {
        instr_mem_free(names);
        instr_strtab_free(&st);
        return -1;
    }
    for (int r = 0; r < u->nranks; r++)
        members[r] = ((uint64_t)r << 32) | u->ranks[r].mpi_location;
    CHECK(OTF2_GlobalDefWriter_WriteGroup(w, 0, instr_strtab_ref(&st, "MPI ranks"),
                                          OTF2_GROUP_TYPE_COMM_LOCATIONS, OTF2_PARADIGM_MPI,
                                          OTF2_GROUP_FLAG_NONE, (uint32_t)u->nranks, members));
    CHECK(OTF2_GlobalDefWriter_WriteGroup(w, 1, instr_strtab_ref(&st, "MPI_COMM_SELF"),
                                          OTF2_GROUP_TYPE_COMM_SELF, OTF2_PARADIGM_MPI,
                                          OTF2_GROUP_FLAG_NONE, 0, NULL));
    for (int r = 0; r < u->nranks; r++)
        members[r] = (uint64_t)r;
    OTF2_GroupRef next_group = 2; /* OTF2 wants group refs dense and in order */
    for (uint32_t c = 0; c < u->ncomms; c++) {
        gcomm *g = &u->comms[c];
        if (g->leader != UINT32_MAX && (g->seq & INSTR_EXT_TRACE_INTERCOMM)) {
            CHECK(write_intercomm(w, &st, c, g, &next_group));
            continue;
        }
        OTF2_GroupRef group = 1;
        if (!(g->leader == UINT32_MAX && g->seq == 1)) {
            group = next_group++;
            uint32_t n = (uint32_t)u->nranks;
            uint64_t *m = members;
            uint64_t *own = NULL;
            if (g->leader != UINT32_MAX) {
                n = g->nmembers;
                own = instr_mem_calloc(n ? n : 1, sizeof *own);
                if (!own) {
                    rc = OTF2_ERROR_MEM_ALLOC_FAILED;
                    break;
                }
                for (uint32_t k = 0; k < n; k++)
                    own[k] = g->members[k];
                m = own;
            }
            CHECK(OTF2_GlobalDefWriter_WriteGroup(w, group, instr_strtab_ref(&st, g->name),
                                                  OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_MPI,
                                                  OTF2_GROUP_FLAG_NONE, n, m));
            instr_mem_free(own);
        }
        /* Its parent, the communicator it was made from (a lower ref: written before it);
         * no CommCreate/CommDestroy events (their flag): the creating call's collective
         * (CREATE_HANDLE) is in the trace instead, as Score-P has it. */
        CHECK(OTF2_GlobalDefWriter_WriteComm(
            w, c, instr_strtab_ref(&st, g->name), group,
            g->parent < c ? g->parent : OTF2_UNDEFINED_COMM, OTF2_COMM_FLAG_NONE));
    }
    /* RMA windows, each with the communicator that made it. */
    for (uint32_t i = 0; i < u->nwins; i++)
        CHECK(OTF2_GlobalDefWriter_WriteRmaWin(
            w, i, instr_strtab_ref(&st, u->wins[i].name),
            u->wins[i].comm == UINT32_MAX ? OTF2_UNDEFINED_COMM : u->wins[i].comm
#if OTF2_VERSION_MAJOR >= 3
            , OTF2_RMA_WIN_FLAG_NONE /* the flags came with OTF2 3.0 */
#endif
            ));
#undef CHECK
#undef NAME
    instr_mem_free(members);
    int failed = rc != OTF2_SUCCESS || st.failed;
    instr_mem_free(names);
    instr_strtab_free(&st);
    if (failed)
        instr_warn("trace: writing the job's global definitions failed (%s)",
                   rc != OTF2_SUCCESS ? OTF2_Error_GetName(rc) : "out of memory");
    return failed ? -1 : 0;
}
