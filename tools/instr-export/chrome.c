/* chrome.c — instr-export --chrome: an OTF2 trace to the Chrome trace-event JSON that
 * Perfetto UI, chrome://tracing and speedscope load (docs/report.md).
 *
 * Read with the OTF2 library's global event reader, which merges the locations' event
 * streams by time and holds only a chunk of each; every event is written as it is read, so
 * memory stays flat in the length of the trace (it grows with the number of locations, the
 * call depth and the open message channels only):
 *   - one process per location group (an MPI rank), one thread per location;
 *   - a complete event ("X") per region visit, written at its leave;
 *   - a flow ("s" at the send, "f" at the receive) per point-to-point MPI message, matched
 *     in MPI's order: the n-th message of a channel (communicator, sender, receiver, tag)
 *     is received by the n-th receive of that channel;
 *   - a counter event ("C") per metric value, named "METRIC (THREAD)": the format keeps
 *     counters per process, so the thread goes into the name. */
#include "export.h"
#include "otf2_anchor.h"
#include "json_str.h"

#include <otf2/otf2.h>

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct frame {
    uint64_t t;
    uint32_t region;
} frame;

typedef struct loc {
    uint64_t ref;
    uint32_t group, name;
    frame *stack;
    uint32_t depth, cap;
} loc;

typedef struct group {
    uint32_t type, n;
    uint64_t *members;
} group;

typedef struct channel { /* a (communicator, sender, receiver, tag) stream of messages */
    uint32_t comm, src, dst, tag, used;
    uint32_t index;      /* flow ids: index << 32 | message number */
    uint64_t sent, received;
} channel;

typedef struct ctx {
    FILE *out;
    int first;           /* no event written yet */
    uint64_t resolution, offset;
    char **strings;
    uint32_t nstrings;
    uint32_t *region_name;
    uint32_t nregions;
    uint32_t *lgroup_name; /* location group -> name string */
    uint32_t nlgroups;
    loc *locs;
    size_t nlocs, caplocs;
    size_t *loc_slot;    /* open addressing on loc->ref, capslots entries (index + 1) */
    size_t capslots;
    group *groups;
    uint32_t ngroups;
    uint32_t *comm_group;
    uint32_t ncomms;
    uint32_t *member_name; /* metric member -> name string */
    uint32_t nmembers;
    uint32_t (*classes)[256]; /* metric class -> members (first entry: how many) */
    uint32_t nclasses;
    channel *chans;
    size_t capchans, nchans;
    int failed;          /* out of memory */
} ctx;

/* Grows the array *pp of *n elements of size elem so that index i exists (zeroed). */
static int grow_to(void *pp, uint32_t *n, uint32_t i, size_t elem)
{
    if (i < *n)
        return 0;
    if (i >= (1u << 28))
        return -1; /* a reference this large is a corrupt trace, not a big one */
    uint32_t cap = *n ? *n : 16;
    while (cap <= i)
        cap *= 2;
    char *p = realloc(*(void **)pp, (size_t)cap * elem);
    if (!p)
        return -1;
    memset(p + (size_t)*n * elem, 0, (size_t)(cap - *n) * elem);
    *(void **)pp = p;
    *n = cap;
    return 0;
}

static const char *str(const ctx *c, uint32_t ref)
{
    return ref < c->nstrings && c->strings[ref] ? c->strings[ref] : "?";
}

static size_t hash64(uint64_t k)
{
    k ^= k >> 31;
    k *= 0x7fb5d329728ea185ull;
    k ^= k >> 27;
    return (size_t)k;
}

static loc *find_loc(ctx *c, uint64_t ref)
{
    if (!c->capslots)
        return NULL;
    for (size_t i = hash64(ref) & (c->capslots - 1);; i = (i + 1) & (c->capslots - 1)) {
        if (!c->loc_slot[i])
            return NULL;
        if (c->locs[c->loc_slot[i] - 1].ref == ref)
            return &c->locs[c->loc_slot[i] - 1];
    }
}

/* ---- definitions ---- */

