#!/bin/sh
# tma_attention_device.sh - attention's K and V rings filled by TMA (issue 15; docs/tilegpu.md,
# "K and V by TMA"): on mbarriers in the consumers' own loop, and from a producer warpgroup that
# gives its registers to the consumers, against the default, in one device call.
#
#   tma_attention_device.sh build PH OUT    (here: bench/gpu/attention_tc.ph's attn_w8, causal_w8 and
#                                           attn_w4, and examples/mha.ph, on sm_90a in each variant;
#                                           every example's check build with TMA, with and without
#                                           the producer warpgroup)
#   tma_attention_device.sh run OUT [LOGS]  (on the device; exits 77 without a GPU)
#
# Variants (TA_VARIANTS, default "base cpasync ov ws wsov"): base = the default (sm_90a: K and V by
# TMA onto mbarriers); cpasync = the same rings by cp.async (PH_TILEGPU_TMA=0); ov = P·V under the
# next softmax (PH_TILEGPU_OVERLAP=1); ws = a producer warpgroup issues the TMA copies
# (PH_TILEGPU_WARPSPEC=1, setmaxnreg 240/24); wsov = both; wspp = ws with the consumers in turn
# (PH_TILEGPU_PINGPONG=1); ftz = the softmax's 2^y as ex2.approx.ftz (PH_TILEGPU_EXP_FTZ=1);
# ctas2 = registers fitted to two CTAs an SM (PH_TILEGPU_MIN_CTAS=2); ftzctas2 = both; old = the
# eleventh session's default (PH_TILEGPU_EXP_FTZ=0 PH_TILEGPU_FIT_CTAS=0: ex2 without ftz, ptxas's
# own register count); notie = wgmma's registers not tied before its fence (PH_TILEGPU_WGMMA_TIE=0);
# st2 = rings of 2 stages (PH_TILEGPU_STAGES=2); qafter = Q waited for after the ring's prologue, in
# flight with the first K/V boxes (PH_TILEGPU_Q_AFTER_PROLOGUE=1); persist = CTAs that walk the grid's
# tiles, the next tile's first K/V boxes and Q issued under this tile's end (PH_TILEGPU_PERSISTENT=1);
# pq = both; tstore = the epilogue through shared memory and one TMA store (PH_TILEGPU_TMA_STORE=1).
# Since the twelfth session base has ftz and two CTAs where shared memory allows,
# so ftz builds the same as base; tie = wgmma's registers
# written before its fence everywhere (PH_TILEGPU_WGMMA_TIE=1; since the thirteenth session base ties
# them where the registers are fitted to two CTAs), tiepp / tieov / tiewsov = tie with ping-pong,
# the overlap, and the producer warpgroup with the overlap.
# TA_STEPS picks the steps (default "checks examples sanitizers bench prefill"):
#   checks      the wgmma configurations of the three kernels (N = 256 and 384: whole key blocks, the
#               causal diagonal) and all of mha.ph's, in TA_CHECKS's variants (default "base ov ws
#               wsov"), against the fp64 interpreter;
#   pchecks     (ask for it) TA_PCHECKS's variants (default persist) with the SMs a persistent launch fills
#               cut to 2 and 3 (PH_RUN_PERSISTENT_SMS), so that every CTA walks several tiles: mha.ph's
#               non-causal kernels and attn_w8 against the interpreter;
#   examples    tests/gpu/check_examples.sh on builds of every example (TA_EXAMPLES, default
#               "base wsov"; ragged key counts: TMA's zero fill instead of the masks);
#   sanitizers  compute-sanitizer memcheck, racecheck and synccheck on attn_w8 and mha_causal_f16
#               (D = 128, 128-key blocks) and mha_f16 (D = 64, 64 x 128 blocks) of TA_SANITIZE's variants (default "base ov wsov");
#   bench       `ph-run --bench` of the variants in turns, [4, 16, 4096, D], D = 64 and 128 (AB_CONFIG=",BC=128"
#               narrows each run to those configurations)
#               (TA_ROUNDS, default "1 2");
#   prefill     mha.ph's builds (TA_PREFILL, default "base ov wsov base") through bench_prefill.py,
#               SDPA flash and cuDNN in the same process;
#   table       (ask for it) bench_prefill.py's whole table on TA_TABLE's build (default base): both
#               shapes, f16 and bf16, FlexAttention and the matmul rate beside SDPA;
#   wide        (ask for it) attention_wide.ph's key blocks of 144-192 in TA_WIDE's variants (built only
#               where TA_WIDE was set at build time; run default base, a variant not built fails the
#               step): checked at N = 256 and 384, timed at [4, 16, 4096, D];
#   tune        (ask for it) `ph-run --tune` on mha_f16 at both shapes of the table, then a plain run of
#               each shape, which must name the configuration recorded for it (docs/running.md);
#   onehead     (ask for it) `ph-run --bench` of attention_tc's kernels at [1, 1, 16384, D] in TA_ONEHEAD's
#               variants (default base; causal_w4 only where the build had TA_MORE_KERNELS=causal_w4);
#   vs          (ask for it) shared/tools/ph_vs_torch.py --only prefill on mha.ph built with cp.async
#               rings (PH_TILEGPU_TMA=0: the tool passes no tensor maps), if the pack has the script.
set -u
mode=$1; shift
root=$(cd "$(dirname "$0")/../.." && pwd)
. "$(dirname "$0")/pack_steps.sh"
MHA="mha_f16 mha_causal_f16 mha_bf16 mha_causal_bf16"
envOf() {
  case $1 in
  base) echo PH_NONE=1 ;; cpasync) echo PH_TILEGPU_TMA=0 ;; ov) echo PH_TILEGPU_OVERLAP=1 ;;
  ws) echo PH_TILEGPU_WARPSPEC=1 ;; wsov) echo "PH_TILEGPU_WARPSPEC=1 PH_TILEGPU_OVERLAP=1" ;;
  wspp) echo "PH_TILEGPU_WARPSPEC=1 PH_TILEGPU_PINGPONG=1" ;;
  ftz) echo PH_TILEGPU_EXP_FTZ=1 ;; ftzctas2) echo "PH_TILEGPU_EXP_FTZ=1 PH_TILEGPU_MIN_CTAS=2" ;;
  ctas2) echo PH_TILEGPU_MIN_CTAS=2 ;;
  old) echo "PH_TILEGPU_EXP_FTZ=0 PH_TILEGPU_FIT_CTAS=0" ;;
  notie) echo PH_TILEGPU_WGMMA_TIE=0 ;; st2) echo PH_TILEGPU_STAGES=2 ;;
  qafter) echo PH_TILEGPU_Q_AFTER_PROLOGUE=1 ;; persist) echo PH_TILEGPU_PERSISTENT=1 ;;
  pq) echo "PH_TILEGPU_PERSISTENT=1 PH_TILEGPU_Q_AFTER_PROLOGUE=1" ;;
  tstore) echo PH_TILEGPU_TMA_STORE=1 ;;
  tie) echo PH_TILEGPU_WGMMA_TIE=1 ;; tiepp) echo "PH_TILEGPU_WGMMA_TIE=1 PH_TILEGPU_WARPSPEC=1 PH_TILEGPU_PINGPONG=1" ;;
  tieov) echo "PH_TILEGPU_WGMMA_TIE=1 PH_TILEGPU_OVERLAP=1" ;;
  tiewsov) echo "PH_TILEGPU_WGMMA_TIE=1 PH_TILEGPU_WARPSPEC=1 PH_TILEGPU_OVERLAP=1" ;;
  esac
}
case $mode in
build)
  ph=$1 out=$2
  rm -rf "$out"; mkdir -p "$out"
  for v in ${TA_VARIANTS:-base cpasync ov ws wsov}; do
    e=$(envOf $v)
    for k in attn_w8 causal_w8 attn_w4 ${TA_MORE_KERNELS:-}; do
      build_into "$out/$v-$k.log" env $e "$ph" build "$root/bench/gpu/attention_tc.ph" --kernel $k --target sm_90a \
        --no-cache -o "$out/$v/$k"
    done
    for k in $MHA; do
      build_into "$out/mha-$v-$k.log" env $e "$ph" build "$root/examples/mha.ph" --kernel $k --target sm_90a --no-cache \
        -o "$out/mha/$v/$k"
    done
  done
  for v in ${TA_WIDE:-}; do
    for k in attn_w8 causal_w8; do
      build_into "$out/wide-$v-$k.log" env $(envOf $v) "$ph" build "$root/bench/gpu/attention_wide.ph" --kernel $k \
        --target sm_90a --no-cache -o "$out/wide/$v/$k"
    done
  done
  for v in ${TA_EXAMPLES:-base wsov}; do
    mkdir -p "$out/ex-$v"
    build_into "$out/ex-$v.log" env $(envOf $v) PH_GPU_ARCH=sm_90a sh "$root/tests/gpu/check_examples.sh" build "$ph" \
      "$root/examples" "$out/ex-$v"
  done
  build_vs_mha "$ph" "$root" "$out"
  finish_pack "$ph" "$out" "$root/bench/gpu/bench_prefill.py" "$root/bench/gpu/cuda_timing.py" \
    "$root/bench/gpu/tma_attention_device.sh" "$root/tests/gpu/check_examples.sh"
  ;;
