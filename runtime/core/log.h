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

/* A notice every process of an MPI job would print alike (the same program on every rank:
 * e.g. that it runs on libgomp): a job prints it once, from rank 0. Outside a job it is
 * printed at once, like instr_warn. */
void instr_notice(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* An MPI job's process before MPI_Init: notices are held until the rank is known. */
void instr_log_job_hold(void);
/* The rank is known: rank 0 prints the held notices and later ones; any other rank drops
 * them. A negative rank (at the end: the process never joined a job) prints what is still
 * held and changes nothing once a rank was given. */
void instr_log_job_rank(int rank);

#endif
