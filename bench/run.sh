#!/usr/bin/env bash
# Nanoseconds per instrumented call, all variants built and run in one go on this machine:
#   uninstrumented | empty -finstrument-functions hooks | hooks that only read the TSC
#   (the floor for any timestamping tool) | instr profile mode (cyg) |
#   instr profile mode (plugin hooks, gcc and clang, when the plugins are built) | uftrace
#   bench/run.sh [INSTR_PREFIX] [N] [REPEATS]
# INSTR_PREFIX holds bin/instr and lib/libinstr-rt.so (default: build/ beside this repo).
# Each variant runs REPEATS times (default 5); the minimum is reported. Overheads are the
# variant's time minus the uninstrumented time; the budget (docs/architecture.md "Budgets") is
# instr overhead <= 3x the empty-hook overhead.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
prefix=$(cd "${1:-$here/../build}" && pwd)
n=${2:-20000000}
reps=${3:-5}
instr="$prefix/bin/instr"
work=$(mktemp -d "${TMPDIR:-/tmp}/instr-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT
cd "$work"

build() { # name, command...
  local name=$1; shift
  if "$@" >"$name.log" 2>&1; then echo "$name"; else echo "bench: $name not built: $(head -n 3 "$name.log")" >&2; fi
}

variants=()
variants+=("$(build plain gcc -O2 "$here/callheavy.c" -o plain)")
variants+=("$(build empty_hooks sh -c "gcc -O2 -c '$here/empty_hooks.c' -o empty_hooks.o && gcc -O2 -finstrument-functions '$here/callheavy.c' empty_hooks.o -o empty_hooks")")
variants+=("$(build clock_hooks sh -c "gcc -O2 -c '$here/clock_hooks.c' -o clock_hooks.o && gcc -O2 -finstrument-functions '$here/callheavy.c' clock_hooks.o -o clock_hooks")")
variants+=("$(build instr_cyg "$instr" --mode=cyg gcc -O2 "$here/callheavy.c" -o instr_cyg)")
if [ -f "$prefix"/lib/instr/gcc-*/instr.so ] 2>/dev/null || ls "$prefix"/lib/instr/gcc-*/instr.so >/dev/null 2>&1; then
  variants+=("$(build instr_hooks_gcc "$instr" --mode=hooks gcc -O2 "$here/callheavy.c" -o instr_hooks_gcc)")
fi
if command -v clang >/dev/null && ls "$prefix"/lib/instr/llvm-*/libinstr.so >/dev/null 2>&1; then
  variants+=("$(build instr_hooks_clang "$instr" --mode=hooks clang -O2 "$here/callheavy.c" -o instr_hooks_clang)")
fi
if command -v uftrace >/dev/null; then
  variants+=("$(build uftrace_pg gcc -O2 -pg "$here/callheavy.c" -o uftrace_pg)")
fi

measure() { # variant -> min ns per call
  local v=$1 best="" t
  for _ in $(seq "$reps"); do
    rm -rf instr-* uftrace.data
    if [ "$v" = uftrace_pg ]; then
      t=$(uftrace record --no-pager -d uftrace.data ./uftrace_pg "$n" 2>/dev/null | sed -n 's/.*ns_per_call=\([0-9.]*\).*/\1/p')
    else
      t=$(INSTR_VERBOSE=quiet "./$v" "$n" | sed -n 's/.*ns_per_call=\([0-9.]*\).*/\1/p')
    fi
    best=$(awk -v a="$best" -v b="$t" 'BEGIN { if (a == "" || b < a) print b; else print a }')
  done
  echo "$best"
}

declare -A ns
for v in "${variants[@]}"; do
  [ -n "$v" ] && ns[$v]=$(measure "$v")
done

echo "machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) cores, $(uname -sr)"
echo "compilers: $(gcc -dumpfullversion 2>/dev/null || gcc -dumpversion), clang $(clang -dumpversion 2>/dev/null || echo none)"
echo "calls per run: $n, runs per variant: $reps (minimum shown)"
printf '%-20s %12s %14s %10s %10s\n' variant ns/call overhead/call vs-empty vs-clock
plain=${ns[plain]}
empty=$(awk -v a="${ns[empty_hooks]}" -v p="$plain" 'BEGIN { print a - p }')
clock=$(awk -v a="${ns[clock_hooks]:-0}" -v p="$plain" 'BEGIN { print a - p }')
for v in "${variants[@]}"; do
  [ -n "$v" ] || continue
  awk -v name="$v" -v t="${ns[$v]}" -v p="$plain" -v e="$empty" -v c="$clock" 'BEGIN {
    o = t - p; r = (e > 0 && name != "plain") ? sprintf("%.2fx", o / e) : "-";
    q = (c > 0 && name != "plain") ? sprintf("%.2fx", o / c) : "-";
    printf "%-20s %12.2f %14.2f %10s %10s\n", name, t, o, r, q }'
done
