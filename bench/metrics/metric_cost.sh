#!/usr/bin/env bash
# Cost of metrics per instrumented call (docs/performance.md, "Metrics"): bench/callheavy.c
# built with -finstrument-functions against libinstr-rt (profile mode), run with 0 to 4
# strictly synchronous metrics of an empty plugin (bench/metrics/empty_plugin.c; answering
# in one get_current_values call, and built as a version 1 plugin, one get_current_value
# call per metric), next to the same program with empty hooks and uninstrumented, all in
# one run on this machine.
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
gcc -O2 -shared -fPIC -DEMPTY_V1 -I"$build/include" "$here/empty_plugin.c" \
    -o libinstr_metric_empty_v1.so

cost_table 28
row "empty hook pair" ./empty_hooks
base=$(measure ./instr_cyg "$n")
base_i=$(icount ./instr_cyg)
printf '%-28s %10s %8.2f %10.2f\n' "instr profile, no metric" "$base_i" "$base" \
  "$(awk -v a="$base" -v b="$plain" 'BEGIN{print a-b}')"
for plugin in empty empty_v1; do
  how="one call"
  [ "$plugin" = empty_v1 ] && how="call per metric"
  prev=$base prev_i=$base_i first_i=""
  for m in 1 2 3 4; do
    export INSTR_PLUGIN_PATH=$PWD INSTR_METRIC_PLUGINS=$plugin INSTR_METRIC_EMPTY=$m \
      INSTR_METRIC_EMPTY_V1=$m
    t=$(measure ./instr_cyg "$n")
    i=$(icount ./instr_cyg)
    printf '%-28s %10s %8.2f %10.2f  (+%s instr, %+.2f ns over %d)\n' "$m metric(s), $how" \
      "$i" "$t" "$(awk -v a="$t" -v b="$plain" 'BEGIN{print a-b}')" \
      "$(awk -v a="$i" -v b="$prev_i" 'BEGIN{print a-b}')" \
      "$(awk -v a="$t" -v b="$prev" 'BEGIN{print a-b}')" $((m - 1))
    [ -z "$first_i" ] && first_i=$i
    prev=$t prev_i=$i
    unset INSTR_PLUGIN_PATH INSTR_METRIC_PLUGINS INSTR_METRIC_EMPTY INSTR_METRIC_EMPTY_V1
  done
  # Per metric: the mean step from 1 to 4 metrics; activation: the first metric's cost
  # less one such step.
  [ "$base_i" = - ] && continue
  awk -v b="$base_i" -v f="$first_i" -v l="$prev_i" -v how="$how" 'BEGIN {
    per = (l - f) / 3; printf "  %s: activation %.1f instr, each metric %.1f instr\n", how,
    f - b - per, per }'
done
