/* write_html.h — profile.html: the report template (report/, embedded at build time) around
 * a profile.json, written by the caller's own JSON writer into an escaping stream
 * (docs/report.md). Used for a process's profile, the MPI job's and by instr-export. */
#ifndef INSTR_RT_PROFILE_WRITE_HTML_H
#define INSTR_RT_PROFILE_WRITE_HTML_H

#include "../util/writer.h"

/* The template around the data (generated from report/ by report/embed.cmake). */
extern const char instr_report_head[], instr_report_tail[];
extern const unsigned long instr_report_head_len, instr_report_tail_len;

/* Writes profile.html into f: the template's head, then what write_json(json, arg) writes to
 * `json` with every '<' turned into \u003c (valid JSON wherever it occurs, and nothing in a
 * name can end the <script> element that holds the data), then the tail. 0, or -1 on an I/O
 * error. */
int instr_html_write(instr_writer *f, void (*write_json)(instr_writer *json, void *arg), void *arg);

#endif
