#!/usr/bin/env bash
# Cost of metrics per instrumented call (docs/performance.md, "Metrics"): bench/callheavy.c
# built with -finstrument-functions against libinstr-rt (profile mode), run with 0 to 4
# strictly synchronous metrics of an empty plugin (bench/metrics/empty_plugin.c), next to the
# same program with empty hooks and uninstrumented, all in one run on this machine.
#   bench/metrics/metric_cost.sh [BUILD_DIR] [N] [REPEATS]
# BUILD_DIR holds lib/libinstr-rt.so and include/instr/ (default: build/ beside this repo).
# Each variant runs REPEATS times (default 5); the minimum ns per call is reported. Where
# valgrind is installed, callgrind's instructions per call are shown too (inside main, at
# 100,000 and 200,000 calls, subtracted: one loop iteration, deterministic). The measuring
# is bench/callheavy_cost.sh, shared with bench/substrate_plugins/plugin_cost.sh.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../callheavy_cost.sh" metric "${1:-$here/../../build}" "${2:-20000000}" "${3:-5}"
gcc -O2 -shared -fPIC -I"$build/include" "$here/empty_plugin.c" -o libinstr_metric_empty.so

cost_table 28
row "empty hook pair" ./empty_hooks
base=$(measure ./instr_cyg "$n")
printf '%-28s %10s %8.2f %10.2f\n' "instr profile, no metric" "$(icount ./instr_cyg)" "$base" \
  "$(awk -v a="$base" -v b="$plain" 'BEGIN{print a-b}')"
prev=$base
for m in 1 2 3 4; do
  export INSTR_PLUGIN_PATH=$PWD INSTR_METRIC_PLUGINS=empty INSTR_METRIC_EMPTY=$m
  t=$(measure ./instr_cyg "$n")
  printf '%-28s %10s %8.2f %10.2f  (+%.2f ns over %d)\n' "instr profile, $m metric(s)" \
    "$(icount ./instr_cyg)" "$t" "$(awk -v a="$t" -v b="$plain" 'BEGIN{print a-b}')" \
    "$(awk -v a="$t" -v b="$prev" 'BEGIN{print a-b}')" $((m - 1))
  prev=$t
  unset INSTR_PLUGIN_PATH INSTR_METRIC_PLUGINS INSTR_METRIC_EMPTY
done
