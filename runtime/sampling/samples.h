/* samples.h — the sampling source's parts: the per-thread sample buffer the signal handler
 * fills (sampler.c) and the resolution of its addresses at the end (resolve.c, attach.c). */
#ifndef INSTR_RT_SAMPLING_SAMPLES_H
#define INSTR_RT_SAMPLING_SAMPLES_H

#include "../core/cursor.h"
#include "../core/registry.h"
#include "../core/substrate.h"

#include <stddef.h>
#include <stdint.h>
#include <time.h>

/* Frames one sample keeps at most (innermost first). */
#define INSTR_SAMPLE_MAX_FRAMES 64

/* One sample in a thread's buffer; records follow each other, each 8-byte aligned. */
typedef struct instr_sample {
    instr_pnode *node; /* the thread's call-path node at the sample; NULL: the thread's root */
    uint64_t time;     /* the event clock's ticks when the signal came (the trace's clock) */
    uint32_t weight;   /* 1 + timer overruns: periods this sample stands for */
    uint32_t n;        /* frames */
    uintptr_t pc[];    /* innermost first: the interrupted pc, then return addresses - 1 */
} instr_sample;

/* How a frame's caller is found from the frame's stack pointer and rbp, learnt from one
 * libunwind step at that address (sampler.c): the canonical frame address (CFA, the caller's
 * stack pointer) is sp + sp_off or rbp + bp_off, the return address lies at CFA - 8, the
 * caller's rbp at CFA + rbp_save (0: rbp is the frame's own). */
typedef struct instr_frame_rule {
    uintptr_t key;   /* the address looked up (pc, or return address - 1); 0: empty */
    int32_t sp_off, bp_off, rbp_save;
    uint32_t rule;   /* INSTR_RULE_*: which offset is known to give the CFA */
} instr_frame_rule;
enum { INSTR_RULE_EITHER, INSTR_RULE_SP, INSTR_RULE_BP, INSTR_RULE_NONE };
#define INSTR_FRAME_RULES 256 /* a power of two */

/* One thread's sampler: mapped at its registration, never freed before the end. */
typedef struct instr_sampler {
    instr_location *loc;
    int slot;               /* the cursor substrate's slot (the profile), -1: none */
    int tid;
    timer_t timer;
    int fd;                 /* the perf_event task clock, or -1: the POSIX timer */
    int armed;              /* 1 while the timer exists; whoever clears it deletes it */
    int stopped;            /* the end reads the buffer: the handler records nothing more */
    char *buf, *cur, *end;  /* records; cur is published with release after each record */
    uint64_t taken;         /* periods recorded */
    uint64_t dropped;       /* periods not recorded: buffer full */
    uint64_t in_fork;       /* periods not recorded: a fork was under way (sampler.c) */
    uint64_t unwound_none;  /* samples whose unwinding failed at the first frame */
    uint64_t handled;       /* signals handled, and the ticks spent in the handler for them */
    uint64_t handler_ticks;
    char *traced;           /* the trace's position in buf: samples before it are written */
    uint32_t trace_prev;    /* the calling context of the trace's previous sample, 0: none */
    uint32_t trace_prev_open; /* instrumented regions open at it */
    uint64_t steps_fast;    /* frames unwound from the rule cache, and by libunwind */
    uint64_t steps_libunwind;
    uint32_t stretch;       /* the timer's period is the configured one × stretch (a power of
                             * two, 1 normally): lengthened while the handler takes more than
                             * a quarter of it (sampler.c, pace) */
    uint32_t calm;          /* consecutive samples since the stretch last had reason to stay */
    uint32_t stretch_max;   /* the largest stretch, for the end's summary */
    uint64_t calm_max;      /* the longest of the calm samples' handler times (ticks) */
    uint64_t strike;        /* the previous sample's handler time when it was too long, else 0 */
    uint64_t stretched;     /* periods recorded while stretched */
    uint64_t last_exit;     /* the event clock when the handler last returned (0: not yet) */
    instr_frame_rule rules[INSTR_FRAME_RULES];
    struct instr_sampler *next;
} instr_sampler;

/* The configuration (sampler.c). */
extern uint64_t instr_sampling_period_ns;
extern int instr_sampling_wall;

/* Every thread's sampler, newest first (sampler.c); read at the end. */
instr_sampler *instr_samplers(void);
/* Stops every timer and the handler's recording (the end, before the buffers are read). */
void instr_sampling_stop_all(void);

/* Puts the samples of every sampler into the profile's trees (attach.c); `slot` is the
 * profile's. Writes a summary line; returns the samples attached. */
uint64_t instr_sampling_attach(const instr_run *run);

/* Serialises the resolution and the sampled regions (the profile's attachment at the end,
 * the trace's conversions, which may run before the end). */
void instr_sampling_lock(void);
void instr_sampling_unlock(void);

/* The sampled frames of sample r beneath an instrumented node whose region is ri (NULL: the
 * thread's root), outermost first, into out (INSTR_SAMPLE_CHAIN_MAX at most); their number.
 * With the lock held. */
struct instr_sframe;
#define INSTR_SAMPLE_CHAIN_MAX 512
unsigned instr_sampling_chain(const instr_region_info *ri, const instr_sample *r,
                              struct instr_sframe **out);
/* A sampled frame's region (registered once per name; 0 when out of memory). With the lock. */
uint32_t instr_sampling_region(struct instr_sframe *f);

/* The trace's side (trace_samples.c): the calling contexts and CallingContextSample events
 * of the samples, when the trace is on. */
void instr_sampling_trace_init(void);

/* Resolution of one address (resolve.c): the chain of frames it stands for, outermost
 * first. A frame's label is what its sampled node is named. */
typedef struct instr_sframe {
    const char *name;   /* the node's display name ("[sampled] f", "[inlined] f @file:line",
                         * "line N", "[OpenMP runtime] f", ...) */
    const char *func;   /* the function (or inlined function) name, "" for a line */
    const char *file;   /* "" when unknown */
    const char *object; /* path of the executable or library, "" when unknown */
    uint32_t line;
    uintptr_t entry;    /* a physical function's entry address (0: inlined, line, unknown) */
    int collapse;       /* 1: a runtime frame (instr, MPI, OpenMP): nothing below it is kept */
    uint32_t region;    /* its region once registered (attach.c), else 0 */
} instr_sframe;

/* What an address stands for: its frames, outermost first (the physical function, then the
 * functions inlined into it down to the one the address is in), and its source line as a
 * frame of its own (name NULL when unknown), which only a sample's innermost address shows. */
typedef struct instr_spc {
    unsigned n;
    instr_sframe *frames;
    instr_sframe line;
} instr_spc;

/* Resolved once per distinct address (cached); NULL when out of memory. */
const instr_spc *instr_sampling_resolve(uintptr_t pc);
/* Distinct addresses resolved so far. */
size_t instr_sampling_resolved(void);
/* Releases the resolver (the end). */
void instr_sampling_resolve_end(void);

#endif
