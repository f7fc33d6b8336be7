#!/usr/bin/env bash
# test.sh - builds Ph and runs every test (GoogleTest units, lit suites, numerical tests,
# language-server transcripts and real editors). GPU tests skip themselves without a GPU.
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
# Fuzzing: the regression corpus, then each libFuzzer target briefly (PH_FUZZ_SECONDS, default 60).
bash scripts/fuzz.sh || status=1
exit $status
