#!/usr/bin/env bash
# Cost of a substrate plugin per instrumented call (docs/performance.md, "Substrate plugins"):
# bench/callheavy.c built with -finstrument-functions against libinstr-rt and with the GCC
# plugin's hooks (instr --mode=hooks), run without a plugin and with an empty plugin
# registered for enter and exit (bench/substrate_plugins/empty_plugin.c; reentrant, and built
# again without that flag: "protected"), next to the same program with an empty
# -finstrument-functions hook pair and uninstrumented, all in one run.
#   bench/substrate_plugins/plugin_cost.sh [BUILD_DIR] [N] [REPEATS]
# BUILD_DIR holds bin/instr, lib/libinstr-rt.so and include/instr/ (default: build/ beside
# this repo). Each variant runs REPEATS times (default 5); the minimum ns per call is
# reported. Where valgrind is installed, callgrind's instructions per call are shown too
# (inside main, at 100,000 and 200,000 calls, subtracted: one loop iteration, deterministic).
# The measuring is bench/callheavy_cost.sh, shared with bench/metrics/metric_cost.sh.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../callheavy_cost.sh" substrate "${1:-$here/../../build}" "${2:-20000000}" "${3:-5}"
"$build/bin/instr" --mode=hooks gcc -O2 "$here/../callheavy.c" -o instr_hooks
gcc -O2 -shared -fPIC -I"$build/include" "$here/empty_plugin.c" -o libinstr_substrate_empty.so
# The same plugin without INSTR_SUBSTRATE_PLUGIN_REENTRANT: called with signal handlers kept away.
gcc -O2 -shared -fPIC -I"$build/include" -DEMPTY_PROTECTED "$here/empty_plugin.c" \
  -o libinstr_substrate_empty_protected.so

cost_table 50
row "empty -finstrument-functions hook pair" ./empty_hooks
# The plugin's own cost is the difference between rows on the same (generic) path: profile
# and trace together take it already, so "+ empty plugin" there is the dispatch alone. With
# the profile alone, loading any plugin also moves events off the inline cursor path.
for p in cyg hooks; do
  row "instr $p, profile" ./instr_$p INSTR_ENABLE_PROFILING=1
  row "instr $p, profile + empty plugin" ./instr_$p INSTR_ENABLE_PROFILING=1 \
    INSTR_PLUGIN_PATH="$PWD" INSTR_SUBSTRATE_PLUGINS=empty
  row "instr $p, profile + empty protected plugin" ./instr_$p INSTR_ENABLE_PROFILING=1 \
    INSTR_PLUGIN_PATH="$PWD" INSTR_SUBSTRATE_PLUGINS=empty_protected
  row "instr $p, empty plugin alone" ./instr_$p INSTR_ENABLE_PROFILING=0 \
    INSTR_PLUGIN_PATH="$PWD" INSTR_SUBSTRATE_PLUGINS=empty
  # The plugin alone's baseline: the runtime with nothing to record.
  row "instr $p, no substrate" ./instr_$p INSTR_ENABLE_PROFILING=0
  row "instr $p, profile + trace" ./instr_$p INSTR_ENABLE_PROFILING=1 INSTR_ENABLE_TRACING=1
  row "instr $p, profile + trace + empty plugin" ./instr_$p INSTR_ENABLE_PROFILING=1 \
    INSTR_ENABLE_TRACING=1 INSTR_PLUGIN_PATH="$PWD" INSTR_SUBSTRATE_PLUGINS=empty
done
