#!/usr/bin/env bash
# The README demo: build examples/heat with the instr wrapper, run it, show where the results
# went and the top of profile.txt.
#   examples/demo.sh [INSTR_PREFIX] [CC]
# INSTR_PREFIX is a build or install tree holding bin/instr (default: build/ beside this
# repository); CC defaults to gcc. The run happens in a fresh temporary directory.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
prefix=${1:-$here/../build}
cc=${2:-gcc}
instr="$prefix/bin/instr"
[ -x "$instr" ] || { echo "demo: no $instr (build instr first, or pass its prefix)" >&2; exit 1; }

work=$(mktemp -d "${TMPDIR:-/tmp}/instr-demo.XXXXXX")
echo "\$ instr $cc -O2 heat.c -o heat -lm"
"$instr" "$cc" -O2 "$here/heat/heat.c" -o "$work/heat" -lm
cd "$work"
echo "\$ ./heat 256 400"
./heat 256 400
exp=$(ls -d "$work"/instr-*/ | head -n 1)
echo
echo "results in $exp:"
ls "$exp"
echo
head -n 24 "$exp/profile.txt"
