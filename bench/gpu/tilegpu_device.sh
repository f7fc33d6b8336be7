#!/bin/sh
# The TileGPU backend on a GPU in one call: every example and kvcache check against the
# fp64 interpreter under both lowerings (PH_GPU_LOWERING=auto: TileGPU where it takes the
# kernel; legacy: the old emitters), the GEMM example's kernels against the interpreter,
# compute-sanitizer memcheck + racecheck on the TileGPU kernels, then the GEMM bench
# (bench_gemm.py next to torch.matmul, eager and torch.compile) and the attention bench
# under both lowerings (bench_tensorcore.py, bench_prefill.py).
#
#   tilegpu_device.sh build PH OUT        compile everything into OUT (needs the compiler)
#   tilegpu_device.sh run OUT [LOGS]      run it (needs a GPU and PyTorch; no compiler)
#   tilegpu_device.sh build-gemm PH OUT   the GEMM part only, with A/B variants of the wgmma
#   tilegpu_device.sh run-gemm OUT [LOGS] knobs (gemm90a_noraster, gemm90a_s3, gemm90a_s5), and
#                                         gemm_relu/ for shared/tools/ph_vs_torch.py --only gemm
#   tilegpu_device.sh build-attn PH OUT   attention on wgmma (sm_90a): every configuration of
#   tilegpu_device.sh run-attn OUT [LOGS] mha.ph and attention_tc.ph against the interpreter,
#                                         the examples and kvcache built for sm_90a, sanitizers,
#                                         SASS, bench_prefill.py on wgmma / 2-stage rings /
#                                         legacy, shared/tools/ph_vs_torch.py --only prefill
#   tilegpu_device.sh build-ws PH OUT      a producer warpgroup (PH_TILEGPU_WARPSPEC=1) against the
#   tilegpu_device.sh run-ws OUT [LOGS]    default on sm_90a: every configuration checked,
#                                         sanitizers, SASS, bench_prefill.py and bench_tensorcore.py
#   tilegpu_device.sh build-simt PH OUT    everything on TileGPU (its SIMT policy too) for sm_90: the
#   tilegpu_device.sh run-simt OUT [LOGS]  examples and kvcache checks, decode_split's ring variants
#                                         (CTA barrier, mbarriers, 2 and 4 stages) checked and under
#                                         the sanitizers, SASS, bench_decode.py against the legacy emitter
#   tilegpu_device.sh build-mma PH OUT     the mma.sync GEMM (sm_90) with and without
#   tilegpu_device.sh run-mma OUT [LOGS]   tilegpu-prefetch-fragments: checks, bench_gemm.py, the
#                                         mma.sync peak (mma_peak.cu), Nsight Compute on both
#   tilegpu_device.sh build-mma-attn PH OUT  attention on mma.sync (sm_90) under both lowerings, in
#   tilegpu_device.sh run-mma-attn OUT [LOGS] one call: legacy, TileGPU (mma), TileGPU without
#                                         tilegpu-fragments-at-use (mma_noatuse), with Q re-read past
#                                         16 registers (mma_h16); every configuration
#                                         of mha.ph's kernels against the interpreter, the attention
#                                         examples on TileGPU for sm_90 and sm_80, sanitizers,
#                                         bench_prefill.py legacy / mma / mma_h16 first
#                                         (MMA_ATTN_MORE="mma_noatuse legacy": those too)
#   tilegpu_device.sh build-shortptr PH OUT  32-bit shared pointers (PH_NVPTX_SHORT_PTR=1) against 64-bit:
#   tilegpu_device.sh run-shortptr OUT [LOGS] GEMM and mha bench, checks, examples, sanitizers, SASS
#   tilegpu_device.sh build-addr PH OUT    shared-memory addressing by rows (cp.async chunks a step
#   tilegpu_device.sh run-addr OUT [LOGS]  apart, ldmatrix offsets as immediates) against the compiler
#                                         before it (PH_BEFORE=path/to/old/ph): GEMM on mma.sync and
#                                         wgmma, mha.ph on mma.sync (legacy too) and wgmma, checks,
#                                         examples, kvcache, sanitizers, the 8-warp GEMM's SASS
#   tilegpu_device.sh build-raster PH OUT  the GEMM's rasterization group (PH_TILEGPU_RASTER_GROUP
#   tilegpu_device.sh run-raster OUT [LOGS] 8 / 12 / 16) and ring depth (PH_TILEGPU_STAGES 3 / 4) on
#                                         mma.sync, group 8 / 16 on wgmma: bench_gemm.py, checks
#   tilegpu_device.sh build-occ PH OUT     occupancy: mma.sync attention with its registers fitted to
#   tilegpu_device.sh run-occ OUT [LOGS]   3 CTAs per SM (PH_TILEGPU_MIN_CTAS=3, mma_c3) against the
#                                         default (mma), Q re-read past 16 registers (mma_h16), the
#                                         legacy emitter and wgmma for every D (wg, sm_90a); the
#                                         8-warp GEMM as 256x128 (g256) and with 4 stages (s4):
#                                         bench_prefill.py, bench_gemm.py, every configuration checked
#   tilegpu_device.sh build-stages PH OUT  a GEMM K loop's fourth ring stage where it keeps the CTAs
#   tilegpu_device.sh run-stages OUT [LOGS] per SM (the default) against 3 (PH_TILEGPU_CHAINED_STAGES=0):
#                                         bench_gemm.py on every GEMM kernel, every configuration checked
#                                         (sm_90, and sm_80 as PTX), sanitizers on the 8-warp kernel
#   tilegpu_device.sh build-checks PH OUT   the correctness half and the attention bench only:
#   tilegpu_device.sh run-checks OUT [LOGS] examples + kvcache (default lowering), the numerics
#                                         kernels with `if` and column reductions, prefill under
#                                         both lowerings, ph_vs_torch.py --only gemm (if copied in)
#   tilegpu_device.sh build-parity PH OUT  what deleting the legacy emitters needs, in one call:
#   tilegpu_device.sh run-parity OUT [LOGS] mha.ph on TileGPU's mma.sync (sm_90) against the legacy
#                                         emitter and the sm_90a default (bench_prefill.py), flash-
#                                         decoding on the SIMT policy against the legacy emitter
#                                         (bench_decode.py), then every mha configuration, the
#                                         examples (sm_90, sm_80) and kvcache with everything on
#                                         TileGPU, the GEMMs, sanitizers (PARITY_BENCH=0: checks only)
# (Since 2026-12-06 both legacy emitters are deleted and PH_GPU_LOWERING=legacy reads as auto: a
# `legacy` variant here builds what the default builds; its figures in docs/ are history.)
set -u
mode=$1; shift

build_gemm() { # PH ROOT OUT LABEL TARGET: every GEMM kernel into OUT/LABEL
  mkdir -p "$3/$4"
  for k in gemm_relu_f16 gemm_gelu_bf16 gemm_relu gemm_relu_f16_ragged gemm_relu_f16_w8; do
    "$1" build "$2/examples/gemm.ph" --kernel $k --target "$5" -o "$3/$4/$k" > "$3/$4/$k.log" 2>&1 || { cat "$3/$4/$k.log"; exit 1; }
  done
}

copy_tools() { # PH ROOT OUT
  cp "$2"/bench/gpu/bench_gemm.py "$2"/bench/gpu/bench_tensorcore.py "$2"/bench/gpu/bench_prefill.py \
     "$2"/bench/gpu/cuda_timing.py "$2"/bench/gpu/tilegpu_device.sh "$2"/tests/gpu/check_examples.sh \
     "$2"/tests/gpu/check_kvcache.sh "$3/"
  cp "$(dirname "$1")/ph-run" "$3/" && strip "$3/ph-run" 2>/dev/null
  echo "built into $3 ($(du -sh "$3" | cut -f1))"
}

