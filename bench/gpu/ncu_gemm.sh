#!/bin/sh
# Nsight Compute on the GEMM of examples/gemm.ph as built for one target (sm_90: the mma.sync
# policy; sm_90a: wgmma) and on cuBLAS's kernel for the same product (torch.matmul): where
# each spends its issue slots and why its warps stall. Run on the GPU machine.
#
#   ncu_gemm.sh PH_RUN KERNEL_DIR KERNEL CONFIG SIZE OUT
#   e.g. ncu_gemm.sh T/ph-run T/gemm/gemm_relu_f16 gemm_relu_f16 BM=128,BN=128,BK=32 4096 $OUT
#
# Writes OUT/ncu-{ph,cublas}.{ncu-rep,txt,raw.csv} and Ph's SASS (OUT/ph.sass); prints the
# headline figures and the stall reasons in cycles per issued instruction (ncu's
# smsp__average_warps_issue_stalled_*_per_issue_active); clocks are left alone
# (--clock-control none, device/METHOD.md).
set -u
phrun=$1 dir=$2 kernel=$3 config=$4 n=$5 out=$6
mkdir -p "$out"
command -v ncu >/dev/null || { echo "skipped: no ncu"; exit 77; }
# NCU_SECTIONS: e.g. "--section SpeedOfLight --section WarpStateStats" for a quicker run than the full set.
ncu_args="--clock-control none ${NCU_SECTIONS:---set full} --import-source no -f"
# shellcheck disable=SC2086
ncu $ncu_args -k "regex:$kernel" -c 1 -o "$out/ncu-ph" \
  "$phrun" "$dir" --kernel "$kernel" --config "$config" --size M=$n --size N=$n --size K=$n --seed 1 \
  > "$out/ncu-ph.run.log" 2>&1 || { echo "ncu on $kernel failed"; tail -20 "$out/ncu-ph.run.log"; exit 1; }
ncu --import "$out/ncu-ph.ncu-rep" --page details > "$out/ncu-ph.txt" 2>&1
cfgname=$(echo "$config" | sed 's/=//g; s/,/_/g')
command -v cuobjdump >/dev/null && cuobjdump -sass "$dir/$kernel.$cfgname.cubin" > "$out/ph.sass" 2>&1
cat > "$out/cublas.py" <<PY
import torch
a, b = ((torch.rand($n, $n, device="cuda") * 2 - 1).half() for _ in range(2))
for _ in range(2):
    a @ b
torch.cuda.synchronize()
PY
# shellcheck disable=SC2086
ncu $ncu_args -k "regex:gemm|sm90|cutlass|xmma" --launch-skip 1 -c 1 -o "$out/ncu-cublas" python3 "$out/cublas.py" \
  > "$out/ncu-cublas.run.log" 2>&1 || { echo "ncu on cuBLAS failed"; tail -20 "$out/ncu-cublas.run.log"; }
[ -f "$out/ncu-cublas.ncu-rep" ] && ncu --import "$out/ncu-cublas.ncu-rep" --page details > "$out/ncu-cublas.txt" 2>&1
for f in ph cublas; do
  [ -f "$out/ncu-$f.ncu-rep" ] || continue
  ncu --import "$out/ncu-$f.ncu-rep" --page raw --csv > "$out/ncu-$f.raw.csv" 2>&1
  echo "== $f"
  grep -E "^ +(Duration|Elapsed Cycles|Compute \(SM\) Throughput|Memory Throughput|Registers Per Thread|Achieved Occupancy|Executed Ipc Active|Issue Slots Busy|No Eligible|Warp Cycles Per Issued Instruction|Executed Instructions  |Block Limit Registers|Block Limit Shared Mem|Shared Memory Configuration Size|L1/TEX Hit Rate|L2 Hit Rate|DRAM Throughput) " "$out/ncu-$f.txt" | sed 's/  */ /g'
done
python3 "$(dirname "$0")/ncu_stalls.py" ph="$out/ncu-ph.raw.csv" cuBLAS="$out/ncu-cublas.raw.csv"
