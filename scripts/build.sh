#!/usr/bin/env bash
# build.sh - configures and builds Ph into build/ (Release with debug info, Ninja, ccache when present).
#   PH_BUILD_DIR (default build)   PH_CMAKE_ARGS  extra arguments for cmake
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
bash scripts/install-deps.sh
dir=${PH_BUILD_DIR:-build}
# Let a fresh clone in another folder reuse ccache's objects (the MLIR files take minutes).
export CCACHE_BASEDIR="$root" CCACHE_NOHASHDIR=true
cmake -G Ninja -S . -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo ${PH_CMAKE_ARGS:-} >/dev/null
ninja -C "$dir" -j"$(nproc)"
