# callheavy_cost.sh — the measuring part of the per-call cost benches that run
# bench/callheavy.c in variants (bench/metrics/metric_cost.sh,
# bench/substrate_plugins/plugin_cost.sh); sourced, after `set -euo pipefail`:
#   . "$bench/callheavy_cost.sh" NAME BUILD_DIR N REPEATS
# Makes a work directory (removed at exit) and enters it; builds callheavy.c uninstrumented
# (./plain), with an empty -finstrument-functions hook pair (./empty_hooks) and against
# BUILD_DIR's libinstr-rt (./instr_cyg). Defines measure, icount, cost_table and row.
cost_bench=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
build=$(cd "$2" && pwd)
n=$3
reps=$4
work=$(mktemp -d "${TMPDIR:-/tmp}/instr-$1-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT
cd "$work"

gcc -O2 "$cost_bench/callheavy.c" -o plain
gcc -O2 -c "$cost_bench/empty_hooks.c" -o empty_hooks.o
gcc -O2 -finstrument-functions "$cost_bench/callheavy.c" empty_hooks.o -o empty_hooks
gcc -O2 -finstrument-functions "$cost_bench/callheavy.c" -o instr_cyg \
    -L"$build/lib" -linstr-rt -Wl,-rpath,"$build/lib"

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

cost_table() { # WIDTH: the machine, the header and the uninstrumented row; sets plain
  cost_width=$1
  export INSTR_VERBOSE=quiet
  plain=$(measure ./plain "$n")
  echo "machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) cores, $(uname -sr)"
  echo "calls: $n, best of $reps"
  printf "%-${cost_width}s %10s %8s %10s\n" variant instr/call ns/call overhead
  printf "%-${cost_width}s %10s %8.2f %10s\n" uninstrumented "$(icount ./plain)" "$plain" -
}

row() { # name prog [VAR=value...]: one line, the variables set for that variant only
  local name=$1 prog=$2
  shift 2
  (
    for kv in "$@"; do export "${kv?}"; done
    t=$(measure "$prog" "$n")
    i=$(icount "$prog")
    printf "%-${cost_width}s %10s %8.2f %10.2f\n" "$name" "$i" "$t" \
      "$(awk -v a="$t" -v b="$plain" 'BEGIN{print a-b}')"
  )
}
