#!/usr/bin/env python3
"""Why the warps of two kernels stall, side by side, from Nsight Compute's raw CSV pages
(`ncu --import R.ncu-rep --page raw --csv`): per reason, cycles per issued instruction
(smsp__average_warps_issue_stalled_<reason>_per_issue_active.ratio; the reasons add up to
"Warp Cycles Per Issued Instruction"). Used by ncu_attention.sh and ncu_gemm.sh.

usage: ncu_stalls.py LABEL=RAW.csv OTHER=RAW.csv   (a missing file gives an empty column)
"""
import csv, os, sys

HEAD, TAIL = "smsp__average_warps_issue_stalled_", "_per_issue_active.ratio"


def stalls(path):
    if not os.path.exists(path):
        return {}
    rows = list(csv.reader(open(path)))
    names, vals = rows[0], rows[2]
    out = {}
    for n, v in zip(names, vals):
        if n.startswith(HEAD) and n.endswith(TAIL):
            try:
                out[n[len(HEAD):-len(TAIL)]] = float(v.replace(",", ""))
            except ValueError:
                pass
    return out


def main():
    (la, pa), (lb, pb) = (arg.split("=", 1) for arg in sys.argv[1:3])
    a, b = stalls(pa), stalls(pb)
    print(f"stall reason (cycles per issued instruction)  {la:>8} {lb:>8}")
    for r in sorted(a, key=lambda r: -a[r]):
        if a[r] >= 0.02 or b.get(r, 0) >= 0.02:
            print(f"  {r:45} {a[r]:6.2f}  {b.get(r, float('nan')):6.2f}")


if __name__ == "__main__":
    main()
