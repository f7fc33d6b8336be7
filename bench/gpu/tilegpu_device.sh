#!/bin/sh
# The TileGPU backend on a GPU in one call: every example and kvcache check against the
# fp64 interpreter under both lowerings (PH_GPU_LOWERING=auto: TileGPU where it takes the
# kernel; legacy: the old emitters), the GEMM example's kernels against the interpreter,
# compute-sanitizer memcheck + racecheck on the TileGPU kernels, then the GEMM bench
# (bench_gemm.py next to torch.matmul, eager and torch.compile) and the attention bench
# under both lowerings (bench_tensorcore.py, bench_prefill.py).
#
#   tilegpu_device.sh build PH OUT     compile everything into OUT (needs the compiler)
#   tilegpu_device.sh run OUT [LOGS]   run it (needs a GPU and PyTorch; no compiler)
set -u
mode=$1; shift
case $mode in
build)
  ph=$1 out=$2
  root=$(cd "$(dirname "$0")/../.." && pwd)
  for low in auto legacy; do
    mkdir -p "$out/$low/ex" "$out/$low/kv" "$out/$low/bench" "$out/$low/prefill"
    export PH_GPU_LOWERING=$low
    sh "$root/tests/gpu/check_examples.sh" build "$ph" "$root/examples" "$out/$low/ex" > "$out/$low/ex.build.log" 2>&1 || { cat "$out/$low/ex.build.log"; exit 1; }
    sh "$root/tests/gpu/check_kvcache.sh" build "$ph" "$out/$low/kv" > "$out/$low/kv.build.log" 2>&1 || { tail -20 "$out/$low/kv.build.log"; exit 1; }
    for k in attn_w4 causal_w4; do
      "$ph" build "$root/bench/gpu/attention_tc.ph" --kernel $k -o "$out/$low/bench/$k" > "$out/$low/bench/$k.log" 2>&1 || { cat "$out/$low/bench/$k.log"; exit 1; }
    done
    for k in mha_f16 mha_causal_f16; do
      "$ph" build "$root/examples/mha.ph" --kernel $k -o "$out/$low/prefill/$k" > "$out/$low/prefill/$k.log" 2>&1 || { cat "$out/$low/prefill/$k.log"; exit 1; }
    done
  done
  unset PH_GPU_LOWERING
  mkdir -p "$out/gemm"
  mkdir -p "$out/gemm90a"
  for k in gemm_relu_f16 gemm_gelu_bf16 gemm_relu gemm_relu_f16_ragged gemm_relu_f16_w8; do
    "$ph" build "$root/examples/gemm.ph" --kernel $k --target sm_90 -o "$out/gemm/$k" > "$out/gemm/$k.log" 2>&1 || { cat "$out/gemm/$k.log"; exit 1; }
    # sm_90a: the wgmma policy (docs/tilegpu.md).
    "$ph" build "$root/examples/gemm.ph" --kernel $k --target sm_90a -o "$out/gemm90a/$k" > "$out/gemm90a/$k.log" 2>&1 || { cat "$out/gemm90a/$k.log"; exit 1; }
  done
  cp "$root"/bench/gpu/bench_gemm.py "$root"/bench/gpu/bench_tensorcore.py "$root"/bench/gpu/bench_prefill.py \
     "$root"/bench/gpu/cuda_timing.py "$0" "$root"/tests/gpu/check_examples.sh "$root"/tests/gpu/check_kvcache.sh "$out/"
  cp "$(dirname "$ph")/ph-run" "$out/"
  echo "built into $out ($(du -sh "$out" | cut -f1))"
  ;;
