/* otf2_anchor.h — a size and sanity check of an OTF2 anchor file (traces.otf2) before the OTF2
 * library reads it: OTF2 (up to 3.0) takes a damaged anchor's counts as they are, and some
 * damage makes it allocate and read without end (docs/tracing.md, "Damaged anchor files"). */
#ifndef INSTR_TOOLS_OTF2_ANCHOR_H
#define INSTR_TOOLS_OTF2_ANCHOR_H

#include <stddef.h>

/* An anchor file larger than this is refused (instr's are about 100 bytes). */
#define INSTR_OTF2_ANCHOR_MAX (1u << 20)

/* 0 when the n bytes at data are an anchor file OTF2 can read safely: its layout holds, its
 * strings end inside it, its counts fit it; else -1 with why set ("damaged OTF2 anchor file:
 * WHAT at byte N"). */
int instr_otf2_anchor_check_bytes(const void *data, size_t n, char *why, size_t whysize);

/* The same for the file at path, opened as every tool opens its input (input_file.h). */
int instr_otf2_anchor_check(const char *path, char *why, size_t whysize);

#endif
