#!/usr/bin/env bash
# Sets up a fresh machine and runs every test, as CI does:
#   1. the main tree: filter/, tools, runtime, both compiler plugins, end-to-end tests, the
#      runtime's layers (scripts/check-layers.py, label layers);
#   2. the filter and runtime tests again under ASan+UBSan (the reliability and security
#      tests carry the runtime label too);
#   3. the multi-thread tests under TSan;
#   4. the spec parsers, the response-file expander and the runtime's environment parser
#      under libFuzzer (ASan+UBSan) for a bounded time.
# Trees are build/, build-asan/, build-tsan/, build-fuzz/ beside this script's repository.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh

jobs=$(nproc)
log=$(mktemp)
trap 'rm -f "$log"' EXIT

# runs ctest, echoing its output and keeping the counts for the total at the end
run_ctest() {
  local status=0
  ctest --output-on-failure --no-tests=error "$@" 2>&1 | tee -a "$log" || status=$?
  return $status
}

failed=0
# configure_and_build DIR [cmake options...] [-- build targets...]
configure_and_build() {
  local dir=$1; shift
  local opts=() targets=()
  while [ $# -gt 0 ] && [ "$1" != "--" ]; do opts+=("$1"); shift; done
  [ $# -gt 0 ] && shift && targets=("$@")
  cmake -S . -B "$dir" -G Ninja "${opts[@]}" >"$dir.configure.log" 2>&1 ||
    { cat "$dir.configure.log"; return 1; }
  grep '^-- instr:' "$dir.configure.log" || true
  cmake --build "$dir" -j "$jobs" ${targets[@]+--target "${targets[@]}"}
}

echo "== main tree"
configure_and_build build
run_ctest --test-dir build -j "$jobs" -LE 'mpi|openmp' || failed=1
# The MPI and OpenMP tests start real mpirun jobs and libomp teams on 2 shared cores, where a
# rare failure was seen once and never reproduced in dozens of runs: a test of theirs that
# fails once runs a second time, and counts as failed only when it fails twice (the log
# keeps every first failure).
run_ctest --test-dir build -j "$jobs" -L 'mpi|openmp' --repeat until-pass:2 || failed=1

echo "== ASan+UBSan: filter and runtime"
configure_and_build build-asan -DINSTR_SANITIZE=address,undefined
run_ctest --test-dir build-asan -j "$jobs" -L 'filter|runtime' || failed=1

echo "== TSan: multi-thread tests"
configure_and_build build-tsan -DINSTR_SANITIZE=thread
run_ctest --test-dir build-tsan -j "$jobs" -L threads || failed=1

echo "== libFuzzer: spec parsers, response files, environment parser, query parser, profile.json readers"
fuzz_cc=$(command -v clang-19 || command -v clang-14 || command -v clang)
# Each target fuzzes one process for INSTR_FUZZ_SECONDS (wall time), "$jobs" targets at once:
# one core each. What a run finds new stays in the build tree's corpus directories, which the
# next run starts from (with the seeds), so a shorter run per target does not start over.
configure_and_build build-fuzz -DCMAKE_C_COMPILER="$fuzz_cc" -DINSTR_FUZZ=ON \
  -DINSTR_BUILD_PLUGINS=OFF -DINSTR_FUZZ_SECONDS="${INSTR_FUZZ_SECONDS:-30}" -- fuzz_spec \
  fuzz_response_file fuzz_env fuzz_query fuzz_profile_json
run_ctest --test-dir build-fuzz -j "$jobs" -L fuzz || failed=1

# one closing line over all four runs
python3 - "$log" <<'PY'
import re, sys
passed = failed = 0
for line in open(sys.argv[1], errors="replace"):
    m = re.search(r"tests passed, (\d+) tests failed out of (\d+)", line)
    if m:
        failed += int(m.group(1))
        passed += int(m.group(2)) - int(m.group(1))
print(f"all trees: {passed} passed, {failed} failed")
PY
exit $failed
