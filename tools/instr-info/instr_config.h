/* instr_config.h — `instr-config`, a name of instr-info (like scorep-config): the compiler
 * and linker flags for code that calls the runtime's manual API or links the runtime by hand
 * (docs/build-systems.md). */
#ifndef INSTR_INFO_INSTR_CONFIG_H
#define INSTR_INFO_INSTR_CONFIG_H

/* Runs `instr-config ARGS...` (argv[0] is the tool's name); returns the exit status. */
int instr_config_main(int argc, char **argv);

#endif
