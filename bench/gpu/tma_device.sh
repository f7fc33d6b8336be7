#!/bin/sh
# tma_device.sh - wgmma GEMM rings filled by TMA (PH_TILEGPU_TMA=1: cp.async.bulk.tensor onto a
# full mbarrier per stage, tensor maps encoded by the runtime) against cp.async, and with a
# producer warpgroup that issues them (PH_TILEGPU_WARPSPEC=1, setmaxnreg 240/24), on sm_90a in
# one call: every configuration against the fp64 interpreter (a ragged M, N, K kernel whose TMA
# boxes pass the extents too), compute-sanitizer memcheck/racecheck/synccheck on a TMA kernel of
# each kind, the SASS, then bench_gemm.py next to torch.matmul (cuBLAS) at 4096³ and 8192³.
#
#   tma_device.sh build PH OUT      (here: needs the compiler)
#   tma_device.sh run OUT [LOGS]    (on the device; exits 77 without a GPU)
#
# TMA_VARIANTS (at build and run, default "base tma tmaws"; tma is persistent since the fifteenth
# session, docs/tilegpu.md, "Persistent CTAs") may add flat: the TMA kernels one tile a CTA
# (PH_TILEGPU_PERSISTENT=0); persist: PH_TILEGPU_PERSISTENT=1; tstore: the epilogue by TMA
# (PH_TILEGPU_TMA_STORE=1, "The epilogue by TMA"); pstore: persistent with the TMA store. persist
# and pstore are checked with 3 SMs filled (PH_RUN_PERSISTENT_SMS=3) so that every CTA walks
# several tiles. TMA_SANITIZE (default "tma tmaws") picks the sanitizers' variants.
set -u
mode=$1; shift
variants=${TMA_VARIANTS:-base tma tmaws}
case $mode in
build)
  ph=$1 out=$2
  root=$(cd "$(dirname "$0")/../.." && pwd)
  for v in $variants; do
    case $v in
      base) envs="PH_TILEGPU_TMA=0" ;;
      tma) envs="PH_TILEGPU_TMA=1" ;;
      tmaws) envs="PH_TILEGPU_TMA=1 PH_TILEGPU_WARPSPEC=1" ;;
      persist) envs="PH_TILEGPU_TMA=1 PH_TILEGPU_PERSISTENT=1" ;;
      tstore) envs="PH_TILEGPU_TMA=1 PH_TILEGPU_TMA_STORE=1" ;;
      flat) envs="PH_TILEGPU_TMA=1 PH_TILEGPU_PERSISTENT=0" ;;
      pstore) envs="PH_TILEGPU_TMA=1 PH_TILEGPU_PERSISTENT=1 PH_TILEGPU_TMA_STORE=1" ;;
    esac
    mkdir -p "$out/$v"
    for k in gemm_relu_f16 gemm_relu_f16_w8 gemm_gelu_bf16 gemm_relu_f16_ragged; do
      env $envs "$ph" build "$root/examples/gemm.ph" --kernel $k --target sm_90a --no-cache -o "$out/$v/$k" > "$out/$v/$k.log" 2>&1 || { cat "$out/$v/$k.log"; exit 1; }
    done
    env $envs "$ph" build "$root/bench/gpu/gemm_tma_masked.ph" --target sm_90a --no-cache -o "$out/$v/gemm_masked_w8" > "$out/$v/gemm_masked_w8.log" 2>&1 || { cat "$out/$v/gemm_masked_w8.log"; exit 1; }
    echo "$v: $(grep -h -o '"registers": *[0-9]*\|"spillStores": *[0-9]*' "$out/$v/gemm_relu_f16_w8/manifest.json" | tr -d ' ' | tr '\n' ' ')"
  done
  find "$out" -name '*.ptx' -delete
  cp "$root"/bench/gpu/bench_gemm.py "$root"/bench/gpu/cuda_timing.py "$root"/bench/gpu/tma_device.sh "$out/"
  cp "$(dirname "$ph")/ph-run" "$out/" && strip "$out/ph-run" 2>/dev/null
  echo "built into $out ($(du -sh "$out" | cut -f1))"
  ;;
