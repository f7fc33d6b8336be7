#!/bin/sh
# mha_blocks_call.sh - the device call that checks and times examples/mha.ph with 128-key blocks at
# D = 128 (on two warpgroups where one would hold more than 160 accumulators a thread), against the
# build before it. Here: sh bench/gpu/mha_blocks_call.sh build build/bin/ph .device/nw (needs
# .device/pp from pingpong_device.sh for the old build and ph-run); there: sh bench/gpu/mha_blocks_call.sh
# run .device/nw (carry .device). Logs in $OUT/logs.
set -u
case ${1:-} in
build)
  ph=$2; out=$3
  rm -rf "$out"; mkdir -p "$out"
  for k in mha_f16 mha_causal_f16 mha_bf16 mha_causal_bf16; do
    "$ph" build examples/mha.ph --kernel $k --target sm_90a --no-cache -o "$out/new/$k" > "$out/new-$k.log" 2>&1 || echo "build $k failed"
    "$ph" build examples/mha.ph --kernel $k --target sm_90 --no-cache -o "$out/new90/$k" > "$out/new90-$k.log" 2>&1 || echo "build sm_90 $k failed"
  done
  cp bench/gpu/bench_prefill.py bench/gpu/cuda_timing.py "$0" "$out/"
  du -sh "$out"
  ;;
run)
  T=$(pwd)/$2; R=$(pwd)/.device/pp/ph-run; OLD=$(pwd)/.device/pp/mha/base
  mkdir -p $OUT/logs; fails=0
  nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
  for b in new new90; do for k in mha_f16 mha_causal_f16 mha_bf16 mha_causal_bf16; do
    for c in ${MB_CONFIGS:-D=128,BR=128,BC=128 D=128,BR=64,BC=32 D=128,BR=128,BC=32 D=64,BR=128,BC=64}; do
      for n in 384; do
        timeout 30 "$R" "$T/$b/$k" --kernel $k --config $c --size B=1 --size H=2 --size N=$n --seed 5 --check > $OUT/logs/check.txt 2>&1
        rc=$?; tail -1 $OUT/logs/check.txt | sed "s/^/check $b $k $c N=$n rc=$rc: /"
        [ $rc -eq 0 ] || fails=$((fails + 1))
      done
    done
  done; done 2>&1 | tee $OUT/logs/checks.log | grep -v ": ok" ; echo "checks: $(grep -c ': ok' $OUT/logs/checks.log) ok of $(wc -l < $OUT/logs/checks.log)"
  if [ -z "${MB_QUICK:-}" ] && command -v compute-sanitizer >/dev/null; then for tool in racecheck synccheck; do
    timeout 120 compute-sanitizer --tool $tool --error-exitcode 9 "$R" "$T/new/mha_causal_f16" --kernel mha_causal_f16 \
      --config D=128,BR=128,BC=128 --size B=1 --size H=1 --size N=384 --seed 3 2>&1 | tail -2 | sed "s/^/$tool: /"
  done; fi 2>&1 | tee $OUT/logs/sanitizers.log
  # Every D = 128 configuration of both builds timed side by side (which blocks each target wants).
  for b in new new90; do for k in mha_f16 mha_causal_f16; do
    timeout 60 "$R" "$T/$b/$k" --kernel $k --config D=128 --size B=4 --size H=16 --size N=4096 --bench --iters 30 2>&1 \
      | grep -E '^ *D=' | sed "s/^/bench $b $k /"
  done; done 2>&1 | tee $OUT/logs/bench-configs.log
  i=0
  for v in ${MB_ROUNDS:-old new old new}; do
    i=$((i + 1)); d=$T/new; [ $v = old ] && d=$OLD
    (cd $T && timeout 100 python3 bench_prefill.py "$R" "$d" --iters 20 > $OUT/logs/prefill-$i-$v.log 2>&1)
    grep -E '^mha_' $OUT/logs/prefill-$i-$v.log | sed "s/^/   $v /"
  done
  tar -C $OUT -czf $OUT/logs.tgz logs && rm -rf $OUT/logs
  ;;
*) echo "usage: mha_blocks_call.sh build PH OUT | run OUT"; exit 2 ;;
esac
