#!/bin/sh
# overlap_device.sh - attention's P·V under the next block's softmax (PH_TILEGPU_OVERLAP=1, issue 15;
# docs/tilegpu.md, "P·V under the next softmax") against the default, in one or two device calls.
#
#   overlap_device.sh build PH OUT    (here: bench/gpu/attention_tc.ph's attn_w8, causal_w8 and attn_w4
#                                     on sm_90a, with and without the knob; examples/mha.ph's four
#                                     kernels with and without it on sm_90a, and as it is on sm_90)
#   overlap_device.sh run OUT [LOGS]  (on the device; exits 77 without a GPU)
#
# OV_STEPS picks the steps (default "checks sanitizers bench prefill"):
#   checks      every configuration of the knob's builds against the fp64 interpreter (N = 256 and 384:
#               whole and partial key blocks, the causal diagonal, a single key block), and mha.ph's
#               default builds (sm_90a and sm_90: its 128 x 128 blocks on two warpgroups included);
#   sanitizers  compute-sanitizer racecheck and synccheck on the knob's attn_w8 and mha_causal_f16;
#   bench       `ph-run --bench` of the builds in turns (OV_VARIANTS, default "expf base ov"; also pp, ppmb,
#               mb), two rounds, [4, 16, 4096, D], D = 64 and 128;
#   vs          (ask for it) shared/tools/ph_vs_torch.py --only prefill on mha.ph's sm_90a build, if the
#               pack has the script (../shared/tools beside the checkout);
#   prefill     mha.ph's default and knob builds through bench_prefill.py (SDPA flash and cuDNN in the
#               same process), default again last.
set -u
mode=$1; shift
root=$(cd "$(dirname "$0")/../.." && pwd)
. "$(dirname "$0")/pack_steps.sh"
MHA="mha_f16 mha_causal_f16 mha_bf16 mha_causal_bf16"
case $mode in
build)
  ph=$1 out=$2
  rm -rf "$out"; mkdir -p "$out"
  for v in expf base ov pp ppmb mb; do
    case $v in
    base) e=PH_NONE=1 ;; ov) e=PH_TILEGPU_OVERLAP=1 ;; expf) e=PH_TILEGPU_WGMMA_EXPF=1 ;;
    pp) e=PH_TILEGPU_PINGPONG=1 ;; ppmb) e="PH_TILEGPU_PINGPONG=1 PH_TILEGPU_MBARRIERS=1" ;; mb) e=PH_TILEGPU_MBARRIERS=1 ;;
    esac
    for k in attn_w8 causal_w8 attn_w4; do
      build_into "$out/$v-$k.log" env $e "$ph" build "$root/bench/gpu/attention_tc.ph" --kernel $k --target sm_90a \
        --no-cache -o "$out/$v/$k"
    done
    # mha.ph with the knobs that change its code: the default, the expf and the overlap builds.
    case $v in pp|ppmb|mb) continue ;; esac
    for k in $MHA; do
      build_into "$out/mha-$v-$k.log" env $e "$ph" build "$root/examples/mha.ph" --kernel $k --target sm_90a --no-cache \
        -o "$out/mha/$v/$k"
    done
  done
  for k in $MHA; do
    build_into "$out/mha-sm90-$k.log" "$ph" build "$root/examples/mha.ph" --kernel $k --target sm_90 --no-cache -o "$out/mha/sm90/$k"
  done
  build_vs_mha "$ph" "$root" "$out"
  finish_pack "$ph" "$out" "$root/bench/gpu/bench_prefill.py" "$root/bench/gpu/cuda_timing.py" "$root/bench/gpu/overlap_device.sh"
  ;;
run)
  start_pack "$@"
  steps=${OV_STEPS:-checks sanitizers bench prefill}
  want() { case " $steps " in *" $1 "*) return 0 ;; esac; return 1; }
  nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
  if want checks; then
    for k in ${OV_CHECK_KERNELS:-attn_w8 causal_w8 attn_w4}; do
      br=128; [ $k = attn_w4 ] && br=64
      for d in 64 128; do for bc in 32 64 128; do for n in 256 384; do
        step "check-${OV_CHECK_BUILD:-ov}-$k-D$d-BC$bc-N$n" 30 "'$R' '$T/${OV_CHECK_BUILD:-ov}/$k' --kernel $k --config D=$d,BR=$br,BC=$bc --size B=1 --size H=2 --size N=$n --seed 9 --check"
      done; done; done
    done
    # sm_80-class shared memory holds the 128 x 128 blocks on sm_90 too (227 KiB a CTA).
    mha_checks "${OV_CHECKS:-ov base sm90}"
    check_summary
  fi
  if want sanitizers && command -v compute-sanitizer >/dev/null; then
    for tool in racecheck synccheck; do
      step "sanitizer-$tool" 120 "compute-sanitizer --tool $tool --error-exitcode 9 '$R' '$T/ov/attn_w8' --kernel attn_w8 \
        --config D=128,BR=128,BC=128 --size B=1 --size H=1 --size N=384 --seed 3"
      tail -2 "$logs/sanitizer-$tool.log"
      step "sanitizer-mha-$tool" 120 "compute-sanitizer --tool $tool --error-exitcode 9 '$R' '$T/mha/ov/mha_causal_f16' \
        --kernel mha_causal_f16 --config D=128,BR=128,BC=128 --size B=1 --size H=1 --size N=384 --seed 3"
      tail -2 "$logs/sanitizer-mha-$tool.log"
    done
  fi
  want bench && attention_bench "${OV_ROUNDS:-1 2}" "${OV_VARIANTS:-expf base ov}" "${OV_DS:-64 128}"
  want prefill && prefill_runs "${OV_PREFILL:-expf base ov base}"
  want vs && vs_prefill
  echo "failures: $fails ($(( $(date +%s) - t0 )) s)"
  [ $fails -eq 0 ]
  ;;
*) echo "usage: overlap_device.sh build PH OUT | run OUT [LOGS]"; exit 2 ;;
esac