run)
  T=$(cd "$1" && pwd) logs=${2:-$1/logs}
  R=$T/ph-run
  mkdir -p "$logs"
  "$R" --info > /dev/null 2>&1 || { echo "skipped: no GPU"; exit 77; }
  fails=0
  for low in auto legacy; do
    sh "$T/check_examples.sh" run "$R" "$T/$low/ex" > "$logs/examples-$low.log" 2>&1 || fails=$((fails+1))
    echo "examples ($low): $(grep -c '^ok' "$logs/examples-$low.log") ok, $(grep -c '^FAIL' "$logs/examples-$low.log") failed"
    sh "$T/check_kvcache.sh" run "$R" "$T/$low/kv" > "$logs/kv-$low.log" 2>&1 || fails=$((fails+1))
    echo "kvcache ($low): $(grep -c 'vs interpreter: ok' "$logs/kv-$low.log") ok; $(grep failures "$logs/kv-$low.log")"
  done
  grep FAIL -A6 "$logs"/examples-*.log | head -60
  # GEMM at ragged and aligned sizes, every configuration, against the interpreter.
  for g in gemm gemm90a; do
    for k in gemm_relu_f16 gemm_gelu_bf16 gemm_relu; do
      for cfg in BM=64,BN=64,BK=32 BM=128,BN=128,BK=32 BM=128,BN=64,BK=64 BM=64,BN=128,BK=64 BM=128,BN=128,BK=64; do
        if "$R" "$T/$g/$k" --kernel $k --config $cfg --size M=256 --size N=384 --size K=192 --seed 5 --check > "$logs/one.log" 2>&1
        then echo "ok   $g $k $cfg: $(grep -o 'rel L2 error [^,]*' "$logs/one.log")"
        else echo "FAIL $g $k $cfg"; tail -6 "$logs/one.log"; fails=$((fails+1)); fi
      done
    done
    for cfg in BM=128,BN=128,BK=32 BM=256,BN=128,BK=32; do
      if "$R" "$T/$g/gemm_relu_f16_w8" --kernel gemm_relu_f16_w8 --config $cfg --size M=512 --size N=256 --size K=160 --seed 7 --check > "$logs/one.log" 2>&1
      then echo "ok   $g gemm_relu_f16_w8 $cfg: $(grep -o 'rel L2 error [^,]*' "$logs/one.log")"
      else echo "FAIL $g gemm_relu_f16_w8 $cfg"; tail -6 "$logs/one.log"; fails=$((fails+1)); fi
    done
    if "$R" "$T/$g/gemm_relu_f16_ragged" --kernel gemm_relu_f16_ragged --size M=200 --size N=136 --size K=72 --seed 6 --check > "$logs/one.log" 2>&1
    then echo "ok   $g gemm_relu_f16_ragged 200x136x72: $(grep -o 'rel L2 error [^,]*' "$logs/one.log")"
    else echo "FAIL $g gemm_relu_f16_ragged"; tail -6 "$logs/one.log"; fails=$((fails+1)); fi
  done
  for tool in memcheck racecheck synccheck; do
    compute-sanitizer --tool $tool --error-exitcode 3 "$R" "$T/gemm90a/gemm_relu_f16" --kernel gemm_relu_f16 --config BM=128,BN=128,BK=64 --size M=256 --size N=256 --size K=256 --seed 3 --check > "$logs/san.log" 2>&1 || fails=$((fails+1))
    echo "$tool wgmma gemm: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$logs/san.log")"
  done
  for tool in memcheck racecheck; do
    for run in "$T/gemm/gemm_relu_f16 --kernel gemm_relu_f16 --config BM=128,BN=128,BK=32 --size M=256 --size N=256 --size K=128" \
               "$T/auto/ex/flash_attention --kernel flash_attention --size Nq=128 --size Nk=200"; do
      # shellcheck disable=SC2086
      compute-sanitizer --tool $tool --error-exitcode 3 "$R" $run --seed 3 --check > "$logs/san.log" 2>&1 || fails=$((fails+1))
      echo "$tool $(echo $run | awk '{print $1}' | xargs basename): $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$logs/san.log")"
    done
  done
  for k in gemm_relu_f16; do cuobjdump -sass "$T/gemm/$k"/*BM128_BN128_BK32*.cubin > "$logs/gemm-sass.txt" 2>&1 || cuobjdump -sass "$(ls "$T/gemm/$k"/*.cubin | head -1)" > "$logs/gemm-sass.txt" 2>&1; done
  echo "gemm SASS: $(grep -c HMMA "$logs/gemm-sass.txt") HMMA, $(grep -c LDSM "$logs/gemm-sass.txt") LDSM, $(grep -c LDGSTS "$logs/gemm-sass.txt") LDGSTS"
  for k in gemm_relu_f16; do cuobjdump -sass "$T/gemm90a/$k"/*BM128_BN128_BK64*.cubin > "$logs/gemm90a-sass.txt" 2>&1; done
  echo "gemm90a SASS: $(grep -c HGMMA "$logs/gemm90a-sass.txt") HGMMA, $(grep -c LDGSTS "$logs/gemm90a-sass.txt") LDGSTS, $(grep -c 'BAR.SYNC' "$logs/gemm90a-sass.txt") BAR.SYNC"
  (cd "$T" && python3 bench_gemm.py "$R" "$T/gemm" "$T/gemm90a" --out "$logs/gemm.jsonl") > "$logs/gemm-bench.log" 2>&1 || fails=$((fails+1))
  tail -14 "$logs/gemm-bench.log"
  for low in auto legacy; do
    (cd "$T" && python3 bench_prefill.py "$R" "$T/$low/prefill" --out "$logs/prefill-$low.jsonl") > "$logs/prefill-$low.log" 2>&1 || fails=$((fails+1))
    echo "prefill ($low):"; tail -6 "$logs/prefill-$low.log"
  done
  echo "failures: $fails"
  [ $fails -eq 0 ]
  ;;
esac
