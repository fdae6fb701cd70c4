/* sections.h — the address range of a named section in every loaded object (executable and
 * DSOs), read from the objects' section headers on disk. Slow path, start-up only. */
#ifndef INSTR_RT_SECTIONS_H
#define INSTR_RT_SECTIONS_H

#include <stddef.h>

/* Calls fn once per loaded object that has an allocated section `name` lying inside one of
 * its loaded segments, with the section's run-time address and size. Objects whose file
 * cannot be read are skipped. Returns the number of sections found. */
int instr_sections_each(const char *name, void (*fn)(void *begin, size_t size, void *arg),
                        void *arg);

#endif
