/* The message of the last failure, per thread, so that a caller (the Python module, a
 * program with threads) reads the one its own call left. */
#include "jdb_internal.h"

#include <stdarg.h>
#include <stdio.h>

static _Thread_local char message[1024];

const char *instr_jdb_error(void) { return message; }

void jdb_clear_error(void) { message[0] = '\0'; }

void jdb_fail(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(message, sizeof message, fmt, ap);
  va_end(ap);
}