check_gemm() { # RUN T LOGS: every configuration of every GEMM kernel against the interpreter
  for g in gemm gemm90a; do
    for k in gemm_relu_f16 gemm_gelu_bf16 gemm_relu; do
      for cfg in BM=64,BN=64,BK=32 BM=128,BN=128,BK=32 BM=128,BN=64,BK=64 BM=64,BN=128,BK=64 BM=128,BN=128,BK=64; do
        if "$1" "$2/$g/$k" --kernel $k --config $cfg --size M=256 --size N=384 --size K=192 --seed 5 --check > "$3/one.log" 2>&1
        then echo "ok   $g $k $cfg: $(grep -o 'rel L2 error [^,]*' "$3/one.log")"
        else echo "FAIL $g $k $cfg"; tail -6 "$3/one.log"; fails=$((fails+1)); fi
      done
    done
    for cfg in BM=128,BN=128,BK=32 BM=128,BN=256,BK=32 BM=128,BN=256,BK=64; do
      if "$1" "$2/$g/gemm_relu_f16_w8" --kernel gemm_relu_f16_w8 --config $cfg --size M=512 --size N=512 --size K=192 --seed 7 --check > "$3/one.log" 2>&1
      then echo "ok   $g gemm_relu_f16_w8 $cfg: $(grep -o 'rel L2 error [^,]*' "$3/one.log")"
      else echo "FAIL $g gemm_relu_f16_w8 $cfg"; tail -6 "$3/one.log"; fails=$((fails+1)); fi
    done
    # A grid of 13 x 3 CTAs: the rasterized order's last group is partial (13 = 8 + 5).
    if "$1" "$2/$g/gemm_relu_f16" --kernel gemm_relu_f16 --config BM=64,BN=64,BK=32 --size M=832 --size N=192 --size K=96 --seed 8 --check > "$3/one.log" 2>&1
    then echo "ok   $g gemm_relu_f16 13x3 CTAs: $(grep -o 'rel L2 error [^,]*' "$3/one.log")"
    else echo "FAIL $g gemm_relu_f16 13x3 CTAs"; tail -6 "$3/one.log"; fails=$((fails+1)); fi
    if "$1" "$2/$g/gemm_relu_f16_ragged" --kernel gemm_relu_f16_ragged --size M=200 --size N=136 --size K=72 --seed 6 --check > "$3/one.log" 2>&1
    then echo "ok   $g gemm_relu_f16_ragged 200x136x72: $(grep -o 'rel L2 error [^,]*' "$3/one.log")"
    else echo "FAIL $g gemm_relu_f16_ragged"; tail -6 "$3/one.log"; fails=$((fails+1)); fi
  done
  for tool in memcheck racecheck synccheck; do
    compute-sanitizer --tool $tool --error-exitcode 3 "$1" "$2/gemm90a/gemm_relu_f16" --kernel gemm_relu_f16 --config BM=128,BN=128,BK=64 --size M=256 --size N=256 --size K=512 --seed 3 --check > "$3/san.log" 2>&1 || fails=$((fails+1))
    echo "$tool wgmma gemm: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$3/san.log")"
  done
  cuobjdump -sass "$2/gemm90a/gemm_relu_f16"/*BM128_BN128_BK64*.cubin > "$3/gemm90a-sass.txt" 2>&1
  echo "gemm90a SASS: $(grep -c HGMMA "$3/gemm90a-sass.txt") HGMMA, $(grep -c LDGSTS "$3/gemm90a-sass.txt") LDGSTS, $(grep -c 'BAR.SYNC' "$3/gemm90a-sass.txt") BAR.SYNC, $(grep -c 'WARPGROUP.DEPBAR\|WARPGROUP.ARRIVE' "$3/gemm90a-sass.txt") WARPGROUP"
}

start_run() { # T: sets R, logs, fails; exits 77 without a GPU
  R=$T/ph-run
  mkdir -p "$logs"
  "$R" --info > /dev/null 2>&1 || { echo "skipped: no GPU"; exit 77; }
  fails=0
}

vs_torch() { # ONLY: shared/tools/ph_vs_torch.py on $T/vs, if it was copied in
  if [ -f "$T/ph_vs_torch.py" ]; then
    (cd "$T" && timeout "${2:-150}" python3 ph_vs_torch.py "$T/vs" --only "$1" --out "$logs/ph_vs_torch-$1.jsonl") > "$logs/ph_vs_torch-$1.log" 2>&1
    grep -E 'gemm relu|prefill|FAILED' "$logs/ph_vs_torch-$1.log"
  fi
}

check_one() { # LABEL DIR ARGS...: ph-run --check, one line of verdict
  label=$1 dir=$2; shift 2
  if "$R" "$dir" "$@" --check > "$logs/one.log" 2>&1
  then echo "ok   $label: $(grep -o 'rel L2 error [^,]*' "$logs/one.log" | head -1)"
  else echo "FAIL $label"; tail -6 "$logs/one.log"; fails=$((fails+1)); fi
}

sanitize() { # LABEL DIR ARGS...: compute-sanitizer memcheck, racecheck and synccheck on one run
  label=$1 dir=$2; shift 2
  for tool in memcheck racecheck synccheck; do
    compute-sanitizer --tool $tool --error-exitcode 3 "$R" "$dir" "$@" --check > "$logs/san.log" 2>&1 || fails=$((fails+1))
    echo "$tool $label: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$logs/san.log")"
  done
}

w8_registers() { # OUT VARIANT...: registers and spills of the 8-warp GEMM's variants as built
  o=$1; shift
  for v in "$@"; do
    echo "$v w8: $(grep -h -o '"registers": *[0-9]*\|"spillStores": *[0-9]*' "$o"/$v/gemm_relu_f16_w8/manifest.json | tr -d ' ' | tr '\n' ' ')"
  done
}

w8_sass() { # VARIANT...: the instruction mix ptxas made of the 8-warp 128x256x64 GEMM (needs $T, $logs)
  for v in "$@"; do
    cuobjdump -sass "$T/$v/gemm_relu_f16_w8/gemm_relu_f16_w8.BM128_BN256_BK64.cubin" > "$logs/$v-w8.sass" 2>&1
    echo "$v w8 SASS: $(grep -cE '^ +/\*[0-9a-f]+\*/' "$logs/$v-w8.sass") instructions; $(grep -oE '^ +/\*[0-9a-f]+\*/ +[A-Z0-9.]+' "$logs/$v-w8.sass" | awk '{split($2,a,"."); print a[1]}' | sort | uniq -c | sort -rn | head -12 | awk '{printf "%s %s, ", $2, $1}')"
  done
}

build_attn() { # PH ROOT OUT LABEL [TARGET]: mha.ph and attention_tc.ph for TARGET (sm_90a) into OUT/LABEL
  mkdir -p "$3/$4/prefill"
  for k in mha_f16 mha_causal_f16 mha_bf16; do
    "$1" build "$2/examples/mha.ph" --kernel $k --target "${5:-sm_90a}" -o "$3/$4/prefill/$k" > "$3/$4/prefill/$k.log" 2>&1 || { cat "$3/$4/prefill/$k.log"; exit 1; }
  done
  # On mma.sync (TileGPU forced) some of attention_tc's variants need more shared memory than
  # there is: only mha.ph's kernels are built for it.
  [ "${5:-sm_90a}" = sm_90a ] || return 0
  "$1" build "$2/bench/gpu/attention_tc.ph" --target "${5:-sm_90a}" -o "$3/$4/attention_tc" > "$3/$4/attention_tc.log" 2>&1 || { cat "$3/$4/attention_tc.log"; exit 1; }
}

check_attn() { # VARIANT: every configuration of mha.ph and attention_tc.ph against the interpreter
  for k in mha_f16 mha_causal_f16 mha_bf16; do
    for d in 64 128; do for br in 64 128; do
      check_one "$1 $k D=$d BR=$br" "$T/$1/prefill/$k" --kernel $k --config D=$d,BR=$br,BC=32 --size B=1 --size H=3 --size N=256 --seed 5
    done; done
  done
  [ -d "$T/$1/attention_tc" ] || return 0
  for k in attn_w4 causal_w4 attn_w8 causal_w8; do
    for d in 64 128; do for br in 64 128; do for bc in 32 64 128; do
      case $k in *w8) [ $br = 128 ] || continue ;; esac
      check_one "$1 $k D=$d BR=$br BC=$bc" "$T/$1/attention_tc" --kernel $k --config D=$d,BR=$br,BC=$bc --size B=1 --size H=2 --size N=256 --seed 6
    done; done; done
  done
}

case $mode in
build-mma-attn)
  ph=$1 out=$2
  root=$(cd "$(dirname "$0")/../.." && pwd)
  PH_GPU_LOWERING=legacy build_attn "$ph" "$root" "$out" legacy sm_90
  PH_GPU_LOWERING=tilegpu build_attn "$ph" "$root" "$out" mma sm_90
  PH_GPU_LOWERING=tilegpu PH_TILEGPU_AT_USE=0 build_attn "$ph" "$root" "$out" mma_noatuse sm_90
  # Q read in every key block once it holds more than 16 registers a thread (default 32, the
  # legacy emitter's rule): D = 64, BR = 128 drops from 208 to 168 registers, the legacy's count.
  PH_GPU_LOWERING=tilegpu PH_TILEGPU_HOISTED_REGS=16 build_attn "$ph" "$root" "$out" mma_h16 sm_90
  # The attention examples (flash, causal, sliding-window, ALiBi, ...) with TileGPU forced, for
  # sm_90 and sm_80 (PTX that any later GPU runs), against the interpreter.
  for a in sm_90 sm_80; do
    mkdir -p "$out/ex_$a"
    PH_GPU_LOWERING=tilegpu PH_GPU_ARCH=$a sh "$root/tests/gpu/check_examples.sh" build "$ph" "$root/examples" "$out/ex_$a" > "$out/ex_$a.build.log" 2>&1 || echo "examples on TileGPU ($a): some did not build (ex_$a.build.log)"
  done
  # An sm_80 cubin does not load on an H200 (a cubin runs on its own major architecture): the
  # sm_80 variants travel as their PTX in the cubin's place, which the driver compiles when it
  # loads it (NUL-terminated, as tests/differential/gpu.py's ptx_in_place does).
  for ptx in "$out"/ex_sm_80/*/*.ptx; do
    [ -f "$ptx" ] && { cat "$ptx"; printf '\000'; } > "${ptx%.ptx}.cubin"
  done
  for v in legacy mma mma_noatuse mma_h16; do
    echo "$v: $(grep -h -o '"registers": *[0-9]*\|"spillStores": *[0-9]*' "$out"/$v/prefill/*/manifest.json | tr -d ' ' | tr '\n' ' ')"
  done
  copy_tools "$ph" "$root" "$out"
  ;;
run-mma-attn)
  T=$(cd "$1" && pwd) logs=${2:-$1/logs}
  start_run
  # The bench first (what decides the default), variants back to back; then the checks.
  for v in legacy mma mma_h16 ${MMA_ATTN_MORE:-}; do
    (cd "$T" && timeout 200 python3 bench_prefill.py "$R" "$T/$v/prefill" --out "$logs/prefill-$v.jsonl") > "$logs/prefill-$v.log" 2>&1 || fails=$((fails+1))
    echo "prefill ($v):"; tail -8 "$logs/prefill-$v.log"
  done
  for v in mma mma_h16; do check_attn $v; done
  for a in sm_90 sm_80; do
    [ -d "$T/ex_$a" ] || continue
    sh "$T/check_examples.sh" run "$R" "$T/ex_$a" > "$logs/examples-$a.log" 2>&1 || fails=$((fails+1))
    echo "examples (TileGPU, $a): $(grep -c '^ok' "$logs/examples-$a.log") ok, $(grep -c '^FAIL' "$logs/examples-$a.log") failed"
    grep FAIL -A6 "$logs/examples-$a.log" | head -30
  done
  for tool in memcheck racecheck synccheck; do
    for run in "$T/mma/prefill/mha_f16 --kernel mha_f16 --config D=64,BR=64,BC=32" \
               "$T/mma/prefill/mha_causal_f16 --kernel mha_causal_f16 --config D=128,BR=128,BC=32"; do
      # shellcheck disable=SC2086
      compute-sanitizer --tool $tool --error-exitcode 3 "$R" $run --size B=1 --size H=1 --size N=512 --seed 3 --check > "$logs/san.log" 2>&1 || fails=$((fails+1))
      echo "$tool $(echo $run | awk '{print $3 " " $5}'): $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$logs/san.log")"
    done
  done
  echo "failures: $fails"
  [ $fails -eq 0 ]
  ;;
