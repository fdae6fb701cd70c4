#!/usr/bin/env bash
# Cost of a substrate plugin per instrumented call (docs/performance.md, "Substrate plugins"):
# bench/callheavy.c built with -finstrument-functions against libinstr-rt and with the GCC
# plugin's hooks (instr --mode=hooks), run without a plugin and with an empty plugin
# registered for enter and exit (bench/substrate_plugins/empty_plugin.c), next to the same
# program with an empty -finstrument-functions hook pair and uninstrumented, all in one run.
#   bench/substrate_plugins/plugin_cost.sh [BUILD_DIR] [N] [REPEATS]
# BUILD_DIR holds bin/instr, lib/libinstr-rt.so and include/instr/ (default: build/ beside
# this repo). Each variant runs REPEATS times (default 5); the minimum ns per call is
# reported. Where valgrind is installed, callgrind's instructions per call are shown too
# (inside main, at 100,000 and 200,000 calls, subtracted: one loop iteration, deterministic).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=$(cd "${1:-$here/../../build}" && pwd)
n=${2:-20000000}
reps=${3:-5}
work=$(mktemp -d "${TMPDIR:-/tmp}/instr-substrate-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT
cd "$work"

gcc -O2 "$here/../callheavy.c" -o plain
gcc -O2 -c "$here/../empty_hooks.c" -o empty_hooks.o
gcc -O2 -finstrument-functions "$here/../callheavy.c" empty_hooks.o -o empty_hooks
gcc -O2 -finstrument-functions "$here/../callheavy.c" -o instr_cyg \
    -L"$build/lib" -linstr-rt -Wl,-rpath,"$build/lib"
"$build/bin/instr" --mode=hooks gcc -O2 "$here/../callheavy.c" -o instr_hooks
gcc -O2 -shared -fPIC -I"$build/include" "$here/empty_plugin.c" -o libinstr_substrate_empty.so

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

row() { # name prog [VAR=value...]: one line, the variables set for that variant only
  local name=$1 prog=$2
  shift 2
  (
    for kv in "$@"; do export "${kv?}"; done
    t=$(measure "$prog" "$n")
    i=$(icount "$prog")
    printf '%-46s %10s %8.2f %10.2f\n' "$name" "$i" "$t" \
      "$(awk -v a="$t" -v b="$plain" 'BEGIN{print a-b}')"
  )
}

export INSTR_VERBOSE=quiet
plain=$(measure ./plain "$n")
echo "machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) cores, $(uname -sr)"
echo "calls: $n, best of $reps"
printf '%-46s %10s %8s %10s\n' variant instr/call ns/call overhead
printf '%-46s %10s %8.2f %10s\n' uninstrumented "$(icount ./plain)" "$plain" -
row "empty -finstrument-functions hook pair" ./empty_hooks
# The plugin's own cost is the difference between rows on the same (generic) path: profile
# and trace together take it already, so "+ empty plugin" there is the dispatch alone. With
# the profile alone, loading any plugin also moves events off the inline cursor path.
for p in cyg hooks; do
  row "instr $p, profile" ./instr_$p INSTR_ENABLE_PROFILING=1
  row "instr $p, profile + empty plugin" ./instr_$p INSTR_ENABLE_PROFILING=1 \
    INSTR_PLUGIN_PATH="$PWD" INSTR_SUBSTRATE_PLUGINS=empty
  row "instr $p, empty plugin alone" ./instr_$p INSTR_ENABLE_PROFILING=0 \
    INSTR_PLUGIN_PATH="$PWD" INSTR_SUBSTRATE_PLUGINS=empty
  row "instr $p, profile + trace" ./instr_$p INSTR_ENABLE_PROFILING=1 INSTR_ENABLE_TRACING=1
  row "instr $p, profile + trace + empty plugin" ./instr_$p INSTR_ENABLE_PROFILING=1 \
    INSTR_ENABLE_TRACING=1 INSTR_PLUGIN_PATH="$PWD" INSTR_SUBSTRATE_PLUGINS=empty
done
