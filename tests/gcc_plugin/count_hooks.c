/* count_hooks.c — a minimal stand-in for the runtime's hooks, for the GCC plugin tests that
 * must not depend on libinstr-rt: counts enters and exits per descriptor, checks that every
 * exit closes the innermost open region of its thread and that descriptors are well formed,
 * and writes the counts at exit to the file named by INSTR_TEST_COUNTS:
 *     <enters>\t<exits>\t<name>\t<mangled>\t<file>
 *     ERROR\t<what>
 * Compiled without the plugin. Not thread-safe beyond per-thread stacks (tests are serial). */
#include <instr_abi.h> /* struct instr_region and its constants, nothing of the runtime */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_REGIONS 4096
#define MAX_DEPTH 4096

static struct instr_region *regions[MAX_REGIONS];
static unsigned long enters[MAX_REGIONS], exits_[MAX_REGIONS];
static uint32_t nregions;
static __thread uint32_t stack[MAX_DEPTH];
static __thread int depth;
static char errors[8192];

static void fail(const char *what, const struct instr_region *r)
{
    size_t n = strlen(errors);
    snprintf(errors + n, sizeof errors - n, "ERROR\t%s: %s\n", what,
             r && r->name ? r->name : "?");
}

static void write_counts(void)
{
    const char *path = getenv("INSTR_TEST_COUNTS");
    FILE *f = path ? fopen(path, "w") : NULL;
    if (!f)
        return;
    for (uint32_t i = 1; i <= nregions; ++i)
        fprintf(f, "%lu\t%lu\t%s\t%s\t%s\n", enters[i], exits_[i], regions[i]->name,
                regions[i]->mangled, regions[i]->file);
    if (depth != 0)
        fprintf(f, "ERROR\t%d regions still open at exit\n", depth);
    fputs(errors, f);
    fclose(f);
}

/* INSTR_TEST_EXCLUDE=<name>: that region is excluded at run time on its first enter (handle
 * UINT32_MAX, as the runtime's filter does); the plugin's guard must then keep every later
 * hook call away. */
static int excluded_at_run_time(struct instr_region *r)
{
    const char *x = getenv("INSTR_TEST_EXCLUDE");
    return x && r->name && strcmp(x, r->name) == 0;
}

void __instr_enter(struct instr_region *r)
{
    if (r->handle == UINT32_MAX) {
        fail("enter hook called for a region excluded at run time", r);
        return;
    }
    if (r->handle == 0 && excluded_at_run_time(r)) {
        if (nregions == 0)
            atexit(write_counts);
        r->handle = UINT32_MAX;
        return;
    }
    if (r->handle == 0) {
        if (nregions == 0)
            atexit(write_counts);
        if (nregions + 1 >= MAX_REGIONS) {
            fail("too many regions", r);
            r->handle = UINT32_MAX;
            return;
        }
        if (!r->name || !*r->name || !r->mangled || !*r->mangled || !r->file || !r->addr ||
            r->flags != INSTR_REGION_ABI_BITS || r->line_begin == 0 || r->line_end < r->line_begin)
            fail("malformed descriptor", r);
        if (r->file && r->file[0] && r->file[0] != '/')
            fail("file is not absolute", r);
        r->handle = ++nregions;
        regions[r->handle] = r;
    }
    enters[r->handle]++;
    if (depth < MAX_DEPTH)
        stack[depth] = r->handle;
    depth++;
}

void __instr_exit(struct instr_region *r)
{
    if (r->handle == UINT32_MAX) {
        fail("exit hook called for a region excluded at run time", r);
        return;
    }
    if (r->handle == 0 || r->handle > nregions) {
        fail("exit of a region never entered", r);
        return;
    }
    exits_[r->handle]++;
    if (depth == 0) {
        fail("exit with no open region", r);
        return;
    }
    depth--;
    if (depth < MAX_DEPTH && stack[depth] != r->handle)
        fail("exit does not close the innermost open region", r);
}

/* A replacement runtime defines the ABI's link-check symbol too (INSTR_LINK_CHECK_SYMBOL in
 * runtime/include/instr_abi.h): each object with hooks refers to it. */
const char
    __instr_compiled_with_instr_but_not_linked_with_it__link_through_instr_or_add_linstr_rt = 1;