build-attn)
  ph=$1 out=$2
  root=$(cd "$(dirname "$0")/../.." && pwd)
  build_attn "$ph" "$root" "$out" wg
  PH_TILEGPU_WGMMA_STAGES=2 build_attn "$ph" "$root" "$out" wg_s2
  PH_GPU_LOWERING=legacy build_attn "$ph" "$root" "$out" legacy
  # Rings on mbarriers (PH_TILEGPU_MBARRIERS=1), on wgmma and on TileGPU's mma.sync (sm_90).
  PH_TILEGPU_MBARRIERS=1 build_attn "$ph" "$root" "$out" wg_mb
  PH_GPU_LOWERING=tilegpu build_attn "$ph" "$root" "$out" mma sm_90
  PH_GPU_LOWERING=tilegpu PH_TILEGPU_MBARRIERS=1 build_attn "$ph" "$root" "$out" mma_mb sm_90
  # Everything on TileGPU (PH_GPU_LOWERING=tilegpu: SIMT kernels on its SIMT policy too), for
  # sm_90: the examples, the kvcache checks and decode next to the default lowering.
  mkdir -p "$out/ex_tg" "$out/kv_tg" "$out/dec"
  PH_GPU_LOWERING=tilegpu PH_TILEGPU_MBARRIERS=1 PH_GPU_ARCH=sm_90 sh "$root/tests/gpu/check_examples.sh" build "$ph" "$root/examples" "$out/ex_tg" > "$out/ex_tg.build.log" 2>&1 || echo "examples on TileGPU: some did not build (ex_tg.build.log)"
  PH_GPU_LOWERING=tilegpu PH_TILEGPU_MBARRIERS=1 PH_GPU_ARCH=sm_90 sh "$root/tests/gpu/check_kvcache.sh" build "$ph" "$out/kv_tg" > "$out/kv_tg.build.log" 2>&1 || echo "kvcache on TileGPU: some did not build (kv_tg.build.log)"
  "$ph" build "$root/examples/decode_attention.ph" --target sm_90 -o "$out/dec/default" > "$out/dec/default.log" 2>&1 || cat "$out/dec/default.log"
  PH_GPU_LOWERING=tilegpu "$ph" build "$root/examples/decode_attention.ph" --target sm_90 -o "$out/dec/tilegpu" > "$out/dec/tilegpu.log" 2>&1 || cat "$out/dec/tilegpu.log"
  cp "$root/bench/gpu/bench_decode.py" "$out/"
  mkdir -p "$out/ex" "$out/kv" "$out/vs"
  PH_GPU_ARCH=sm_90a sh "$root/tests/gpu/check_examples.sh" build "$ph" "$root/examples" "$out/ex" > "$out/ex.build.log" 2>&1 || { cat "$out/ex.build.log"; exit 1; }
  PH_GPU_ARCH=sm_90a sh "$root/tests/gpu/check_kvcache.sh" build "$ph" "$out/kv" > "$out/kv.build.log" 2>&1 || { tail -20 "$out/kv.build.log"; exit 1; }
  "$ph" build "$root/examples/mha.ph" --target sm_90a -o "$out/vs/mha" > "$out/vs/mha.log" 2>&1 || { cat "$out/vs/mha.log"; exit 1; }
  grep -h -o '"lowering": *"[^"]*"\|wgmma[^"]*' "$out"/wg/prefill/*/manifest.json | sort | uniq -c | head
  copy_tools "$ph" "$root" "$out"
  ;;
run-attn)
  T=$(cd "$1" && pwd) logs=${2:-$1/logs}
  start_run
  # Every configuration against the fp64 interpreter at N = 256 (the causal kernels
  # meet a diagonal block in every row of CTAs), for every variant but legacy and wg_s2.
  for v in wg wg_mb mma_mb; do [ -d "$T/$v" ] && check_attn $v; done
  check_one "wg_s2 attn_w8 D=128 BC=64" "$T/wg_s2/attention_tc" --kernel attn_w8 --config D=128,BR=128,BC=64 --size B=1 --size H=2 --size N=256 --seed 6
  sh "$T/check_examples.sh" run "$R" "$T/ex" > "$logs/examples-90a.log" 2>&1 || fails=$((fails+1))
  echo "examples (sm_90a): $(grep -c '^ok' "$logs/examples-90a.log") ok, $(grep -c '^FAIL' "$logs/examples-90a.log") failed"
  grep FAIL -A6 "$logs/examples-90a.log" | head -40
  sh "$T/check_kvcache.sh" run "$R" "$T/kv" > "$logs/kv-90a.log" 2>&1 || fails=$((fails+1))
  echo "kvcache (sm_90a): $(grep -c 'vs interpreter: ok' "$logs/kv-90a.log") ok; $(grep failures "$logs/kv-90a.log")"
  for tool in memcheck racecheck synccheck; do
    for run in "$T/wg/attention_tc --kernel attn_w8 --config D=128,BR=128,BC=64 --size B=1 --size H=1 --size N=512" \
               "$T/wg_mb/attention_tc --kernel causal_w8 --config D=128,BR=128,BC=64 --size B=1 --size H=1 --size N=512" \
               "$T/mma_mb/prefill/mha_f16 --kernel mha_f16 --config D=64,BR=64,BC=32 --size B=1 --size H=1 --size N=512" \
               "$T/ex/flash_attention --kernel flash_attention --size Nq=128 --size Nk=200"; do
      # shellcheck disable=SC2086
      compute-sanitizer --tool $tool --error-exitcode 3 "$R" $run --seed 3 --check > "$logs/san.log" 2>&1 || fails=$((fails+1))
      echo "$tool $(echo $run | awk '{print $1 " " $3 " " $5}'): $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$logs/san.log")"
    done
  done
  for v in wg wg_mb; do
    [ -d "$T/$v/attention_tc" ] || continue
    cuobjdump -sass "$(ls "$T"/$v/attention_tc/*attn_w8*D128*BC64*.cubin | head -1)" > "$logs/attn-sass-$v.txt" 2>&1
    echo "$v attn_w8 D128 BC64 SASS: $(grep -c HGMMA "$logs/attn-sass-$v.txt") HGMMA, $(grep -c HMMA "$logs/attn-sass-$v.txt") HMMA, $(grep -c LDGSTS "$logs/attn-sass-$v.txt") LDGSTS, $(grep -c 'BAR.SYNC' "$logs/attn-sass-$v.txt") BAR.SYNC, $(grep -c 'SYNCS' "$logs/attn-sass-$v.txt") SYNCS (mbarrier), $(grep -c 'WARPGROUP' "$logs/attn-sass-$v.txt") WARPGROUP"
  done
  for v in wg wg_mb mma mma_mb legacy; do
    [ -d "$T/$v" ] || continue
    (cd "$T" && timeout 200 python3 bench_prefill.py "$R" "$T/$v/prefill" --out "$logs/prefill-$v.jsonl") > "$logs/prefill-$v.log" 2>&1 || fails=$((fails+1))
    echo "prefill ($v):"; tail -8 "$logs/prefill-$v.log"
  done
  if [ -d "$T/ex_tg" ]; then
    sh "$T/check_examples.sh" run "$R" "$T/ex_tg" > "$logs/examples-tg.log" 2>&1 || fails=$((fails+1))
    echo "examples (all on TileGPU, sm_90): $(grep -c '^ok' "$logs/examples-tg.log") ok, $(grep -c '^FAIL' "$logs/examples-tg.log") failed"
    grep FAIL -A6 "$logs/examples-tg.log" | head -30
    sh "$T/check_kvcache.sh" run "$R" "$T/kv_tg" > "$logs/kv-tg.log" 2>&1 || fails=$((fails+1))
    echo "kvcache (all on TileGPU, sm_90): $(grep -c 'vs interpreter: ok' "$logs/kv-tg.log") ok; $(grep failures "$logs/kv-tg.log")"
  fi
  if [ -d "$T/dec/tilegpu" ]; then
    (cd "$T" && timeout 150 python3 bench_decode.py "$R" "$T/dec/default,$T/dec/tilegpu" --labels default,tilegpu --out "$logs/decode.jsonl") > "$logs/decode.log" 2>&1 || fails=$((fails+1))
    echo "decode (default vs all on TileGPU):"; tail -12 "$logs/decode.log"
  fi
  vs_torch prefill 240
  echo "failures: $fails"
  [ $fails -eq 0 ]
  ;;
build-ws)
  # A producer warpgroup (PH_TILEGPU_WARPSPEC=1) against the default, sm_90a: mha.ph's
  # prefill kernels and attention_tc.ph's kernels one folder each (bench_tensorcore.py's layout).
  ph=$1 out=$2
  root=$(cd "$(dirname "$0")/../.." && pwd)
  for v in wg ws ws2; do
    case $v in wg) e= ;; ws) e="PH_TILEGPU_WARPSPEC=1" ;; ws2) e="PH_TILEGPU_WARPSPEC=1 PH_TILEGPU_WS_REGS=232,40" ;; esac
    mkdir -p "$out/$v/prefill" "$out/$v/tc"
    for k in mha_f16 mha_causal_f16 mha_bf16; do
      env $e "$ph" build "$root/examples/mha.ph" --kernel $k --target sm_90a -o "$out/$v/prefill/$k" > "$out/$v/prefill/$k.log" 2>&1 || { cat "$out/$v/prefill/$k.log"; exit 1; }
    done
    for k in attn_w4 attn_w8 causal_w4 causal_w8; do
      env $e "$ph" build "$root/bench/gpu/attention_tc.ph" --kernel $k --target sm_90a -o "$out/$v/tc/$k" > "$out/$v/tc/$k.log" 2>&1 || { cat "$out/$v/tc/$k.log"; exit 1; }
    done
  done
  copy_tools "$ph" "$root" "$out"
  ;;
run-ws)
  T=$(cd "$1" && pwd) logs=${2:-$1/logs}
  start_run
  for k in mha_f16 mha_causal_f16 mha_bf16; do
    for d in 64 128; do for br in 64 128; do
      check_one "ws $k D=$d BR=$br" "$T/ws/prefill/$k" --kernel $k --config D=$d,BR=$br,BC=32 --size B=1 --size H=3 --size N=256 --seed 5
    done; done
  done
  for k in attn_w4 causal_w4 attn_w8 causal_w8; do
    for d in 64 128; do for br in 64 128; do for bc in 32 64 128; do
      case $k in *w8) [ $br = 128 ] || continue ;; esac
      check_one "ws $k D=$d BR=$br BC=$bc" "$T/ws/tc/$k" --kernel $k --config D=$d,BR=$br,BC=$bc --size B=1 --size H=2 --size N=256 --seed 6
      check_one "ws $k D=$d BR=$br BC=$bc N=200" "$T/ws/tc/$k" --kernel $k --config D=$d,BR=$br,BC=$bc --size B=1 --size H=2 --size N=$((br * 2)) --seed 7
    done; done; done
  done
  for tool in memcheck racecheck synccheck; do
    for k in attn_w8 causal_w8; do
      compute-sanitizer --tool $tool --error-exitcode 3 "$R" "$T/ws/tc/$k" --kernel $k --config D=128,BR=128,BC=64 --size B=1 --size H=1 --size N=512 --seed 3 --check > "$logs/san.log" 2>&1 || fails=$((fails+1))
      echo "$tool ws $k D=128 BC=64: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$logs/san.log")"
    done
  done
  cuobjdump -sass "$(ls "$T"/ws/tc/attn_w8/*D128*BC64*.cubin | head -1)" > "$logs/ws-sass.txt" 2>&1
  echo "ws attn_w8 D128 BC64 SASS: $(grep -c HGMMA "$logs/ws-sass.txt") HGMMA, $(grep -c LDGSTS "$logs/ws-sass.txt") LDGSTS, $(grep -c 'BAR.SYNC\|BAR.SYNC.DEFER' "$logs/ws-sass.txt") BAR.SYNC, $(grep -c 'SYNCS' "$logs/ws-sass.txt") SYNCS, $(grep -c USETMAXREG "$logs/ws-sass.txt") USETMAXREG"
  for v in wg ws ws2; do
    (cd "$T" && timeout 200 python3 bench_prefill.py "$R" "$T/$v/prefill" --out "$logs/prefill-$v.jsonl") > "$logs/prefill-$v.log" 2>&1 || fails=$((fails+1))
    echo "prefill ($v):"; tail -5 "$logs/prefill-$v.log"
    (cd "$T" && timeout 200 python3 bench_tensorcore.py "$R" "$T/$v/tc" --iters 20 --no-flex) > "$logs/tc-$v.log" 2>&1 || fails=$((fails+1))
    echo "attention_tc ($v):"; tail -14 "$logs/tc-$v.log"
  done
  echo "failures: $fails"
  [ $fails -eq 0 ]
  ;;
build-simt)
  ph=$1 out=$2
  root=$(cd "$(dirname "$0")/../.." && pwd)
  mkdir -p "$out/ex_tg" "$out/kv_tg" "$out/dec"
  PH_GPU_LOWERING=tilegpu PH_GPU_ARCH=sm_90 sh "$root/tests/gpu/check_examples.sh" build "$ph" "$root/examples" "$out/ex_tg" > "$out/ex_tg.build.log" 2>&1 || echo "examples on TileGPU: some did not build (ex_tg.build.log)"
  PH_GPU_LOWERING=tilegpu PH_GPU_ARCH=sm_90 sh "$root/tests/gpu/check_kvcache.sh" build "$ph" "$out/kv_tg" > "$out/kv_tg.build.log" 2>&1 || echo "kvcache on TileGPU: some did not build (kv_tg.build.log)"
  # The default lowering on sm_90a (wgmma where it takes a kernel, TileGPU SIMT first for the rest).
  mkdir -p "$out/ex_def"
  PH_GPU_ARCH=sm_90a sh "$root/tests/gpu/check_examples.sh" build "$ph" "$root/examples" "$out/ex_def" > "$out/ex_def.build.log" 2>&1 || echo "examples, default lowering: some did not build (ex_def.build.log)"
  PH_GPU_LOWERING=legacy "$ph" build "$root/examples/decode_attention.ph" --target sm_90 -o "$out/dec/legacy" > "$out/dec/legacy.log" 2>&1 || cat "$out/dec/legacy.log"
  PH_GPU_LOWERING=tilegpu "$ph" build "$root/examples/decode_attention.ph" --target sm_90 -o "$out/dec/tg" > "$out/dec/tg.log" 2>&1 || cat "$out/dec/tg.log"
  # SIMT_VARIANTS=1: the ring depth and key-block A/B variants and the memory-bound examples too.
  [ "${SIMT_VARIANTS:-0}" = 1 ] && { PH_GPU_LOWERING=tilegpu PH_TILEGPU_STAGES=3 "$ph" build "$root/examples/decode_attention.ph" --target sm_90 -o "$out/dec/tg_s3" > "$out/dec/tg_s3.log" 2>&1 || cat "$out/dec/tg_s3.log"; }
  # Key blocks of 32 too (a copy of the example with BC in [32, 64]): smaller rings, more CTAs per SM.
  sed 's/BC in \[64\]/BC in [32, 64]/' "$root/examples/decode_attention.ph" > "$out/dec/decode_bc.ph"
  grep -q 'BC in \[32, 64\]' "$out/dec/decode_bc.ph" || { echo "decode_bc.ph: the autotune line changed"; exit 1; }
  (cd "$root" && PH_GPU_LOWERING=tilegpu "$ph" build "$out/dec/decode_bc.ph" --target sm_90 -o "$out/dec/tg_bc" > "$out/dec/tg_bc.log" 2>&1) || cat "$out/dec/tg_bc.log"
  if [ "${SIMT_VARIANTS:-0}" = 1 ]; then
    (cd "$root" && PH_GPU_LOWERING=legacy "$ph" build "$out/dec/decode_bc.ph" --target sm_90 -o "$out/dec/legacy_bc" > "$out/dec/legacy_bc.log" 2>&1) || cat "$out/dec/legacy_bc.log"
    (cd "$root" && PH_GPU_LOWERING=tilegpu PH_TILEGPU_STAGES=3 "$ph" build "$out/dec/decode_bc.ph" --target sm_90 -o "$out/dec/tg_bc_s3" > "$out/dec/tg_bc_s3.log" 2>&1) || cat "$out/dec/tg_bc_s3.log"
  fi
  # The memory-bound examples under both lowerings, for bench_memory_bound.py --prebuilt.
  [ "${SIMT_VARIANTS:-0}" = 1 ] && for k in softmax layer_norm rms_norm swiglu cross_entropy; do
    PH_GPU_LOWERING=legacy "$ph" build "$root/examples/$k.ph" --kernel $k --target sm_90 -o "$out/mem/legacy/$k" > "$out/mem.log" 2>&1 || cat "$out/mem.log"
    PH_GPU_LOWERING=tilegpu "$ph" build "$root/examples/$k.ph" --kernel $k --target sm_90 -o "$out/mem/tg/$k" > "$out/mem.log" 2>&1 || cat "$out/mem.log"
  done
  cp "$root/bench/gpu/bench_memory_bound.py" "$out/"
  cp "$root/bench/gpu/bench_decode.py" "$out/"
  /usr/bin/python3 "$root/tests/gpu/decode_inputs.py" "$out/dec" || exit 1
  copy_tools "$ph" "$root" "$out"
  ;;
run-simt)
  T=$(cd "$1" && pwd) logs=${2:-$1/logs}
  start_run
  sh "$T/check_examples.sh" run "$R" "$T/ex_tg" > "$logs/examples-tg.log" 2>&1 || fails=$((fails+1))
  echo "examples (all on TileGPU, sm_90): $(grep -c '^ok' "$logs/examples-tg.log") ok, $(grep -c '^FAIL' "$logs/examples-tg.log") failed"
  grep FAIL -A6 "$logs/examples-tg.log" | head -30
  if [ -d "$T/ex_def" ]; then
    sh "$T/check_examples.sh" run "$R" "$T/ex_def" > "$logs/examples-def.log" 2>&1 || fails=$((fails+1))
    echo "examples (default lowering, sm_90a): $(grep -c '^ok' "$logs/examples-def.log") ok, $(grep -c '^FAIL' "$logs/examples-def.log") failed"
    grep FAIL -A6 "$logs/examples-def.log" | head -30
  fi
  sh "$T/check_kvcache.sh" run "$R" "$T/kv_tg" > "$logs/kv-tg.log" 2>&1 || fails=$((fails+1))
  echo "kvcache (all on TileGPU, sm_90): $(grep -c 'vs interpreter: ok' "$logs/kv-tg.log") ok; $(grep failures "$logs/kv-tg.log")"
  D=$T/dec
  for v in legacy tg tg_s3 tg_bc; do
    [ -d "$D/$v" ] || continue
    for g in 1 4; do
      for s in 16 8; do
        check_one "$v decode_split G=$g S=$s" "$D/$v" --kernel decode_split --config D=128,G=$g,BC=64,S=$s \
          --in Q="$D/q$g.npy" --in K="$D/k.npy" --in V="$D/v.npy" --in Lens="$D/lens.npy"
      done
    done
  done
  for g in 1 4; do
    check_one "tg_bc decode_split G=$g BC=32 S=16" "$D/tg_bc" --kernel decode_split --config D=128,G=$g,BC=32,S=16 \
      --in Q="$D/q$g.npy" --in K="$D/k.npy" --in V="$D/v.npy" --in Lens="$D/lens.npy"
  done
  for tool in memcheck racecheck synccheck; do
    for v in tg tg_bc; do
      for g in 1 4; do
        compute-sanitizer --tool $tool --error-exitcode 3 "$R" "$D/$v" --kernel decode_split --config D=128,G=$g,BC=64,S=8 \
          --in Q="$D/q$g.npy" --in K="$D/k.npy" --in V="$D/v.npy" --in Lens="$D/lens.npy" --check > "$logs/san.log" 2>&1 || fails=$((fails+1))
        echo "$tool $v decode_split G=$g: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$logs/san.log")"
      done
    done
  done
  for v in legacy tg; do
    c=$(ls "$D/$v"/*decode_split*G4*.cubin 2>/dev/null | head -1)
    [ -n "$c" ] || continue
    cuobjdump -sass "$c" > "$logs/dec-sass-$v.txt" 2>&1
    echo "$v decode_split G=4 SASS: $(grep -c 'LDGSTS' "$logs/dec-sass-$v.txt") LDGSTS, $(grep -c 'LDG' "$logs/dec-sass-$v.txt") LDG*, $(grep -c 'LDS' "$logs/dec-sass-$v.txt") LDS*, $(grep -c 'FFMA' "$logs/dec-sass-$v.txt") FFMA, $(grep -c 'BAR.SYNC' "$logs/dec-sass-$v.txt") BAR.SYNC, $(grep -c 'SYNCS' "$logs/dec-sass-$v.txt") SYNCS"
  done
  dirs="" labels=""
  for v in legacy tg tg_s3 legacy_bc tg_bc tg_bc_s3; do
    [ -d "$D/$v" ] || continue
    dirs="$dirs${dirs:+,}$D/$v" labels="$labels${labels:+,}$v"
  done
  for v in legacy tg; do
    [ -d "$T/mem/$v" ] || continue
    (cd "$T" && timeout 150 python3 bench_memory_bound.py - "$R" --prebuilt "$T/mem/$v" --only softmax,layer_norm,rms_norm,swiglu,cross_entropy --out "$logs/mem-$v.jsonl") > "$logs/mem-$v.log" 2>&1 || fails=$((fails+1))
    echo "memory-bound ($v):"; tail -7 "$logs/mem-$v.log"
  done
  # SIMT_BENCH_S=0: the checks only.
  if [ "${SIMT_BENCH_S:-400}" != 0 ]; then
    (cd "$T" && timeout ${SIMT_BENCH_S:-400} python3 bench_decode.py "$R" "$dirs" --labels "$labels" ${SIMT_SHAPES:+--shapes $SIMT_SHAPES} --backends cudnn,flash --out "$logs/decode.jsonl") > "$logs/decode.log" 2>&1 || fails=$((fails+1))
    echo "decode (legacy emitter vs TileGPU SIMT variants):"; tail -16 "$logs/decode.log"
  fi
  echo "failures: $fails"
  [ $fails -eq 0 ]
  ;;
build-gemm)
  ph=$1 out=$2
  root=$(cd "$(dirname "$0")/../.." && pwd)
  build_gemm "$ph" "$root" "$out" gemm sm_90
  build_gemm "$ph" "$root" "$out" gemm90a sm_90a
  PH_TILEGPU_RASTER=0 build_gemm "$ph" "$root" "$out" gemm90a_noraster sm_90a
  PH_TILEGPU_WGMMA_STAGES=3 build_gemm "$ph" "$root" "$out" gemm90a_s3 sm_90a
  PH_TILEGPU_WGMMA_STAGES=5 build_gemm "$ph" "$root" "$out" gemm90a_s5 sm_90a
  mkdir -p "$out/vs"; cp -r "$out/gemm90a/gemm_relu" "$out/vs/gemm_relu"
  copy_tools "$ph" "$root" "$out"
  ;;
run-gemm)
  T=$(cd "$1" && pwd) logs=${2:-$1/logs}
  start_run
  check_gemm "$R" "$T" "$logs"
  (cd "$T" && python3 bench_gemm.py "$R" "$T/gemm" "$T/gemm90a" "$T/gemm90a_noraster" "$T/gemm90a_s3" "$T/gemm90a_s5" --out "$logs/gemm.jsonl") > "$logs/gemm-bench.log" 2>&1 || fails=$((fails+1))
  tail -44 "$logs/gemm-bench.log"
  vs_torch gemm
  echo "failures: $fails"
  [ $fails -eq 0 ]
  ;;
build-mma)
  # The mma.sync GEMM (sm_90) with and without tilegpu-prefetch-fragments, wgmma for reference,
  # the mma.sync peak microbenchmark (compiled there) and Nsight Compute on both GEMMs.
  ph=$1 out=$2
  root=$(cd "$(dirname "$0")/../.." && pwd)
  build_gemm "$ph" "$root" "$out" gemm sm_90
  PH_TILEGPU_PREFETCH=0 build_gemm "$ph" "$root" "$out" gemm_noprefetch sm_90
  build_gemm "$ph" "$root" "$out" gemm90a sm_90a
  mkdir -p "$out/vs"; cp -r "$out/gemm/gemm_relu" "$out/vs/gemm_relu"
  cp "$root/bench/gpu/mma_peak.cu" "$root/bench/gpu/ncu_gemm.sh" "$root/bench/gpu/ncu_stalls.py" "$out/"
  copy_tools "$ph" "$root" "$out"
  ;;
run-mma)
  T=$(cd "$1" && pwd) logs=${2:-$1/logs}
  start_run
  check_gemm "$R" "$T" "$logs"
  for d in gemm_noprefetch; do
    for k in gemm_relu_f16 gemm_relu_f16_w8; do
      for cfg in BM=128,BN=128,BK=32 BM=128,BN=128,BK=64; do
        [ $k = gemm_relu_f16_w8 ] && [ $cfg = BM=128,BN=128,BK=64 ] && cfg=BM=128,BN=256,BK=32
        check_one "$d $k $cfg" "$T/$d/$k" --kernel $k --config $cfg --size M=256 --size N=512 --size K=192 --seed 5
      done
    done
  done
  if command -v nvcc >/dev/null; then
    (cd "$T" && nvcc -O3 -arch=sm_90a -o mma_peak mma_peak.cu && ./mma_peak) > "$logs/mma-peak.log" 2>&1
    cat "$logs/mma-peak.log"
  fi
  (cd "$T" && python3 bench_gemm.py "$R" "$T/gemm" "$T/gemm_noprefetch" "$T/gemm90a" --out "$logs/gemm.jsonl") > "$logs/gemm-bench.log" 2>&1 || fails=$((fails+1))
  tail -40 "$logs/gemm-bench.log"
  vs_torch gemm
  for d in gemm gemm_noprefetch; do
    sh "$T/ncu_gemm.sh" "$R" "$T/$d/gemm_relu_f16" gemm_relu_f16 "${MMA_NCU_CONFIG:-BM=128,BN=128,BK=32}" 4096 "$logs/ncu-$d" > "$logs/ncu-$d.log" 2>&1
    echo "== ncu $d"; cat "$logs/ncu-$d.log"
    grep -c -E 'HMMA' "$logs/ncu-$d/ph.sass" 2>/dev/null | sed 's/^/HMMA in SASS: /'
  done
  echo "failures: $fails"
  [ $fails -eq 0 ]
  ;;
build-shortptr)
  # 32-bit shared-memory pointers in the NVPTX backend (PH_NVPTX_SHORT_PTR=1: LLVM's
  # -nvptx-short-ptr, Triton's setting) against the default 64-bit ones: the GEMMs (mma.sync and
  # wgmma), mha.ph on TileGPU's mma.sync and on wgmma, and every example with the flag (sm_90a).
  ph=$1 out=$2
  root=$(cd "$(dirname "$0")/../.." && pwd)
  build_gemm "$ph" "$root" "$out" gemm sm_90
  PH_NVPTX_SHORT_PTR=1 build_gemm "$ph" "$root" "$out" gemm_sp sm_90
  build_gemm "$ph" "$root" "$out" gemm90a sm_90a
  PH_NVPTX_SHORT_PTR=1 build_gemm "$ph" "$root" "$out" gemm90a_sp sm_90a
  PH_GPU_LOWERING=tilegpu build_attn "$ph" "$root" "$out" mma sm_90
  PH_GPU_LOWERING=tilegpu PH_NVPTX_SHORT_PTR=1 build_attn "$ph" "$root" "$out" mma_sp sm_90
  mkdir -p "$out/ex_sp" "$out/vs"
  PH_NVPTX_SHORT_PTR=1 PH_GPU_ARCH=sm_90a sh "$root/tests/gpu/check_examples.sh" build "$ph" "$root/examples" "$out/ex_sp" > "$out/ex_sp.build.log" 2>&1 || echo "examples with short pointers: some did not build (ex_sp.build.log)"
  cp -r "$out/gemm/gemm_relu" "$out/vs/gemm_relu"
  [ -f "$root/../shared/tools/ph_vs_torch.py" ] && cp "$root/../shared/tools/ph_vs_torch.py" "$out/"
  w8_registers "$out" gemm gemm_sp
  copy_tools "$ph" "$root" "$out"
  ;;
run-shortptr)
  T=$(cd "$1" && pwd) logs=${2:-$1/logs}
  start_run
  (cd "$T" && python3 bench_gemm.py "$R" "$T/gemm" "$T/gemm_sp" "$T/gemm90a" "$T/gemm90a_sp" --kernels gemm_relu_f16,gemm_relu_f16_w8,gemm_relu --out "$logs/gemm.jsonl") > "$logs/gemm-bench.log" 2>&1 || fails=$((fails+1))
  tail -30 "$logs/gemm-bench.log"
  for v in mma mma_sp; do
    (cd "$T" && timeout 200 python3 bench_prefill.py "$R" "$T/$v/prefill" --out "$logs/prefill-$v.jsonl") > "$logs/prefill-$v.log" 2>&1 || fails=$((fails+1))
    echo "prefill ($v):"; tail -5 "$logs/prefill-$v.log"
  done
  vs_torch gemm 120
  for g in gemm_sp gemm90a_sp; do
    for k in gemm_relu_f16 gemm_gelu_bf16 gemm_relu; do
      for cfg in BM=64,BN=64,BK=32 BM=128,BN=128,BK=32 BM=128,BN=128,BK=64; do
        check_one "$g $k $cfg" "$T/$g/$k" --kernel $k --config $cfg --size M=256 --size N=384 --size K=192 --seed 5
      done
    done
    check_one "$g gemm_relu_f16_w8 BM=128,BN=256,BK=64" "$T/$g/gemm_relu_f16_w8" --kernel gemm_relu_f16_w8 --config BM=128,BN=256,BK=64 --size M=512 --size N=512 --size K=192 --seed 7
    check_one "$g gemm_relu_f16_ragged" "$T/$g/gemm_relu_f16_ragged" --kernel gemm_relu_f16_ragged --size M=200 --size N=136 --size K=72 --seed 7
  done
  check_attn mma_sp
  sh "$T/check_examples.sh" run "$R" "$T/ex_sp" > "$logs/examples-sp.log" 2>&1 || fails=$((fails+1))
  echo "examples (short pointers, sm_90a): $(grep -c '^ok' "$logs/examples-sp.log") ok, $(grep -c '^FAIL' "$logs/examples-sp.log") failed"
  grep FAIL -A6 "$logs/examples-sp.log" | head -20
  for tool in memcheck racecheck; do
    for run in "$T/gemm_sp/gemm_relu_f16_w8 --kernel gemm_relu_f16_w8 --config BM=128,BN=256,BK=64 --size M=512 --size N=512 --size K=256" \
               "$T/mma_sp/prefill/mha_f16 --kernel mha_f16 --config D=64,BR=64,BC=32 --size B=1 --size H=1 --size N=512"; do
      # shellcheck disable=SC2086
      compute-sanitizer --tool $tool --error-exitcode 3 "$R" $run --seed 3 --check > "$logs/san.log" 2>&1 || fails=$((fails+1))
      echo "$tool $(echo $run | awk '{print $3 " " $5}'): $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$logs/san.log")"
    done
  done
  # SASS of the 8-warp GEMM's K loop, both pointer widths: the instruction mix ptxas made.
  w8_sass gemm gemm_sp
  echo "failures: $fails"
  [ $fails -eq 0 ]
  ;;
build-addr)
  ph=$1 out=$2 before=${PH_BEFORE:?set PH_BEFORE to the compiler to compare against}
  root=$(cd "$(dirname "$0")/../.." && pwd)
  build_gemm "$before" "$root" "$out" gemm_b sm_90
  build_gemm "$ph" "$root" "$out" gemm sm_90
  build_gemm "$before" "$root" "$out" gemm90a_b sm_90a
  build_gemm "$ph" "$root" "$out" gemm90a sm_90a
  PH_GPU_LOWERING=legacy build_attn "$ph" "$root" "$out" legacy sm_90
  PH_GPU_LOWERING=tilegpu build_attn "$before" "$root" "$out" mma_b sm_90
  PH_GPU_LOWERING=tilegpu build_attn "$ph" "$root" "$out" mma sm_90
  build_attn "$before" "$root" "$out" wg_b sm_90a
  build_attn "$ph" "$root" "$out" wg sm_90a
  mkdir -p "$out/ex" "$out/kv" "$out/vs"
  sh "$root/tests/gpu/check_examples.sh" build "$ph" "$root/examples" "$out/ex" > "$out/ex.build.log" 2>&1 || { tail -20 "$out/ex.build.log"; exit 1; }
  sh "$root/tests/gpu/check_kvcache.sh" build "$ph" "$out/kv" > "$out/kv.build.log" 2>&1 || { tail -20 "$out/kv.build.log"; exit 1; }
  cp -r "$out/gemm/gemm_relu" "$out/vs/gemm_relu"
  [ -f "$root/../shared/tools/ph_vs_torch.py" ] && cp "$root/../shared/tools/ph_vs_torch.py" "$out/"
  w8_registers "$out" gemm_b gemm
  copy_tools "$ph" "$root" "$out"
  ;;
run-addr)
  T=$(cd "$1" && pwd) logs=${2:-$1/logs}
  start_run
  (cd "$T" && python3 bench_gemm.py "$R" "$T/gemm_b" "$T/gemm" "$T/gemm90a_b" "$T/gemm90a" --kernels gemm_relu_f16,gemm_relu_f16_w8,gemm_relu --out "$logs/gemm.jsonl") > "$logs/gemm-bench.log" 2>&1 || fails=$((fails+1))
  tail -30 "$logs/gemm-bench.log"
  for v in legacy mma_b mma wg_b wg; do
    (cd "$T" && timeout 200 python3 bench_prefill.py "$R" "$T/$v/prefill" --out "$logs/prefill-$v.jsonl") > "$logs/prefill-$v.log" 2>&1 || fails=$((fails+1))
    echo "prefill ($v):"; tail -5 "$logs/prefill-$v.log"
  done
  vs_torch gemm 120
  check_gemm "$R" "$T" "$logs"
  check_attn mma
  for k in mha_f16 mha_causal_f16 mha_bf16; do
    for d in 64 128; do for br in 64 128; do
      check_one "wg $k D=$d BR=$br" "$T/wg/prefill/$k" --kernel $k --config D=$d,BR=$br,BC=32 --size B=1 --size H=3 --size N=256 --seed 5
    done; done
  done
  sh "$T/check_examples.sh" run "$R" "$T/ex" > "$logs/examples.log" 2>&1 || fails=$((fails+1))
  echo "examples: $(grep -c '^ok' "$logs/examples.log") ok, $(grep -c '^FAIL' "$logs/examples.log") failed"
  grep FAIL -A6 "$logs/examples.log" | head -20
  sh "$T/check_kvcache.sh" run "$R" "$T/kv" > "$logs/kv.log" 2>&1 || fails=$((fails+1))
  echo "kvcache: $(grep -c 'vs interpreter: ok' "$logs/kv.log") ok; $(grep failures "$logs/kv.log")"
  for tool in memcheck racecheck synccheck; do
    for run in "$T/gemm/gemm_relu_f16_w8 --kernel gemm_relu_f16_w8 --config BM=128,BN=256,BK=64 --size M=512 --size N=512 --size K=256" \
               "$T/gemm/gemm_relu_f16 --kernel gemm_relu_f16 --config BM=128,BN=128,BK=32 --size M=256 --size N=256 --size K=256" \
               "$T/mma/prefill/mha_f16 --kernel mha_f16 --config D=64,BR=64,BC=32 --size B=1 --size H=1 --size N=512"; do
      # shellcheck disable=SC2086
      compute-sanitizer --tool $tool --error-exitcode 3 "$R" $run --seed 3 --check > "$logs/san.log" 2>&1 || fails=$((fails+1))
      echo "$tool $(echo $run | awk '{print $3 " " $5}'): $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$logs/san.log")"
    done
  done
  w8_sass gemm_b gemm
  echo "failures: $fails"
  [ $fails -eq 0 ]
  ;;
build-raster)
  ph=$1 out=$2
  root=$(cd "$(dirname "$0")/../.." && pwd)
  build_gemm "$ph" "$root" "$out" gemm sm_90
  PH_TILEGPU_RASTER_GROUP=12 build_gemm "$ph" "$root" "$out" g12 sm_90
  PH_TILEGPU_RASTER_GROUP=16 build_gemm "$ph" "$root" "$out" g16 sm_90
  PH_TILEGPU_STAGES=4 build_gemm "$ph" "$root" "$out" s4 sm_90
  PH_TILEGPU_STAGES=4 PH_TILEGPU_RASTER_GROUP=16 build_gemm "$ph" "$root" "$out" g16s4 sm_90
  build_gemm "$ph" "$root" "$out" gemm90a sm_90a
  PH_TILEGPU_RASTER_GROUP=16 build_gemm "$ph" "$root" "$out" g16_90a sm_90a
  copy_tools "$ph" "$root" "$out"
  ;;
run-raster)
  T=$(cd "$1" && pwd) logs=${2:-$1/logs}
  start_run
  (cd "$T" && python3 bench_gemm.py "$R" "$T/gemm" "$T/g12" "$T/g16" "$T/s4" "$T/g16s4" "$T/gemm90a" "$T/g16_90a" --kernels gemm_relu_f16_w8,gemm_relu --out "$logs/gemm-raster.jsonl") > "$logs/gemm-raster.log" 2>&1 || fails=$((fails+1))
  grep -A40 '^kernel ' "$logs/gemm-raster.log"
  for d in g12 g16 s4 g16s4 g16_90a; do
    check_one "$d gemm_relu_f16_w8 BM=128,BN=256,BK=64" "$T/$d/gemm_relu_f16_w8" --kernel gemm_relu_f16_w8 --config BM=128,BN=256,BK=64 --size M=640 --size N=768 --size K=320 --seed 7
    check_one "$d gemm_relu_f16 13x3 CTAs" "$T/$d/gemm_relu_f16" --kernel gemm_relu_f16 --config BM=64,BN=64,BK=32 --size M=832 --size N=192 --size K=96 --seed 8
    check_one "$d gemm_relu BM=128,BN=128,BK=64" "$T/$d/gemm_relu" --kernel gemm_relu --config BM=128,BN=128,BK=64 --size M=1152 --size N=384 --size K=256 --seed 9
  done
  echo "failures: $fails"
  [ $fails -eq 0 ]
  ;;
build-occ)
  ph=$1 out=$2
  root=$(cd "$(dirname "$0")/../.." && pwd)
  PH_GPU_LOWERING=legacy build_attn "$ph" "$root" "$out" legacy sm_90
  PH_GPU_LOWERING=tilegpu build_attn "$ph" "$root" "$out" mma sm_90
  PH_GPU_LOWERING=tilegpu PH_TILEGPU_MIN_CTAS=3 build_attn "$ph" "$root" "$out" mma_c3 sm_90
  PH_GPU_LOWERING=tilegpu PH_TILEGPU_HOISTED_REGS=16 build_attn "$ph" "$root" "$out" mma_h16 sm_90
  # Everything on TileGPU for sm_90a: wgmma for D = 64 too (auto keeps D = 64 on mma.sync).
  PH_GPU_LOWERING=tilegpu PH_TILEGPU_POLICY=wgmma build_attn "$ph" "$root" "$out" wg sm_90a
  for v in mma mma_c3 mma_h16 wg; do
    echo "$v: $(grep -h -o '"registers": *[0-9]*\|"spillStores": *[0-9]*' "$out"/$v/prefill/mha_f16/manifest.json | tr -d ' ' | tr '\n' ' ')"
  done
  mkdir -p "$out/gemm" "$out/g256" "$out/s4"
  "$ph" build "$root/examples/gemm.ph" --kernel gemm_relu_f16_w8 --target sm_90 -o "$out/gemm/gemm_relu_f16_w8" > "$out/gemm.log" 2>&1 || { cat "$out/gemm.log"; exit 1; }
  PH_TILEGPU_STAGES=4 "$ph" build "$root/examples/gemm.ph" --kernel gemm_relu_f16_w8 --target sm_90 -o "$out/s4/gemm_relu_f16_w8" > "$out/s4.log" 2>&1 || { cat "$out/s4.log"; exit 1; }
  # The same kernel as a 256x128 CTA tile (A's panel twice as tall, B's half as wide).
  sed 's/@autotune(BM in \[128\], BN in \[128, 256\], BK in \[32, 64\])/@autotune(BM in [256], BN in [128], BK in [32, 64])/' \
    "$root/examples/gemm.ph" > "$out/gemm256.ph"
  grep -q 'BM in \[256\], BN in \[128\]' "$out/gemm256.ph" || { echo "gemm256.ph: the autotune line moved"; exit 1; }
  "$ph" build "$out/gemm256.ph" --kernel gemm_relu_f16_w8 --target sm_90 -o "$out/g256/gemm_relu_f16_w8" > "$out/g256.log" 2>&1 || { cat "$out/g256.log"; exit 1; }
  copy_tools "$ph" "$root" "$out"
  ;;
run-occ)
  T=$(cd "$1" && pwd) logs=${2:-$1/logs}
  start_run
  for v in legacy mma mma_c3 mma_h16 wg; do
    (cd "$T" && timeout 200 python3 bench_prefill.py "$R" "$T/$v/prefill" --out "$logs/prefill-$v.jsonl") > "$logs/prefill-$v.log" 2>&1 || fails=$((fails+1))
    echo "prefill ($v):"; grep -E '^mha' "$logs/prefill-$v.log"
  done
  (cd "$T" && python3 bench_gemm.py "$R" "$T/gemm" "$T/g256" "$T/s4" --kernels gemm_relu_f16_w8 --out "$logs/gemm-occ.jsonl") > "$logs/gemm-occ.log" 2>&1 || fails=$((fails+1))
  grep -A12 '^kernel ' "$logs/gemm-occ.log"
  # Into a file, not a pipe: a pipe's subshell would lose the failure count.
  for v in mma_c3 wg; do check_attn $v; done > "$logs/checks.log"
  grep -v '^ok' "$logs/checks.log"
  echo "checked mma_c3 and wg: every configuration of mha.ph (and attention_tc on wg); failures so far: $fails"
  for d in g256 s4; do
    for cfg in BM=256,BN=128,BK=32 BM=256,BN=128,BK=64 BM=128,BN=256,BK=64 BM=128,BN=128,BK=32; do
      [ -f "$T/$d/gemm_relu_f16_w8/gemm_relu_f16_w8.$(echo $cfg | sed 's/=//g; s/,/_/g').cubin" ] || continue
      check_one "$d gemm_relu_f16_w8 $cfg" "$T/$d/gemm_relu_f16_w8" --kernel gemm_relu_f16_w8 --config $cfg --size M=768 --size N=768 --size K=320 --seed 7
    done
  done
  sanitize "mma_c3 mha_f16 D=64 BR=128" "$T/mma_c3/prefill/mha_f16" --kernel mha_f16 --config D=64,BR=128,BC=32 --size B=1 --size H=1 --size N=512 --seed 3
  echo "failures: $fails"
  [ $fails -eq 0 ]
  ;;
build-stages)
  ph=$1 out=$2
  root=$(cd "$(dirname "$0")/../.." && pwd)
  build_gemm "$ph" "$root" "$out" gemm sm_90
  PH_TILEGPU_CHAINED_STAGES=0 build_gemm "$ph" "$root" "$out" gemm_s3 sm_90
  build_gemm "$ph" "$root" "$out" gemm80 sm_80
  # sm_80 cubins do not load on an H200: their PTX goes in the cubin's place (see build-mma-attn).
  for ptx in "$out"/gemm80/*/*.ptx; do { cat "$ptx"; printf '\000'; } > "${ptx%.ptx}.cubin"; done
  for v in gemm gemm_s3; do
    echo "$v: $(grep -h -o '"configName": *"[^"]*"\|"dynamicShared": *[0-9]*\|"registers": *[0-9]*' "$out"/$v/gemm_relu_f16_w8/manifest.json "$out"/$v/gemm_relu_f16/manifest.json | tr -d ' ' | tr '\n' ' ')"
  done
  copy_tools "$ph" "$root" "$out"
  ;;
run-stages)
  T=$(cd "$1" && pwd) logs=${2:-$1/logs}
  start_run
  # Two kernels only: every GEMM kernel in both builds ran past 500 s (torch.compile per shape too).
  (cd "$T" && timeout 240 python3 bench_gemm.py "$R" "$T/gemm" "$T/gemm_s3" --kernels gemm_relu_f16_w8,gemm_relu_f16 --out "$logs/gemm-stages.jsonl") > "$logs/gemm-stages.log" 2>&1 || fails=$((fails+1))
  grep -A40 '^kernel ' "$logs/gemm-stages.log"
  for g in gemm gemm80; do
    for k in gemm_relu_f16 gemm_gelu_bf16 gemm_relu_f16_w8 gemm_relu_f16_ragged; do
      for cfg in $(grep -o '"configName": *"[^"]*"' "$T/$g/$k/manifest.json" | sed 's/.*: *"//; s/"//'); do
        case $k in *ragged) sz="--size M=333 --size N=200 --size K=95" ;; *w8) sz="--size M=512 --size N=768 --size K=320" ;; *) sz="--size M=256 --size N=384 --size K=192" ;; esac
        # shellcheck disable=SC2086
        check_one "$g $k $cfg" "$T/$g/$k" --kernel $k --config $cfg $sz --seed 5
      done
    done
  done > "$logs/checks.log"
  grep -v '^ok' "$logs/checks.log"
  echo "checked every configuration of every GEMM kernel (sm_90, sm_80 as PTX): failures so far: $fails"
  sanitize "gemm_relu_f16_w8 BM=128,BN=256,BK=64 (4 stages)" "$T/gemm/gemm_relu_f16_w8" --kernel gemm_relu_f16_w8 --config BM=128,BN=256,BK=64 --size M=256 --size N=512 --size K=512 --seed 3
  echo "failures: $fails"
  [ $fails -eq 0 ]
  ;;