run)
  T=$(cd "$1" && pwd) logs=${2:-$1/logs}
  R=$T/ph-run
  mkdir -p "$logs"
  "$R" --info > /dev/null 2>&1 || { echo "skipped: no GPU"; exit 77; }
  fails=0
  t0=$(date +%s)
  check() { # LABEL DIR ARGS...
    label=$1 dir=$2; shift 2
    sms=; case $label in persist*|pstore*) sms=3 ;; esac
    if PH_RUN_PERSISTENT_SMS=$sms timeout 60 "$R" "$dir" "$@" --check > "$logs/one.log" 2>&1
    then echo "ok   $label: $(grep -o 'rel L2 error [^,]*' "$logs/one.log" | head -1)"
    else echo "FAIL $label"; tail -4 "$logs/one.log"; fails=$((fails+1)); fi
  }
  # First what the bench and the sanitizers rely on: the 8-warp kernel of each variant (the ring
  # wraps: 5 and 10 K blocks through 4 stages; one K block), and TMA past the extents.
  for v in $variants; do
    for cfg in BM=128,BN=128,BK=32 BM=128,BN=256,BK=32 BM=128,BN=256,BK=64; do
      check "$v gemm_relu_f16_w8 $cfg" "$T/$v/gemm_relu_f16_w8" --kernel gemm_relu_f16_w8 --config $cfg --size M=512 --size N=512 --size K=320 --seed 7
    done
    check "$v gemm_relu_f16_w8 K=64 (one K block)" "$T/$v/gemm_relu_f16_w8" --kernel gemm_relu_f16_w8 --config BM=128,BN=256,BK=64 --size M=256 --size N=256 --size K=64 --seed 9
    for cfg in BM=128,BN=128,BK=64 BM=128,BN=256,BK=64; do
      check "$v gemm_masked_w8 $cfg 200x136x72" "$T/$v/gemm_masked_w8" --kernel gemm_masked_w8 --config $cfg --size M=200 --size N=136 --size K=72 --seed 4
      check "$v gemm_masked_w8 $cfg 333x264x200" "$T/$v/gemm_masked_w8" --kernel gemm_masked_w8 --config $cfg --size M=333 --size N=264 --size K=200 --seed 8
    done
  done
  echo "checks took $(( $(date +%s) - t0 )) s"
  # All three tools on the TMA kernel (6 K blocks through the 4-stage ring), memcheck on the
  # warp-specialized one.
  for v in ${TMA_SANITIZE:-tma tmaws}; do
    tools="memcheck racecheck synccheck"; [ $v = tmaws ] && tools=memcheck
    for tool in $tools; do
      timeout 60 compute-sanitizer --tool $tool --error-exitcode 3 "$R" "$T/$v/gemm_relu_f16_w8" --kernel gemm_relu_f16_w8 --config BM=128,BN=256,BK=64 --size M=256 --size N=256 --size K=384 --seed 3 --check > "$logs/san-$v-$tool.log" 2>&1 || fails=$((fails+1))
      echo "$tool $v w8: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$logs/san-$v-$tool.log" | head -2 | tr '\n' ' ')"
    done
  done
  echo "sanitizers done at $(( $(date +%s) - t0 )) s"
  for v in $variants; do
    cuobjdump -sass "$T/$v/gemm_relu_f16_w8/gemm_relu_f16_w8.BM128_BN256_BK64.cubin" > "$logs/$v-w8.sass" 2>&1
    echo "$v w8 SASS: $(grep -cE '^ +/\*[0-9a-f]+\*/' "$logs/$v-w8.sass") instructions; $(grep -oE '^ +/\*[0-9a-f]+\*/ +[A-Z0-9.]+' "$logs/$v-w8.sass" | awk '{split($2,a,"."); print a[1]}' | sort | uniq -c | sort -rn | head -14 | awk '{printf "%s %s, ", $2, $1}')"
  done
  # cuBLAS (torch.matmul) in the same process, same tensors; torch.compile left out (a compile per
  # shape would not fit the call).
  (cd "$T" && timeout ${TMA_BENCH_S:-110} python3 bench_gemm.py "$R" $(for v in $variants; do printf '%s ' "$T/$v"; done) --kernels gemm_relu_f16_w8,gemm_relu_f16 --torch matmul --iters 30 --out "$logs/gemm.jsonl") > "$logs/gemm-bench.log" 2>&1 || fails=$((fails+1))
  tail -16 "$logs/gemm-bench.log"
  # The other kernels' configurations, while the call has time left (the 4-warp and bf16
  # kernels, the ragged kernel, which keeps cp.async: its rows are not whole 16-byte chunks).
  for v in $variants; do
    for kc in gemm_relu_f16:BM=64,BN=64,BK=32 gemm_relu_f16:BM=128,BN=128,BK=64 gemm_relu_f16:BM=64,BN=128,BK=64 \
              gemm_relu_f16:BM=128,BN=64,BK=32 gemm_gelu_bf16:BM=128,BN=128,BK=64 gemm_gelu_bf16:BM=64,BN=64,BK=32; do
      [ $(( $(date +%s) - t0 )) -lt ${TMA_BUDGET_S:-215} ] || { echo "out of time: $v $kc not checked"; continue; }
      k=${kc%%:*} cfg=${kc#*:}
      check "$v $k $cfg" "$T/$v/$k" --kernel $k --config $cfg --size M=256 --size N=384 --size K=192 --seed 5
    done
    [ $(( $(date +%s) - t0 )) -lt ${TMA_BUDGET_S:-215} ] && check "$v gemm_relu_f16_ragged" "$T/$v/gemm_relu_f16_ragged" --kernel gemm_relu_f16_ragged --size M=200 --size N=136 --size K=72 --seed 6
  done
  echo "total $(( $(date +%s) - t0 )) s; failures: $fails"
  [ $fails -eq 0 ]
  ;;
*) echo "usage: tma_device.sh build PH OUT | run OUT [LOGS]"; exit 2 ;;
esac
