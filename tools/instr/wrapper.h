/* wrapper.h — the installed compiler wrappers instr-cc, instr-c++, instr-mpicc, instr-mpicxx
 * and instr-gfortran: links to the `instr` executable that a build system can take as its
 * compiler (docs/build-systems.md). */
#ifndef INSTR_WRAPPER_H
#define INSTR_WRAPPER_H

typedef struct wrapper_command {
    char **argv;  /* NULL-terminated */
    int argc;
    int plain;    /* 1: argv is the plain compiler's command; 0: it is instr's own */
} wrapper_command;

/* When argv[0] names one of the wrappers, the command it stands for: the compiler it is
 * named after (or INSTR_WRAPPER_COMPILER) run plainly when INSTR_WRAPPER=off or when a build
 * system's configure step probes the compiler, else `instr $INSTR_WRAPPER_ARGS -- COMPILER
 * ARGS...`. Returns 1 and fills *out; 0 when argv[0] is not a wrapper; -1 after printing
 * what is wrong with an INSTR_WRAPPER* variable. */
int wrapper_command_for(int argc, char **argv, wrapper_command *out);

/* Whether the compiler command argv (argv[0] the compiler) is to run plainly:
 * INSTR_WRAPPER=off, or unset and the command is a build system's configure probe. 1 plain,
 * 0 instrumented, -1 after printing what is wrong with INSTR_WRAPPER (self names the tool).
 * `instr CC ...` asks it too, so a compiler launcher behaves as the wrappers do. */
int wrapper_plain(const char *self, int argc, char **argv);

#endif
