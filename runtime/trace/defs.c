/* defs.c — the archive's global definitions, written once at the end (docs/tracing.md):
 * clock properties, strings, system tree (machine > node), one location group (this
 * process), one location per traced thread (with its OS thread id as a property), regions
 * (name, canonical = mangled name, file, lines, role, paradigm) and one source code location
 * per region whose file is known, and the calling contexts of samples (samples.c's hook, set by
 * runtime/sampling). References are dense from 0; region ref = handle - 1. */
#include "trace.h"
#include "../core/clock.h"
#include "../core/log.h"
#include "../core/registry.h"
#include "../util/hash.h"
#include "../util/table.h"
#include "../util/pages.h"
#include "../util/sort.h"

#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include <sys/utsname.h>
#include <time.h>

/* Strings, each defined once, in the order they are first needed (instr_strtab, trace.h). */
typedef instr_strtab strtab;

static uint64_t hash(const char *s) { return instr_fnv1a_str(INSTR_FNV1A_BASIS, s); }

static size_t slot_hash(const void *slot)
{
    return (size_t)hash(((const struct instr_strtab_slot *)slot)->key);
}

static int slot_live(const void *slot)
{
    return ((const struct instr_strtab_slot *)slot)->key != NULL;
}

OTF2_StringRef instr_strtab_ref(strtab *t, const char *s)
{
    if (!s)
        s = "";
    if (2 * ((size_t)t->n + 1) > t->cap &&
        instr_table_grow(&t->slots, &t->cap, sizeof *t->slots, 1024, slot_hash, slot_live) != 0) {
        t->failed = 1;
        return OTF2_UNDEFINED_STRING;
    }
    size_t j = (size_t)hash(s) & (t->cap - 1);
    while (t->slots[j].key) {
        if (strcmp(t->slots[j].key, s) == 0)
            return t->slots[j].ref;
        j = (j + 1) & (t->cap - 1);
    }
    uint32_t ref = t->n++;
    t->slots[j] = (struct instr_strtab_slot){s, ref};
    if (OTF2_GlobalDefWriter_WriteString(t->w, ref, s) != OTF2_SUCCESS)
        t->failed = 1;
    return ref;
}

#define str instr_strtab_ref

void instr_strtab_free(strtab *t)
{
    instr_mem_free(t->slots);
    t->slots = NULL;
}

