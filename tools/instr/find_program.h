/* find_program.h — whether a command names a program that can run, as execvp would find it. */
#ifndef INSTR_FIND_PROGRAM_H
#define INSTR_FIND_PROGRAM_H

#include <stddef.h>

/* 0 when `name` (a path, or a name looked up in PATH) is an executable regular file; else
 * -1 with the reason in why ("not found in PATH", "Permission denied", ...). */
int find_program(const char *name, char *why, size_t why_size);

#endif
