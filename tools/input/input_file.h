/* input_file.h — how every tool opens a file it reads (a profile, a job database, a trace's
 * anchor, a cube): never waiting for data that may never come. A FIFO, a device or a socket
 * named as input is refused at once with what it is, instead of blocking in open(2) until a
 * writer appears (or reading forever from /dev/zero). The selection spec reader (filter/load.c)
 * and the response-file reader of the wrapper do the same for their files. */
#ifndef INSTR_TOOLS_INPUT_FILE_H
#define INSTR_TOOLS_INPUT_FILE_H

#include <stddef.h>
#include <stdint.h>

/* Opens path for reading: a file descriptor in blocking mode, with *size set to the file's
 * size; or -1 with why set to "cannot open: <reason>" or "not a regular file (a FIFO)" (the
 * path is the caller's to put in front). */
int instr_input_open(const char *path, uint64_t *size, char *why, size_t whysize);

#endif