build-parity)
  ph=$1 out=$2
  root=$(cd "$(dirname "$0")/../.." && pwd)
  PH_GPU_LOWERING=legacy build_attn "$ph" "$root" "$out" legacy sm_90
  PH_GPU_LOWERING=tilegpu build_attn "$ph" "$root" "$out" mma sm_90
  build_attn "$ph" "$root" "$out" def sm_90a
  for a in sm_90 sm_80; do
    mkdir -p "$out/ex_$a"
    PH_GPU_LOWERING=tilegpu PH_GPU_ARCH=$a sh "$root/tests/gpu/check_examples.sh" build "$ph" "$root/examples" "$out/ex_$a" > "$out/ex_$a.build.log" 2>&1 || echo "examples on TileGPU ($a): some did not build (ex_$a.build.log)"
  done
  for ptx in "$out"/ex_sm_80/*/*.ptx; do
    [ -f "$ptx" ] && { cat "$ptx"; printf '\000'; } > "${ptx%.ptx}.cubin"
  done
  mkdir -p "$out/kv_tg" "$out/dec"
  PH_GPU_LOWERING=tilegpu PH_GPU_ARCH=sm_90 sh "$root/tests/gpu/check_kvcache.sh" build "$ph" "$out/kv_tg" > "$out/kv_tg.build.log" 2>&1 || echo "kvcache on TileGPU: some did not build (kv_tg.build.log)"
  PH_GPU_LOWERING=legacy "$ph" build "$root/examples/decode_attention.ph" --target sm_90 -o "$out/dec/legacy" > "$out/dec/legacy.log" 2>&1 || cat "$out/dec/legacy.log"
  PH_GPU_LOWERING=tilegpu "$ph" build "$root/examples/decode_attention.ph" --target sm_90 -o "$out/dec/tg" > "$out/dec/tg.log" 2>&1 || cat "$out/dec/tg.log"
  sed 's/BC in \[64\]/BC in [32, 64]/' "$root/examples/decode_attention.ph" > "$out/dec/decode_bc.ph"
  (cd "$root" && PH_GPU_LOWERING=tilegpu "$ph" build "$out/dec/decode_bc.ph" --target sm_90 -o "$out/dec/tg_bc" > "$out/dec/tg_bc.log" 2>&1) || cat "$out/dec/tg_bc.log"
  /usr/bin/python3 "$root/tests/gpu/decode_inputs.py" "$out/dec" || exit 1
  build_gemm "$ph" "$root" "$out" gemm sm_90
  build_gemm "$ph" "$root" "$out" gemm90a sm_90a
  for v in legacy mma def; do
    echo "$v: $(grep -h -o '"registers": *[0-9]*\|"spillStores": *[0-9]*' "$out"/$v/prefill/*/manifest.json | tr -d ' ' | tr '\n' ' ')"
  done
  rm -f "$out"/*/prefill/*.ptx "$out"/ex_sm_90/*/*.ptx "$out"/kv_tg/*/*.ptx "$out"/gemm*/*/*.ptx 2>/dev/null
  cp "$root/bench/gpu/bench_decode.py" "$out/"
  copy_tools "$ph" "$root" "$out"
  ;;
run-parity)
  T=$(cd "$1" && pwd) logs=${2:-$1/logs}
  start_run
  if [ "${PARITY_BENCH:-1}" = 1 ]; then
    for v in legacy mma def; do
      (cd "$T" && timeout 150 python3 bench_prefill.py "$R" "$T/$v/prefill" --out "$logs/prefill-$v.jsonl") > "$logs/prefill-$v.log" 2>&1 || fails=$((fails+1))
      echo "prefill ($v):"; tail -5 "$logs/prefill-$v.log"
    done
    (cd "$T" && timeout 150 python3 bench_decode.py "$R" "$T/dec/legacy,$T/dec/tg,$T/dec/tg_bc" --labels legacy,tg,tg_bc --shapes 32:4096,8:4096 --backends cudnn,flash --out "$logs/decode.jsonl") > "$logs/decode.log" 2>&1 || fails=$((fails+1))
    echo "decode (legacy emitter vs TileGPU SIMT):"; tail -12 "$logs/decode.log"
  fi
  for v in mma def; do check_attn $v; done
  for a in sm_90 sm_80; do
    sh "$T/check_examples.sh" run "$R" "$T/ex_$a" > "$logs/examples-$a.log" 2>&1 || fails=$((fails+1))
    echo "examples (TileGPU, $a): $(grep -c '^ok' "$logs/examples-$a.log") ok, $(grep -c '^FAIL' "$logs/examples-$a.log") failed"
    grep FAIL -A6 "$logs/examples-$a.log" | head -30
  done
  sh "$T/check_kvcache.sh" run "$R" "$T/kv_tg" > "$logs/kv-tg.log" 2>&1 || fails=$((fails+1))
  echo "kvcache (all on TileGPU, sm_90): $(grep -c 'vs interpreter: ok' "$logs/kv-tg.log") ok; $(grep failures "$logs/kv-tg.log")"
  D=$T/dec
  for v in tg tg_bc; do
    for g in 1 4; do
      check_one "$v decode_split G=$g S=16" "$D/$v" --kernel decode_split --config D=128,G=$g,BC=64,S=16 \
        --in Q="$D/q$g.npy" --in K="$D/k.npy" --in V="$D/v.npy" --in Lens="$D/lens.npy"
    done
  done
  check_gemm "$R" "$T" "$logs"
  sanitize "mma mha_f16 D=64" "$T/mma/prefill/mha_f16" --kernel mha_f16 --config D=64,BR=64,BC=32 --size B=1 --size H=1 --size N=512 --seed 3
  sanitize "mma mha_causal_f16 D=128" "$T/mma/prefill/mha_causal_f16" --kernel mha_causal_f16 --config D=128,BR=128,BC=32 --size B=1 --size H=1 --size N=512 --seed 3
  sanitize "tg decode_split G=4" "$D/tg" --kernel decode_split --config D=128,G=4,BC=64,S=8 \
    --in Q="$D/q4.npy" --in K="$D/k.npy" --in V="$D/v.npy" --in Lens="$D/lens.npy"
  for v in legacy mma; do
    c=$(ls "$T/$v/prefill/mha_f16"/*D64_BR64*.cubin 2>/dev/null | head -1)
    [ -n "$c" ] || continue
    cuobjdump -sass "$c" > "$logs/mha64-sass-$v.txt" 2>&1
    echo "$v mha_f16 D=64 BR=64 SASS: $(grep -cE '^ +/\*[0-9a-f]+\*/' "$logs/mha64-sass-$v.txt") instructions; $(grep -oE '^ +/\*[0-9a-f]+\*/ +[A-Z0-9.]+' "$logs/mha64-sass-$v.txt" | awk '{split($2,a,"."); print a[1]}' | sort | uniq -c | sort -rn | head -14 | awk '{printf "%s %s, ", $2, $1}')"
  done
  echo "failures: $fails"
  [ $fails -eq 0 ]
  ;;
