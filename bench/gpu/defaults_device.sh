#!/bin/sh
# defaults_device.sh - what the defaults of 2026-12-06 still need on a GPU, in one device call:
# attention on the TileGPU path by default (issue 14; docs/tilegpu.md, "Attention on the TileGPU
# path"), prefetch loads on, mha.ph's 64-key blocks at D = 64, RMSNorm's 256 threads.
#
#   defaults_device.sh build PH OUT    (here; some 3 minutes on 2 cores)
#   defaults_device.sh run OUT [LOGS]  (on the device; some 14 minutes in all, more than one call:
#                                      DD_STEPS; exits 77 without a GPU)
#
# run, in order, each step under its own time limit (its log in LOGS as it runs):
#   1. every example check (tests/gpu/check_examples.sh) on sm_90a, sm_90 and sm_80 builds;
#   2. the kv-cache checks (tests/gpu/check_kvcache.sh, sm_90a);
#   3. GQA decode on the tensor cores (examples/decode_attention_tc.ph), cache 4,096 and 32,768
#      (bench_decode.py, with PyTorch);
#   4. prefill (bench_prefill.py, sm_90a, examples/mha.ph), two rounds; and the D = 128,
#      128-key-block variants of bench/gpu/attention_tc.ph that the deleted legacy tensor-core
#      emitter took (2-stage rings on TileGPU since), checked against the interpreter (sm_90;
#      sm_80 as PTX). (PH_GPU_LOWERING=legacy no longer changes a @tensorcore kernel: the legacy
#      columns this pack had are gone with the emitter.)
#   5. the memory-bound rows (membound_device.sh: the default and cross-entropy's one-loop form);
#   6. the attention variants (sliding window, ALiBi, document mask, soft-cap, GQA prefill) next
#      to FlexAttention (bench_memory_bound.py's attention cases).
# DD_DECODE_SHAPES sets the decode shapes (default 8:4096,8:32768: KV heads and cache length).
# DD_DECODE_WHERE (e.g. S=8) times only those split configurations.
# DD_STEPS picks the steps (default "examples kvcache decode prefill membound attention"), so that the
# run fits calls of ten minutes.
set -u
mode=$1; shift
root=$(cd "$(dirname "$0")/../.." && pwd)
. "$(dirname "$0")/pack_steps.sh"
case $mode in
build)
  ph=$1 out=$2
  mkdir -p "$out"
  for a in sm_90a sm_90 sm_80; do
    rm -rf "$out/ex-$a"; mkdir -p "$out/ex-$a"
    build_into "$out/ex-$a.log" env PH_GPU_ARCH=$a sh "$root/tests/gpu/check_examples.sh" build "$ph" "$root/examples" "$out/ex-$a"
  done
  rm -rf "$out/kv"; mkdir -p "$out/kv"
  build_into "$out/kv.log" env PH_GPU_ARCH=sm_90a sh "$root/tests/gpu/check_kvcache.sh" build "$ph" "$out/kv"
  build_into "$out/dtc-new.log" "$ph" build "$root/examples/decode_attention_tc.ph" --target sm_90a --no-cache -o "$out/dtc/new"
  for k in mha_f16 mha_causal_f16; do
    build_into "$out/pre-new-$k.log" "$ph" build "$root/examples/mha.ph" --kernel $k --target sm_90a --no-cache -o "$out/pre/new/$k"
  done
  # attention_tc.ph's variants the legacy tensor-core emitter took (docs/tilegpu.md, "Not done yet"),
  # checked at N = 512 (4 key blocks: the 2-stage rings wrap around).
  rm -rf "$out/fit"
  for k in attn_w4 attn_w8 causal_w4 causal_w8; do
    build_into "$out/fit-$k.log" "$ph" build "$root/bench/gpu/attention_tc.ph" --kernel $k --config D=128,BR=128,BC=128 \
      --target sm_90 --no-cache -o "$out/fit/sm_90/$k"
  done
  for k in attn_w4 causal_w4; do
    build_into "$out/fit80-$k.log" "$ph" build "$root/bench/gpu/attention_tc.ph" --kernel $k --config D=128,BR=64,BC=128 \
      --target sm_80 --no-cache -o "$out/fit/sm_80/$k"
  done
  # The attention variants next to FlexAttention (bench_memory_bound.py's attention cases).
  for k in sliding_window_attention alibi_attention document_attention softcap_attention gqa_prefill; do
    build_into "$out/attn-$k.log" "$ph" build "$root/examples/$k.ph" --kernel $k --target sm_90a -o "$out/attn/$k"
  done
  # GQA prefill's first form, every key block masked (bench/gpu/variants/gqa_prefill.masked.ph).
  build_into "$out/attn-masked.log" "$ph" build "$root/bench/gpu/variants/gqa_prefill.masked.ph" --kernel gqa_prefill \
    --target sm_90a -o "$out/attn-masked/gqa_prefill"
  build_into "$out/mb.log" env MEMBOUND_VARIANTS="${MEMBOUND_VARIANTS:-new masked}" sh "$root/bench/gpu/membound_device.sh" \
    build "$ph" "$out/mb"
  # An sm_80 cubin does not load on a Hopper card (a cubin runs on its own major architecture):
  # the sm_80 variants travel as their PTX in the cubin's place, which the driver compiles when
  # it loads it (NUL-terminated, as tests/differential/gpu.py's ptx_in_place does).
  for ptx in "$out"/ex-sm_80/*/*.ptx "$out"/fit/sm_80/*/*.ptx; do
    [ -f "$ptx" ] && { cat "$ptx"; printf '\000'; } > "${ptx%.ptx}.cubin"
  done
  finish_pack "$ph" "$out" "$root/bench/gpu/bench_prefill.py" "$root/bench/gpu/bench_decode.py" "$root/bench/gpu/cuda_timing.py" \
    "$root/bench/gpu/defaults_device.sh" "$root/tests/gpu/check_examples.sh" "$root/tests/gpu/check_kvcache.sh"
  ;;
