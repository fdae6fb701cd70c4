/* instr.h — the manual instrumentation API of instr.
 *
 *     #include <instr.h>
 *     instr_region_begin("assemble");
 *     ...
 *     instr_region_end("assemble");
 *
 * Regions are named by strings; begin and end must nest like function calls on the same
 * thread (an end for a region further down the stack closes the regions above it). Names are
 * looked up by content, so a name built in a reused buffer is fine. The run-time filter
 * (INSTR_FILTERING_FILE) applies to these names as `function` names.
 *
 * instr_pause() / instr_resume() switch recording off and on for the whole process: regions
 * entered while paused are not recorded (nor their callees); regions entered before the pause
 * are still closed when they end, so the profile stays consistent.
 *
 * Define INSTR_DISABLE before including this header (e.g. -DINSTR_DISABLE) and every call
 * compiles to nothing: no code, no symbol reference, no need to link the runtime. */
#ifndef INSTR_H
#define INSTR_H

#ifdef __cplusplus
extern "C" {
#endif

#ifndef INSTR_DISABLE

void instr_region_begin(const char *name);
void instr_region_end(const char *name);
void instr_pause(void);
void instr_resume(void);
/* 1 while events are recorded: the runtime is running and not paused. */
int instr_is_recording(void);

/* XRay builds (`instr --mode=xray`, docs/xray.md): patch or unpatch the sleds of the
 * functions a pattern selects (a selection-spec glob on the demangled name, with or without
 * parameters, or on the mangled name), or of all functions. Returns how many functions
 * changed, or -1 (with a message) when the program has no XRay or the pattern is malformed.
 * A function unpatched while it runs is closed when its nearest recorded caller returns. */
int instr_xray_patch(const char *pattern);
int instr_xray_unpatch(const char *pattern);
int instr_xray_patch_all(void);
int instr_xray_unpatch_all(void);

#else

#define instr_region_begin(name) ((void)sizeof(name))
#define instr_region_end(name) ((void)sizeof(name))
#define instr_pause() ((void)0)
#define instr_resume() ((void)0)
#define instr_is_recording() 0
#define instr_xray_patch(pattern) ((void)sizeof(pattern), 0)
#define instr_xray_unpatch(pattern) ((void)sizeof(pattern), 0)
#define instr_xray_patch_all() 0
#define instr_xray_unpatch_all() 0

#endif

#ifdef __cplusplus
}
#endif
#endif
