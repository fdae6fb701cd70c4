/* instr_abi.h — the compiler–runtime ABI, version 1 (docs/runtime.md, "ABI").
 *
 * Both compiler plugins emit, per instrumented function, one static `struct instr_region`
 * in section "instr_regions" and call the hooks below. Both include this header for the
 * constants (version, handle values, flags, section name) and check the layout they build
 * as IR / GIMPLE against it. Any change of the layout or of the hooks' meaning is an ABI
 * change and bumps INSTR_ABI_VERSION, for every front end and the runtime at once.
 *
 * Every descriptor carries the version it was compiled for (the top byte of `flags`); the
 * runtime refuses the descriptors of another version: it never records them and sets their
 * handle to INSTR_HANDLE_EXCLUDED, so that their hooks are no longer called. That works
 * across versions only because two things never change: `handle` is the first field, 32
 * bits, and the inserted check skips the hooks when it is INSTR_HANDLE_EXCLUDED; `flags` is
 * the second field, 32 bits, with the version in its top byte. */
#ifndef INSTR_ABI_H
#define INSTR_ABI_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Only a test build of the plugins defines it beforehand, to make objects of another
 * version (tests/abi). */
#ifndef INSTR_ABI_VERSION
#define INSTR_ABI_VERSION 1
#endif

/* handle values with a meaning of their own */
#define INSTR_HANDLE_UNREGISTERED 0u          /* the runtime has not seen it yet */
#define INSTR_HANDLE_EXCLUDED     UINT32_MAX  /* the run-time filter excluded it */

/* flags: the top byte is the ABI version the descriptor was compiled for, the rest flags */
#define INSTR_REGION_XRAY 0x1u /* emitted in XRay mode: the function has sleds, no hook calls */
#define INSTR_REGION_ABI_SHIFT 24
#define INSTR_REGION_ABI_BITS ((uint32_t)INSTR_ABI_VERSION << INSTR_REGION_ABI_SHIFT)
#define INSTR_REGION_ABI_OF(flags) ((uint32_t)(flags) >> INSTR_REGION_ABI_SHIFT)

#define INSTR_REGIONS_SECTION "instr_regions"

struct instr_region {
    uint32_t    handle;      /* 0 = not registered yet; UINT32_MAX = excluded at run time */
    uint32_t    flags;       /* INSTR_REGION_ABI_BITS | INSTR_REGION_* */
    const char *name;        /* demangled display name */
    const char *mangled;     /* linkage name */
    const char *file;        /* absolute path or "" */
    uint32_t    line_begin, line_end;
    void       *addr;        /* the function itself (XRay and address lookups) */
};

/* 1 while struct instr_region has the LP64 layout both compiler plugins build field by field
 * (each asserts it; a change of the struct fails their builds until they follow). */
#define INSTR_REGION_LAYOUT_AS_EMITTED                                                       \
    (offsetof(struct instr_region, handle) == 0 && offsetof(struct instr_region, flags) == 4 &&  \
     offsetof(struct instr_region, name) == 8 && offsetof(struct instr_region, mangled) == 16 && \
     offsetof(struct instr_region, file) == 24 &&                                           \
     offsetof(struct instr_region, line_begin) == 32 &&                                     \
     offsetof(struct instr_region, line_end) == 36 &&                                       \
     offsetof(struct instr_region, addr) == 40 && sizeof(struct instr_region) == 48)

/* Inserted by the plugins as `if (d.handle != UINT32_MAX) __instr_enter(&d);`. */
void __instr_enter(struct instr_region *region);
void __instr_exit(struct instr_region *region);

/* An object with hooks also refers, once, to this runtime symbol (from a static pointer,
 * never on the hot path). Linked without the runtime, the linker's own error then names
 * what to do: "undefined reference to `__instr_compiled_with_instr_but_not_linked_with_it_
 * _link_through_instr_or_add_linstr_rt'" beside the ones to the hooks. Defined where the hooks
 * are, so the static runtime's member that resolves one resolves the other. */
#define INSTR_LINK_CHECK_SYMBOL \
    "__instr_compiled_with_instr_but_not_linked_with_it__link_through_instr_or_add_linstr_rt"
extern const char
    __instr_compiled_with_instr_but_not_linked_with_it__link_through_instr_or_add_linstr_rt;

/* OpenMP constructs that gcc compiles to no call of GNU libgomp (a loop with a static
 * schedule, distribute, master, masked, scope) or whose end libgomp does not see (single):
 * the GCC plugin, with -fopenmp, inserts calls of these around them before OpenMP lowering
 * (docs/openmp.md, "gcc -fopenmp"). begin goes right before the construct (every thread of
 * the team runs it), end right after it (after its implicit barrier, if any); for master and
 * masked both go inside the construct's body, for single the body's end is marked as well.
 * The construct's code address is begin's return address. */
enum instr_gomp_construct_kind {
    INSTR_GOMP_CONSTRUCT_LOOP = 1,       /* for/do, static schedule, not ordered */
    INSTR_GOMP_CONSTRUCT_MASKED = 2,     /* masked and master */
    INSTR_GOMP_CONSTRUCT_DISTRIBUTE = 3, /* distribute (inside teams) */
    INSTR_GOMP_CONSTRUCT_SCOPE = 4,
    INSTR_GOMP_CONSTRUCT_SINGLE = 5,     /* around single; single's region is libgomp's */
    INSTR_GOMP_CONSTRUCT_SINGLE_BODY = 6 /* end only: the executor leaves single's body */
};
#define INSTR_GOMP_CONSTRUCT_BEGIN "__instr_gomp_construct_begin"
#define INSTR_GOMP_CONSTRUCT_END "__instr_gomp_construct_end"
void __instr_gomp_construct_begin(unsigned kind);
void __instr_gomp_construct_end(unsigned kind);

#ifdef __cplusplus
}
#endif
#endif
