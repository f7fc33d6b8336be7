#!/bin/sh
# gemm_occ_device.sh - the mma.sync GEMM (sm_90) with more warps per SM: registers capped so
# that N CTAs fit an SM (PH_TILEGPU_MIN_CTAS=N, ptxas's .minnctapersm), against the default
# (one 8-warp CTA of 128x256 per SM: two warps per scheduler), on the same tensors next to
# cuBLAS. Issue 14: the fixed-latency ("wait") stalls that two warps per scheduler cannot hide.
#
#   gemm_occ_device.sh build PH OUT    (here)
#   gemm_occ_device.sh run OUT [LOGS]  (on the device; exits 77 without a GPU)
#
# Variants (GEMM_OCC_VARIANTS, default "gemm occ2 occ3"):
#   gemm  the default build of gemm_relu_f16_w8 and gemm_relu_f16;
#   occ2  gemm_relu_f16_w8 with two CTAs an SM (128 registers a thread: 8 warps of 64x32 at
#         128x128 fit without spilling; 128x256 does not and loses);
#   occ3  gemm_relu_f16 (4 warps) with three CTAs an SM (170 registers: the 128x64 and 64x128
#         tiles).
set -u
mode=$1; shift
root=$(cd "$(dirname "$0")/../.." && pwd)
. "$(dirname "$0")/pack_steps.sh"
variants=${GEMM_OCC_VARIANTS:-gemm occ2 occ3}
case $mode in
build)
  ph=$1 out=$2
  mkdir -p "$out"
  for v in $variants; do
    case $v in
      gemm) ks="gemm_relu_f16_w8 gemm_relu_f16" n= ;;
      occ2) ks=gemm_relu_f16_w8 n=2 ;;
      occ3) ks=gemm_relu_f16 n=3 ;;
      *) echo "unknown variant $v"; exit 2 ;;
    esac
    for k in $ks; do
      build_into "$out/$v-$k.log" env PH_TILEGPU_MIN_CTAS=$n "$ph" build "$root/examples/gemm.ph" --kernel $k \
        --target sm_90 --no-cache -o "$out/$v/$k"
    done
  done
  finish_pack "$ph" "$out" "$root/bench/gpu/bench_gemm.py" "$root/bench/gpu/cuda_timing.py" "$root/bench/gpu/gemm_occ_device.sh"
  ;;
run)
  start_pack "$@"
  # Every configuration of each variant against the interpreter first (ragged-free sizes).
  for v in $variants; do
    for d in "$T/$v"/*/; do
      k=$(basename "$d")
      for cfg in $(python3 -c "import json; print(' '.join(x['configName'] for x in json.load(open('$d/manifest.json'))['kernels']))" 2>/dev/null); do
        if "$R" "$d" --kernel $k --config $cfg --size M=512 --size N=512 --size K=192 --seed 7 --check > "$logs/one.log" 2>&1
        then echo "ok   $v $k $cfg: $(grep -o 'rel L2 error [^,]*' "$logs/one.log")"
        else echo "FAIL $v $k $cfg"; tail -4 "$logs/one.log"; fails=$((fails+1)); fi
      done
    done
  done
  dirs=; for v in $variants; do dirs="$dirs $T/$v"; done
  (cd "$T" && timeout 300 python3 bench_gemm.py "$R" $dirs --iters 30 --torch matmul --out "$logs/gemm-occ.jsonl") > "$logs/gemm-occ.log" 2>&1 || fails=$((fails+1))
  grep -A30 '^kernel ' "$logs/gemm-occ.log"
  python3 - "$logs/gemm-occ.jsonl" <<'EOF'
import json, sys
for l in open(sys.argv[1]):
    r = json.loads(l)
    print(r["label"], r["kernel"], r["n"], " ".join(f"{c['config']}:{2*r['n']**3/(c['ms']*1e-3)/1e12:.0f}" for c in r["configs"]))
EOF
  echo "failures: $fails"
  [ $fails -eq 0 ]
  ;;
*) echo "usage: gemm_occ_device.sh build PH OUT | run OUT [LOGS]"; exit 2 ;;
esac