/* MPI regions: the role analysis tools (Scalasca, Vampir) expect, from the call's name. */
static OTF2_RegionRole mpi_role(const char *name)
{
    static const struct {
        const char *name;
        OTF2_RegionRole role;
    } roles[] = {
        {"MPI_Barrier", OTF2_REGION_ROLE_BARRIER},
        {"MPI_Ibarrier", OTF2_REGION_ROLE_BARRIER},
        {"MPI_Bcast", OTF2_REGION_ROLE_COLL_ONE2ALL},
        {"MPI_Ibcast", OTF2_REGION_ROLE_COLL_ONE2ALL},
        {"MPI_Scatter", OTF2_REGION_ROLE_COLL_ONE2ALL},
        {"MPI_Iscatter", OTF2_REGION_ROLE_COLL_ONE2ALL},
        {"MPI_Gather", OTF2_REGION_ROLE_COLL_ALL2ONE},
        {"MPI_Igather", OTF2_REGION_ROLE_COLL_ALL2ONE},
        {"MPI_Reduce_scatter", OTF2_REGION_ROLE_COLL_ALL2ALL},
        {"MPI_Ireduce_scatter", OTF2_REGION_ROLE_COLL_ALL2ALL},
        {"MPI_Reduce", OTF2_REGION_ROLE_COLL_ALL2ONE},
        {"MPI_Ireduce", OTF2_REGION_ROLE_COLL_ALL2ONE},
        {"MPI_Allgather", OTF2_REGION_ROLE_COLL_ALL2ALL},
        {"MPI_Iallgather", OTF2_REGION_ROLE_COLL_ALL2ALL},
        {"MPI_Allreduce", OTF2_REGION_ROLE_COLL_ALL2ALL},
        {"MPI_Iallreduce", OTF2_REGION_ROLE_COLL_ALL2ALL},
        {"MPI_Alltoall", OTF2_REGION_ROLE_COLL_ALL2ALL},
        {"MPI_Ialltoall", OTF2_REGION_ROLE_COLL_ALL2ALL},
        {"MPI_Scan", OTF2_REGION_ROLE_COLL_OTHER},
        {"MPI_Iscan", OTF2_REGION_ROLE_COLL_OTHER},
        {"MPI_Exscan", OTF2_REGION_ROLE_COLL_OTHER},
        {"MPI_Iexscan", OTF2_REGION_ROLE_COLL_OTHER},
        {"MPI_Neighbor_", OTF2_REGION_ROLE_COLL_OTHER},
        {"MPI_Ineighbor_", OTF2_REGION_ROLE_COLL_OTHER},
    };
    for (size_t i = 0; i < sizeof roles / sizeof *roles; i++)
        if (strncmp(name, roles[i].name, strlen(roles[i].name)) == 0)
            return roles[i].role;
    static const char *const p2p[] = {"send", "recv", "Send", "Recv", "probe", "Probe",
                                      "Wait", "Test", "Start"};
    for (size_t i = 0; i < sizeof p2p / sizeof *p2p; i++)
        if (strstr(name + 4, p2p[i]) && strncmp(name, "MPI_File", 8) != 0 &&
            strncmp(name, "MPI_Win", 7) != 0 && strncmp(name, "MPI_Type", 8) != 0 &&
            strncmp(name, "MPI_Get_", 8) != 0 && strstr(name, "_init") == NULL)
            return OTF2_REGION_ROLE_POINT2POINT;
    return OTF2_REGION_ROLE_FUNCTION;
}

/* A Kokkos region's role by the kind its canonical name starts with (runtime/kokkos/
 * regions.c): kernels are parallel loops, fences barriers, deep copies data transfers;
 * profile regions and sections are code the program marked. */
static OTF2_RegionRole kokkos_role(const char *canonical)
{
    if (!canonical)
        return OTF2_REGION_ROLE_CODE;
    if (strncmp(canonical, "Kokkos::parallel_", 17) == 0)
        return OTF2_REGION_ROLE_LOOP;
    if (strncmp(canonical, "Kokkos::fence ", 14) == 0)
        return OTF2_REGION_ROLE_BARRIER;
    if (strncmp(canonical, "Kokkos::deep_copy ", 18) == 0)
        return OTF2_REGION_ROLE_DATA_TRANSFER;
    return OTF2_REGION_ROLE_CODE;
}

/* An OpenACC construct's role by its name (runtime/openacc/regions.c): compute constructs
 * are parallel regions, data movement is data transfer, wait a barrier. */
static OTF2_RegionRole openacc_role(const char *name)
{
    static const struct { const char *prefix; OTF2_RegionRole role; } roles[] = {
        {"!$acc parallel", OTF2_REGION_ROLE_PARALLEL},
        {"!$acc kernels", OTF2_REGION_ROLE_PARALLEL},
        {"!$acc serial", OTF2_REGION_ROLE_PARALLEL},
        {"!$acc enter data", OTF2_REGION_ROLE_DATA_TRANSFER},
        {"!$acc exit data", OTF2_REGION_ROLE_DATA_TRANSFER},
        {"!$acc update", OTF2_REGION_ROLE_DATA_TRANSFER},
        {"!$acc enqueue upload", OTF2_REGION_ROLE_DATA_TRANSFER},
        {"!$acc enqueue download", OTF2_REGION_ROLE_DATA_TRANSFER},
        {"!$acc wait", OTF2_REGION_ROLE_BARRIER},
    };
    for (size_t i = 0; name && i < sizeof roles / sizeof *roles; i++)
        if (strncmp(name, roles[i].prefix, strlen(roles[i].prefix)) == 0)
            return roles[i].role;
    return OTF2_REGION_ROLE_CODE;
}

