/* memory_events.c — memory recording (INSTR_MEMORY=1) in the trace, as Score-P writes it
 * (docs/memory.md, "The trace"): each recorded call of an allocation function is an Enter and
 * a Leave of a region named after the function (source "memory", role ALLOCATE, DEALLOCATE
 * or REALLOCATE), the Enter carrying ALLOCATION_SIZE and ARGUMENT_ADDRESS, the Leave
 * RESULT_ADDRESS and DEALLOCATION_SIZE, where the call has them.
 *
 * The recorder (runtime/interpose/memory.c) appends compact records to the calling thread's
 * own buffer like the hot path does (events.c): the attribute values as INSTR_TREC_ATTR
 * records, then the Enter or Leave they belong to. The conversion (convert.c) collects the
 * values and writes them with the next Enter/Leave of a memory region through the location's
 * one OTF2 attribute list. */
#include "trace.h"
#include "memory_events.h"
#include "../core/registry.h"

#include <string.h>

static int enabled; /* memory recording is on: the archive defines the attributes */

void instr_trace_memory_enable(void) { __atomic_store_n(&enabled, 1, __ATOMIC_RELAXED); }

static instr_tloc *tloc(instr_location *loc)
{
    if (!loc || instr_state_get() != INSTR_STATE_RUNNING)
        return NULL;
    int slot = instr_substrate_slot(&instr_trace_substrate);
    return slot < 0 ? NULL : loc->sub[slot];
}

int instr_trace_memory_wanted(instr_location *loc) { return tloc(loc) != NULL; }

static void put_attrs(instr_tloc *s, const instr_trace_memcall *c, unsigned which)
{
    for (unsigned a = 0; a < INSTR_TRACE_MEM_NATTRS; a++)
        if (c->has & which & (1u << a))
            instr_record_put(s, (uint32_t)INSTR_TREC_ATTR << INSTR_TREC_KIND_SHIFT | a,
                             c->value[a]);
}

void instr_trace_memory_call(instr_location *loc, const instr_trace_memcall *c)
{
    instr_tloc *s = tloc(loc);
    if (!s || !c->region || c->region > INSTR_TREC_ARG_MASK)
        return;
    if (!s->alist) {
        /* OTF2's list allocates (with malloc) when it is made and when it first holds an
         * entry; done here, inside the recorder, those allocations are the runtime's own and
         * the conversion later finds two entries on the list's free list. */
        OTF2_AttributeList *l = OTF2_AttributeList_New();
        if (!l)
            return;
        OTF2_AttributeValue v = {.uint64 = 0};
        OTF2_AttributeList_AddAttribute(l, 0, OTF2_TYPE_UINT64, v);
        OTF2_AttributeList_AddAttribute(l, 1, OTF2_TYPE_UINT64, v);
        OTF2_AttributeList_RemoveAllAttributes(l);
        s->alist = l;
    }
    const unsigned enter = 1u << INSTR_TRACE_ALLOCATION_SIZE | 1u << INSTR_TRACE_ARGUMENT_ADDRESS;
    put_attrs(s, c, enter);
    instr_record_put(s, (uint32_t)INSTR_TREC_ENTER << INSTR_TREC_KIND_SHIFT | c->region,
                     c->t_enter);
    put_attrs(s, c, ~enter);
    instr_record_put(s, (uint32_t)INSTR_TREC_LEAVE << INSTR_TREC_KIND_SHIFT | c->region,
                     c->t_leave > c->t_enter ? c->t_leave : c->t_enter);
}

/* ---- conversion ---- */

void instr_trace_memory_attr(instr_tloc *s, uint32_t attr, uint64_t value)
{
    if (attr >= INSTR_TRACE_IO_ATTR0) {
        instr_trace_io_attr(s, attr, value); /* an I/O call's (io_events.c) */
        return;
    }
    if (attr >= INSTR_TRACE_MEM_NATTRS)
        return;
    s->aval[attr] = value;
    s->aset |= 1u << attr;
}

OTF2_AttributeList *instr_trace_memory_attrs(instr_tloc *s, uint32_t region)
{
    const instr_region_info *r = instr_registry_get(region);
    if (!s->alist || !r || r->source != INSTR_SOURCE_MEMORY)
        return NULL; /* not a memory region (a signal handler's region in between): later */
    OTF2_AttributeList_RemoveAllAttributes(s->alist);
    for (unsigned a = 0; a < INSTR_TRACE_MEM_NATTRS; a++) {
        if (!(s->aset & (1u << a)))
            continue;
        OTF2_AttributeValue v = {.uint64 = s->aval[a]};
        OTF2_AttributeList_AddAttribute(s->alist, a, OTF2_TYPE_UINT64, v);
    }
    return s->alist;
}

void instr_trace_memory_written(instr_tloc *s)
{
    s->aset &= INSTR_TRACE_IO_PENDING;
    if (s->alist)
        OTF2_AttributeList_RemoveAllAttributes(s->alist);
}

/* ---- definitions ---- */

OTF2_ErrorCode instr_trace_memory_defs(OTF2_GlobalDefWriter *w, instr_strtab *st)
{
    static const struct {
        const char *name, *description;
    } attrs[INSTR_TRACE_MEM_NATTRS] = {
        [INSTR_TRACE_ALLOCATION_SIZE] = {"ALLOCATION_SIZE", "bytes asked for"},
        [INSTR_TRACE_DEALLOCATION_SIZE] = {"DEALLOCATION_SIZE", "bytes of the block released"},
        [INSTR_TRACE_ARGUMENT_ADDRESS] = {"ARGUMENT_ADDRESS", "address of the block passed in"},
        [INSTR_TRACE_RESULT_ADDRESS] = {"RESULT_ADDRESS", "address of the block handed out"},
    };
    if (!__atomic_load_n(&enabled, __ATOMIC_RELAXED))
        return OTF2_SUCCESS;
    OTF2_ErrorCode rc = OTF2_SUCCESS;
    for (unsigned a = 0; a < INSTR_TRACE_MEM_NATTRS && rc == OTF2_SUCCESS; a++)
        rc = OTF2_GlobalDefWriter_WriteAttribute(w, a, instr_strtab_ref(st, attrs[a].name),
                                                 instr_strtab_ref(st, attrs[a].description),
                                                 OTF2_TYPE_UINT64);
    return rc;
}

OTF2_RegionRole instr_trace_memory_role(const char *name)
{
    if (strcmp(name, "free") == 0)
        return OTF2_REGION_ROLE_DEALLOCATE;
    if (strncmp(name, "realloc", 7) == 0)
        return OTF2_REGION_ROLE_REALLOCATE;
    return OTF2_REGION_ROLE_ALLOCATE;
}
