#!/usr/bin/env bash
# The OpenMP demo: build examples/heat_omp with the instr wrapper (no -g: the wrapper adds
# line tables for -fopenmp), run it with 4 threads on LLVM's libomp, show the call tree, in
# which every thread's work sits under the path where its team was forked (docs/openmp.md).
#   examples/demo_openmp.sh [INSTR_PREFIX] [CC]
# INSTR_PREFIX is a build or install tree holding bin/instr (default: build/ beside this
# repository); CC defaults to clang-19 (clang -fopenmp uses libomp). The run happens in a
# fresh temporary directory.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
prefix=${1:-$here/../build}
cc=${2:-clang-19}
instr="$prefix/bin/instr"
[ -x "$instr" ] || { echo "demo: no $instr (build instr first, or pass its prefix)" >&2; exit 1; }

work=$(mktemp -d "${TMPDIR:-/tmp}/instr-demo-omp.XXXXXX")
echo "\$ instr $cc -fopenmp -O2 heat_omp.c -o heat_omp -lm"
"$instr" "$cc" -fopenmp -O2 "$here/heat_omp/heat_omp.c" -o "$work/heat_omp" -lm
cd "$work"
echo "\$ OMP_NUM_THREADS=4 ./heat_omp 256 100"
OMP_NUM_THREADS=4 ./heat_omp 256 100
exp=$(ls -d "$work"/instr-*/ | head -n 1)
echo
echo "results in $exp:"
ls "$exp"
echo
sed -n '/^Call tree/,$p' "$exp/profile.txt"
echo
echo "\$ grep update_row profile.folded     # every thread's calls, on one call path"
grep update_row "$exp/profile.folded"
