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
unit=pair
toggle='*pairs*'
ops=110000
# shellcheck source-path=SCRIPTDIR source=../lib/per_op_cost.sh
. "$here/../lib/per_op_cost.sh"
per_op_setup memory "$here/alloc_loop.c"

printf "%-34s %12s %16s\n" "variant" "ns per pair" "instr. per pair"
printf "%-34s %12s %16s\n" "plain (no runtime)" "$(measure X=1 ./plain)" "$(icount X=1 ./plain)"
printf "%-34s %12s %16s\n" "runtime, INSTR_MEMORY unset" "$(measure INSTR_VERBOSE=-1 ./instr)" \
    "$(icount INSTR_MEMORY=0 ./instr)"
printf "%-34s %12s %16s\n" "runtime, INSTR_MEMORY=1" \
    "$(measure INSTR_VERBOSE=-1 INSTR_MEMORY=1 ./instr)" "$(icount INSTR_MEMORY=1 ./instr)"
