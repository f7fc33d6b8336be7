#!/usr/bin/env bash
# sanitize.sh - builds the project with AddressSanitizer + UndefinedBehaviorSanitizer
# (-DPH_SANITIZE=ON) into build-asan/ and runs ctest there; any sanitizer report fails its test.
#   PH_SANITIZE_MLIR=ON (default when MLIR is installed): the whole suite, MLIR backend included
#                    (what scripts/test.sh and CI run); OFF: frontend, interpreter, LSP, runtime,
#                    clients only (a quicker build)
#   PH_SANITIZE_DIR  build folder (default build-asan, or build-asan-mlir with MLIR)
#   PH_JOBS          ctest -j (default 2); extra arguments go to ctest (e.g. -R lsp)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
mlir=${PH_SANITIZE_MLIR:-ON}
[ -d /usr/lib/llvm-22/lib/cmake/mlir ] || mlir=OFF
# A fresh clone in another folder reuses ccache's objects, as scripts/build.sh does.
export CCACHE_BASEDIR="$root" CCACHE_NOHASHDIR=true
if [ "$mlir" = ON ]; then dir=${PH_SANITIZE_DIR:-build-asan-mlir}; else dir=${PH_SANITIZE_DIR:-build-asan}; fi
# -O1 -g1: what ASan's authors recommend, line tables for the reports, and about a third less
# compile time on CI's two cores than -O2 -g (the MLIR headers' debug info dominates).
cmake -G Ninja -S . -B "$dir" -DPH_SANITIZE=ON -DPH_ENABLE_MLIR="$mlir" -DPH_BUILD_LSP=ON -DPH_BUILD_TESTS=ON -DPH_TSAN=OFF -DPH_FUZZ=OFF -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1 -DNDEBUG" -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O1 -g1 -DNDEBUG" >/dev/null
start=$(date +%s)
ninja -C "$dir" -j"$(nproc)"
echo "== sanitize.sh: build took $(( $(date +%s) - start )) s"
# halt_on_error makes every UBSan finding fatal; leaks fail the process that leaked.
# protect_shadow_gap=0: the CUDA driver maps memory where ASan's shadow gap would be (GPU runs).
# allow_user_poisoning=0: LLVM's allocators poison memory from inline header code in our
# instrumented files but not in Debian's uninstrumented libMLIR/libLLVM that share them, which
# gives false use-after-poison reports (scripts/fuzz.sh says more); we poison nothing ourselves.
# use_sigaltstack=0: LLVM installs its own alternate signal stack in every thread it runs
# (Signals.inc); ASan then fails to unmap the one it had recorded when the thread ends
# ("failed to deallocate ... unable to unmap", a CHECK failure in ASan, not in our code).
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0:strict_string_checks=1:detect_stack_use_after_return=1:protect_shadow_gap=0:allow_user_poisoning=0:use_sigaltstack=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
export PH_STD_DIR="$root/std"
# ASan's quarantine keeps up to 256 MB of freed memory: the stress test's flat-RSS bound is
# for the plain build; here it only guards against runaway growth.
export PH_STRESS_RSS_MB=${PH_STRESS_RSS_MB:-1024}
start=$(date +%s)
status=0
ctest --test-dir "$dir" --output-on-failure -j"${PH_JOBS:-2}" "$@" || status=$?
echo "== sanitize.sh: ctest took $(( $(date +%s) - start )) s"
exit $status
