#!/usr/bin/env bash
# fuzz.sh - builds the libFuzzer targets with clang (ASan + UBSan) into build-fuzz/, replays the
# regression corpus (fuzz/regressions/<target>/: every input that ever crashed), then fuzzes each
# target for PH_FUZZ_SECONDS (default 60) from a corpus seeded with the examples and tests.
# PH_FUZZ_TARGETS limits the targets; PH_FUZZ_TIMEOUT (default 10 s) is the per-input limit
# (long runs at nice 19 on a loaded machine need more: a slow input is not a hang).
# Targets: frontend (bytes to parse + check), npy (the .npy reader), jsonrpc (ph-lsp's framing
# and dispatch), phopt (ph-opt's path: tile-dialect text parsed, verified, round-tripped and
# lowered by tile-to-linalg; built only when MLIR is installed, PH_FUZZ_MLIR=OFF skips it).
# A crash leaves its input in build-fuzz/crashes/<target>/ (and fails the script with
# PH_FUZZ_STRICT=1): copy it into fuzz/regressions/<target>/ with the fix.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
secs=${PH_FUZZ_SECONDS:-60}
dir=build-fuzz
mlir=${PH_FUZZ_MLIR:-ON}
[ -d /usr/lib/llvm-22/lib/cmake/mlir ] || mlir=OFF
targets="frontend npy jsonrpc"
[ "$mlir" = ON ] && targets="$targets phopt"
# PH_FUZZ_TARGETS="frontend phopt" runs only those (long runs take one target at a time).
[ -n "${PH_FUZZ_TARGETS:-}" ] && targets=$PH_FUZZ_TARGETS
export CCACHE_BASEDIR="$root" CCACHE_NOHASHDIR=true
CC=clang CXX=clang++ cmake -G Ninja -S . -B $dir -DPH_FUZZ=ON -DPH_ENABLE_MLIR=$mlir -DPH_BUILD_TESTS=OFF \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
ninja -C $dir $(for t in $targets; do printf 'fuzz_%s ' $t; done)
# allow_user_poisoning=0: LLVM's BumpPtrAllocator poisons its slabs from inline header code when
# compiled with ASan (our code) but not from Debian's uninstrumented libMLIR sharing the same
# allocator, so memory libMLIR hands out can stay poisoned: false use-after-poison reports
# (seen in fuzz_phopt after ~200k inputs). Our own code does no manual poisoning.
export ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1:allow_user_poisoning=0 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
export PH_STD_DIR=$root/std
status=0
for t in $targets; do
  bin=$dir/bin/fuzz_$t
  reg=fuzz/regressions/$t
  if compgen -G "$reg/[!.]*" >/dev/null; then
    echo "== fuzz_$t: replaying $(ls $reg | wc -l) regression inputs"
    "$bin" -timeout=10 -rss_limit_mb=1024 $reg/[!.]* >/dev/null 2>&1 || { echo "fuzz_$t: a regression input fails again"; status=1; }
  fi
  corpus=$dir/corpus/$t
  mkdir -p "$corpus" "$dir/crashes/$t"
  # The kept corpus (fuzz/corpus/<target>/: inputs earlier long runs found to add coverage,
  # minimised with -merge=1) seeds every run, so a CI minute starts where they ended.
  if compgen -G "fuzz/corpus/$t/[!.]*" >/dev/null; then cp fuzz/corpus/$t/[!.]* "$corpus/"; fi
  case $t in
    frontend) cp examples/*.ph std/*.ph tests/lit/check/*.ph "$corpus/" 2>/dev/null || true ;;
    npy) /usr/bin/python3 -c "
import numpy as np, sys
for i, (dt, shape) in enumerate([('<f2', (3, 4)), ('<f4', (2, 2, 2)), ('<i4', (5,)), ('<f4', (0,))]):
    np.save(sys.argv[1] + f'/seed{i}.npy', np.arange(int(np.prod(shape))).reshape(shape).astype(dt))
" "$corpus" ;;
    jsonrpc) printf 'Content-Length: 52\r\n\r\n{"jsonrpc":"2.0","id":1,"method":"echo","params":{}}' > "$corpus/seed0"
             printf 'Content-Length: 40\r\n\r\n{"jsonrpc":"2.0","method":"note","params":[]}' > "$corpus/seed1" ;;
    # Every case of the dialect's lit files (split at `// -----`), and the tile dialect of
    # every example kernel when a compiler is built (scripts/test.sh builds it first).
    phopt) /usr/bin/python3 - "$corpus" tests/lit/backend/*.mlir <<'PY'
import sys
out, files = sys.argv[1], sys.argv[2:]
for f in files:
    for i, case in enumerate(open(f).read().split("// -----")):
        open(f"{out}/{f.split('/')[-1]}.{i}.mlir", "w").write(case)
PY
           ph=${PH_BUILD_DIR:-build}/bin/ph
           if [ -x "$ph" ]; then
             for f in examples/*.ph; do
               for k in $(grep -oE '^kernel [A-Za-z_0-9]+' "$f" | cut -d' ' -f2); do
                 PH_STD_DIR=$root/std "$ph" emit "$f" --kernel "$k" --stage tile > "$corpus/$(basename "$f" .ph).$k.mlir" 2>/dev/null || true
               done
             done
           fi ;;
  esac
  echo "== fuzz_$t: ${secs}s"
  if ! "$bin" "$corpus" -max_total_time="$secs" -max_len=65536 -timeout="${PH_FUZZ_TIMEOUT:-10}" -rss_limit_mb=4096 \
       -artifact_prefix="$dir/crashes/$t/" -print_final_stats=1 2>"$dir/fuzz_$t.log"; then
    echo "fuzz_$t: FOUND A NEW FAILURE; input in $dir/crashes/$t/ (add it to fuzz/regressions/$t/ with the fix)"
    tail -30 "$dir/fuzz_$t.log"
    # A new finding fails the run when asked (PH_FUZZ_STRICT=1); by default CI stays
    # deterministic: only the regression corpus above decides, and the finding is printed.
    [ "${PH_FUZZ_STRICT:-0}" = 1 ] && status=1
  fi
  grep -E "stat::number_of_executed_units|stat::peak_rss_mb" "$dir/fuzz_$t.log" | sed "s/^/  /" || true
done
exit $status