run)
  start_pack "$@"
  steps=${DD_STEPS:-examples kvcache decode prefill membound attention}
  want() { case " $steps " in *" $1 "*) return 0 ;; esac; return 1; }
  want examples && for a in sm_90a sm_90 sm_80; do
    step "examples-$a" 90 "sh '$T/check_examples.sh' run '$R' '$T/ex-$a'"
    echo "   $(grep -c '^ok' "$logs/examples-$a.log") ok, $(grep -c '^FAIL' "$logs/examples-$a.log") failed"
    grep -A3 '^FAIL' "$logs/examples-$a.log" | head -12
  done
  want kvcache && { step kvcache 90 "sh '$T/check_kvcache.sh' run '$R' '$T/kv'"; tail -2 "$logs/kvcache.log"; }
  want decode && step decode-tc 200 "cd '$T' && python3 bench_decode.py '$R' '$T/dtc/new' --labels new \
    --kernels decode_split_tc,decode_combine_tc --shapes ${DD_DECODE_SHAPES:-8:4096,8:32768} --backends cudnn,flash --iters 20 ${DD_DECODE_WHERE:+--where $DD_DECODE_WHERE} --out '$logs/decode-tc.jsonl'"
  want decode && grep -vE '^   |Warning|f = lambda' "$logs/decode-tc.log" | tail -14
  want prefill && step prefill 120 "cd '$T' && for v in new new; do echo \"== \$v\"; python3 bench_prefill.py '$R' pre/\$v --iters 10 \
    --out '$logs/prefill-\$v.jsonl' | tail -6; done"
  want prefill && grep -A5 '^== ' "$logs/prefill.log" | head -26
  want prefill && for a in sm_90 sm_80; do
    for d in "$T"/fit/$a/*; do
      k=$(basename "$d")
      step "fit-$a-$k" 60 "'$R' '$d' --kernel $k --size B=1 --size H=2 --size N=512 --seed 5 --check"
    done
  done
  want membound && step membound 250 "MEMBOUND_SECONDS=240 sh '$T/mb/membound_device.sh' run '$T/mb' '$logs/mb'"
  want membound && grep -A12 '^kernel ' "$logs/mb/bench.log" 2>/dev/null | head -14
  want attention && for c in 64,32 64,64 128,32 128,64; do
    step "check-gqa-br${c%,*}-bc${c#*,}" 30 "'$R' '$T/attn/gqa_prefill' --kernel gqa_prefill --config D=64,BR=${c%,*},BC=${c#*,} \
      --size H=4 --size HK=2 --size N=200 --seed 3 --check"
  done
  want attention && step attention 200 "cd '$T/mb' && python3 bench_memory_bound.py - '$R' --iters 20 --prebuilt 'new=$T/attn' --prebuilt 'masked=$T/attn-masked' \
    --only sliding_window_attention,alibi_attention,document_attention,softcap_attention,gqa_prefill --out '$logs/attention.jsonl'"
  want attention && grep -vE 'Warning|warn' "$logs/attention.log" | tail -12
  echo "failures: $fails ($(( $(date +%s) - t0 )) s)"
  [ $fails -eq 0 ]
  ;;
*) echo "usage: defaults_device.sh build PH OUT | run OUT [LOGS]"; exit 2 ;;
esac
