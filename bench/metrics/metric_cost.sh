#!/usr/bin/env bash
# Cost of metrics per instrumented call (docs/performance.md, "Metrics"): bench/callheavy.c
# built with -finstrument-functions against libinstr-rt (profile mode), run with 0 to 4
# strictly synchronous metrics of an empty plugin (bench/metrics/empty_plugin.c), next to the
# same program with empty hooks and uninstrumented, all in one run on this machine.
#   bench/metrics/metric_cost.sh [BUILD_DIR] [N] [REPEATS]
# BUILD_DIR holds lib/libinstr-rt.so and include/instr/ (default: build/ beside this repo).
# Each variant runs REPEATS times (default 5); the minimum ns per call is reported.
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

measure() { # command... -> min ns per call
  local best="" t
  for _ in $(seq "$reps"); do
    rm -rf instr-*
    t=$("$@" | sed -n 's/.*ns_per_call=\([0-9.]*\).*/\1/p')
    best=$(awk -v a="$best" -v b="$t" 'BEGIN { if (a == "" || b < a) print b; else print a }')
  done
  echo "$best"
}

export INSTR_VERBOSE=quiet
plain=$(measure ./plain "$n")
empty=$(measure ./empty_hooks "$n")
echo "machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) cores, $(uname -sr)"
echo "calls: $n, best of $reps"
printf '%-28s %8s %10s\n' variant ns/call overhead
printf '%-28s %8.2f %10s\n' uninstrumented "$plain" -
printf '%-28s %8.2f %10.2f\n' "empty hook pair" "$empty" "$(awk -v a="$empty" -v b="$plain" 'BEGIN{print a-b}')"
base=$(measure ./instr_cyg "$n")
printf '%-28s %8.2f %10.2f\n' "instr profile, no metric" "$base" "$(awk -v a="$base" -v b="$plain" 'BEGIN{print a-b}')"
prev=$base
for m in 1 2 3 4; do
  t=$(INSTR_PLUGIN_PATH=$PWD INSTR_METRIC_PLUGINS=empty INSTR_METRIC_EMPTY=$m measure ./instr_cyg "$n")
  printf '%-28s %8.2f %10.2f  (+%.2f over %d)\n' "instr profile, $m metric(s)" "$t" \
    "$(awk -v a="$t" -v b="$plain" 'BEGIN{print a-b}')" \
    "$(awk -v a="$t" -v b="$prev" 'BEGIN{print a-b}')" $((m - 1))
  prev=$t
done
