/* config_vars.c — see config_vars.h. A new variable is one row here (and, when the runtime
 * parses it into instr_cfg, a slot in config_vars.h); docs/runtime.md or the page of the part
 * that reads it says the rest. */
#include "config_vars.h"

#include <string.h>

const instr_config_var instr_config_vars[] = {
    [V_PROFILING] = {"INSTR_ENABLE_PROFILING", "boolean", "1", "runtime",
                     "write the call-path profile (0: record nothing)"},
    [V_TRACING] = {"INSTR_ENABLE_TRACING", "boolean", "0", "runtime",
                   "write an OTF2 trace (docs/tracing.md)"},
    [V_EXPDIR] = {"INSTR_EXPERIMENT_DIRECTORY", "path", "", "runtime",
                  "where results go; unset: instr-<YYYYMMDD_HHMMSS>-<pid> in the current "
                  "directory; never overwritten"},
    [V_FILTER] = {"INSTR_FILTERING_FILE", "path", "", "runtime",
                  "selection spec applied at run time when a region registers"},
    [V_TIMER] = {"INSTR_TIMER", "word", "auto", "runtime",
                 "clock: tsc, monotonic, monotonic_raw, realtime or auto"},
    [V_MEMORY] = {"INSTR_TOTAL_MEMORY", "size", "256M", "runtime",
                  "memory for call-tree nodes and trace buffers, all threads together "
                  "(64K to 1T)"},
    [V_VERBOSE] = {"INSTR_VERBOSE", "level", "0", "runtime, LLVM plugin",
                   "quiet (-1), 0: warnings and the summary (an MPI job: one, from rank 0), "
                   "1: explain decisions (and each MPI rank's end line), 2: every filter "
                   "decision"},
    [V_SIGNAL] = {"INSTR_WRITE_ON_SIGNAL", "boolean", "1", "runtime",
                  "write what was measured on a termination signal the program does not "
                  "handle"},
    [V_FATAL] = {"INSTR_WRITE_ON_FATAL", "boolean", "0", "runtime",
                 "also write on SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT"},
    [V_FOLDED] = {"INSTR_FOLDED_MAX_DEPTH", "integer", "64", "runtime",
                  "most frames in a line of profile.folded (4 to 100000)"},
    [V_FORMATS] = {"INSTR_PROFILING_FORMAT", "options", "all", "runtime",
                   "profile files to write: comma-separated json, txt, folded, cubex, html, "
                   "all, none"},
    [V_THROTTLE] = {"INSTR_THROTTLE", "options", "", "runtime",
                    "<visits>,<ns per visit>: stop recording a region called more often than "
                    "that with less time per visit (unset: off)"},
    [V_HINT] = {"INSTR_DOMINATED_HINT", "options", "1000000,100", "runtime",
                "<visits>,<ns per visit>: the end-of-run line names regions with more visits "
                "than that of less time each (off: no line)"},
    [V_JOB_MAX_RANKS] = {"INSTR_JOB_PROFILE_MAX_RANKS", "integer", "256", "runtime",
                         "an MPI job with more ranks writes its profile.json, .cubex, .html "
                         "from the job database's summary over ranks (1 to 2147483647)"},
    /* read by other parts of instr */
    {"INSTR_MEMORY", "boolean", "0", "runtime",
     "record the program's malloc family and C++ new/delete per call path, with the blocks "
     "still live at the end (docs/memory.md)"},
    {"INSTR_IO", "options", "", "runtime",
     "record the program's I/O per call path and file: posix, stdio, mpiio, or all, "
     "comma-separated (docs/io.md)"},
    {"INSTR_CRITICAL_PATH", "boolean", "0", "runtime",
     "compute the critical path of an MPI job or an OpenMP program while it runs: "
     "critical-path.json (docs/critical-path.md)"},
    {"INSTR_CRITICAL_PATH_REGIONS", "integer", "32", "runtime",
     "entries (region and rank) the critical path names, the longest first; the rest is "
     "other (1 to 64)"},
    {"INSTR_CRITICAL_PATH_CLOCK", "word", "wall", "runtime",
     "the critical path's clock: wall (the event clock) or cpu (each thread's CPU time)"},
    {"INSTR_CRITICAL_PATH_METRICS", "options", "", "runtime",
     "synchronous metrics (by name, docs/metrics.md) summed along the critical path like its "
     "time (at most 8)"},
    {"INSTR_SAMPLING", "boolean", "0", "runtime",
     "hybrid sampling: sampled frames (inlined ones too) beneath the instrumented call path "
     "(docs/sampling.md)"},
    {"INSTR_SAMPLING_PERIOD", "word", "1ms", "runtime",
     "time between two samples of a thread: a number with ns, us, ms or s, or of microseconds "
     "(100us to 10s; 10us to 100us are taken as 100us)"},
    {"INSTR_SAMPLING_CLOCK", "word", "cpu", "runtime",
     "the sampling timer's clock: cpu (the thread's CPU time) or wall (also samples waits)"},
    {"INSTR_SAMPLING_BUFFER", "size", "8M", "runtime",
     "sample buffer per thread (4K to 16G); samples beyond it are counted as dropped"},
    {"INSTR_SAMPLING_DEBUGINFO", "word", "own", "runtime",
     "own: sampled frames read the DWARF of objects that carry it; all: also separate debug "
     "files (system libraries: file and line, at a cost per object)"},
    {"INSTR_XRAY_PATCH", "word", "startup", "XRay adapter",
     "startup: patch what the run-time spec selects before main; manual: nothing until "
     "instr_xray_patch"},
    {"INSTR_FILTER", "paths", "", "LLVM plugin",
     "compile-time selection specs, colon-separated"},
    {"INSTR_MODE", "word", "hooks", "LLVM plugin", "hooks or xray"},
    {"INSTR_INLINE", "word", "after", "LLVM plugin",
     "instrument after or before inlining"},
    {"INSTR_REPORT", "path", "", "LLVM plugin",
     "append one line per function: the decision and its reason"},
    {"INSTR_METRIC_RUSAGE", "options", "", "runtime",
     "getrusage(RUSAGE_THREAD) fields as metrics, or all (docs/metrics.md)"},
    {"INSTR_METRIC_PERF", "options", "", "runtime",
     "Linux perf_event_open events as metrics, per thread (docs/metrics.md)"},
    {"INSTR_METRIC_PAPI", "options", "", "runtime",
     "PAPI preset and native events as metrics, where built with libpapi (docs/metrics.md)"},
    {"INSTR_METRIC_PLUGINS", "options", "", "runtime",
     "metric plugins to load: comma-separated names of libinstr_metric_<name>.so "
     "(docs/metrics.md)"},
    {"INSTR_SUBSTRATE_PLUGINS", "options", "", "runtime",
     "substrate (event consumer) plugins to load: comma-separated names of "
     "libinstr_substrate_<name>.so (docs/plugins.md)"},
    {"INSTR_PLUGIN_PATH", "paths", "", "runtime",
     "colon-separated directories searched for plugins before the library path"},
    {"INSTR_PROFILE_METRIC_COLUMNS", "options", "", "runtime",
     "metrics shown as columns of profile.txt (docs/metrics.md)"},
    {"INSTR_WRAPPER", "word", "", "compiler wrappers",
     "off: the plain compiler (while a build system configures); on: always instrument; "
     "unset: configure probes plain"},
    {"INSTR_WRAPPER_COMPILER", "word", "", "compiler wrappers",
     "the compiler instr-cc, instr-c++, ... call instead of the one they are named after"},
    {"INSTR_WRAPPER_ARGS", "options", "", "compiler wrappers",
     "instr's own options for the wrappers, e.g. --mode=xray --filter=/abs/app.spec"},
    {"INSTR_RANK_FILES", "options", "0", "runtime",
     "an MPI job's ranks that also write files of their own into rank-N/: 0 none (the job "
     "database holds every rank), 1 all, or a list of ranks such as 0,5,8-11 (docs/mpi.md)"},
    {"INSTR_JOB_WAIT", "word", "sleep", "runtime",
     "how an MPI job's ranks wait in the job's end steps: sleep (test, then nap 20 us to 1 "
     "ms) or poll (MPI's blocking waits) (docs/mpi.md)"},
    {"INSTR_TRACE_CONVERT", "word", "end", "runtime",
     "when the trace's records become OTF2: end (at the end of the run) or thread (full "
     "buffer chunks on a thread of the runtime's own while the program runs; docs/tracing.md)"},
    /* families last: an exact row above wins */
    {"INSTR_METRIC_*", "options", "", "runtime",
     "INSTR_METRIC_<PLUGIN>: the specification of metric plugin <plugin> (docs/metrics.md)"},
};
const size_t instr_config_var_count = sizeof instr_config_vars / sizeof *instr_config_vars;

const instr_config_var *instr_config_var_find(const char *name, size_t len)
{
    for (size_t i = 0; i < instr_config_var_count; i++) {
        const char *k = instr_config_vars[i].name;
        size_t kl = strlen(k);
        if (kl > 0 && k[kl - 1] == '*') {
            if (len >= kl - 1 && strncmp(k, name, kl - 1) == 0)
                return &instr_config_vars[i];
        } else if (kl == len && strncmp(k, name, len) == 0) {
            return &instr_config_vars[i];
        }
    }
    return NULL;
}
