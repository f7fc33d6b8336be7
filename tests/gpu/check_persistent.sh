#!/bin/sh
# Persistent CTAs (PH_TILEGPU_PERSISTENT=1; docs/tilegpu.md, "Persistent CTAs") against the fp64
# interpreter on a Hopper GPU: mha.ph's non-causal kernels and gemm.ph's TMA GEMMs built persistent
# for sm_90a, run with 2 and 3 SMs filled (PH_RUN_PERSISTENT_SMS) so that every CTA walks several
# tiles and issues the next tile's first loads, and once with the whole GPU.
#
#   check_persistent.sh PH PH_RUN OUT
#
# Exits 77 (skipped) without a GPU or on one older than sm_90, 1 when a check fails.
set -u
ph=$1 run=$2 out=$3
info=$("$run" --info 2>/dev/null) || { echo "skipped: no GPU"; exit 77; }
case $info in *sm_90*|*sm_100*|*sm_120*) ;; *) echo "skipped: persistent kernels need sm_90a (wgmma, TMA)"; exit 77 ;; esac
root=$(cd "$(dirname "$0")/../.." && pwd)
rm -rf "$out"; mkdir -p "$out"
fails=0
build() { # NAME FILE KERNEL
  PH_TILEGPU_PERSISTENT=1 "$ph" build "$2" --kernel "$3" --target sm_90a --no-cache -o "$out/$1" > "$out/$1.log" 2>&1 ||
    { echo "FAIL build $1"; tail -3 "$out/$1.log"; exit 1; }
}
check() { # SMS DIR ARGS...
  sms=$1 dir=$2; shift 2
  if PH_RUN_PERSISTENT_SMS=$sms "$run" "$out/$dir" "$@" --check > "$out/one.log" 2>&1; then
    echo "ok   [$sms SMs] $dir $*"
  else
    echo "FAIL [$sms SMs] $dir $*"; tail -4 "$out/one.log"; fails=$((fails + 1))
  fi
}
build mha_f16 "$root/examples/mha.ph" mha_f16
build mha_bf16 "$root/examples/mha.ph" mha_bf16
build gemm_w8 "$root/examples/gemm.ph" gemm_relu_f16_w8
build gemm "$root/examples/gemm.ph" gemm_relu_f16
for sms in 2 3; do
  for k in mha_f16 mha_bf16; do
    for c in D=64,BR=64,BC=128 D=64,BR=128,BC=128 D=128,BR=64,BC=32 D=128,BR=128,BC=32 D=128,BR=128,BC=128; do
      check $sms $k --kernel $k --config $c --size B=1 --size H=3 --size N=384 --seed 5
    done
  done
  for c in BM=128,BN=128,BK=64 BM=128,BN=256,BK=32 BM=128,BN=256,BK=64; do
    check $sms gemm_w8 --kernel gemm_relu_f16_w8 --config $c --size M=512 --size N=512 --size K=320 --seed 7
  done
  # One K block: fewer iterations than the ring copies ahead, so every tile runs its own prologue.
  check $sms gemm_w8 --kernel gemm_relu_f16_w8 --config BM=128,BN=256,BK=64 --size M=512 --size N=512 --size K=64 --seed 9
  check $sms gemm --kernel gemm_relu_f16 --config BM=128,BN=128,BK=64 --size M=512 --size N=384 --size K=192 --seed 5
done
check "" mha_f16 --kernel mha_f16 --config D=128,BR=128,BC=128 --size B=2 --size H=8 --size N=1024 --seed 3
echo "failures: $fails"
[ $fails -eq 0 ]
