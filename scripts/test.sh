#!/usr/bin/env bash
# test.sh - builds Ph and runs every test (GoogleTest units, lit suites, numerical tests,
# language-server transcripts and real editors), then the same suite under ASan + UBSan, then the
# fuzzers (regression corpus + a minute each). GPU tests skip themselves without a GPU.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
bash scripts/build.sh
if [ -x scripts/editors-setup.sh ] || [ -f scripts/editors-setup.sh ]; then
  bash scripts/editors-setup.sh
fi
dir=${PH_BUILD_DIR:-build}
status=0
ctest --test-dir "$dir" --output-on-failure -j"$(nproc)" --timeout 1200 || status=$?
# The whole suite again, built with AddressSanitizer + UndefinedBehaviorSanitizer (build-asan-mlir/).
PH_SANITIZE_MLIR=ON bash scripts/sanitize.sh || status=1
# Fuzzing: the regression corpus, then each libFuzzer target briefly (PH_FUZZ_SECONDS, default 60).
bash scripts/fuzz.sh || status=1
exit $status
