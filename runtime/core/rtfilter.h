/* rtfilter.h — the run-time filter: INSTR_FILTERING_FILE, read with filter/ (the same
 * selection logic as the compiler plugins), applied once per region when it registers. */
#ifndef INSTR_RT_RTFILTER_H
#define INSTR_RT_RTFILTER_H

/* Loads the spec; a bad spec gives its message and the run goes on without a filter. */
void instr_rtfilter_init(const char *path);
/* 1 when the region is recorded. `file` may be "" or NULL. Call with the registry lock. */
int instr_rtfilter_includes(const char *name, const char *mangled, const char *file);

#endif
