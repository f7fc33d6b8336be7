#!/bin/sh
# decode_simt_device.sh - why the TileGPU SIMT policy's flash-decoding is 0.95x the legacy SIMT
# emitter (issue 14: the last figure that keeps the legacy emitters), in one device call.
# examples/decode_attention.ph's decode_split on sm_90a: legacy (PH_GPU_LOWERING=legacy: 16-byte
# loads into registers, 127 registers, 36 KiB shared, 4 CTAs an SM) against the policy
# (PH_GPU_LOWERING=tilegpu: a cp.async ring read in place by the FMA dots, 50 registers, 70 KiB
# shared, 3 CTAs an SM), with the ring's depth and the key block varied.
#
#   decode_simt_device.sh build PH OUT    (here)
#   decode_simt_device.sh run OUT [LOGS]  (on the device; about 4 minutes; exits 77 without a GPU)
#
# DS_VARIANTS picks the variants (default "legacy tg tg_s1 tg_s3 tg_bc32"; also tg_bc32_s3: 32-key
# blocks in a 3-stage ring, 52 KiB, four CTAs an SM; tg_bc16_s4; tg_t256: 256 threads a CTA;
# tg_regs: no ring, the next K and V blocks read into registers (PH_TILEGPU_FMA_RINGS=0), as the
# legacy emitter does; tg_regs_c4: the same at 128 registers, four CTAs an SM);
# DS_NCU=0 leaves out the profiles; DS_WHERE (e.g. S=16) times only those split configurations,
# DS_DECODE_LIMIT the timing step's limit in seconds (default 200: five variants of the full space).
#
# run: each variant checked against the interpreter (G = 1 and 4, a ragged cache), then timed
# side by side (bench_decode.py: B = 32, H = 32, D = 128, cache 4,096, MHA and GQA 4:1, next to
# cuDNN), then Nsight Compute on decode_split G = 1 of legacy and tg at the MHA shape (memory
# throughput, occupancy, the stall reasons side by side) and the SASS's instruction mix.
# (Since 2026-12-06 both legacy emitters are deleted and PH_GPU_LOWERING=legacy reads as auto: a
# `legacy` variant here builds what the default builds; its figures in docs/ are history.)
set -u
mode=$1; shift
root=$(cd "$(dirname "$0")/../.." && pwd)
. "$(dirname "$0")/pack_steps.sh"
variants=${DS_VARIANTS:-legacy tg tg_s1 tg_s3 tg_bc32}
knob() { # VARIANT: its environment
  case $1 in
  legacy) echo "PH_GPU_LOWERING=legacy" ;;
  tg|tg_bc32|tg_t256) echo "PH_GPU_LOWERING=tilegpu" ;;
  tg_s1) echo "PH_GPU_LOWERING=tilegpu PH_TILEGPU_STAGES=1" ;;
  tg_s3|tg_bc32_s3) echo "PH_GPU_LOWERING=tilegpu PH_TILEGPU_STAGES=3" ;;
  tg_bc16_s4) echo "PH_GPU_LOWERING=tilegpu PH_TILEGPU_STAGES=4" ;;
  tg_regs) echo "PH_GPU_LOWERING=tilegpu PH_TILEGPU_FMA_RINGS=0 PH_TILEGPU_PREFETCH_LOADS=72" ;;
  tg_regs_c4) echo "PH_GPU_LOWERING=tilegpu PH_TILEGPU_FMA_RINGS=0 PH_TILEGPU_PREFETCH_LOADS=72 PH_TILEGPU_MIN_CTAS=4" ;;
  *) echo "unknown variant $1" >&2; exit 2 ;;
  esac
}
# A variant's key block (its source: examples/decode_attention.ph, or a copy with another BC or
# 256 threads a CTA).
bcOf() { case $1 in *bc32*) echo 32 ;; *bc16*) echo 16 ;; *) echo 64 ;; esac; }
case $mode in
build)
  ph=$1 out=$2
  mkdir -p "$out"
  out=$(cd "$out" && pwd)
  # Key blocks of 32 or 16 (copies of the example): a half or a quarter of the ring's stage;
  # 256 threads a CTA (@launch(256): 8 warps on the same ring).
  for bc in 32 16; do
    sed "s/BC in \[64\]/BC in [$bc]/" "$root/examples/decode_attention.ph" > "$out/decode_bc$bc.ph"
    grep -q "BC in \[$bc\]" "$out/decode_bc$bc.ph" || { echo "decode_bc$bc.ph: the autotune line changed"; exit 1; }
  done
  sed 's/^@grid(S, HK, B)$/@grid(S, HK, B)\n@launch(256)/' "$root/examples/decode_attention.ph" > "$out/decode_t256.ph"
  grep -q '@launch(256)' "$out/decode_t256.ph" || { echo "decode_t256.ph: the @grid line changed"; exit 1; }
  for v in $variants; do
    src=$root/examples/decode_attention.ph
    case $v in *bc32*) src=$out/decode_bc32.ph ;; *bc16*) src=$out/decode_bc16.ph ;; *t256*) src=$out/decode_t256.ph ;; esac
    # shellcheck disable=SC2046
    (cd "$root" && build_into "$out/build-$v.log" env $(knob $v) "$ph" build "$src" --target sm_90a --no-cache -o "$out/$v") || exit 1
    grep -h ' -> ' "$out/build-$v.log" | sed 's/ -> .*//'
  done
  /usr/bin/python3 "$root/tests/gpu/decode_inputs.py" "$out" || exit 1
  finish_pack "$ph" "$out" "$root/bench/gpu/bench_decode.py" "$root/bench/gpu/cuda_timing.py" "$root/bench/gpu/ncu_stalls.py" \
    "$root/bench/gpu/decode_simt_device.sh"
  ;;