run)
  start_pack "$@"
  steps=${TA_STEPS:-checks examples sanitizers bench prefill}
  want() { case " $steps " in *" $1 "*) return 0 ;; esac; return 1; }
  nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
  variants=${TA_VARIANTS:-base cpasync ov ws wsov}
  if want checks; then
    for v in $variants; do
      case " ${TA_CHECKS:-base ov ws wsov} " in *" $v "*) ;; *) continue ;; esac
      for k in attn_w8 causal_w8 attn_w4; do
        br=128; [ $k = attn_w4 ] && br=64
        for c in D=64,BC=128 D=128,BC=32 D=128,BC=64 D=128,BC=128; do for n in 256 384; do
          step "check-$v-$k-$c-N$n" 30 "'$R' '$T/$v/$k' --kernel $k --config $c,BR=$br --size B=1 --size H=2 --size N=$n --seed 9 --check"
        done; done
      done
      mha_checks "$v"
    done
    check_summary
  fi
  if want pchecks; then # persistent CTAs with several tiles each: the SMs a launch fills cut to 2 and 3
    for v in ${TA_PCHECKS:-persist}; do for sms in 2 3; do
      for k in mha_f16 mha_bf16; do for c in D=64,BR=64,BC=128 D=64,BR=128,BC=128 D=128,BR=64,BC=32 D=128,BR=128,BC=32 D=128,BR=128,BC=128; do
        step "pcheck-$v-$k-$c-S$sms" 60 "PH_RUN_PERSISTENT_SMS=$sms '$R' '$T/mha/$v/$k' --kernel $k --config $c --size B=1 --size H=3 --size N=384 --seed 5 --check"
      done; done
      for c in D=64,BC=128 D=128,BC=128; do
        step "pcheck-$v-attn_w8-$c-S$sms" 60 "PH_RUN_PERSISTENT_SMS=$sms '$R' '$T/$v/attn_w8' --kernel attn_w8 --config $c,BR=128 --size B=1 --size H=3 --size N=384 --seed 5 --check"
      done
    done; done
    check_summary 'pcheck-*'
  fi
  if want examples; then
    for v in ${TA_EXAMPLES:-base wsov}; do
      step "examples-$v" 150 "sh '$T/check_examples.sh' run '$R' '$T/ex-$v'"
      tail -3 "$logs/examples-$v.log"
    done
  fi
  if want sanitizers && command -v compute-sanitizer >/dev/null; then
    for v in ${TA_SANITIZE:-base ov wsov}; do for tool in memcheck racecheck synccheck; do
      # attn_w8 and mha_causal_f16 at D = 128; mha_f16's 64 x 128 blocks at D = 64 (one warpgroup)
      cmd=true
      for target in "$T/$v/attn_w8 attn_w8 D=128,BR=128,BC=128" "$T/mha/$v/mha_causal_f16 mha_causal_f16 D=128,BR=128,BC=128" \
                    "$T/mha/$v/mha_f16 mha_f16 D=64,BR=64,BC=128"; do
        set -- $target
        cmd="$cmd && compute-sanitizer --tool $tool --error-exitcode 9 '$R' '$1' --kernel $2 --config $3 --size B=1 --size H=1 --size N=384 --seed 3"
      done
      step "sanitizer-$v-$tool" 180 "$cmd"
      grep -E "ERROR SUMMARY|RACECHECK SUMMARY" "$logs/sanitizer-$v-$tool.log" | tr '\n' ' '; echo
    done; done
  fi
  want bench && attention_bench "${TA_ROUNDS:-1 2}" "$variants" "${TA_DS:-64 128}"
  if want wide; then # attention_wide.ph's wider key blocks: checked (masked last blocks), then timed
    for v in ${TA_WIDE:-base}; do for k in attn_w8 causal_w8; do
      [ -d "$T/wide/$v/$k" ] || { echo "wide: $v/$k not built"; fails=$((fails+1)); continue; }
      for c in D=64,BC=144 D=64,BC=176 D=64,BC=192 D=128,BC=144 D=128,BC=176 D=128,BC=192; do for n in 256 384; do
        step "check-wide-$v-$k-$c-N$n" 30 "'$R' '$T/wide/$v/$k' --kernel $k --config $c,BR=128 --size B=1 --size H=2 --size N=$n --seed 9 --check"
      done; done
    done; done
    check_summary 'check-wide-*'
    attention_bench "${TA_ROUNDS:-1 2}" "${TA_WIDE:-base}" "${TA_DS:-64 128}" wide
  fi
  if want tune; then # the configuration picked by shape, recorded and then run (docs/running.md)
    for s in "1 1 16384" "4 16 4096"; do
      set -- $s
      step "tune-$1x$2x$3" 90 "'$R' '$T/mha/base/mha_f16' --kernel mha_f16 --config D=64 --size B=$1 --size H=$2 --size N=$3 --tune --iters 20"
      grep -E "best|tuned" "$logs/tune-$1x$2x$3.log"
      step "tuned-run-$1x$2x$3" 60 "'$R' '$T/mha/base/mha_f16' --kernel mha_f16 --config D=64 --size B=$1 --size H=$2 --size N=$3 \
        && grep -q 'note: \[D=64,.*tuned for this shape' '$logs/tuned-run-$1x$2x$3.log'"
      grep -E "tuned for|mha_f16 \[" "$logs/tuned-run-$1x$2x$3.log"
    done
    cat "$T/mha/base/mha_f16/tuning.json"
  fi
  want onehead && onehead_bench "${TA_ONEHEAD:-base}" "${TA_DS:-64 128}"
  want prefill && prefill_runs "${TA_PREFILL:-base ov wsov base}"
  want table && prefill_table "${TA_TABLE:-base}"
  want vs && vs_prefill
  echo "failures: $fails ($(( $(date +%s) - t0 )) s)"
  [ $fails -eq 0 ]
  ;;
*) echo "usage: tma_attention_device.sh build PH OUT | run OUT [LOGS]"; exit 2 ;;
esac
