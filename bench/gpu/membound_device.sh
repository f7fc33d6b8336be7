#!/bin/sh
# Issue 16's memory-bound examples (softmax, layer norm, RMSNorm, SwiGLU, cross-entropy) on a
# GPU in one call, over variants of their autotune space: bench_memory_bound.py times every
# configuration of each variant next to torch.compile / eager in the same run, checks every
# configuration against PyTorch, and each variant's configurations against the interpreter at
# the ragged sizes of tests/gpu/check_examples.sh (the aligned variants at sizes they accept).
#
#   membound_device.sh build PH OUT [BEFORE_PH]  compile the variants into OUT (needs the compiler)
#   membound_device.sh run OUT [LOGS]            run them (needs a GPU and PyTorch; no compiler)
#
# Variants (each a folder OUT/V/K of `ph build` output, K the example's kernel):
#   base     examples/K.ph as it is (compiled by BEFORE_PH when given: the compiler before)
#   wide     the autotune space widened to BR in [1, 2, 4, 8], BC in [256, 512, 1024, 2048]
#   a8       wide, with `@aligned(C = 8)` (V for cross-entropy): rows start 16-byte aligned
#   abc      wide, with `@aligned(C = BC)`: no column masks (cross-entropy: BC in [128, 256],
#            the blocks that divide V = 32000)
#   V.o      V compiled with PH_TILEGPU_ROW_LOAD_VECTORS=0 (reduced rows' vectors from their own
#            element type, as before 2026-12-03): the compiler before, in the same run
# MEMBOUND_VARIANTS overrides the list (e.g. "base wide", "wide.o wide a8.o a8 abc").
set -u
mode=$1; shift
kernels="softmax layer_norm rms_norm swiglu cross_entropy"
wide='@autotune(BR in [1, 2, 4, 8], BC in [256, 512, 1024, 2048])'

variant_source() { # SRC KERNEL VARIANT: the example's text for VARIANT on stdout
  dim=C; [ "$2" = cross_entropy ] && dim=V
  case $3 in
  base) cat "$1" ;;
  wide) sed "s/^@autotune(.*)\$/$wide/" "$1" ;;
  a8) sed "s/^@autotune(.*)\$/$wide\\n@aligned($dim = 8)/" "$1" ;;
  abc)
    if [ "$2" = cross_entropy ]; then
      sed "s/^@autotune(.*)\$/@autotune(BR in [1, 2, 4, 8], BC in [128, 256])\\n@aligned(V = BC)/" "$1"
    else
      sed "s/^@autotune(.*)\$/$wide\\n@aligned(C = BC)/" "$1"
    fi ;;
  esac
}

case $mode in
build)
  ph=$1 out=$2 before=${3:-$1}
  root=$(cd "$(dirname "$0")/../.." && pwd)
  mkdir -p "$out/src"
  echo "${MEMBOUND_VARIANTS:-base wide a8 abc}" > "$out/variants"  # what run times
  for v in ${MEMBOUND_VARIANTS:-base wide a8 abc}; do
    c=$ph; [ $v = base ] && c=$before
    # V.o: V compiled with reduced rows' vectors from their own element type (the layouts
    # before tilegpu-assign-layouts' row-load-vectors)
    rlv=1; case $v in *.o) rlv=0 ;; esac
    for k in $kernels; do
      mkdir -p "$out/$v"
      variant_source "$root/examples/$k.ph" $k ${v%.o} > "$out/src/$v-$k.ph"
      PH_TILEGPU_ROW_LOAD_VECTORS=$rlv "$c" build "$out/src/$v-$k.ph" --kernel $k --target sm_90 -j2 -o "$out/$v/$k" > "$out/$v/$k.log" 2>&1 ||
        { echo "FAIL build $v $k"; tail -20 "$out/$v/$k.log"; exit 1; }
      # What ptxas made of each configuration: registers, spills, global load / store widths.
      for ptx in "$out/$v/$k"/*.ptx; do
        cfg=${ptx##*/}; cfg=${cfg#$k.}; cfg=${cfg%.ptx}
        echo "$v $k $cfg: $(grep -oE '(ld|st)\.global[a-z0-9.]*' "$ptx" | sort | uniq -c | awk '{printf "%s %s, ", $2, $1}')"
      done >> "$out/ptx-summary.txt"
      rm -f "$out/$v/$k"/*.ptx
    done
    echo "$v: $(grep -h -o '"spillStores": *[1-9][0-9]*' "$out/$v"/*/manifest.json | wc -l) configurations spill"
  done
  cp "$root"/bench/gpu/bench_memory_bound.py "$root"/bench/gpu/cuda_timing.py "$root"/bench/gpu/membound_device.sh "$out/"
  cp "$(dirname "$ph")/ph-run" "$out/" && strip "$out/ph-run" 2>/dev/null
  echo "built into $out ($(du -sh "$out" | cut -f1))"
  ;;
