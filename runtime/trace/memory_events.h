/* memory_events.h — memory recording in the trace (docs/memory.md, "The trace"): what the
 * recorder (runtime/interpose/memory.c) hands the trace substrate for one recorded call of an
 * allocation function. No OTF2 type here: the recorder is built without OTF2's headers. */
#ifndef INSTR_RT_TRACE_MEMORY_EVENTS_H
#define INSTR_RT_TRACE_MEMORY_EVENTS_H

#include "../core/event.h"

#include <stdint.h>

/* The attributes, by their OTF2 attribute reference (Score-P's names). */
enum instr_trace_mem_attr {
    INSTR_TRACE_ALLOCATION_SIZE,   /* Enter: the bytes asked for */
    INSTR_TRACE_DEALLOCATION_SIZE, /* Leave: the bytes of the block released */
    INSTR_TRACE_ARGUMENT_ADDRESS,  /* Enter: the block passed in (free, realloc) */
    INSTR_TRACE_RESULT_ADDRESS,    /* Leave: the block handed out */
    INSTR_TRACE_MEM_NATTRS
};

/* One call: its region (registry handle, source INSTR_SOURCE_MEMORY), its times, and the
 * attribute values whose bit (1 << attribute) is set in `has`. */
typedef struct instr_trace_memcall {
    uint32_t region;
    unsigned has;
    uint64_t t_enter, t_leave;
    uint64_t value[INSTR_TRACE_MEM_NATTRS];
} instr_trace_memcall;

/* At start-up, when memory recording is on: the archive defines the attributes. */
void instr_trace_memory_enable(void);
/* 1 when the calling thread's location `loc` is traced now (its calls should be written). */
int instr_trace_memory_wanted(instr_location *loc);
/* Appends the call's records (attributes, Enter, attributes, Leave) to loc's compact buffer.
 * From the recorder, inside the event core's guard: no malloc of its own (the first call of
 * a location has OTF2 make its attribute list, with the recorder leaving that out). */
void instr_trace_memory_call(instr_location *loc, const instr_trace_memcall *c);

#endif
