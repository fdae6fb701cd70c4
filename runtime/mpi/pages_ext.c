/* pages_ext.c — libinstr-rt-mpi's page allocator is libinstr-rt's (core/ext.h): blocks pass
 * between the two libraries (a blob one makes, the other frees), and an allocator frees only
 * its own blocks. The rest of util/pages.h (pages_text.c) is built on these. */
#include "../core/ext.h"
#include "../util/pages.h"

void *instr_mem_alloc(size_t size) { return instr_ext_mem_alloc(size); }
void *instr_mem_realloc(void *p, size_t size) { return instr_ext_mem_realloc(p, size); }
void instr_mem_free(void *p) { instr_ext_mem_free(p); }