static OTF2_CallbackCode def_clock(void *u, uint64_t res, uint64_t off, uint64_t len, uint64_t rt)
{
    ctx *c = u;
    (void)len;
    (void)rt;
    c->resolution = res ? res : 1;
    c->offset = off;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode def_string(void *u, OTF2_StringRef self, const char *s)
{
    ctx *c = u;
    if (grow_to(&c->strings, &c->nstrings, self, sizeof *c->strings) != 0 ||
        !(c->strings[self] = strdup(s))) {
        c->failed = 1;
        return OTF2_CALLBACK_INTERRUPT;
    }
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode def_region(void *u, OTF2_RegionRef self, OTF2_StringRef name,
                                    OTF2_StringRef canonical, OTF2_StringRef desc,
                                    OTF2_RegionRole role, OTF2_Paradigm paradigm,
                                    OTF2_RegionFlag flags, OTF2_StringRef file, uint32_t lb,
                                    uint32_t le)
{
    ctx *c = u;
    (void)canonical, (void)desc, (void)role, (void)paradigm, (void)flags, (void)file, (void)lb,
        (void)le;
    if (grow_to(&c->region_name, &c->nregions, self, sizeof *c->region_name) != 0) {
        c->failed = 1;
        return OTF2_CALLBACK_INTERRUPT;
    }
    c->region_name[self] = name;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode def_lgroup(void *u, OTF2_LocationGroupRef self, OTF2_StringRef name,
                                    OTF2_LocationGroupType type, OTF2_SystemTreeNodeRef parent,
                                    OTF2_LocationGroupRef creator)
{
    ctx *c = u;
    (void)type, (void)parent, (void)creator;
    if (grow_to(&c->lgroup_name, &c->nlgroups, self, sizeof *c->lgroup_name) != 0) {
        c->failed = 1;
        return OTF2_CALLBACK_INTERRUPT;
    }
    c->lgroup_name[self] = name;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode def_location(void *u, OTF2_LocationRef self, OTF2_StringRef name,
                                      OTF2_LocationType type, uint64_t nevents,
                                      OTF2_LocationGroupRef group)
{
    ctx *c = u;
    (void)type, (void)nevents;
    if (c->nlocs == c->caplocs) {
        size_t cap = c->caplocs ? 2 * c->caplocs : 64;
        loc *l = realloc(c->locs, cap * sizeof *l);
        size_t *slots = calloc(2 * cap, sizeof *slots);
        if (!l || !slots) {
            free(slots);
            if (l)
                c->locs = l;
            c->failed = 1;
            return OTF2_CALLBACK_INTERRUPT;
        }
        c->locs = l;
        c->caplocs = cap;
        free(c->loc_slot);
        c->loc_slot = slots;
        c->capslots = 2 * cap;
        for (size_t k = 0; k < c->nlocs; k++) {
            size_t i = hash64(c->locs[k].ref) & (c->capslots - 1);
            while (c->loc_slot[i])
                i = (i + 1) & (c->capslots - 1);
            c->loc_slot[i] = k + 1;
        }
    }
    size_t k = c->nlocs++;
    c->locs[k] = (loc){.ref = self, .group = group, .name = name};
    size_t i = hash64(self) & (c->capslots - 1);
    while (c->loc_slot[i])
        i = (i + 1) & (c->capslots - 1);
    c->loc_slot[i] = k + 1;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode def_group(void *u, OTF2_GroupRef self, OTF2_StringRef name,
                                   OTF2_GroupType type, OTF2_Paradigm paradigm,
                                   OTF2_GroupFlag flags, uint32_t n, const uint64_t *members)
{
    ctx *c = u;
    (void)name, (void)paradigm, (void)flags;
    if (grow_to(&c->groups, &c->ngroups, self, sizeof *c->groups) != 0) {
        c->failed = 1;
        return OTF2_CALLBACK_INTERRUPT;
    }
    group *g = &c->groups[self];
    free(g->members);
    g->type = type;
    g->n = n;
    g->members = n ? malloc(n * sizeof *members) : NULL;
    if (n && !g->members) {
        c->failed = 1;
        return OTF2_CALLBACK_INTERRUPT;
    }
    if (n)
        memcpy(g->members, members, n * sizeof *members);
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode def_comm(void *u, OTF2_CommRef self, OTF2_StringRef name,
                                  OTF2_GroupRef group, OTF2_CommRef parent, OTF2_CommFlag flags)
{
    ctx *c = u;
    (void)name, (void)parent, (void)flags;
    uint32_t old = c->ncomms;
    if (grow_to(&c->comm_group, &c->ncomms, self, sizeof *c->comm_group) != 0) {
        c->failed = 1;
        return OTF2_CALLBACK_INTERRUPT;
    }
    for (uint32_t i = old; i < c->ncomms; i++)
        c->comm_group[i] = UINT32_MAX;
    c->comm_group[self] = group;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode def_member(void *u, OTF2_MetricMemberRef self, OTF2_StringRef name,
                                    OTF2_StringRef desc, OTF2_MetricType type,
                                    OTF2_MetricMode mode, OTF2_Type vtype, OTF2_Base base,
                                    int64_t exp, OTF2_StringRef unit)
{
    ctx *c = u;
    (void)desc, (void)type, (void)mode, (void)vtype, (void)base, (void)exp, (void)unit;
    if (grow_to(&c->member_name, &c->nmembers, self, sizeof *c->member_name) != 0) {
        c->failed = 1;
        return OTF2_CALLBACK_INTERRUPT;
    }
    c->member_name[self] = name;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode def_class(void *u, OTF2_MetricRef self, uint8_t n,
                                   const OTF2_MetricMemberRef *members, OTF2_MetricOccurrence occ,
                                   OTF2_RecorderKind kind)
{
    ctx *c = u;
    (void)occ, (void)kind;
    if (grow_to(&c->classes, &c->nclasses, self, sizeof *c->classes) != 0) {
        c->failed = 1;
        return OTF2_CALLBACK_INTERRUPT;
    }
    c->classes[self][0] = n;
    for (uint32_t i = 0; i < n; i++)
        c->classes[self][i + 1] = members[i];
    return OTF2_CALLBACK_SUCCESS;
}

/* ---- events ---- */

/* The rank of a location: its place in the MPI locations group (OTF2's
 * OTF2_GROUP_TYPE_COMM_LOCATIONS), or its location group when there is none. */
static uint32_t rank_of(const ctx *c, const loc *l)
{
    for (uint32_t g = 0; g < c->ngroups; g++) {
        if (c->groups[g].type != OTF2_GROUP_TYPE_COMM_LOCATIONS)
            continue;
        for (uint32_t i = 0; i < c->groups[g].n; i++)
            if (c->groups[g].members[i] == l->ref)
                return i;
    }
    return l->group;
}

/* A rank within a communicator as a world rank: communicator groups list world ranks. */
static uint32_t world_rank(const ctx *c, uint32_t comm, uint32_t r, uint32_t self)
{
    uint32_t g = comm < c->ncomms ? c->comm_group[comm] : UINT32_MAX;
    if (g >= c->ngroups)
        return r;
    if (c->groups[g].type == OTF2_GROUP_TYPE_COMM_SELF)
        return self;
    if (c->groups[g].type == OTF2_GROUP_TYPE_COMM_GROUP && r < c->groups[g].n)
        return (uint32_t)c->groups[g].members[r];
    return r;
}

static channel *chan(ctx *c, uint32_t comm, uint32_t src, uint32_t dst, uint32_t tag)
{
    if (2 * (c->nchans + 1) > c->capchans) {
        size_t cap = c->capchans ? 2 * c->capchans : 256;
        channel *t = calloc(cap, sizeof *t);
        if (!t)
            return NULL;
        for (size_t k = 0; k < c->capchans; k++) {
            if (!c->chans[k].used)
                continue;
            const channel *o = &c->chans[k];
            size_t i = hash64(((uint64_t)o->comm << 32 | o->tag) ^ ((uint64_t)o->src << 20 | o->dst)) & (cap - 1);
            while (t[i].used)
                i = (i + 1) & (cap - 1);
            t[i] = *o;
        }
        free(c->chans);
        c->chans = t;
        c->capchans = cap;
    }
    size_t i = hash64(((uint64_t)comm << 32 | tag) ^ ((uint64_t)src << 20 | dst)) & (c->capchans - 1);
    for (;; i = (i + 1) & (c->capchans - 1)) {
        channel *ch = &c->chans[i];
        if (!ch->used) {
            *ch = (channel){comm, src, dst, tag, 1, (uint32_t)c->nchans++, 0, 0};
            return ch;
        }
        if (ch->comm == comm && ch->src == src && ch->dst == dst && ch->tag == tag)
            return ch;
    }
}

static void sep(ctx *c)
{
    fputs(c->first ? "\n" : ",\n", c->out);
    c->first = 0;
}

/* Microseconds since the trace's start, as Chrome's "ts" wants them. */
static void ts(ctx *c, const char *key, uint64_t t)
{
    uint64_t d = t >= c->offset ? t - c->offset : 0;
    fprintf(c->out, "\"%s\": %.3f", key, (double)d * 1e6 / (double)c->resolution);
}

static size_t index_of(const ctx *c, const loc *l) { return (size_t)(l - c->locs); }

static OTF2_CallbackCode ev_enter(OTF2_LocationRef where, OTF2_TimeStamp t, void *u,
                                  OTF2_AttributeList *a, OTF2_RegionRef region)
{
    ctx *c = u;
    (void)a;
    loc *l = find_loc(c, where);
    if (!l)
        return OTF2_CALLBACK_SUCCESS;
    if (l->depth == l->cap) {
        uint32_t cap = l->cap ? 2 * l->cap : 64;
        frame *s = realloc(l->stack, cap * sizeof *s);
        if (!s) {
            c->failed = 1;
            return OTF2_CALLBACK_INTERRUPT;
        }
        l->stack = s;
        l->cap = cap;
    }
    l->stack[l->depth++] = (frame){t, region};
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode ev_leave(OTF2_LocationRef where, OTF2_TimeStamp t, void *u,
                                  OTF2_AttributeList *a, OTF2_RegionRef region)
{
    ctx *c = u;
    (void)a, (void)region;
    loc *l = find_loc(c, where);
    if (!l || !l->depth)
        return OTF2_CALLBACK_SUCCESS; /* unbalanced: nothing to close */
    frame f = l->stack[--l->depth];
    sep(c);
    fputs("{\"ph\": \"X\", \"name\": ", c->out);
    instr_json_str(c->out, str(c, f.region < c->nregions ? c->region_name[f.region] : UINT32_MAX));
    fprintf(c->out, ", \"pid\": %" PRIu32 ", \"tid\": %zu, ", l->group, index_of(c, l));
    ts(c, "ts", f.t);
    fputs(", ", c->out);
    uint64_t d = t >= f.t ? t - f.t : 0;
    fprintf(c->out, "\"dur\": %.3f}", (double)d * 1e6 / (double)c->resolution);
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode flow(ctx *c, OTF2_LocationRef where, OTF2_TimeStamp t, uint32_t peer,
                              OTF2_CommRef comm, uint32_t tag, int send)
{
    loc *l = find_loc(c, where);
    if (!l)
        return OTF2_CALLBACK_SUCCESS;
    uint32_t me = rank_of(c, l), other = world_rank(c, comm, peer, me);
    channel *ch = send ? chan(c, comm, me, other, tag) : chan(c, comm, other, me, tag);
    if (!ch) {
        c->failed = 1;
        return OTF2_CALLBACK_INTERRUPT;
    }
    uint64_t n = send ? ch->sent++ : ch->received++;
    sep(c);
    fprintf(c->out, "{\"ph\": \"%s\", \"cat\": \"mpi\", \"name\": \"message\", "
                    "\"id\": %" PRIu64 ", \"pid\": %" PRIu32 ", \"tid\": %zu, %s",
            send ? "s" : "f", (uint64_t)ch->index << 32 | (n & 0xffffffffu), l->group,
            index_of(c, l), send ? "" : "\"bp\": \"e\", ");
    ts(c, "ts", t);
    fputc('}', c->out);
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode ev_send(OTF2_LocationRef where, OTF2_TimeStamp t, void *u,
                                 OTF2_AttributeList *a, uint32_t to, OTF2_CommRef comm,
                                 uint32_t tag, uint64_t len)
{
    (void)a, (void)len;
    return flow(u, where, t, to, comm, tag, 1);
}
static OTF2_CallbackCode ev_isend(OTF2_LocationRef where, OTF2_TimeStamp t, void *u,
                                  OTF2_AttributeList *a, uint32_t to, OTF2_CommRef comm,
                                  uint32_t tag, uint64_t len, uint64_t req)
{
    (void)a, (void)len, (void)req;
    return flow(u, where, t, to, comm, tag, 1);
}
static OTF2_CallbackCode ev_recv(OTF2_LocationRef where, OTF2_TimeStamp t, void *u,
                                 OTF2_AttributeList *a, uint32_t from, OTF2_CommRef comm,
                                 uint32_t tag, uint64_t len)
{
    (void)a, (void)len;
    return flow(u, where, t, from, comm, tag, 0);
}
static OTF2_CallbackCode ev_irecv(OTF2_LocationRef where, OTF2_TimeStamp t, void *u,
                                  OTF2_AttributeList *a, uint32_t from, OTF2_CommRef comm,
                                  uint32_t tag, uint64_t len, uint64_t req)
{
    (void)a, (void)len, (void)req;
    return flow(u, where, t, from, comm, tag, 0);
}

static OTF2_CallbackCode ev_metric(OTF2_LocationRef where, OTF2_TimeStamp t, void *u,
                                   OTF2_AttributeList *a, OTF2_MetricRef metric, uint8_t n,
                                   const OTF2_Type *types, const OTF2_MetricValue *values)
{
    ctx *c = u;
    (void)a;
    loc *l = find_loc(c, where);
    if (!l || metric >= c->nclasses)
        return OTF2_CALLBACK_SUCCESS;
    for (uint32_t i = 0; i < n && i < c->classes[metric][0]; i++) {
        uint32_t m = c->classes[metric][i + 1];
        const char *name = str(c, m < c->nmembers ? c->member_name[m] : UINT32_MAX);
        /* Counters belong to a process in this format (pid and name, tid ignored): the
         * thread goes into the name, or the threads' values would share one track. */
        char track[1024];
        snprintf(track, sizeof track, "%s (%s)", name, str(c, l->name));
        sep(c);
        fputs("{\"ph\": \"C\", \"name\": ", c->out);
        instr_json_str(c->out, track);
        fprintf(c->out, ", \"pid\": %" PRIu32 ", \"tid\": %zu, ", l->group, index_of(c, l));
        ts(c, "ts", t);
        fputs(", \"args\": {\"value\"", c->out);
        if (types[i] == OTF2_TYPE_DOUBLE)
            fprintf(c->out, ": %.17g}}", values[i].floating_point);
        else if (types[i] == OTF2_TYPE_INT64)
            fprintf(c->out, ": %" PRId64 "}}", values[i].signed_int);
        else
            fprintf(c->out, ": %" PRIu64 "}}", values[i].unsigned_int);
    }
    return OTF2_CALLBACK_SUCCESS;
}

/* Names of processes (location groups) and threads (locations), so the viewer shows them. */
static void metadata(ctx *c)
{
    for (uint32_t g = 0; g < c->nlgroups; g++) {
        int used = 0;
        for (size_t k = 0; k < c->nlocs && !used; k++)
            used = c->locs[k].group == g;
        if (!used)
            continue;
        sep(c);
        fprintf(c->out, "{\"ph\": \"M\", \"name\": \"process_name\", \"pid\": %" PRIu32
                        ", \"args\": {\"name\": ", g);
        instr_json_str(c->out, str(c, c->lgroup_name[g]));
        fputs("}}", c->out);
    }
    for (size_t k = 0; k < c->nlocs; k++) {
        sep(c);
        fprintf(c->out, "{\"ph\": \"M\", \"name\": \"thread_name\", \"pid\": %" PRIu32
                        ", \"tid\": %zu, \"args\": {\"name\": ", c->locs[k].group, k);
        instr_json_str(c->out, str(c, c->locs[k].name));
        /* The OTF2 location, so a reader can tie the track back to the trace. */
        fprintf(c->out, ", \"otf2_location\": %" PRIu64 "}}", c->locs[k].ref);
    }
}

static void free_ctx(ctx *c)
{
    for (uint32_t i = 0; i < c->nstrings; i++)
        free(c->strings[i]);
    for (size_t k = 0; k < c->nlocs; k++)
        free(c->locs[k].stack);
    for (uint32_t g = 0; g < c->ngroups; g++)
        free(c->groups[g].members);
    free(c->strings);
    free(c->region_name);
    free(c->lgroup_name);
    free(c->locs);
    free(c->loc_slot);
    free(c->groups);
    free(c->comm_group);
    free(c->member_name);
    free(c->classes);
    free(c->chans);
}

static int read_defs(OTF2_Reader *r, ctx *c)
{
    OTF2_GlobalDefReader *gdr = OTF2_Reader_GetGlobalDefReader(r);
    OTF2_GlobalDefReaderCallbacks *cb = OTF2_GlobalDefReaderCallbacks_New();
    if (!gdr || !cb) {
        OTF2_GlobalDefReaderCallbacks_Delete(cb);
        return -1;
    }
    OTF2_GlobalDefReaderCallbacks_SetClockPropertiesCallback(cb, def_clock);
    OTF2_GlobalDefReaderCallbacks_SetStringCallback(cb, def_string);
    OTF2_GlobalDefReaderCallbacks_SetRegionCallback(cb, def_region);
    OTF2_GlobalDefReaderCallbacks_SetLocationGroupCallback(cb, def_lgroup);
    OTF2_GlobalDefReaderCallbacks_SetLocationCallback(cb, def_location);
    OTF2_GlobalDefReaderCallbacks_SetGroupCallback(cb, def_group);
    OTF2_GlobalDefReaderCallbacks_SetCommCallback(cb, def_comm);
    OTF2_GlobalDefReaderCallbacks_SetMetricMemberCallback(cb, def_member);
    OTF2_GlobalDefReaderCallbacks_SetMetricClassCallback(cb, def_class);
    OTF2_Reader_RegisterGlobalDefCallbacks(r, gdr, cb, c);
    OTF2_GlobalDefReaderCallbacks_Delete(cb);
    uint64_t n = 0;
    OTF2_ErrorCode e = OTF2_Reader_ReadAllGlobalDefinitions(r, gdr, &n);
    OTF2_Reader_CloseGlobalDefReader(r, gdr);
    return e == OTF2_SUCCESS && !c->failed ? 0 : -1;
}

int instr_export_chrome(const char *anchor, FILE *out)
{
    ctx c = {.out = out, .first = 1, .resolution = 1};
    /* OTF2 opens the anchor itself, blocking on a FIFO, and takes a damaged anchor's counts
     * as they are: the file is looked at first (otf2_anchor.h). */
    char why[160];
    if (instr_otf2_anchor_check(anchor, why, sizeof why) != 0) {
        fprintf(stderr, "instr-export: %s: %s; give the traces.otf2 of an experiment "
                        "directory\n", anchor, why);
        return 1;
    }
    OTF2_Reader *r = OTF2_Reader_Open(anchor);
    if (!r) {
        fprintf(stderr, "instr-export: %s: cannot open the OTF2 trace (give the traces.otf2 "
                        "of an experiment directory)\n", anchor);
        return 1;
    }
    OTF2_Reader_SetSerialCollectiveCallbacks(r);
    int rc = 1;
    if (read_defs(r, &c) != 0) {
        fprintf(stderr, "instr-export: %s: %s\n", anchor,
                c.failed ? "out of memory reading the definitions"
                         : "the global definitions cannot be read (not an OTF2 trace, or a "
                           "damaged one)");
        goto done;
    }
    for (size_t k = 0; k < c.nlocs; k++)
        OTF2_Reader_SelectLocation(r, c.locs[k].ref);
    int defs = OTF2_Reader_OpenDefFiles(r) == OTF2_SUCCESS;
    if (OTF2_Reader_OpenEvtFiles(r) != OTF2_SUCCESS) {
        fprintf(stderr, "instr-export: %s: the event files cannot be opened (traces/ next to "
                        "the anchor file is missing or unreadable)\n", anchor);
        goto done;
    }
    /* A location whose event file cannot be read (empty or cut: that rank's writes failed)
     * is an incomplete archive; OTF2 would go on to say it lacks memory for the events. */
    int short_loc = -1;
    for (size_t k = 0; k < c.nlocs; k++) {
        if (defs) { /* local definitions: the mappings of the location's references */
            OTF2_DefReader *dr = OTF2_Reader_GetDefReader(r, c.locs[k].ref);
            if (dr) {
                uint64_t n = 0;
                OTF2_Reader_ReadAllLocalDefinitions(r, dr, &n);
                OTF2_Reader_CloseDefReader(r, dr);
            }
        }
        if (!OTF2_Reader_GetEvtReader(r, c.locs[k].ref) && short_loc < 0)
            short_loc = (int)k;
    }
    if (short_loc >= 0) {
        if (defs)
            OTF2_Reader_CloseDefFiles(r);
        fprintf(stderr, "instr-export: %s: incomplete archive: the events of location %" PRIu64
                        " (traces/%" PRIu64 ".evt) cannot be read: the file is empty or cut "
                        "short (did that process's writes fail?)\n",
                anchor, (uint64_t)c.locs[short_loc].ref, (uint64_t)c.locs[short_loc].ref);
        goto done;
    }
    if (defs)
        OTF2_Reader_CloseDefFiles(r);
    OTF2_GlobalEvtReader *ger = OTF2_Reader_GetGlobalEvtReader(r);
    OTF2_GlobalEvtReaderCallbacks *cb = OTF2_GlobalEvtReaderCallbacks_New();
    if (!ger || !cb) {
        OTF2_GlobalEvtReaderCallbacks_Delete(cb);
        fprintf(stderr, "instr-export: %s: out of memory opening the events\n", anchor);
        goto done;
    }
    OTF2_GlobalEvtReaderCallbacks_SetEnterCallback(cb, ev_enter);
    OTF2_GlobalEvtReaderCallbacks_SetLeaveCallback(cb, ev_leave);
    OTF2_GlobalEvtReaderCallbacks_SetMpiSendCallback(cb, ev_send);
    OTF2_GlobalEvtReaderCallbacks_SetMpiIsendCallback(cb, ev_isend);
    OTF2_GlobalEvtReaderCallbacks_SetMpiRecvCallback(cb, ev_recv);
    OTF2_GlobalEvtReaderCallbacks_SetMpiIrecvCallback(cb, ev_irecv);
    OTF2_GlobalEvtReaderCallbacks_SetMetricCallback(cb, ev_metric);
    OTF2_Reader_RegisterGlobalEvtCallbacks(r, ger, cb, &c);
    OTF2_GlobalEvtReaderCallbacks_Delete(cb);
    fputs("{\"displayTimeUnit\": \"ns\", \"otherData\": {\"source\": ", out);
    instr_json_str(out, anchor);
    fputs(", \"exporter\": \"instr-export --chrome\"}, \"traceEvents\": [", out);
    metadata(&c);
    uint64_t n = 0;
    OTF2_ErrorCode e = OTF2_Reader_ReadAllGlobalEvents(r, ger, &n);
    OTF2_Reader_CloseGlobalEvtReader(r, ger);
    OTF2_Reader_CloseEvtFiles(r);
    fputs("\n]}\n", out);
    if (e != OTF2_SUCCESS || c.failed) {
        fprintf(stderr, "instr-export: %s: %s after %" PRIu64 " events: %s\n", anchor,
                c.failed ? "out of memory" : "reading the events failed", n,
                c.failed ? "" : OTF2_Error_GetDescription(e));
        goto done;
    }
    rc = ferror(out) ? -1 : 0;
done:
    OTF2_Reader_Close(r);
    free_ctx(&c);
    return rc;
}
