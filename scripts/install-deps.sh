#!/usr/bin/env bash
# Installs everything instr needs to build and test, on Debian 12 as root.
# Idempotent: when every package is already present it only runs dpkg-query and exits.
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config python3
  # the build-system recipes of tests/buildsys (docs/build-systems.md)
  meson autoconf automake
  llvm-14-dev llvm-14-tools clang-14 libclang-rt-14-dev
  llvm-19-dev llvm-19-tools clang-19 libclang-rt-19-dev
  # libomp-14-dev and libomp-19-dev conflict (Debian: "Conflicts: libomp-x.y-dev"), so only
  # one can be installed; the OpenMP adapter and its tests use LLVM 19's (docs/openmp.md)
  libomp-19-dev
  gcc-12-plugin-dev g++-12 gfortran-12
  libopen-trace-format2-dev otf2-tools
  libopenmpi-dev openmpi-bin
  libyaml-dev
  libelf-dev libdw-dev libunwind-dev
  libpapi-dev
  uftrace
  # the modulefile of the install tree, loaded by tests/install
  lmod
  # the hot path's instruction budget (ctest label perf, bench/hotpath)
  valgrind
  # profile.html and instr-export's outputs opened in a browser (ctest label report); the
  # test set-up (report.speedscope_install) npm-installs a pinned speedscope into the build
  # tree, from the npm registry
  chromium
  # Kokkos (its Tools interface, runtime/kokkos; ctest label kokkos, docs/kokkos.md)
  libtrilinos-kokkos-dev
  # the analysis module instr_analysis (tools/analysis/, docs/analysis.md): DataFrames
  python3-numpy python3-pandas
)
# Node.js and npm: Debian's packages, unless the machine already has an npm (NodeSource's
# nodejs package ships its own npm and conflicts with Debian's npm package)
if ! command -v npm >/dev/null 2>&1; then packages+=(nodejs npm); fi

missing=()
for p in "${packages[@]}"; do
  status=$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null || true)
  [ "$status" = "installed" ] || missing+=("$p")
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages present"
  exit 0
fi

if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then SUDO=sudo; else
    echo "install-deps: need root to install: ${missing[*]}" >&2
    exit 1
  fi
else
  SUDO=
fi

echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
echo "install-deps: done"
