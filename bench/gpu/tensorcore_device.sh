#!/bin/sh
# The tensor-core lowering on a GPU in one call: every example and kvcache check against
# the fp64 interpreter, the bench kernels' configurations at small sizes against it too,
# compute-sanitizer memcheck and racecheck, then bench_tensorcore.py (Ph next to SDPA's
# FLASH_ATTENTION backend and FlexAttention).
#
#   tensorcore_device.sh build PH OUT     compile everything into OUT (needs the compiler)
#   tensorcore_device.sh run OUT [LOGS]   run it (needs a GPU and PyTorch; no compiler)
#
# e.g. `sh bench/gpu/tensorcore_device.sh build build/bin/ph .device/tc` here, then
# `sh .device/tc/tensorcore_device.sh run .device/tc $OUT` on the GPU machine.
set -u
mode=$1; shift
case $mode in
build)
  ph=$1 out=$2
  root=$(cd "$(dirname "$0")/../.." && pwd)
  mkdir -p "$out/ex" "$out/kv" "$out/bench"
  sh "$root/tests/gpu/check_examples.sh" build "$ph" "$root/examples" "$out/ex" || exit 1
  sh "$root/tests/gpu/check_kvcache.sh" build "$ph" "$out/kv" > "$out/kv.build.log" 2>&1 || exit 1
  for k in attn_w4 attn_w8 causal_w4 causal_w8; do
    "$ph" build "$root/bench/gpu/attention_tc.ph" --kernel $k -o "$out/bench/$k" > "$out/bench/$k.log" 2>&1 || exit 1
  done
  cp "$root/bench/gpu/bench_tensorcore.py" "$root/bench/gpu/cuda_timing.py" "$0" "$root/tests/gpu/check_examples.sh" "$root/tests/gpu/check_kvcache.sh" "$out/"
  cp "$(dirname "$ph")/ph-run" "$out/"
  echo "built into $out"
  ;;
run)
  T=$(cd "$1" && pwd) logs=${2:-$1/logs}
  R=$T/ph-run
  mkdir -p "$logs"
  "$R" --info > /dev/null 2>&1 || { echo "skipped: no GPU"; exit 77; }
  fails=0
  sh "$T/check_examples.sh" run "$R" "$T/ex" > "$logs/examples.log" 2>&1 || fails=$((fails+1))
  echo "examples: $(grep -c '^ok' "$logs/examples.log") ok, $(grep -c '^FAIL' "$logs/examples.log") failed"
  sh "$T/check_kvcache.sh" run "$R" "$T/kv" > "$logs/kv.log" 2>&1 || fails=$((fails+1))
  echo "kvcache: $(grep -c 'vs interpreter: ok' "$logs/kv.log") ok; $(grep failures "$logs/kv.log")"
  for c in 64,64,32 64,128,64 128,64,64 128,128,32 128,128,64; do
    set -- $(echo $c | tr , ' ')
    for k in attn_w4 causal_w4; do
      if "$R" "$T/bench/$k" --config D=$1,BR=$2,BC=$3 --size B=2 --size H=2 --size N=384 --seed 7 --check > "$logs/one.log" 2>&1
      then echo "ok   $k D=$1,BR=$2,BC=$3: $(grep -o 'rel L2 error [^,]*' "$logs/one.log")"
      else echo "FAIL $k D=$1,BR=$2,BC=$3"; tail -5 "$logs/one.log"; fails=$((fails+1)); fi
    done
  done
  for tool in memcheck racecheck; do
    for run in "$T/ex/flash_attention --kernel flash_attention --size Nq=128 --size Nk=200" \
               "$T/kv/mha_causal_f16 --config D=128 --size B=1 --size H=2 --size N=128" \
               "$T/bench/attn_w4 --config D=128,BR=128,BC=64 --size B=1 --size H=1 --size N=256"; do
      # shellcheck disable=SC2086
      compute-sanitizer --tool $tool --error-exitcode 3 "$R" $run --seed 3 --check > "$logs/san.log" 2>&1 || fails=$((fails+1))
      echo "$tool $(echo $run | awk '{print $1}' | xargs basename): $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$logs/san.log")"
    done
  done
  python3 "$T/bench_tensorcore.py" "$R" "$T/bench" --flex-budget 90 > "$logs/bench.log" 2>&1 || fails=$((fails+1))
  grep -E "^row:|^flex" "$logs/bench.log" | sed "s/^row: //"
  echo "failures: $fails"
  [ $fails -eq 0 ]
  ;;
esac
