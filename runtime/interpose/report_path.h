/* report_path.h — a call path as memory and I/O recording's profile.txt sections write it. */
#ifndef INSTR_INTERPOSE_REPORT_PATH_H
#define INSTR_INTERPOSE_REPORT_PATH_H

#include "../profile/profile.h"

#include <stdint.h>

/* Merged node i of t, outermost first ("main > work > fill"), at most its 64 innermost
 * frames (then "... > " first), and a newline; UINT32_MAX: "(outside any region)". */
void instr_interpose_put_path(instr_writer *f, const instr_mtree *t, uint32_t i);

#endif
