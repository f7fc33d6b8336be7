#!/usr/bin/env bash
# install-deps.sh - installs every Debian package Ph builds and tests with (Debian 12, as root).
# Idempotent and quick when everything is there. The CUDA Toolkit (/usr/local/cuda) is used when
# present; no GPU is needed to build or to run the tests that are not marked GPU.
set -euo pipefail
pkgs=(
  cmake ninja-build g++ ccache              # build
  libmlir-22-dev mlir-22-tools               # MLIR 22 (tile dialect, lowerings, ExecutionEngine)
  llvm-22-dev llvm-22-tools                  # LLVM 22 (NVPTX, X86, ORC JIT), lit, FileCheck
  nlohmann-json3-dev libboost-dev            # JSON, Asio
  libgtest-dev googletest                    # unit tests
  python3 python3-numpy                      # numerical references, lit
  nodejs npm                                 # VS Code extension and its tests (Node 20 on these machines)
)
missing=()
for p in "${pkgs[@]}"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
# Node may come from another repository (nodesource): accept a working node/npm as installed.
if command -v node >/dev/null && command -v npm >/dev/null; then
  missing=("${missing[@]/nodejs}"); missing=("${missing[@]/npm}")
fi
filtered=()
for p in "${missing[@]}"; do [ -n "$p" ] && filtered+=("$p"); done
if [ ${#filtered[@]} -gt 0 ]; then
  echo "install-deps: apt-get install ${filtered[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${filtered[@]}"
fi
echo "install-deps: ok"