run)
  T=$(cd "$1" && pwd) logs=${2:-$1/logs}
  R=$T/ph-run
  scratch=$T/scratch  # per-check logs stay on the device; LOGS gets bench.log, membound.jsonl, checks.log
  mkdir -p "$logs" "$scratch"
  "$R" --info > /dev/null 2>&1 || { echo "skipped: no GPU"; exit 77; }
  fails=0
  pre="" variants=$(cat "$T/variants")
  for v in $variants; do
    [ -d "$T/$v" ] && pre="$pre --prebuilt $v=$T/$v"
  done
  # shellcheck disable=SC2086
  (cd "$T" && timeout 200 python3 bench_memory_bound.py - "$R" --iters 20 --configs 3 $pre \
     --only softmax,layer_norm,rms_norm,swiglu,cross_entropy --out "$logs/membound.jsonl") > "$logs/bench.log" 2>&1 ||
    fails=$((fails+1))
  if grep -q '^memory-bound' "$logs/bench.log"; then
    grep -E '^copy bandwidth|^memory-bound|^kernel|\[' "$logs/bench.log" | grep -v '^{' | tail -30
  else # cut short (timeout): the rows written so far
    echo "bench cut short; rows so far:"
    python3 -c 'import json,sys
for l in open(sys.argv[1]):
    r = json.loads(l)
    print(r["kernel"], r.get("variant"), round(r.get("ph_gbs", 0)), "compile", round(r["compile_gbs"]), "copy", round(r["copy_gbs"]), r.get("fastest", r.get("error", ""))[:3])' "$logs/membound.jsonl" 2>/dev/null
  fi
  grep -E 'Error|error|Traceback' "$logs/bench.log" | head -5
  # Every configuration against the interpreter: ragged sizes for the variants that take any C.
  # (base is what tests/gpu/check_examples.sh checks already)
  for v in $variants; do
    [ -d "$T/$v" ] && [ $v != base ] || continue
    for k in $kernels; do
      case $v:$k in
        *:cross_entropy) sz="--size N=13 --size V=300" ;;
        *) sz="--size N=13 --size C=300" ;;
      esac
      case ${v%.o}:$k in
        a8:cross_entropy) sz="--size N=13 --size V=304" ;;
        a8:*) sz="--size N=13 --size C=304" ;;
        abc:cross_entropy) sz="--size N=13 --size V=512" ;;
        abc:*) sz="--size N=13 --size C=2048" ;;
      esac
      # One ph-run process for every configuration (--batch): one line each.
      grep -o '"configName": *"[^"]*"' "$T/$v/$k/manifest.json" | sed 's/.*: *"\(.*\)"/\1/' |
        while read -r cfg; do echo "$T/$v/$k --kernel $k --config $cfg $sz --seed 4 --check"; done > "$scratch/batch.txt"
      "$R" --batch "$scratch/batch.txt" > "$scratch/check.log" 2>&1
      cat "$scratch/check.log" >> "$logs/checks.log"
      n=$(($(grep -c "^@@ph-run-batch" "$scratch/check.log") / 2)) bad=$(grep -c '^@@ph-run-batch [0-9]* [1-9]' "$scratch/check.log")
      if [ "$n" -gt 0 ] && [ "$bad" -eq 0 ]; then echo "ok   $v $k ($sz): $n configurations"
      else echo "FAIL $v $k ($sz): $bad of $n configurations"; grep -B3 '^@@ph-run-batch [0-9]* [1-9]' "$scratch/check.log" | head -8; fails=$((fails+1)); fi
    done
  done
  echo "failures: $fails"
  [ $fails -eq 0 ]
  ;;
esac
