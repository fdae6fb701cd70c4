#!/usr/bin/env bash
# memory_cost.sh — cost of one malloc(64)/free pair (docs/memory.md, docs/performance.md):
# plain (no runtime), with the runtime and INSTR_MEMORY unset (not recorded), and recorded
# (INSTR_MEMORY=1). Wall time (best of REPEATS runs of N pairs) and instructions per pair
# (callgrind: the difference between N and 2N pairs).
#   bench/memory/memory_cost.sh BUILD_DIR [N] [REPEATS]
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
build=$(cd "$1" && pwd)
n=${2:-10000000}
reps=${3:-5}
work=$(mktemp -d "${TMPDIR:-/tmp}/instr-memory-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT
cd "$work"

gcc -O2 "$here/alloc_loop.c" -o plain
gcc -O2 -finstrument-functions "$here/alloc_loop.c" -o instr \
    -L"$build/lib" -linstr-rt -Wl,-rpath,"$build/lib"

measure() { # env... -- command... -> min ns per pair
  local best="" t
  for _ in $(seq "$reps"); do
    rm -rf instr-*
    t=$(env "$@" "$n" | sed -n 's/.*ns_per_pair=\([0-9.]*\).*/\1/p')
    best=$(awk -v a="$best" -v b="$t" 'BEGIN { if (a == "" || b < a) print b; else print a }')
  done
  echo "$best"
}

icount() { # env... command -> instructions per pair, or "-"
  command -v valgrind >/dev/null || { echo -; return; }
  local a b
  a=$(env INSTR_VERBOSE=-1 "${@:1:$#-1}" valgrind --tool=callgrind --toggle-collect='*pairs*' \
        --callgrind-out-file=cg.a "${@: -1}" 100000 2>/dev/null >/dev/null; sed -n 's/^summary: *//p' cg.a)
  b=$(env INSTR_VERBOSE=-1 "${@:1:$#-1}" valgrind --tool=callgrind --toggle-collect='*pairs*' \
        --callgrind-out-file=cg.b "${@: -1}" 200000 2>/dev/null >/dev/null; sed -n 's/^summary: *//p' cg.b)
  rm -rf cg.a cg.b instr-*
  awk -v a="$a" -v b="$b" 'BEGIN { printf "%.1f", (b - a) / 110000 }'
}

printf "%-34s %12s %16s\n" "variant" "ns per pair" "instr. per pair"
printf "%-34s %12s %16s\n" "plain (no runtime)" "$(measure X=1 ./plain)" "$(icount X=1 ./plain)"
printf "%-34s %12s %16s\n" "runtime, INSTR_MEMORY unset" "$(measure INSTR_VERBOSE=-1 ./instr)" \
    "$(icount INSTR_MEMORY=0 ./instr)"
printf "%-34s %12s %16s\n" "runtime, INSTR_MEMORY=1" \
    "$(measure INSTR_VERBOSE=-1 INSTR_MEMORY=1 ./instr)" "$(icount INSTR_MEMORY=1 ./instr)"
