#!/bin/sh
# Issue 16's memory-bound examples (softmax, layer norm, RMSNorm, SwiGLU, cross-entropy) on a
# GPU in one call: every configuration against the fp64 interpreter at ragged sizes (a row in
# one block and over several, C a multiple of 8 and not), then bench_memory_bound.py's GB/s
# next to torch.compile, eager PyTorch and a copy in the same run, and the SASS of the kernels.
#
#   membound_device.sh build PH OUT   compile the variants into OUT (needs the compiler)
#   membound_device.sh run OUT [LOGS] run them (needs a GPU and PyTorch; no compiler; < 4 min)
#
# Variants (each a folder OUT/V/K of `ph build` output, K the example's kernel):
#   new      examples/K.ph as it is (its whole autotune space: BR, BC, A for `@aligned(C = A)`)
#   reuse    one configuration (rows: BR=1, BC=4096, A=8), PH_TILEGPU_REUSE_ROW_LOADS=1: the
#            second loop reuses the first one's block instead of reading it again (from L2)
#   old      BR=4, BC=1024, A=8 with PH_TILEGPU_SPLIT_ROWS=0: a row per warp (pack 1's fastest
#            softmax, 2,197 GB/s, with today's exp)
#   oldvec   rows: BR=1, BC=4096, A=1 with PH_TILEGPU_ROW_LOAD_VECTORS=0: rows that may start
#            anywhere, 4-element runs per lane (the vectors before row-load-vectors)
#   pf       the whole space, PH_TILEGPU_PREFETCH_LOADS=1: each row loop reads its next block
#            while this one is reduced (tilegpu-prefetch-loads; the default since 2026-12-06)
#   NAME     any other name: bench/gpu/variants/K.NAME.ph where there is one, other kernels
#            skipped (cross-entropy's `masked`: one loop, every block masked, as before 2026-12-06)
#   V_fuse   variant V built with PH_GPU_FP_FUSION=1 (a multiply feeding an add becomes an fma)
# MEMBOUND_VARIANTS overrides the list. MEMBOUND_SECONDS (default 225) bounds the run; the bench
# takes some 30 s a kernel and variant (torch.compile's first compile of each kernel included).
set -u
mode=$1; shift
# MEMBOUND_KERNELS (build) picks the kernels; run takes the ones its build made.
kernels=${MEMBOUND_KERNELS:-softmax layer_norm rms_norm swiglu cross_entropy}
[ "$mode" = run ] && [ -f "${1:-}/kernels" ] && kernels=$(cat "$1/kernels")

one_config() { # KERNEL BR BC A: the @autotune line of one configuration
  echo "@autotune(BR in [$2], BC in [$3], A in [$4])"
}

variant_source() { # SRC KERNEL VARIANT: the example's text for VARIANT on stdout
  wide=4096; case $2 in swiglu|cross_entropy) wide=2048 ;; esac
  case $3 in
  new|pf) cat "$1" ;;
  reuse) sed "s/^@autotune(.*)\$/$(one_config $2 1 $wide 8)/" "$1" ;;
  old) sed "s/^@autotune(.*)\$/$(one_config $2 4 1024 8)/" "$1" ;;
  oldvec) sed "s/^@autotune(.*)\$/$(one_config $2 1 $wide 1)/" "$1" ;;
  *) cat "$(dirname "$0")/variants/$2.$3.ph" ;;
  esac
}

variant_env() { # VARIANT: the knobs it builds under
  case $1 in
  *_fuse) echo "PH_GPU_FP_FUSION=1 $(variant_env "${1%_fuse}")" ;;
  reuse) echo "PH_TILEGPU_REUSE_ROW_LOADS=1" ;;
  old) echo "PH_TILEGPU_SPLIT_ROWS=0" ;;
  oldvec) echo "PH_TILEGPU_ROW_LOAD_VECTORS=0" ;;
  pf) echo "PH_TILEGPU_PREFETCH_LOADS=1" ;;
  *) echo "PH_TILEGPU_NONE=1" ;;
  esac
}

