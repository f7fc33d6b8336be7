#!/bin/sh
# division_device.sh - f32 `/` on the GPU as div.full.f32 (within 2 ulp, docs/language.md
# "Precision") against the IEEE div.rn.f32 it replaced (PH_GPU_DIV=ieee), on the GPU: every
# example and kv-cache kernel (they all changed: each one that divides in f32) and every
# configuration of mha.ph and attention_tc.ph against the fp64 interpreter, sm_90a (the new way); mha.ph's
# prefill speed both ways in turns (bench_prefill.py); the SASS of mha.ph's variants.
#
#   division_device.sh build PH OUT   (here: one compiler, both ways; the PTX is left out)
#   division_device.sh run OUT [LOGS] (on the device; exits 77 without a GPU; about 2 minutes)
set -u
mode=$1; shift
case $mode in
build)
  ph=$1 out=$2
  root=$(cd "$(dirname "$0")/../.." && pwd)
  mkdir -p "$out"
  for v in ieee full; do
    div=; [ $v = ieee ] && div=ieee
    for k in mha_f16 mha_causal_f16 mha_bf16 mha_causal_bf16; do
      PH_GPU_DIV=$div "$ph" build "$root/examples/mha.ph" --kernel $k --target sm_90a --no-cache \
        -o "$out/$v/prefill/$k" > "$out/$v-$k.log" 2>&1 || { cat "$out/$v-$k.log"; exit 1; }
    done
  done
  "$ph" build "$root/bench/gpu/attention_tc.ph" --target sm_90a --no-cache -o "$out/full/attention_tc" \
    > "$out/full-attention_tc.log" 2>&1 || { cat "$out/full-attention_tc.log"; exit 1; }
  mkdir -p "$out/examples"
  PH_GPU_ARCH=sm_90a sh "$root/tests/gpu/check_examples.sh" build "$ph" "$root/examples" "$out/examples" \
    > "$out/examples.build.log" 2>&1 || { tail -20 "$out/examples.build.log"; exit 1; }
  PH_GPU_ARCH=sm_90a sh "$root/tests/gpu/check_kvcache.sh" build "$ph" "$out/kvcache" \
    > "$out/kvcache.build.log" 2>&1 || { tail -20 "$out/kvcache.build.log"; exit 1; }
  # ph-run needs the cubins and manifests only; the PTX would take the pack past 20 MiB.
  find "$out" -name '*.ptx' -delete
  cp "$root"/bench/gpu/bench_prefill.py "$root"/bench/gpu/cuda_timing.py "$root"/bench/gpu/division_device.sh \
     "$root"/tests/gpu/check_examples.sh "$root"/tests/gpu/check_kvcache.sh "$out/"
  cp "$(dirname "$ph")/ph-run" "$out/" && strip "$out/ph-run" 2>/dev/null
  echo "built into $out ($(du -sh "$out" | cut -f1))"
  ;;
run)
  T=$(cd "$1" && pwd) logs=${2:-$1/logs}
  R=$T/ph-run
  mkdir -p "$logs"
  "$R" --info > /dev/null 2>&1 || { echo "skipped: no GPU"; exit 77; }
  fails=0 t0=$(date +%s)
  # The speed first, the two ways in turns (ieee, full; a second round only if there is time).
  for round in 1 2; do
    [ $round = 2 ] && [ $(( $(date +%s) - t0 )) -gt 45 ] && { echo "(one round only: $(( $(date +%s) - t0 )) s)"; break; }
    for v in ieee full; do
      (cd "$T" && timeout 60 python3 bench_prefill.py "$R" "$T/$v/prefill" --iters 10 \
        --out "$logs/prefill-$v-$round.jsonl") > "$logs/prefill-$v-$round.log" 2>&1 || fails=$((fails+1))
      echo "prefill sm_90a ($v, round $round, $(( $(date +%s) - t0 )) s):"; tail -6 "$logs/prefill-$v-$round.log"
    done
  done
  # Every configuration of mha.ph (both ways) and attention_tc.ph against the fp64 interpreter.
  ok=0 bad=0
  one() { # LABEL DIR ARGS...
    label=$1 dir=$2; shift 2
    if timeout 20 "$R" "$dir" "$@" --check > "$logs/one.log" 2>&1
    then ok=$((ok+1)); echo "ok   $label: $(grep -o 'rel L2 error [^,]*' "$logs/one.log" | head -1)" >> "$logs/checks.log"
    else bad=$((bad+1)); echo "FAIL $label" >> "$logs/checks.log"; tail -4 "$logs/one.log" >> "$logs/checks.log"; fi
  }
  # (The IEEE build is main's code, checked before: it is here for the speed only.)
  for k in mha_f16 mha_causal_f16 mha_bf16 mha_causal_bf16; do for d in 64 128; do for br in 64 128; do
    one "full $k D=$d BR=$br" "$T/full/prefill/$k" --kernel $k --config D=$d,BR=$br,BC=32 --size B=1 --size H=3 --size N=256 --seed 5
  done; done; done
  for k in attn_w4 causal_w4 attn_w8 causal_w8; do for d in 64 128; do for br in 64 128; do for bc in 32 64 128; do
    case $k in *w8) [ $br = 128 ] || continue ;; esac
    one "full $k D=$d BR=$br BC=$bc" "$T/full/attention_tc" --kernel $k --config D=$d,BR=$br,BC=$bc --size B=1 --size H=2 --size N=256 --seed 6
  done; done; done; done
  echo "mha.ph and attention_tc.ph: $ok ok, $bad failed ($(( $(date +%s) - t0 )) s)"; fails=$((fails+bad))
  sh "$T/check_examples.sh" run "$R" "$T/examples" > "$logs/examples.log" 2>&1 || fails=$((fails+1))
  echo "examples: $(grep -c '^ok' "$logs/examples.log") ok, $(grep -c '^FAIL' "$logs/examples.log") failed ($(( $(date +%s) - t0 )) s)"
  grep '^FAIL' "$logs/examples.log"
  sh "$T/check_kvcache.sh" run "$R" "$T/kvcache" > "$logs/kvcache.log" 2>&1 || fails=$((fails+1))
  echo "kvcache: $(grep -c '^==' "$logs/kvcache.log") runs, $(tail -1 "$logs/kvcache.log") ($(( $(date +%s) - t0 )) s)"
  # The SASS: instructions, the IEEE division's slow-path calls and MUFU.RCP, per variant.
  for v in ieee full; do for c in "$T/$v/prefill"/mha_f16/*.cubin "$T/$v/prefill"/mha_causal_f16/*.cubin; do
    cuobjdump -sass "$c" > "$logs/sass.txt" 2>&1
    echo "$v $(basename "$c"): $(grep -cE '^ +/\*[0-9a-f]+\*/' "$logs/sass.txt") instr, $(grep -c 'CALL' "$logs/sass.txt") CALL, $(grep -c 'MUFU.RCP' "$logs/sass.txt") MUFU.RCP"
  done; done | tee "$logs/sass-summary.txt"
  echo "failures: $fails ($(( $(date +%s) - t0 )) s)"
  [ $fails = 0 ]
  ;;
*) echo "usage: division_device.sh build PH OUT | run OUT [LOGS]"; exit 2 ;;
esac
