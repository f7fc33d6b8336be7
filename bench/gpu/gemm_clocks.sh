#!/bin/sh
# usage (GPU machine): gemm_clocks.sh LOGS, in a folder holding ph-run, gemm/gemm_relu_f16_w8 (ph build
# examples/gemm.ph --kernel gemm_relu_f16_w8 --target sm_90), bench_gemm.py, cuda_timing.py, ncu_gemm.sh, ncu_stalls.py.
# Why the 8-warp mma.sync GEMM is slower at 8192³ than at 4096³: clocks and power while it runs
# (nvidia-smi every 50 ms), then Nsight Compute at both sizes (clocks left alone).
T=$(cd "$(dirname "$0")" && pwd) logs=$1
mkdir -p "$logs"
for n in 4096 8192; do
  nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,temperature.gpu,clocks_event_reasons.active --format=csv,noheader -lms 50 > "$logs/smi-$n.csv" 2>&1 &
  smi=$!
  (cd "$T" && python3 bench_gemm.py "$T/ph-run" "$T/gemm" --kernels gemm_relu_f16_w8 --sizes $n --iters 200 --out "$logs/bench-$n.jsonl") > "$logs/bench-$n.log" 2>&1
  kill $smi
  echo "== $n: $(grep -A3 '^kernel ' "$logs/bench-$n.log" | tail -2)"
  awk -F', ' '{c[$2]++; p+=$3; n++} END {for (k in c) printf "  sm clock %s: %d samples\n", k, c[k]; printf "  mean power %.0f W over %d samples\n", p/n, n}' "$logs/smi-$n.csv" | sort | tail -6
  awk -F', ' '{print $5}' "$logs/smi-$n.csv" | sort | uniq -c | sort -rn | head -3
done
for n in 4096 8192; do
  NCU_SECTIONS="--section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats --section LaunchStats --section Occupancy" \
    sh "$T/ncu_gemm.sh" "$T/ph-run" "$T/gemm/gemm_relu_f16_w8" gemm_relu_f16_w8 BM=128,BN=256,BK=64 $n "$logs/ncu-$n" > "$logs/ncu-$n.log" 2>&1
  echo "== ncu $n"; cat "$logs/ncu-$n.log"
done