case $mode in
build)
  ph=$1 out=$2
  root=$(cd "$(dirname "$0")/../.." && pwd)
  mkdir -p "$out/src"
  : > "$out/ptx-summary.txt"
  echo "${MEMBOUND_VARIANTS:-new reuse old oldvec}" > "$out/variants"
  echo "$kernels" > "$out/kernels"
  for v in ${MEMBOUND_VARIANTS:-new reuse old oldvec}; do
    for k in $kernels; do
      b=${v%_fuse}  # VARIANT_fuse: VARIANT built with PH_GPU_FP_FUSION=1
      case $b in new|reuse|old|oldvec|pf) ;; *) [ -f "$root/bench/gpu/variants/$k.$b.ph" ] || continue ;; esac
      mkdir -p "$out/$v"
      variant_source "$root/examples/$k.ph" $k $b > "$out/src/$v-$k.ph"
      # shellcheck disable=SC2046
      env $(variant_env $v) "$ph" build "$out/src/$v-$k.ph" --kernel $k --target sm_90 --no-cache -j2 -o "$out/$v/$k" \
        > "$out/$v/$k.log" 2>&1 || { echo "FAIL build $v $k"; tail -20 "$out/$v/$k.log"; exit 1; }
      # What ptxas made of each configuration (registers, spills) and the global access widths.
      grep -E '^ *'$k' \[' "$out/$v/$k.log" | sed "s/^/$v /" >> "$out/ptx-summary.txt"
      for ptx in "$out/$v/$k"/*.ptx; do
        cfg=${ptx##*/}; cfg=${cfg#$k.}; cfg=${cfg%.ptx}
        echo "$v $k $cfg: $(grep -oE '(ld|st)\.global[a-z0-9.]*|bar\.sync|ex2\.approx[a-z0-9.]*|div\.rn\.f32' "$ptx" | sort | uniq -c | awk '{printf "%s %s, ", $2, $1}')"
      done >> "$out/ptx-summary.txt"
      rm -f "$out/$v/$k"/*.ptx
    done
  done
  cp "$root"/bench/gpu/bench_memory_bound.py "$root"/bench/gpu/cuda_timing.py "$root"/bench/gpu/membound_device.sh "$out/"
  cp "$(dirname "$ph")/ph-run" "$out/" && strip "$out/ph-run" 2>/dev/null
  echo "built into $out ($(du -sh "$out" | cut -f1))"
  ;;
run)
  T=$(cd "$1" && pwd) logs=${2:-$1/logs}
  R=$T/ph-run
  scratch=$T/scratch
  mkdir -p "$logs" "$scratch"
  "$R" --info > /dev/null 2>&1 || { echo "skipped: no GPU"; exit 77; }
  t0=$(date +%s)
  fails=0
  variants=$(cat "$T/variants")
  # Every configuration against the interpreter first (small sizes: seconds): a row in one
  # block (C = 300 / 304 under every BC) and over several, ragged (C = 4100 / 4104 > 4096).
  for v in $variants; do
    for k in $kernels; do
      [ -d "$T/$v/$k" ] || continue
      dim=C; [ $k = cross_entropy ] && dim=V
      : > "$scratch/batch.txt"
      for cfg in $(grep -o '"configName": *"[^"]*"' "$T/$v/$k/manifest.json" | sed 's/.*: *"\(.*\)"/\1/'); do
        case $cfg in *A=8*) sizes="304 4104" ;; *) sizes="300 4100" ;; esac
        for c in $sizes; do
          echo "$T/$v/$k --kernel $k --config $cfg --size N=13 --size $dim=$c --seed 4 --check" >> "$scratch/batch.txt"
        done
      done
      "$R" --batch "$scratch/batch.txt" > "$scratch/check.log" 2>&1
      cat "$scratch/check.log" >> "$logs/checks.log"
      n=$(($(grep -c "^@@ph-run-batch" "$scratch/check.log") / 2)) bad=$(grep -c '^@@ph-run-batch [0-9]* [1-9]' "$scratch/check.log")
      if [ "$n" -gt 0 ] && [ "$bad" -eq 0 ]; then echo "ok   $v $k: $n checks (N=13, $dim in 300/304 and 4100/4104)"
      else echo "FAIL $v $k: $bad of $n checks"; grep -B3 '^@@ph-run-batch [0-9]* [1-9]' "$scratch/check.log" | head -8; fails=$((fails+1)); fi
    done
  done
  echo "(checks took $(( $(date +%s) - t0 )) s)"
  # The SASS of the fastest expected configurations: instruction mix of the row kernels.
  for k in $kernels; do
    for c in "$T/new/$k"/*.cubin; do
      case $c in *A8*) ;; *) continue ;; esac
      cuobjdump -sass "$c" > "$logs/sass-$k-$(basename "$c" .cubin).txt" 2>&1
    done
  done
  for f in "$logs"/sass-*.txt; do
    [ -f "$f" ] || continue
    echo "$(basename "$f" .txt): $(grep -cE '^ +/\*[0-9a-f]+\*/' "$f") instr, LDG.128 $(grep -c 'LDG.E.128' "$f"), STG.128 $(grep -c 'STG.E.128' "$f"), LDG $(grep -c 'LDG' "$f"), SHFL $(grep -c 'SHFL' "$f"), BAR $(grep -c 'BAR' "$f"), MUFU.EX2 $(grep -c 'MUFU.EX2' "$f")"
  done | tee "$logs/sass-summary.txt"
  # The speed: every configuration of each variant next to torch.compile / eager / copy. What is
  # left of the 4 minutes (the checks ran first); the rows written so far survive a timeout.
  left=$(( ${MEMBOUND_SECONDS:-225} - ($(date +%s) - t0) ))
  pre=""
  for v in $variants; do [ -d "$T/$v" ] && pre="$pre --prebuilt $v=$T/$v"; done
  # shellcheck disable=SC2086
  (cd "$T" && timeout $left python3 bench_memory_bound.py - "$R" --iters 20 --configs 3 $pre \
     --only "$(echo $kernels | tr ' ' ',')" --out "$logs/membound.jsonl") > "$logs/bench.log" 2>&1 ||
    fails=$((fails+1))
  python3 -c 'import json,sys
for l in open(sys.argv[1]):
    r = json.loads(l)
    if "ph_gbs" not in r: print(r["kernel"], r.get("variant"), r.get("error", "")[:300]); continue
    print("%-13s %-8s %5.0f GB/s (%.2f of copy %4.0f, %.2fx torch.compile %4.0f, eager %4.0f) err %.1e  %s  %s" % (
        r["kernel"], r.get("variant"), r["ph_gbs"], r["ph_of_copy"], r["copy_gbs"], r["ph_gbs"] / r["compile_gbs"],
        r["compile_gbs"], r["eager_gbs"], r["err"], r["config"], r["fastest"]))' "$logs/membound.jsonl" 2>&1 | tee "$logs/summary.txt"
  grep -E 'Error|error|Traceback' "$logs/bench.log" | head -5
  echo "(all took $(( $(date +%s) - t0 )) s)"
  echo "failures: $fails"
  [ $fails -eq 0 ]
  ;;
*) echo "usage: membound_device.sh build PH OUT | run OUT [LOGS]"; exit 2 ;;
esac
