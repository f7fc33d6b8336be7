#!/bin/sh
# two_warpgroups_call.sh - the device call that decides PH_TILEGPU_ATTN_THREADS=256 (issues 15 and 22)
# and checks the @grid facts' kernels (issue 16), in some 7 minutes. Run from the repository root on
# the device, after, here: sh bench/gpu/defaults_device.sh build build/bin/ph .device/dd and
# sh bench/gpu/pingpong_device.sh build build/bin/ph .device/pp (carry .device). Logs in $OUT/logs.
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
mkdir -p $OUT/logs
T=$(pwd)/.device/dd
(timeout 60 sh $T/check_examples.sh run $T/ph-run $T/ex-sm_90a > $OUT/logs/examples-sm_90a.log 2>&1; echo "examples sm_90a exit $?: $(grep -c '^ok' $OUT/logs/examples-sm_90a.log) ok, $(grep -c '^FAIL' $OUT/logs/examples-sm_90a.log) failed"; grep -A3 '^FAIL' $OUT/logs/examples-sm_90a.log | head -20) 2>&1 | tee $OUT/logs/E.txt
(timeout 30 sh $T/check_kvcache.sh run $T/ph-run $T/kv 2>&1 | tail -3) | tee -a $OUT/logs/E.txt
for v in w8 w8pp; do for k in mha_f16 mha_causal_f16; do for d in 64 128; do
  timeout 30 .device/pp/ph-run .device/pp/mha/$v/$k --kernel $k --config D=$d,BR=128 --size B=1 --size H=2 --size N=384 --seed 4 --check 2>&1 | tail -1 | sed "s/^/check $v $k D=$d: /"
done; done; done 2>&1 | tee -a $OUT/logs/E.txt
PP_STEPS="prefill" timeout 380 sh .device/pp/pingpong_device.sh run .device/pp $OUT/logs/pp 2>&1 | tee -a $OUT/logs/E.txt
tar -C $OUT -czf $OUT/logs.tgz logs && rm -rf $OUT/logs
