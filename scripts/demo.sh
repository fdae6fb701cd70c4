#!/usr/bin/env bash
# Sets up a fresh machine, builds instr, then: compiles the heat-stencil example with the
# instr wrapper, runs it and shows the profile (examples/demo.sh); and shows what the
# selection library decides for the bundled specs.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
cmake -S . -B build -G Ninja >build.configure.log 2>&1 || { cat build.configure.log; exit 1; }
cmake --build build -j "$(nproc)"

echo
echo "== a profiled run (examples/demo.sh)"
examples/demo.sh build gcc

spec=build/bin/instr-spec
echo
echo "== instr-spec check selection_specs/default.spec"
"$spec" check selection_specs/default.spec
echo
echo "== the same rule set in four spellings decides alike"
for f in selection_specs/example.spec selection_specs/example.yaml \
         selection_specs/example.filter selection_specs/example.tau; do
  printf '%-32s ' "$f"
  "$spec" match "$f" --function 'solver::step(double*, int)' --file /home/me/app/src/solver.cpp
done
echo
echo "== why is a function left out?"
"$spec" match selection_specs/default.spec --function 'std::vector<double, std::allocator<double> >::size() const' --file /home/me/app/src/solver.cpp
"$spec" match selection_specs/default.spec --function 'Grid::nx() const' --file /home/me/app/src/grid.cpp --instructions 4
"$spec" match selection_specs/default.spec --function 'main' --file /home/me/app/src/main.c --instructions 4
