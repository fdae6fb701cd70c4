/* self_prefix.h — the install prefix of the running tool: <prefix>/bin/<tool> -> <prefix>,
 * found through /proc/self/exe, so the build tree, the install tree and a moved install
 * tree all answer for themselves. */
#ifndef INSTR_INFO_SELF_PREFIX_H
#define INSTR_INFO_SELF_PREFIX_H

#include <stddef.h>

/* 0 and the prefix in out, or -1 when /proc/self/exe cannot be read. */
int self_prefix(char *out, size_t size);

#endif
