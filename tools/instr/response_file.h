/* response_file.h — `@file` arguments as GCC reads them (CMake and Ninja write them for long
 * command lines). The wrapper expands them only to see what a command compiles; the compiler
 * still gets the original arguments. */
#ifndef INSTR_RESPONSE_FILE_H
#define INSTR_RESPONSE_FILE_H

#include <stddef.h>

typedef struct response_args {
    char **v; /* NULL-terminated */
    int n, cap;
    int oom;
} response_args;

/* The largest response file read (bytes), and how deep @file may nest in @file. */
#define RESPONSE_FILE_MAX_BYTES (16UL << 20)
#define RESPONSE_FILE_MAX_DEPTH 32

/* Splits a response file's text into arguments as GCC does: at whitespace, with '...' and
 * "..." quoting any character up to the closing quote and '\' escaping the next character
 * (inside and outside quotes). Appends them to out. */
void response_split(const char *text, size_t size, response_args *out);

/* argv with every @file replaced by its arguments, recursively. As in GCC, an @file that
 * cannot be read (missing, not a regular file) stays as the argument it is. Returns 0, or -1
 * with a message in why (too large, nested too deep, out of memory). */
int response_expand(int argc, char *const *argv, response_args *out, char *why, size_t why_size);

void response_args_free(response_args *a);

#endif
