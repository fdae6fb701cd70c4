/* install_layout.h — the directories of the instr tree the running tool belongs to, found
 * from its own executable (/proc/self/exe, symbolic links resolved): <prefix>/<bindir>/<tool>
 * gives <prefix>, and lib/ and include/ are where this build put them. Nothing absolute is
 * compiled in, so a moved install tree answers for its new place. */
#ifndef INSTR_INSTALL_LAYOUT_H
#define INSTR_INSTALL_LAYOUT_H

#include <limits.h>

typedef struct instr_layout {
    char prefix[PATH_MAX];
    char lib[PATH_MAX];     /* libinstr-rt.*, libinstr-xray.a, instr/<compiler>/ plugins */
    char include[PATH_MAX]; /* <instr.h>, <instr_abi.h> */
} instr_layout;

/* 0 and *out filled, or -1 when /proc/self/exe cannot be read or the paths are too long. */
int instr_layout_find(instr_layout *out);

#endif
