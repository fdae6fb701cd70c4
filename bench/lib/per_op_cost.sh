# per_op_cost.sh — the frame of the benchmarks that cost one operation of a loop program
# (bench/io/io_cost.sh, bench/memory/memory_cost.sh): the program built plain and with
# -finstrument-functions against the runtime, its best wall time per operation and its
# instructions per operation under callgrind. Sourced, with these set:
#   build  the build directory (its lib/ has libinstr-rt)
#   n, reps  operations per timed run, timed runs (the best counts)
#   unit   what the program prints the time of: "ns_per_<unit>=..."
#   toggle  callgrind's --toggle-collect pattern: the loop's function
#   ops    how many more operations the program does with argument 200000 than with 100000
# Runs in a fresh temporary directory, removed at exit.

per_op_setup() { # name program.c -> ./plain and ./instr in a temporary directory named for name
  work=$(mktemp -d "${TMPDIR:-/tmp}/instr-$1-bench.XXXXXX")
  trap 'rm -rf "$work"' EXIT
  cd "$work"
  gcc -O2 "$2" -o plain
  gcc -O2 -finstrument-functions "$2" -o instr \
      -L"$build/lib" -linstr-rt -Wl,-rpath,"$build/lib"
}

measure() { # env... command -> min ns per operation
  local best="" t
  for _ in $(seq "$reps"); do
    rm -rf instr-*
    t=$(env "$@" "$n" | sed -n "s/.*ns_per_${unit}=\([0-9.]*\).*/\1/p")
    best=$(awk -v a="$best" -v b="$t" 'BEGIN { if (a == "" || b < a) print b; else print a }')
  done
  echo "$best"
}

icount() { # env... command -> instructions per operation, or "-"
  command -v valgrind >/dev/null || { echo -; return; }
  local a b
  a=$(env INSTR_VERBOSE=-1 "${@:1:$#-1}" valgrind --tool=callgrind --toggle-collect="$toggle" \
        --callgrind-out-file=cg.a "${@: -1}" 100000 2>/dev/null >/dev/null; sed -n 's/^summary: *//p' cg.a)
  b=$(env INSTR_VERBOSE=-1 "${@:1:$#-1}" valgrind --tool=callgrind --toggle-collect="$toggle" \
        --callgrind-out-file=cg.b "${@: -1}" 200000 2>/dev/null >/dev/null; sed -n 's/^summary: *//p' cg.b)
  rm -rf cg.a cg.b instr-*
  awk -v a="$a" -v b="$b" -v ops="$ops" 'BEGIN { printf "%.1f", (b - a) / ops }'
}
