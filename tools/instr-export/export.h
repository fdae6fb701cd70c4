/* export.h — the exporters of instr-export (docs/report.md). Each reads one input and writes
 * one output stream; 0 on success, 1 on bad input (a message on stderr says what and where),
 * -1 on an I/O error writing the output. */
#ifndef INSTR_EXPORT_H
#define INSTR_EXPORT_H

#include <stdio.h>

/* profile.json (of a process or of an MPI job) -> profile.html. */
int instr_export_html(const char *path, FILE *out);
/* OTF2 anchor file (traces.otf2) -> Chrome trace-event JSON (Perfetto UI, speedscope). */
int instr_export_chrome(const char *anchor, FILE *out);

/* profile.json -> speedscope's JSON, one sampled profile per location. */
int instr_export_speedscope(const char *path, FILE *out);
/* profile.json -> folded stacks with a chosen per-node number (NULL: exclusive). */
int instr_export_folded(const char *path, const char *metric, FILE *out);
/* profile.json -> a flame graph as SVG. */
int instr_export_svg(const char *path, FILE *out);

/* profile.jdb -> one rank's profile.json, from the job database (rank_json.c). */
int instr_export_rank_json(const char *jdb, long rank, FILE *out);

#endif
