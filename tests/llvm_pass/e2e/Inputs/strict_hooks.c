/* strict_hooks.c — a stand-in for the runtime that checks the plugin's promise exactly.
 *
 * The real runtime repairs unbalanced input (an exit for a region further down the stack
 * closes everything above it), so a profile alone cannot prove that the plugin emitted every
 * exit. This one does not repair: every __instr_exit must close the region on top of the
 * calling thread's stack. At the end it prints one line per descriptor found through the
 * linker-generated __start_/__stop_instr_regions bounds (which also checks that the section
 * is one contiguous array of 48-byte descriptors) and a summary, and exits with 99 on any
 * error. Single-threaded test programs only. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

struct instr_region {
    uint32_t handle, flags;
    const char *name, *mangled, *file;
    uint32_t line_begin, line_end;
    void *addr;
};

_Static_assert(sizeof(struct instr_region) == 48, "ABI v1 descriptor size");

extern struct instr_region __start_instr_regions[], __stop_instr_regions[];

#define MAX_DEPTH 4096
#define MAX_REGIONS 4096
static struct instr_region *stack[MAX_DEPTH];
static int depth;
static unsigned long enters, exits, errors;
static unsigned long counts[MAX_REGIONS];

static long index_of(struct instr_region *r)
{
    if (r < __start_instr_regions || r >= __stop_instr_regions)
        return -1;
    return r - __start_instr_regions;
}

void __instr_enter(struct instr_region *r)
{
    long i = index_of(r);
    enters++;
    if (i < 0 || i >= MAX_REGIONS) {
        fprintf(stderr, "strict: enter of %s: descriptor not in instr_regions\n", r->name);
        errors++;
    } else {
        counts[i]++;
    }
    if (r->handle == 0)
        r->handle = (uint32_t)(i + 1);
    if (depth < MAX_DEPTH)
        stack[depth] = r;
    depth++;
}

void __instr_exit(struct instr_region *r)
{
    exits++;
    if (depth == 0 || (depth <= MAX_DEPTH && stack[depth - 1] != r)) {
        fprintf(stderr, "strict: exit of %s, but the open region is %s\n", r->name,
                depth ? stack[depth - 1]->name : "(none)");
        errors++;
        return;
    }
    depth--;
}

__attribute__((destructor)) static void strict_report(void)
{
    long n = __stop_instr_regions - __start_instr_regions;
    for (long i = 0; i < n && i < MAX_REGIONS; i++) {
        struct instr_region *r = &__start_instr_regions[i];
        if (!r->name || !r->mangled || !r->file || !r->addr) {
            fprintf(stderr, "strict: descriptor %ld is malformed\n", i);
            errors++;
            continue;
        }
        fprintf(stderr, "strict: region %s enters %lu\n", r->name, counts[i]);
    }
    fprintf(stderr, "strict: enters %lu exits %lu errors %lu open %d\n", enters, exits, errors,
            depth);
    if (errors || depth || enters != exits)
        _exit(99);
}

/* A replacement runtime defines the ABI's link-check symbol too (INSTR_LINK_CHECK_SYMBOL in
 * runtime/include/instr_abi.h): each object with hooks refers to it. */
const char
    __instr_compiled_with_instr_but_not_linked_with_it__link_through_instr_or_add_linstr_rt = 1;
