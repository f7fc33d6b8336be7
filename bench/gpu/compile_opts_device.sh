#!/bin/sh
# compile_opts_device.sh - what the cheaper compile settings of issue 22 cost on the GPU, in one
# device call. docs/compile.md: a cold build of mha.ph on 2 cores cannot reach 1.5 s while ptxas
# runs at -O3 and LLVM's full -O3 pipeline runs; the settings that would reach it change the SASS,
# so they are taken only if the kernels stay as fast and right:
#   base    the defaults (ptxas -O3, LLVM -O3 with the SLP vectorizer);
#   fast    PH_PTXAS_FAST_COMPILE=mid (ptxas --Ofast-compile=mid: -20 % of ptxas's time on mha.ph's
#           attention variants, -25 % on the largest);
#   noslp   PH_GPU_SLP=0 (LLVM's SLP vectorizer off: a third of the IR pipeline; 144 of 551 PTX
#           files change, the GEMMs' and the row kernels');
#   scalar  PH_GPU_SCALAR_CARRIES=1 (a loop's carried tiles as one phi a register instead of a
#           struct: -4-14 % of our own time; 385 of 563 PTX files change);
#   nolsr   PH_GPU_LSR=0 (NVPTX codegen's loop strength reduction off: 23 % of a causal
#           attention variant's compile; mha.ph's median our time 99 -> 93 ms a variant).
#
#   compile_opts_device.sh build PH OUT    (here: every variant built, with its compile time)
#   compile_opts_device.sh run OUT [LOGS]  (on the device; its steps' limits add up to 580 s, one
#                                          call; exits 77 without a GPU)
#
# run: every example check (tests/gpu/check_examples.sh, sm_90a) of each non-base variant, then,
# the variants side by side on the same tensors: prefill (bench_prefill.py, mha.ph, sm_90a), GEMM
# (bench_gemm.py, sm_90a wgmma and sm_90 mma.sync, next to cuBLAS), the memory-bound rows
# (bench_memory_bound.py, sm_90a). COMPILE_OPTS_VARIANTS overrides "base fast noslp" at build; run
# takes the variants the build wrote (OUT/variants), so the two cannot disagree. CO_STEPS picks the
# run's steps (default "examples prefill gemm membound"; "decode" and "attention" add
# bench_decode.py's tensor-core GQA decode and the attention variants next to FlexAttention), so that the steps of two or more
# variants fit calls of ten minutes; the gemm and membound limits grow with the variants.
# CO_GEMM_KERNELS (e.g. gemm_relu_f16_w8) limits the gemm step to those kernels, CO_MEMBOUND_ONLY
# (e.g. softmax) the membound step.
set -u
mode=$1; shift
root=$(cd "$(dirname "$0")/../.." && pwd)
. "$(dirname "$0")/pack_steps.sh"
variants=${COMPILE_OPTS_VARIANTS:-base fast noslp}
# A run takes the variants its build made (a run left to the default once measured only base).
if [ "$mode" = run ] && [ -z "${COMPILE_OPTS_VARIANTS:-}" ] && [ -f "${1:-}/variants" ]; then variants=$(cat "$1/variants"); fi
knob() { # VARIANT: its environment
  case $1 in
  base) echo "PH_NONE=1" ;;
  fast) echo "PH_PTXAS_FAST_COMPILE=mid" ;;
  noslp) echo "PH_GPU_SLP=0" ;;
  scalar) echo "PH_GPU_SCALAR_CARRIES=1" ;;
  nolsr) echo "PH_GPU_LSR=0" ;;
  *) echo "unknown variant $1" >&2; exit 2 ;;
  esac
}
case $mode in
build)
  ph=$1 out=$2
  mkdir -p "$out"
  : > "$out/compile-times.txt"
  for v in $variants; do
    e=$(knob "$v") || exit 2
    s=$(date +%s.%N)
    for k in mha_f16 mha_causal_f16; do
      build_into "$out/pre-$v-$k.log" env $e "$ph" build "$root/examples/mha.ph" --kernel $k --target sm_90a --no-cache \
        -j 1 --time -o "$out/pre-$v/$k"
    done
    echo "$v: mha.ph's mha_f16 + mha_causal_f16 (8 variants, -j 1, --no-cache): $(awk "BEGIN { printf \"%.2f\", $(date +%s.%N) - $s }") s wall" >> "$out/compile-times.txt"
    for a in sm_90a sm_90; do
      for k in gemm_relu_f16 gemm_relu_f16_w8; do
        build_into "$out/gemm$a-$v-$k.log" env $e "$ph" build "$root/examples/gemm.ph" --kernel $k --target $a --no-cache \
          -o "$out/gemm$a-$v/$k"
      done
    done
    for k in softmax layer_norm rms_norm swiglu cross_entropy; do
      build_into "$out/mb-$v-$k.log" env $e "$ph" build "$root/examples/$k.ph" --kernel $k --target sm_90a --no-cache \
        -o "$out/mb-$v/$k"
    done
    # GQA decode on the tensor cores (bench_decode.py) and the attention variants next to
    # FlexAttention (bench_memory_bound.py's attention cases), as defaults_device.sh builds them.
    build_into "$out/dtc-$v.log" env $e "$ph" build "$root/examples/decode_attention_tc.ph" --target sm_90a --no-cache \
      -o "$out/dtc-$v"
    for k in sliding_window_attention alibi_attention document_attention softcap_attention gqa_prefill; do
      build_into "$out/attn-$v-$k.log" env $e "$ph" build "$root/examples/$k.ph" --kernel $k --target sm_90a --no-cache \
        -o "$out/attn-$v/$k"
    done
    if [ "$v" != base ]; then
      mkdir -p "$out/ex-$v"
      build_into "$out/ex-$v.log" env $e PH_GPU_ARCH=sm_90a sh "$root/tests/gpu/check_examples.sh" build "$ph" \
        "$root/examples" "$out/ex-$v"
    fi
  done
  # Our own time and ptxas's per variant, from the --time lines (CPU ms summed).
  for v in $variants; do
    cat "$out"/pre-$v-*.log | awk -v v=$v '/^time:/ { for (i = 1; i <= NF; i++) { if ($i == "ptxas") p += $(i+1); if ($i == "ours") o += $(i+1) } }
      END { printf "%s: ours %.0f ms, ptxas %.0f ms CPU over mha.ph'"'"'s 8 variants\n", v, o, p }' >> "$out/compile-times.txt"
  done
  cat "$out/compile-times.txt"
  echo "$variants" > "$out/variants"
  finish_pack "$ph" "$out" "$root/bench/gpu/bench_prefill.py" "$root/bench/gpu/bench_gemm.py" "$root/bench/gpu/bench_decode.py" \
    "$root/bench/gpu/bench_memory_bound.py" "$root/bench/gpu/cuda_timing.py" "$root/bench/gpu/compile_opts_device.sh" \
    "$root/tests/gpu/check_examples.sh"
  ;;
run)
  start_pack "$@"
  cat "$T/compile-times.txt"
  echo "variants: $variants"
  steps=${CO_STEPS:-examples prefill gemm membound}
  want() { case " $steps " in *" $1 "*) return 0 ;; esac; return 1; }
  n=$(echo $variants | wc -w)
  want examples && for v in $variants; do
    [ -d "$T/ex-$v" ] || continue
    step "examples-$v" 60 "sh '$T/check_examples.sh' run '$R' '$T/ex-$v'"
    echo "   $(grep -c '^ok' "$logs/examples-$v.log") ok, $(grep -c '^FAIL' "$logs/examples-$v.log") failed"
  done
  # Prefill: the variants in turns, two rounds.
  cmd="cd '$T'"
  for r in 1 2; do for v in $variants; do
    cmd="$cmd && echo '== $v' && python3 bench_prefill.py '$R' '$T/pre-$v' --iters 10 --out '$logs/prefill-$v.jsonl' | tail -6"
  done; done
  want prefill && step prefill 180 "$cmd"
  want prefill && grep -A5 '^== ' "$logs/prefill.log" | grep -E '^==|mha_' | head -40
  dirs=; for v in $variants; do dirs="$dirs $T/gemmsm_90a-$v $T/gemmsm_90-$v"; done
  want gemm && step gemm $((90 * n)) "cd '$T' && python3 bench_gemm.py '$R' $dirs --iters 20 --torch matmul ${CO_GEMM_KERNELS:+--kernels $CO_GEMM_KERNELS} --out '$logs/gemm.jsonl'"
  want gemm && grep -A40 '^kernel ' "$logs/gemm.log" | head -40
  pre=; for v in $variants; do pre="$pre --prebuilt $v=$T/mb-$v"; done
  want membound && step membound $((110 * n)) "cd '$T' && python3 bench_memory_bound.py - '$R' --iters 20 --configs 2 $pre \
    --only ${CO_MEMBOUND_ONLY:-softmax,layer_norm,rms_norm,swiglu,cross_entropy} --out '$logs/membound.jsonl'"
  want membound && grep -vE 'Warning|warn' "$logs/membound.log" | tail -20
  dirs=; labels=; for v in $variants; do dirs="$dirs${dirs:+,}$T/dtc-$v"; labels="$labels${labels:+,}$v"; done
  want decode && step decode $((60 + 70 * n)) "cd '$T' && python3 bench_decode.py '$R' '$dirs' --labels $labels \
    --kernels decode_split_tc,decode_combine_tc --shapes 8:4096,8:32768 --backends cudnn --iters 20 --out '$logs/decode.jsonl'"
  want decode && grep -vE '^   |Warning|f = lambda' "$logs/decode.log" | tail -14
  pre=; for v in $variants; do pre="$pre --prebuilt $v=$T/attn-$v"; done
  want attention && step attention $((120 + 40 * n)) "cd '$T' && python3 bench_memory_bound.py - '$R' --iters 20 $pre \
    --only sliding_window_attention,alibi_attention,document_attention,softcap_attention,gqa_prefill --out '$logs/attention.jsonl'"
  want attention && grep -vE 'Warning|warn' "$logs/attention.log" | tail -14
  echo "failures: $fails ($(( $(date +%s) - t0 )) s)"
  [ $fails -eq 0 ]
  ;;
*) echo "usage: compile_opts_device.sh build PH OUT | run OUT [LOGS]"; exit 2 ;;
esac
