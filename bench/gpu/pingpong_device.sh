#!/bin/sh
# pingpong_device.sh - two warpgroups in turn at the tensor cores (PH_TILEGPU_PINGPONG=1, issue 15;
# docs/tilegpu.md, "Warpgroups in turn") against the default, in one device call.
#
#   pingpong_device.sh build PH OUT    (here: bench/gpu/attention_tc.ph's attn_w8 and causal_w8 on
#                                      sm_90a, with and without the knob; examples/mha.ph as it is,
#                                      on two warpgroups at BR = 128 (PH_TILEGPU_ATTN_THREADS=256),
#                                      and on two warpgroups in turn)
#   pingpong_device.sh run OUT [LOGS]  (on the device; some 4 minutes; exits 77 without a GPU)
#
# ppmb: the knob with the rings on mbarriers (PH_TILEGPU_MBARRIERS=1: no CTA barrier per key block).
# run: every configuration of both kernels with the knob (and ppmb) against the fp64 interpreter (N = 256 and
# 384: whole and partial key blocks, the causal diagonal), compute-sanitizer racecheck and synccheck
# on attn_w8 D = 128 BC = 64, then `ph-run --bench` of both builds in turns, two rounds, on
# [4, 16, 4096, D] (D = 64 and 128, causal and not), mha.ph's three builds through bench_prefill.py
# (SDPA flash and cuDNN in the same process), then bench_tensorcore.py on the knob's build
# (SDPA flash and FlexAttention in the same process; PP_STEPS picks the steps: default "checks bench prefill", add "torch").
set -u
mode=$1; shift
root=$(cd "$(dirname "$0")/../.." && pwd)
. "$(dirname "$0")/pack_steps.sh"
case $mode in
build)
  ph=$1 out=$2
  mkdir -p "$out"
  for v in base pp ppmb; do
    for k in attn_w8 causal_w8; do
      case $v in base) e=PH_NONE=1 ;; pp) e=PH_TILEGPU_PINGPONG=1 ;; ppmb) e="PH_TILEGPU_PINGPONG=1 PH_TILEGPU_MBARRIERS=1" ;; esac
      build_into "$out/$v-$k.log" env $e "$ph" build "$root/bench/gpu/attention_tc.ph" --kernel $k --target sm_90a \
        --no-cache -o "$out/$v/$k"
    done
  done
  for v in base w8 w8pp; do
    case $v in base) e=PH_NONE=1 ;; w8) e=PH_TILEGPU_ATTN_THREADS=256 ;; w8pp) e="PH_TILEGPU_ATTN_THREADS=256 PH_TILEGPU_PINGPONG=1" ;; esac
    for k in mha_f16 mha_causal_f16; do
      build_into "$out/mha-$v-$k.log" env $e "$ph" build "$root/examples/mha.ph" --kernel $k --target sm_90a --no-cache -o "$out/mha/$v/$k"
    done
  done
  finish_pack "$ph" "$out" "$root/bench/gpu/bench_prefill.py" "$root/bench/gpu/bench_tensorcore.py" "$root/bench/gpu/cuda_timing.py" "$root/bench/gpu/pingpong_device.sh"
  ;;
run)
  start_pack "$@"
  steps=${PP_STEPS:-checks bench prefill}
  want() { case " $steps " in *" $1 "*) return 0 ;; esac; return 1; }
  want checks && for v in pp ppmb; do for k in attn_w8 causal_w8; do
    for d in 64 128; do for bc in 32 64 128; do for n in 256 384; do
      step "check-$v-$k-D$d-BC$bc-N$n" 30 "'$R' '$T/$v/$k' --kernel $k --config D=$d,BR=128,BC=$bc --size B=1 --size H=2 --size N=$n --seed 9 --check"
    done; done; done
  done; done
  want checks && for v in w8 w8pp; do for k in mha_f16 mha_causal_f16; do for d in 64 128; do
    step "check-mha-$v-$k-D$d" 30 "'$R' '$T/mha/$v/$k' --kernel $k --config D=$d,BR=128 --size B=1 --size H=2 --size N=384 --seed 4 --check"
  done; done; done
  grep -l -i "mismatch\|fail" "$logs"/check-*.log 2>/dev/null | head
  if want checks && command -v compute-sanitizer >/dev/null; then
    for tool in racecheck synccheck; do
      step "sanitizer-$tool" 120 "compute-sanitizer --tool $tool --error-exitcode 9 '$R' '$T/pp/attn_w8' --kernel attn_w8 \
        --config D=128,BR=128,BC=64 --size B=1 --size H=1 --size N=256 --seed 3"
      tail -3 "$logs/sanitizer-$tool.log"
      step "sanitizer-mha-$tool" 120 "compute-sanitizer --tool $tool --error-exitcode 9 '$R' '$T/mha/w8pp/mha_causal_f16' \
        --kernel mha_causal_f16 --config D=128,BR=128 --size B=1 --size H=1 --size N=384 --seed 3"
      tail -3 "$logs/sanitizer-mha-$tool.log"
    done
  fi
  want bench && for round in 1 2; do
    for v in base pp ppmb; do
      for k in attn_w8 causal_w8; do
        for d in ${PP_DS:-64 128}; do
          step "bench-$round-$v-$k-D$d" 60 "'$R' '$T/$v/$k' --kernel $k --config D=$d --size B=4 --size H=16 --size N=4096 --bench --iters 30"
          echo "   $(grep -E 'best|^D=' "$logs/bench-$round-$v-$k-D$d.log" | sort -k2 -n | head -1)"
        done
      done
    done
  done
  i=0
  want prefill && for v in base w8 w8pp base; do
    i=$((i + 1))
    step "prefill-$i-$v" 90 "cd '$T' && python3 bench_prefill.py '$R' '$T/mha/$v' --iters 20"
    grep -E '^mha_' "$logs/prefill-$i-$v.log" | sed "s/^/   $v /"
  done
  if want torch; then
    step tensorcore 240 "cd '$T' && python3 bench_tensorcore.py '$R' '$T/pp' --iters 20"
    grep -A12 '^ *shape' "$logs/tensorcore.log" | head -14
  fi
  echo "failures: $fails ($(( $(date +%s) - t0 )) s)"
  [ $fails -eq 0 ]
  ;;
*) echo "usage: pingpong_device.sh build PH OUT | run OUT [LOGS]"; exit 2 ;;
esac
