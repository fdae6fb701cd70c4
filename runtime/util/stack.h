/* stack.h — the calling thread's stack, without malloc: pthread_getattr_np takes a CPU set
 * from malloc for every thread, and for the main thread reads /proc/self/maps with stdio
 * (malloc's FILE and buffer), which would put the runtime's work into the program's heap. */
#ifndef INSTR_UTIL_STACK_H
#define INSTR_UTIL_STACK_H

#include <stdint.h>

/* [*lo, *hi) of the calling thread's stack: the mapping that holds the stack pointer, for
 * the main thread down to where RLIMIT_STACK lets it grow (not past the mapping below).
 * 0, or -1 when unknown (nothing is stored). */
int instr_thread_stack(uintptr_t *lo, uintptr_t *hi);

#endif
