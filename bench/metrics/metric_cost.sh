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
# 100,000 and 200,000 calls, subtracted: one loop iteration, deterministic).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=$(cd "${1:-$here/../../build}" && pwd)
n=${2:-20000000}
reps=${3:-5}
work=$(mktemp -d "${TMPDIR:-/tmp}/instr-metric-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT
cd "$work"

gcc -O2 "$here/../callheavy.c" -o plain
gcc -O2 -c "$here/../empty_hooks.c" -o empty_hooks.o
gcc -O2 -finstrument-functions "$here/../callheavy.c" empty_hooks.o -o empty_hooks
gcc -O2 -finstrument-functions "$here/../callheavy.c" -o instr_cyg \
    -L"$build/lib" -linstr-rt -Wl,-rpath,"$build/lib"
gcc -O2 -shared -fPIC -I"$build/include" "$here/empty_plugin.c" -o libinstr_metric_empty.so
gcc -O2 -shared -fPIC -DEMPTY_V1 -I"$build/include" "$here/empty_plugin.c" \
    -o libinstr_metric_empty_v1.so

measure() { # command... -> min ns per call
  local best="" t
  for _ in $(seq "$reps"); do
    rm -rf instr-*
    t=$("$@" | sed -n 's/.*ns_per_call=\([0-9.]*\).*/\1/p')
    best=$(awk -v a="$best" -v b="$t" 'BEGIN { if (a == "" || b < a) print b; else print a }')
  done
  echo "$best"
}

# Instructions per call: (Ir(200k) - Ir(100k)) / (1.1 * 100k) (callheavy warms up with N/10).
icount() { # command... -> instructions per call, or "-"
  command -v valgrind >/dev/null || { echo -; return; }
  local a b
  a=$(valgrind --tool=callgrind --toggle-collect=main --callgrind-out-file=cg.a "$@" 100000 2>/dev/null >/dev/null; sed -n 's/^summary: *//p' cg.a)
  b=$(valgrind --tool=callgrind --toggle-collect=main --callgrind-out-file=cg.b "$@" 200000 2>/dev/null >/dev/null; sed -n 's/^summary: *//p' cg.b)
  rm -rf cg.a cg.b instr-*
  awk -v a="$a" -v b="$b" 'BEGIN { printf "%.1f", (b - a) / 110000 }'
}

export INSTR_VERBOSE=quiet
plain=$(measure ./plain "$n")
empty=$(measure ./empty_hooks "$n")
echo "machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) cores, $(uname -sr)"
echo "calls: $n, best of $reps"
printf '%-28s %10s %8s %10s\n' variant instr/call ns/call overhead
printf '%-28s %10s %8.2f %10s\n' uninstrumented "$(icount ./plain)" "$plain" -
printf '%-28s %10s %8.2f %10.2f\n' "empty hook pair" "$(icount ./empty_hooks)" "$empty" \
  "$(awk -v a="$empty" -v b="$plain" 'BEGIN{print a-b}')"
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
