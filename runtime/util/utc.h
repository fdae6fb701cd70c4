/* utc.h — a time as ISO 8601 UTC text, without the C library's time functions (utc.c):
 * glibc's gmtime_r reads the time zone first (tzset: /etc/localtime through fopen, and the
 * zone's names in malloc'd memory), and a profile written at the end of the run must not take
 * memory from the program's heap (docs/runtime.md, "The runtime's memory"). */
#ifndef INSTR_UTIL_UTC_H
#define INSTR_UTIL_UTC_H

#include <time.h>

#define INSTR_UTC_ISO_SIZE 48

/* t as "YYYY-MM-DDTHH:MM:SSZ" (proleptic Gregorian calendar, as gmtime_r and strftime
 * would write it) into out; returns out. */
char *instr_utc_iso(char out[INSTR_UTC_ISO_SIZE], time_t t);

#endif