run)
  start_pack "$@"
  for v in $variants; do
    bc=$(bcOf $v)
    for g in 1 4; do
      step "check-$v-g$g" 40 "'$R' '$T/$v' --kernel decode_split --config D=128,G=$g,BC=$bc,S=8 --in Q='$T/q$g.npy' \
        --in K='$T/k.npy' --in V='$T/v.npy' --in Lens='$T/lens.npy' --check"
    done
  done
  dirs="" labels=""
  for v in $variants; do dirs="$dirs${dirs:+,}$T/$v" labels="$labels${labels:+,}$v"; done
  step decode ${DS_DECODE_LIMIT:-200} "cd '$T' && python3 bench_decode.py '$R' '$dirs' --labels '$labels' --shapes 32:4096,8:4096 \
    --backends cudnn --iters 20 ${DS_WHERE:+--where $DS_WHERE} --out '$logs/decode.jsonl'"
  grep -vE '^   |Warning|f = lambda' "$logs/decode.log" | tail -24
  if [ "${DS_NCU:-1}" = 1 ] && command -v ncu > /dev/null; then
    # The first two variants (the default list's: the deleted emitter's build, now the default's, and tg).
    set -- $variants
    ncu_variants="$1 ${2:-}"
    for v in $ncu_variants; do
      step "ncu-$v" 90 "ncu --clock-control none --set full --import-source no -f -k regex:decode_split -c 1 -o '$logs/ncu-$v' \
        '$R' '$T/$v' --kernel decode_split --config D=128,G=1,BC=64,S=16 --size B=32 --size H=32 --size HK=32 --size N=4096 \
        --in Lens='$T/lens_full.npy' --iters 1 --warmup 0 && ncu --import '$logs/ncu-$v.ncu-rep' --page details > '$logs/ncu-$v.txt' \
        && ncu --import '$logs/ncu-$v.ncu-rep' --page raw --csv > '$logs/ncu-$v.raw.csv'"
      echo "-- $v"
      grep -E 'DRAM Throughput|Memory Throughput|Duration|Achieved Occupancy|Theoretical Occupancy|Registers Per|Block Limit|Waves Per SM|Issued Ipc|L1/TEX Hit|L2 Hit|Warp Cycles Per Issued' \
        "$logs/ncu-$v.txt" | head -20
      cuobjdump -sass "$T/$v/decode_split.D128_G1_BC64_S16.cubin" > "$logs/sass-$v.txt" 2>&1
      echo "   SASS: $(grep -cE '^\s+/\*[0-9a-f]+\*/' "$logs/sass-$v.txt") instructions, $(grep -c 'LDGSTS' "$logs/sass-$v.txt") LDGSTS, $(grep -c 'LDG\.' "$logs/sass-$v.txt") LDG, $(grep -c 'LDS' "$logs/sass-$v.txt") LDS, $(grep -c 'FFMA' "$logs/sass-$v.txt") FFMA, $(grep -c 'BAR' "$logs/sass-$v.txt") BAR, $(grep -c 'SHFL' "$logs/sass-$v.txt") SHFL"
    done
    set -- $ncu_variants
    [ $# -eq 2 ] && python3 "$T/ncu_stalls.py" "$1=$logs/ncu-$1.raw.csv" "$2=$logs/ncu-$2.raw.csv" 2>&1 | head -30
  else
    echo "no ncu: the profiles skipped"
  fi
  echo "failures: $fails ($(( $(date +%s) - t0 )) s)"
  [ $fails -eq 0 ]
  ;;
*) echo "usage: decode_simt_device.sh build PH OUT | run OUT [LOGS]"; exit 2 ;;
esac
