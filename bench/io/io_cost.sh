#!/usr/bin/env bash
# io_cost.sh — cost of one recorded I/O call (docs/io.md, docs/performance.md): a write(2) of
# 64 bytes to /dev/null plain (no runtime), with the runtime and INSTR_IO unset (not
# recorded), and recorded (INSTR_IO=posix). Wall time (best of REPEATS runs of N calls) and
# instructions per call (callgrind: the difference between N and 2N calls, inside writes()).
#   bench/io/io_cost.sh BUILD_DIR [N] [REPEATS]
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
build=$(cd "$1" && pwd)
n=${2:-1000000}
reps=${3:-5}
work=$(mktemp -d "${TMPDIR:-/tmp}/instr-io-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT
cd "$work"

gcc -O2 "$here/io_loop.c" -o plain
gcc -O2 -finstrument-functions "$here/io_loop.c" -o instr \
    -L"$build/lib" -linstr-rt -Wl,-rpath,"$build/lib"

measure() { # env... command -> min ns per call
  local best="" t
  for _ in $(seq "$reps"); do
    rm -rf instr-*
    t=$(env "$@" "$n" | sed -n 's/.*ns_per_call=\([0-9.]*\).*/\1/p')
    best=$(awk -v a="$best" -v b="$t" 'BEGIN { if (a == "" || b < a) print b; else print a }')
  done
  echo "$best"
}

icount() { # env... command -> instructions per call, or "-"
  command -v valgrind >/dev/null || { echo -; return; }
  local a b
  a=$(env INSTR_VERBOSE=-1 "${@:1:$#-1}" valgrind --tool=callgrind --toggle-collect='writes' \
        --callgrind-out-file=cg.a "${@: -1}" 100000 2>/dev/null >/dev/null; sed -n 's/^summary: *//p' cg.a)
  b=$(env INSTR_VERBOSE=-1 "${@:1:$#-1}" valgrind --tool=callgrind --toggle-collect='writes' \
        --callgrind-out-file=cg.b "${@: -1}" 200000 2>/dev/null >/dev/null; sed -n 's/^summary: *//p' cg.b)
  rm -rf cg.a cg.b instr-*
  awk -v a="$a" -v b="$b" 'BEGIN { printf "%.1f", (b - a) / 100000 }'
}

printf "%-30s %12s %16s\n" "variant" "ns per call" "instr. per call"
printf "%-30s %12s %16s\n" "plain (no runtime)" "$(measure X=1 ./plain)" "$(icount X=1 ./plain)"
printf "%-30s %12s %16s\n" "runtime, INSTR_IO unset" "$(measure INSTR_VERBOSE=-1 ./instr)" \
    "$(icount INSTR_IO= ./instr)"
printf "%-30s %12s %16s\n" "runtime, INSTR_IO=posix" \
    "$(measure INSTR_VERBOSE=-1 INSTR_IO=posix ./instr)" "$(icount INSTR_IO=posix ./instr)"