void instr_trace_region_kind(int source, const char *name, const char *canonical,
                             OTF2_RegionRole *role, OTF2_Paradigm *paradigm)
{
    int user = source == INSTR_SOURCE_MANUAL;
    *role = user ? OTF2_REGION_ROLE_CODE : OTF2_REGION_ROLE_FUNCTION;
    *paradigm = user ? OTF2_PARADIGM_USER : OTF2_PARADIGM_COMPILER;
    if (source == INSTR_SOURCE_OPENMP) {
        *role = instr_trace_openmp_role(name);
        *paradigm = OTF2_PARADIGM_OPENMP;
    } else if (source == INSTR_SOURCE_MPI) {
        *role = mpi_role(name);
        *paradigm = OTF2_PARADIGM_MPI;
    } else if (source == INSTR_SOURCE_KOKKOS) {
        *role = kokkos_role(canonical);
        *paradigm = OTF2_PARADIGM_KOKKOS;
    } else if (source == INSTR_SOURCE_OPENACC) {
        *role = openacc_role(name);
        *paradigm = OTF2_PARADIGM_OPENACC;
    } else if (source == INSTR_SOURCE_MEMORY) {
        /* OTF2 (up to 3.0) has no paradigm MEMORY: the role says what the region is. */
        *role = instr_trace_memory_role(name);
        *paradigm = OTF2_PARADIGM_NONE;
    } else if (source == INSTR_SOURCE_IO) {
        *role = OTF2_REGION_ROLE_FILE_IO; /* I/O recording's functions (io_events.c) */
        *paradigm = OTF2_PARADIGM_NONE;
    }
}

static int by_id(const void *a, const void *b)
{
    const instr_tloc *x = *(instr_tloc *const *)a, *y = *(instr_tloc *const *)b;
    return (x->id > y->id) - (x->id < y->id);
}

/* Wall-clock time (ns since the epoch) of tick `t`, from one reading of both clocks now. */
uint64_t instr_trace_realtime_of(uint64_t t)
{
    struct timespec rt;
    uint64_t now = instr_clock_now();
    clock_gettime(CLOCK_REALTIME, &rt);
    uint64_t rt_ns = (uint64_t)rt.tv_sec * 1000000000u + (uint64_t)rt.tv_nsec;
    uint64_t back = now > t ? instr_clock_to_ns(now - t) : 0;
    return rt_ns > back ? rt_ns - back : OTF2_UNDEFINED_TIMESTAMP;
}

