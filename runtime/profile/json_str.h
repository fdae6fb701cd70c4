/* json_str.h — s (NULL: "") as a JSON string literal, quotes included (json_str.c). */
#ifndef INSTR_RT_PROFILE_JSON_STR_H
#define INSTR_RT_PROFILE_JSON_STR_H

#include <stdio.h>

void instr_json_str(FILE *f, const char *s);

#endif
