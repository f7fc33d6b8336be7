#!/bin/sh
# epilogue_device.sh - attention's epilogue `acc / l` (one IEEE division per element: 128 div.rn.f32
# in a D=128 wgmma variant, a third of ptxas's time) against `acc * (1.0 / l)` (one reciprocal per
# row), on the GPU: mha.ph's prefill speed (bench_prefill.py, both ways, in turns), every
# configuration against the interpreter, std's attention through attention_tc.ph, and the SASS.
#
#   epilogue_device.sh build PH DIV_ROOT RCP_ROOT OUT  (here: two source trees, one compiler)
#   epilogue_device.sh run OUT [LOGS]                  (on the device; exits 77 without a GPU)
set -u
mode=$1; shift
case $mode in
build)
  ph=$1 div=$2 rcp=$3 out=$4
  mkdir -p "$out"
  for v in div rcp; do
    eval root=\$$v
    for t in sm_90a sm_90; do
      for k in mha_f16 mha_causal_f16 mha_bf16; do
        "$ph" build "$root/examples/mha.ph" --std "$root/std" --kernel $k --target $t --no-cache \
          -o "$out/$v-$t/prefill/$k" > "$out/$v-$t-$k.log" 2>&1 || { cat "$out/$v-$t-$k.log"; exit 1; }
      done
      "$ph" build "$root/bench/gpu/attention_tc.ph" --std "$root/std" --target $t --no-cache \
        -o "$out/$v-$t/attention_tc" > "$out/$v-$t-attention_tc.log" 2>&1 || { cat "$out/$v-$t-attention_tc.log"; exit 1; }
    done
  done
  # ph-run needs the cubins and manifests only; the PTX would take the pack past 20 MiB.
  find "$out" -name '*.ptx' -delete
  cp "$rcp"/bench/gpu/bench_prefill.py "$rcp"/bench/gpu/cuda_timing.py "$rcp"/bench/gpu/epilogue_device.sh "$out/"
  cp "$(dirname "$ph")/ph-run" "$out/" && strip "$out/ph-run" 2>/dev/null
  echo "built into $out ($(du -sh "$out" | cut -f1))"
  ;;
run)
  T=$(cd "$1" && pwd) logs=${2:-$1/logs}
  R=$T/ph-run
  mkdir -p "$logs"
  "$R" --info > /dev/null 2>&1 || { echo "skipped: no GPU"; exit 77; }
  fails=0
  # The speed first, the two ways in turns (div, rcp, div, rcp) on sm_90a (wgmma at D=128).
  # The pack must finish in 4 minutes: a second round only if the first took under 80 s.
  t0=$(date +%s)
  for round in 1 2; do
    [ $round = 2 ] && [ $(( $(date +%s) - t0 )) -gt 80 ] && { echo "(one round only: $(( $(date +%s) - t0 )) s)"; break; }
    for v in div rcp; do
      (cd "$T" && timeout 70 python3 bench_prefill.py "$R" "$T/$v-sm_90a/prefill" \
        --out "$logs/prefill-$v-$round.jsonl") > "$logs/prefill-$v-$round.log" 2>&1 || fails=$((fails+1))
      echo "prefill sm_90a ($v, round $round):"; tail -6 "$logs/prefill-$v-$round.log"
    done
  done
  # Every configuration against the fp64 interpreter, both targets.
  for v in div rcp; do for t in sm_90a sm_90; do
    ok=0 bad=0
    for k in mha_f16 mha_causal_f16 mha_bf16; do for d in 64 128; do for br in 64 128; do
      if timeout 20 "$R" "$T/$v-$t/prefill/$k" --kernel $k --config D=$d,BR=$br,BC=32 --size B=1 --size H=3 \
           --size N=256 --seed 5 --check > "$logs/one.log" 2>&1
      then ok=$((ok+1)); echo "ok   $v $t $k D=$d BR=$br: $(grep -o 'rel L2 error [^,]*' "$logs/one.log")" >> "$logs/checks.log"
      else bad=$((bad+1)); echo "FAIL $v $t $k D=$d BR=$br" >> "$logs/checks.log"; tail -4 "$logs/one.log" >> "$logs/checks.log"; fi
    done; done; done
    for k in attn_w4 causal_w4; do for d in 64 128; do
      if timeout 20 "$R" "$T/$v-$t/attention_tc" --kernel $k --config D=$d,BR=128,BC=64 --size B=1 --size H=2 \
           --size N=256 --seed 6 --check > "$logs/one.log" 2>&1
      then ok=$((ok+1)); echo "ok   $v $t $k D=$d: $(grep -o 'rel L2 error [^,]*' "$logs/one.log")" >> "$logs/checks.log"
      else bad=$((bad+1)); echo "FAIL $v $t $k D=$d" >> "$logs/checks.log"; tail -4 "$logs/one.log" >> "$logs/checks.log"; fi
    done; done
    echo "checks $v $t: $ok ok, $bad failed"; fails=$((fails+bad))
  done; done
  # The SASS: instructions, registers, and the division's slow-path calls, per variant.
  for v in div rcp; do for c in "$T/$v-sm_90a/prefill"/*/*.cubin; do
    cuobjdump -sass "$c" > "$logs/sass.txt" 2>&1
    echo "$v $(basename "$c"): $(grep -cE '^ +/\*[0-9a-f]+\*/' "$logs/sass.txt") instr, $(grep -c 'CALL' "$logs/sass.txt") CALL, $(grep -c 'MUFU.RCP' "$logs/sass.txt") MUFU.RCP"
  done; done | tee "$logs/sass-summary.txt"
  echo "failures: $fails"
  [ $fails = 0 ]
  ;;
*) echo "usage: epilogue_device.sh build PH DIV_ROOT RCP_ROOT OUT | run OUT [LOGS]"; exit 2 ;;
esac