int instr_trace_write_defs(OTF2_Archive *archive, const instr_run *run, uint64_t t_last)
{
    OTF2_GlobalDefWriter *w = OTF2_Archive_GetGlobalDefWriter(archive);
    if (!w) {
        instr_warn("trace: no OTF2 definition writer; the archive has no definitions");
        return -1;
    }
    OTF2_ErrorCode rc = OTF2_SUCCESS;
#define CHECK(call) do { if (rc == OTF2_SUCCESS) rc = (call); } while (0)

    uint64_t hz = (uint64_t)(instr_clock_hz() + 0.5);
    CHECK(OTF2_GlobalDefWriter_WriteClockProperties(w, hz ? hz : 1, run->t_start,
                                                    t_last - run->t_start,
                                                    instr_trace_realtime_of(run->t_start)));

    strtab st = {.w = w};
    struct utsname u;
    if (uname(&u) != 0) {
        strcpy(u.sysname, "unknown");
        strcpy(u.nodename, "unknown");
    }
    OTF2_StringRef machine_name = str(&st, u.sysname), machine = str(&st, "machine");
    OTF2_StringRef node_name = str(&st, u.nodename), node = str(&st, "node");
    CHECK(OTF2_GlobalDefWriter_WriteSystemTreeNode(w, 0, machine_name, machine,
                                                   OTF2_UNDEFINED_SYSTEM_TREE_NODE));
    CHECK(OTF2_GlobalDefWriter_WriteSystemTreeNode(w, 1, node_name, node, 0));

    char pname[64];
    snprintf(pname, sizeof pname, "process %d", run->pid);
    CHECK(OTF2_GlobalDefWriter_WriteLocationGroup(w, 0, str(&st, pname),
                                                  OTF2_LOCATION_GROUP_TYPE_PROCESS, 1,
                                                  OTF2_UNDEFINED_LOCATION_GROUP));

    /* Locations, in id order. Names are kept in one buffer that outlives the table. */
    uint32_t nloc = 0;
    for (instr_tloc *s = instr_trace_locs; s; s = s->next)
        nloc++;
    instr_tloc **locs = instr_mem_calloc(nloc ? nloc : 1, sizeof *locs);
    char *names = instr_mem_calloc(nloc ? nloc : 1, 32);
    if (!locs || !names) {
        instr_mem_free(locs);
        instr_mem_free(names);
        instr_warn("trace: out of memory while writing the definitions");
        return -1;
    }
    nloc = 0;
    for (instr_tloc *s = instr_trace_locs; s; s = s->next)
        locs[nloc++] = s;
    instr_sort(locs, nloc, sizeof *locs, by_id);
    OTF2_StringRef tid_name = str(&st, "instr::tid");
    for (uint32_t i = 0; i < nloc; i++) {
        char *name = names + 32 * (size_t)i;
        snprintf(name, 32, "thread %u", locs[i]->id);
        CHECK(OTF2_GlobalDefWriter_WriteLocation(w, locs[i]->ref, str(&st, name),
                                                 OTF2_LOCATION_TYPE_CPU_THREAD, locs[i]->events,
                                                 0));
        OTF2_AttributeValue v = {.uint64 = (uint64_t)locs[i]->tid};
        CHECK(OTF2_GlobalDefWriter_WriteLocationProperty(w, locs[i]->ref, tid_name,
                                                         OTF2_TYPE_UINT64, v));
    }

    CHECK(instr_trace_metric_defs(w, &st));
    CHECK(instr_trace_memory_defs(w, &st));
    CHECK(instr_trace_io_defs(w, &st));

    OTF2_StringRef empty = str(&st, "");
    uint32_t nreg = instr_registry_count(), nsrc = 0;
    for (uint32_t h = 1; h <= nreg && rc == OTF2_SUCCESS; h++) {
        const instr_region_info *r = instr_registry_get(h);
        if (!r)
            continue;
        OTF2_RegionRole role;
        OTF2_Paradigm paradigm;
        instr_trace_region_kind(r->source, r->name, r->mangled, &role, &paradigm);
        const char *canonical = r->mangled && *r->mangled ? r->mangled : r->name;
        OTF2_StringRef file = r->file && *r->file ? str(&st, r->file) : empty;
        CHECK(OTF2_GlobalDefWriter_WriteRegion(
            w, h - 1, str(&st, r->name), str(&st, canonical),
            str(&st, instr_region_source_name(r->source)), role, paradigm,
            OTF2_REGION_FLAG_NONE, file, r->line_begin, r->line_end));
        if (file != empty)
            CHECK(OTF2_GlobalDefWriter_WriteSourceCodeLocation(w, nsrc++, file, r->line_begin));
    }
    /* Samples' calling contexts (runtime/sampling): their frames are regions above. */
    if (instr_trace_samples && instr_trace_samples->defs)
        CHECK(instr_trace_samples->defs(w, &st, nsrc));
#undef CHECK
    instr_mem_free(locs);
    instr_mem_free(names);
    instr_strtab_free(&st);
    if (rc != OTF2_SUCCESS || st.failed) {
        instr_warn("trace: writing the definitions failed (%s); the archive is incomplete",
                   rc != OTF2_SUCCESS ? OTF2_Error_GetName(rc) : "out of memory");
        return -1;
    }
    return 0;
}
