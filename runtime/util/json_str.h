/* json_str.h — s (NULL: "") as a JSON string literal, quotes included (json_str.c). */
#ifndef INSTR_UTIL_JSON_STR_H
#define INSTR_UTIL_JSON_STR_H

#include "text.h"

#include <stdio.h>

/* Inside a JSON string: well-formed UTF-8 kept, the rest escaped or U+FFFD. */
extern const instr_escaper instr_escaper_json;

void instr_wr_json_str(instr_writer *w, const char *s);
/* The same to a stdio stream (the tools; the runtime writes only through writers). */
void instr_json_str(FILE *f, const char *s);

#endif
