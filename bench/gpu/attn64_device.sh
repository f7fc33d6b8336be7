#!/bin/sh
# attn64_device.sh - D = 64 attention on mma.sync (sm_90): TileGPU's knobs against the legacy
# emitter, to find what keeps TileGPU at 0.94-0.96x there (issue 14). Each variant is
# examples/mha.ph's mha_f16 and mha_causal_f16 at D = 64 (BR 64 and 128, BC 32) built under its
# knobs; the run times them in rounds (every variant once a round, so clock drift falls on all
# alike), [4, 16, 4096, 64] f16, the best configuration of each, and checks each against the
# fp64 interpreter at a small size.
#
#   attn64_device.sh build PH OUT     (here)
#   attn64_device.sh run OUT [LOGS]   (on the device: about 2 minutes; exits 77 without a GPU)
#
# ATTN64_ROUNDS (default 3) sets the rounds; ATTN64_VARIANTS overrides the list: legacy mma nombar st2 st4 atuse0 bc64 legacy_bc64.
# (Since 2026-12-06 both legacy emitters are deleted and PH_GPU_LOWERING=legacy reads as auto: a
# `legacy` variant here builds what the default builds; its figures in docs/ are history.)
set -u
mode=$1; shift
variants=${ATTN64_VARIANTS:-legacy mma nombar st2 st4 atuse0 bc64 legacy_bc64}
dim=${ATTN64_D:-64}  # ATTN64_D=128: the same at D = 128

variant_env() {
  case $1 in
  legacy | legacy_bc64) echo "PH_GPU_LOWERING=legacy" ;;
  mma | bc64) echo "PH_GPU_LOWERING=tilegpu" ;;
  nombar) echo "PH_GPU_LOWERING=tilegpu PH_TILEGPU_MBARRIERS=0" ;;
  st2) echo "PH_GPU_LOWERING=tilegpu PH_TILEGPU_STAGES=2" ;;
  st4) echo "PH_GPU_LOWERING=tilegpu PH_TILEGPU_STAGES=4" ;;
  atuse0) echo "PH_GPU_LOWERING=tilegpu PH_TILEGPU_AT_USE=0" ;;
  esac
}

case $mode in
build)
  ph=$1 out=$2
  root=$(cd "$(dirname "$0")/../.." && pwd)
  mkdir -p "$out/src"
  echo "$variants" > "$out/variants"
  echo "$dim" > "$out/dim"
  for v in $variants; do
    bc=32; case $v in *bc64) bc=64 ;; esac
    sed "s/^@autotune(D in \[64, 128\], BR in \[64, 128\], BC in \[32\])/@autotune(D in [$dim], BR in [64, 128], BC in [$bc])/" \
      "$root/examples/mha.ph" > "$out/src/mha-$bc.ph"
    for k in mha_f16 mha_causal_f16; do
      # shellcheck disable=SC2046
      env $(variant_env $v) "$ph" build "$out/src/mha-$bc.ph" --kernel $k --target sm_90 --no-cache -j2 \
        -o "$out/$v/$k" > "$out/$v-$k.log" 2>&1 || { echo "FAIL build $v $k"; tail -5 "$out/$v-$k.log"; exit 1; }
      echo "$v $(grep -oE "$k \[[^]]*\]: sm_90, [0-9]+ registers, [0-9]+ B shared memory, [0-9]+ B spilled" "$out/$v-$k.log" | tr '\n' ';')"
    done
  done | tee "$out/registers.txt"
  find "$out" -name '*.ptx' -delete
  cp "$root/bench/gpu/attn64_device.sh" "$out/"
  cp "$(dirname "$ph")/ph-run" "$out/" && strip "$out/ph-run" 2>/dev/null
  echo "built into $out ($(du -sh "$out" | cut -f1))"
  ;;
run)
  T=$(cd "$1" && pwd) logs=${2:-$1/logs}
  R=$T/ph-run
  mkdir -p "$logs"
  "$R" --info > /dev/null 2>&1 || { echo "skipped: no GPU"; exit 77; }
  t0=$(date +%s) fails=0
  # ATTN64_CHECKS=0 skips the checks (some 10 s each: the interpreter) of a pack checked before.
  [ "${ATTN64_CHECKS:-1}" = 0 ] || for v in $(cat "$T/variants"); do for k in mha_f16 mha_causal_f16; do
    if timeout 60 "$R" "$T/$v/$k" --kernel $k --size B=1 --size H=2 --size N=320 --seed 7 --check > "$logs/one.log" 2>&1
    then echo "ok   $v $k"; else echo "FAIL $v $k"; tail -3 "$logs/one.log"; fails=$((fails+1)); fi
  done; done
  : > "$logs/attn64.jsonl"
  for round in $(seq 1 ${ATTN64_ROUNDS:-3}); do
    for v in $(cat "$T/variants"); do for k in mha_f16 mha_causal_f16; do
      timeout 60 "$R" "$T/$v/$k" --kernel $k --size B=4 --size H=16 --size N=4096 --bench --json --iters 30 --warmup 5 \
        > "$logs/bench.json" 2> "$logs/bench.err" || { fails=$((fails+1)); tail -3 "$logs/bench.err"; continue; }
      python3 -c 'import json, sys
rows = json.load(open(sys.argv[1]))["rows"]
flop = 4 * 4 * 16 * 4096 * 4096 * int(sys.argv[5]) * (0.5 if "causal" in sys.argv[3] else 1.0)
for r in rows:
    print(json.dumps({"round": int(sys.argv[4]), "variant": sys.argv[2], "kernel": sys.argv[3], "config": r.get("config"),
                      "ms": r["ms"], "tflops": flop / r["ms"] / 1e9}))' "$logs/bench.json" $v $k $round "$(cat "$T/dim" 2>/dev/null || echo 64)" >> "$logs/attn64.jsonl"
    done; done
    [ $(( $(date +%s) - t0 )) -gt 200 ] && { echo "(stopped after round $round)"; break; }
  done
  python3 - "$logs/attn64.jsonl" <<'PY' | tee "$logs/summary.txt"
import json, sys, collections
best = collections.defaultdict(list)  # (variant, kernel) -> per round best
rows = [json.loads(l) for l in open(sys.argv[1])]
for (v, k, rd) in sorted({(r["variant"], r["kernel"], r["round"]) for r in rows}):
    b = max((r for r in rows if (r["variant"], r["kernel"], r["round"]) == (v, k, rd)), key=lambda r: r["tflops"])
    best[(v, k)].append((b["tflops"], b["config"]))
base = {k: max(t for t, _ in best[("legacy", k)]) for (v, k) in best if v == "legacy"}
for (v, k), xs in sorted(best.items(), key=lambda x: (x[0][1], x[0][0])):
    m = max(t for t, _ in xs)
    print("%-15s %-12s best %6.1f TFLOP/s (rounds %s) %s  x legacy %.3f" % (k, v, m, " ".join("%.1f" % t for t, _ in xs),
          max(xs)[1], m / base[k] if k in base else float("nan")))
PY
  for v in legacy mma; do
    c=$(ls "$T/$v/mha_f16"/*BR128*.cubin 2>/dev/null | head -1)
    [ -n "$c" ] && cuobjdump -sass "$c" > "$logs/sass-$v-br128.txt" 2>&1
  done
  echo "failures: $fails ($(( $(date +%s) - t0 )) s)"
  [ $fails -eq 0 ]
  ;;
*) echo "usage: attn64_device.sh build PH OUT | run OUT [LOGS]"; exit 2 ;;
esac
