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
unit=call
toggle='writes'
ops=100000
# shellcheck source-path=SCRIPTDIR source=../lib/per_op_cost.sh
. "$here/../lib/per_op_cost.sh"
per_op_setup io "$here/io_loop.c"

printf "%-30s %12s %16s\n" "variant" "ns per call" "instr. per call"
printf "%-30s %12s %16s\n" "plain (no runtime)" "$(measure X=1 ./plain)" "$(icount X=1 ./plain)"
printf "%-30s %12s %16s\n" "runtime, INSTR_IO unset" "$(measure INSTR_VERBOSE=-1 ./instr)" \
    "$(icount INSTR_IO= ./instr)"
printf "%-30s %12s %16s\n" "runtime, INSTR_IO=posix" \
    "$(measure INSTR_VERBOSE=-1 INSTR_IO=posix ./instr)" "$(icount INSTR_IO=posix ./instr)"
