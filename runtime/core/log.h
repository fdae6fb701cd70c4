/* log.h — the runtime's only voice: one line per message on stderr, prefixed "instr: ".
 * Messages are written with one write(2) each so that they never interleave with the
 * program's own output mid-line. */
#ifndef INSTR_RT_LOG_H
#define INSTR_RT_LOG_H

/* -1 quiet (no end summary), 0 default (warnings + summary), 1 explain decisions,
 * 2 also per-region decisions and symbol resolution. Set from INSTR_VERBOSE. */
extern int instr_verbose;

/* Always printed: something the user must know (bad configuration, lost data). */
void instr_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Printed when instr_verbose >= level. */
void instr_info(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
