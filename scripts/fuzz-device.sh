#!/usr/bin/env bash
# fuzz-device.sh - long fuzzing runs on a machine with many cores but no clang and no MLIR (the
# GPU machine: 16 cores that a GPU benchmark leaves idle). Two halves:
#   build PACK                 here: builds fuzz_frontend, fuzz_npy and fuzz_jsonrpc with clang
#                              (libFuzzer + ASan + UBSan, libstdc++ and libgcc linked statically,
#                              so they run on the other machine's older or newer system) into
#                              build-fuzz-device/, and puts them, std/ and the kept corpora in PACK.
#   run PACK OUT SECONDS [SPLIT]
#                              there: fuzzes the targets side by side in libFuzzer's fork mode for
#                              SECONDS, SPLIT cores each (default "frontend:8 jsonrpc:4 npy:3", one
#                              core left for whatever runs beside it), each seeded with the
#                              kept corpus; then minimises each run's corpus with the kept one
#                              (-merge=1, inputs up to 2 KiB, as the kept corpus is made) and writes
#                              to OUT: corpus-T.tgz (the merged corpus, to replace fuzz/corpus/T/),
#                              crashes-T.tgz when a run found one, and fuzz-device.tsv (per target:
#                              wall seconds, CPU seconds of the run and its workers, executions).
# Hours are CPU time (user + system of the fork-mode parent and every worker it waited for), not
# wall time times cores: what docs/reliability.md counts towards issue 17's 10 CPU-hours.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
mode=${1:?usage: fuzz-device.sh build PACK | run PACK OUT SECONDS [SPLIT]}
pack=${2:?PACK}
case $mode in
build)
  cd "$root"
  dir=build-fuzz-device
  export CCACHE_BASEDIR="$root" CCACHE_NOHASHDIR=true
  CC=clang CXX=clang++ cmake -G Ninja -S . -B $dir -DPH_FUZZ=ON -DPH_ENABLE_MLIR=OFF -DPH_BUILD_TESTS=OFF \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo "-DCMAKE_EXE_LINKER_FLAGS=-static-libstdc++ -static-libgcc" >/dev/null
  ninja -C $dir fuzz_frontend fuzz_npy fuzz_jsonrpc
  rm -rf "$pack"; mkdir -p "$pack/bin" "$pack/corpus"
  for t in frontend npy jsonrpc; do
    # Debug info is most of the size; the stacks a finding prints need only the symbols.
    strip --strip-debug -o "$pack/bin/fuzz_$t" "$dir/bin/fuzz_$t"
    mkdir -p "$pack/corpus/$t"
    if compgen -G "fuzz/corpus/$t/[!.]*" >/dev/null; then cp fuzz/corpus/$t/[!.]* "$pack/corpus/$t/"; fi
  done
  # The frontend's corpus is not kept in the tree yet: the examples, std and the check tests seed it.
  cp examples/*.ph std/*.ph tests/lit/check/*.ph "$pack/corpus/frontend/" 2>/dev/null || true
  for t in frontend npy jsonrpc; do
    if compgen -G "fuzz/regressions/$t/[!.]*" >/dev/null; then
      mkdir -p "$pack/regressions/$t"; cp fuzz/regressions/$t/[!.]* "$pack/regressions/$t/"
    fi
  done
  cp -r std "$pack/std"
  cp "$0" "$pack/fuzz-device.sh"
  ldd "$pack/bin/fuzz_frontend" | sed 's/^/  needs /'
  du -sh "$pack"
  ;;
run)
  out=${3:?OUT}; secs=${4:?SECONDS}; split=${5:-"frontend:8 jsonrpc:4 npy:3"}
  pack=$(cd "$pack" && pwd)
  work=$(mktemp -d /tmp/phfuzz.XXXXXX)
  mkdir -p "$out"
  export PH_STD_DIR=$pack/std
  export ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1:allow_user_poisoning=0 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
  echo "== $(nproc) cores; fuzzing for ${secs}s: $split"
  pids=()
  for entry in $split; do
    t=${entry%%:*}; jobs=${entry##*:}
    mkdir -p "$work/$t/corpus" "$work/$t/crashes"
    # Regression inputs first: a target that fails one again is reported, not fuzzed blind.
    if [ -d "$pack/regressions/$t" ]; then
      "$pack/bin/fuzz_$t" -timeout=10 -rss_limit_mb=1024 "$pack/regressions/$t"/* >/dev/null 2>&1 \
        || echo "fuzz_$t: a regression input fails again"
    fi
    (
      cd "$work/$t"
      TIMEFORMAT="%R %U %S"
      { time "$pack/bin/fuzz_$t" -fork="$jobs" -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1 \
          -max_total_time="$secs" -max_len=65536 -timeout=60 -rss_limit_mb=4096 \
          -artifact_prefix="$work/$t/crashes/" corpus "$pack/corpus/$t" >"$work/$t/log" 2>&1 ; } 2>"$work/$t/time"
    ) &
    pids+=($!)
  done
  for p in "${pids[@]}"; do wait "$p" || true; done
  printf 'target\tworkers\twall_s\tcpu_s\texecutions\tcrashes\tcorpus_kept\n' > "$out/fuzz-device.tsv"
  for entry in $split; do
    t=${entry%%:*}; jobs=${entry##*:}
    read -r wall user sys < "$work/$t/time"
    cpu=$(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.0f", u + s }')
    execs=$(grep -oE '#[0-9]+' "$work/$t/log" | tail -1 | tr -d '#')
    crashes=$(find "$work/$t/crashes" -type f | wc -l)
    mkdir -p "$work/$t/merged"
    "$pack/bin/fuzz_$t" -merge=1 -max_len=2048 -timeout=60 -rss_limit_mb=4096 \
      "$work/$t/merged" "$pack/corpus/$t" "$work/$t/corpus" >"$work/$t/merge.log" 2>&1 || echo "fuzz_$t: merge failed"
    kept=$(find "$work/$t/merged" -type f | wc -l)
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$t" "$jobs" "$wall" "$cpu" "${execs:-0}" "$crashes" "$kept" >> "$out/fuzz-device.tsv"
    tar -C "$work/$t/merged" -czf "$out/corpus-$t.tgz" .
    if [ "$crashes" -gt 0 ]; then
      tar -C "$work/$t/crashes" -czf "$out/crashes-$t.tgz" .
      echo "fuzz_$t: $crashes finding(s); the end of its log:"; grep -E "ERROR|SUMMARY|Test unit written" "$work/$t/log" | tail -12
    fi
    tail -3 "$work/$t/log" | sed "s/^/  fuzz_$t: /"
  done
  column -t "$out/fuzz-device.tsv" 2>/dev/null || cat "$out/fuzz-device.tsv"
  ;;
*) echo "fuzz-device.sh: unknown mode $mode" >&2; exit 2 ;;
esac
