#!/bin/sh
# Nsight Compute on the tensor-core flash attention and, on the same shape, PyTorch SDPA's
# FLASH_ATTENTION kernel (FlashAttention-2): where each spends its issue slots and why its
# warps stall. Run on the GPU machine (docs/tensorcore.md, "What limits the kernel").
#
#   ncu_attention.sh PH_RUN KERNEL_DIR KERNEL CONFIG D OUT
#   e.g. ncu_attention.sh .device/tc/ph-run .device/tc/bench/attn_w8 attn_w8 D=128,BR=128,BC=128 128 $OUT
#
# Shape [4, 16, 4096, D], f16, not causal. Writes OUT/ncu-{ph,fa2}.{ncu-rep,txt,raw.csv}
# (the details page, every metric) and Ph's SASS (OUT/ph.sass); prints the headline figures
# and the stall reasons, cycles per issued instruction each (ncu's
# smsp__average_warps_issue_stalled_*_per_issue_active); clocks are left alone (--clock-control none,
# device/METHOD.md).
set -u
phrun=$1 dir=$2 kernel=$3 config=$4 d=$5 out=$6
mkdir -p "$out"
command -v ncu >/dev/null || { echo "skipped: no ncu"; exit 77; }
ncu_args="--clock-control none --set full --import-source no -f"
# shellcheck disable=SC2086
ncu $ncu_args -k "regex:$kernel" -c 1 -o "$out/ncu-ph" \
  "$phrun" "$dir" --kernel "$kernel" --config "$config" --size B=4 --size H=16 --size N=4096 --seed 1 \
  > "$out/ncu-ph.run.log" 2>&1 || { echo "ncu on $kernel failed"; tail -20 "$out/ncu-ph.run.log"; exit 1; }
ncu --import "$out/ncu-ph.ncu-rep" --page details > "$out/ncu-ph.txt" 2>&1
cfgname=$(echo "$config" | sed 's/=//g; s/,/_/g')
command -v cuobjdump >/dev/null && cuobjdump -sass "$dir/$kernel.$cfgname.cubin" > "$out/ph.sass" 2>&1
cat > "$out/fa2.py" <<PY
import torch, torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel
q, k, v = ((torch.rand(4, 16, 4096, $d, device="cuda") * 2 - 1).half() for _ in range(3))
with sdpa_kernel(SDPBackend.FLASH_ATTENTION):
    for _ in range(2):
        F.scaled_dot_product_attention(q, k, v)
torch.cuda.synchronize()
PY
# shellcheck disable=SC2086
ncu $ncu_args -k "regex:flash_fwd" --launch-skip 1 -c 1 -o "$out/ncu-fa2" python3 "$out/fa2.py" \
  > "$out/ncu-fa2.run.log" 2>&1 || { echo "ncu on FlashAttention-2 failed"; tail -20 "$out/ncu-fa2.run.log"; exit 1; }
ncu --import "$out/ncu-fa2.ncu-rep" --page details > "$out/ncu-fa2.txt" 2>&1
for f in ph fa2; do
  ncu --import "$out/ncu-$f.ncu-rep" --page raw --csv > "$out/ncu-$f.raw.csv" 2>&1
  echo "== $f"
  grep -E "^ +(Duration|Elapsed Cycles|Compute \(SM\) Throughput|Memory Throughput|Registers Per Thread|Achieved Occupancy|Executed Ipc Active|Issue Slots Busy|No Eligible|Warp Cycles Per Issued Instruction|Executed Instructions  |Block Limit Registers|Block Limit Shared Mem) " "$out/ncu-$f.txt" | sed 's/  */ /g'
done
python3 "$(dirname "$0")/ncu_stalls.py" ph="$out/ncu-ph.raw.csv" FA2="$out/ncu-fa2.raw.csv"