build-checks)
  ph=$1 out=$2
  root=$(cd "$(dirname "$0")/../.." && pwd)
  mkdir -p "$out/auto/ex" "$out/auto/kv" "$out/num"
  sh "$root/tests/gpu/check_examples.sh" build "$ph" "$root/examples" "$out/auto/ex" > "$out/auto/ex.build.log" 2>&1 || { cat "$out/auto/ex.build.log"; exit 1; }
  sh "$root/tests/gpu/check_kvcache.sh" build "$ph" "$out/auto/kv" > "$out/auto/kv.build.log" 2>&1 || { tail -20 "$out/auto/kv.build.log"; exit 1; }
  for fk in branches:branches reductions:reductions skip:causal_skip skip:simt_skip half_reductions:half_reductions; do
    f=${fk%%:*} k=${fk#*:}
    "$ph" build "$root/tests/numerics/kernels/$f.ph" --kernel $k -o "$out/num/$k" > "$out/num/$k.log" 2>&1 || { cat "$out/num/$k.log"; exit 1; }
  done
  for low in auto legacy; do
    mkdir -p "$out/$low/prefill"
    for k in mha_f16 mha_causal_f16; do
      PH_GPU_LOWERING=$low "$ph" build "$root/examples/mha.ph" --kernel $k -o "$out/$low/prefill/$k" > "$out/$low/prefill/$k.log" 2>&1 || { cat "$out/$low/prefill/$k.log"; exit 1; }
    done
  done
  mkdir -p "$out/vs"
  "$ph" build "$root/examples/gemm.ph" --kernel gemm_relu --target sm_90a -o "$out/vs/gemm_relu" > "$out/vs/gemm_relu.log" 2>&1 || { cat "$out/vs/gemm_relu.log"; exit 1; }
  copy_tools "$ph" "$root" "$out"
  ;;
run-checks)
  T=$(cd "$1" && pwd) logs=${2:-$1/logs}
  start_run
  sh "$T/check_examples.sh" run "$R" "$T/auto/ex" > "$logs/examples-auto.log" 2>&1 || fails=$((fails+1))
  echo "examples: $(grep -c '^ok' "$logs/examples-auto.log") ok, $(grep -c '^FAIL' "$logs/examples-auto.log") failed"
  grep FAIL -A6 "$logs/examples-auto.log" | head -40
  sh "$T/check_kvcache.sh" run "$R" "$T/auto/kv" > "$logs/kv-auto.log" 2>&1 || fails=$((fails+1))
  echo "kvcache: $(grep -c 'vs interpreter: ok' "$logs/kv-auto.log") ok; $(grep failures "$logs/kv-auto.log")"
  for run in "branches --size N=37 --arg mode=2" "branches --size N=32 --arg mode=0" "branches --size N=64 --arg mode=1" \
             "reductions --size N=37 --size B=3" "causal_skip --size N=150 --size D=64 --arg scale=0.125" \
             "simt_skip --size N=37 --arg n=2" "half_reductions --size N=29 --size B=4 --arg n=20"; do
    k=${run%% *}
    # shellcheck disable=SC2086
    if "$R" "$T/num/$k" --kernel ${run} --seed 4 --check > "$logs/one.log" 2>&1
    then echo "ok   numerics $run: $(grep -o 'rel L2 error [^,]*' "$logs/one.log" | head -1)"
    else echo "FAIL numerics $run"; tail -6 "$logs/one.log"; fails=$((fails+1)); fi
  done
  for low in auto legacy; do
    (cd "$T" && python3 bench_prefill.py "$R" "$T/$low/prefill" --out "$logs/prefill-$low.jsonl") > "$logs/prefill-$low.log" 2>&1 || fails=$((fails+1))
    echo "prefill ($low):"; tail -8 "$logs/prefill-$low.log"
  done
  vs_torch gemm
  echo "failures: $fails"
  [ $fails -eq 0 ]
  ;;
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
  build_gemm "$ph" "$root" "$out" gemm sm_90
  # sm_90a: the wgmma policy (docs/tilegpu.md).
  build_gemm "$ph" "$root" "$out" gemm90a sm_90a
  copy_tools "$ph" "$root" "$out"
  ;;
run)
  T=$(cd "$1" && pwd) logs=${2:-$1/logs}
  start_run
  for low in auto legacy; do
    sh "$T/check_examples.sh" run "$R" "$T/$low/ex" > "$logs/examples-$low.log" 2>&1 || fails=$((fails+1))
    echo "examples ($low): $(grep -c '^ok' "$logs/examples-$low.log") ok, $(grep -c '^FAIL' "$logs/examples-$low.log") failed"
    sh "$T/check_kvcache.sh" run "$R" "$T/$low/kv" > "$logs/kv-$low.log" 2>&1 || fails=$((fails+1))
    echo "kvcache ($low): $(grep -c 'vs interpreter: ok' "$logs/kv-$low.log") ok; $(grep failures "$logs/kv-$low.log")"
  done
  grep FAIL -A6 "$logs"/examples-*.log | head -60
  # GEMM at ragged and aligned sizes, every configuration, against the interpreter.
  check_gemm "$R" "$T" "$logs"
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
