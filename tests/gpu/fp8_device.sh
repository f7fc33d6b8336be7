#!/bin/sh
# fp8 on the GPU (issue 16; docs/language.md, "fp8"): every kernel of tests/lit/run/Inputs/fp8.ph
# (every code of both formats widened; f32 and f16 narrowed: every value, every tie and one f32
# step either side, past the largest finite value, +-inf, NaN, +-0, subnormals, random bits;
# fp8 -> fp8 / i32 / f16 / bf16; f32 arithmetic on loaded fp8) and the examples
# examples/fp8_quantize.ph and examples/fp8_dequantize.ph (ragged and whole tiles, random
# inputs drawn at build time), and an e4m3 x f16 tensor-core GEMM (tests/gpu/fp8/gemm.ph: mma.sync;
# --check only, on ph-run's random inputs, since a sum's order differs), built for sm_90 and sm_90a (cubins) and sm_80 (PTX, which the
# driver compiles for the GPU present: the integer path that needs no fp8 instruction), run
# with ph-run and compared with the fp64 interpreter twice: `ph-run --check` (within its
# tolerance) and bit for bit (tests/gpu/conversions/exact.py: a conversion has one right
# answer; NaN equal to NaN) against the interpreter's outputs written here by
# `ph run --target interp`. The CPU target is compared with them here, bit for bit, too.
#
#   fp8_device.sh build PH OUT    here (the compiler; no GPU): OUT/ (the script travels in it)
#   fp8_device.sh run DIR LOGS    there (ph-run, python3; no compiler): LOGS/run.log,
#                                 LOGS/summary.txt; exit 0 when everything agrees
#
# TileGPU's SIMT policy takes fp8 kernels (the legacy SIMT emitter, deleted on 2026-12-06,
# refused them: E0502). `run` exits 77 without a GPU.
set -u
mode=${1:-}
[ $# -gt 0 ] && shift
here=$(cd "$(dirname "$0")" && pwd)

# Every build: ARCH (the default lowering).
archs="sm_90 sm_90a sm_80"

# One case of IN/cases.txt or IN/examples.txt as "TAG|SRC|KERNEL|SIZES|INS|OUTS".
cases() { # IN FP8SRC
  while IFS='|' read -r k n ins outs; do
    echo "$k|$2|$k|--size N=$n|$ins|$outs"
  done <"$1/cases.txt"
  cat "$1/examples.txt"
  # --check only (no output compared bit for bit): ph-run's own random inputs.
  echo "gemm_fp8|gemm_fp8.ph|gemm_fp8|--size M=128 --size N=192 --size K=256 --seed 5||"
}

build() {
  ph=$1 out=$2
  root=$(cd "$here/../.." && pwd)
  rm -rf "$out"
  mkdir -p "$out/in" "$out/ref" "$out/cpu" "$out/b" "$out/src/examples"
  out=$(cd "$out" && pwd)
  cp "$root/tests/gpu/fp8_device.sh" "$root/tests/gpu/conversions/exact.py" "$root/tests/gpu/fp8/inputs.py" "$out/"
  cp "$root/tests/lit/run/Inputs/fp8.ph" "$out/src/fp8.ph"
  cp "$root/examples/fp8_quantize.ph" "$root/examples/fp8_dequantize.ph" "$out/src/examples/"
  cp "$root/tests/gpu/fp8/gemm.ph" "$out/src/gemm_fp8.ph"
  cp "$(dirname "$ph")/ph-run" "$out/ph-run" && strip "$out/ph-run" 2>/dev/null
  seed=${PH_FP8_SEED:-$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')}
  echo "inputs: seed $seed (PH_FP8_SEED=$seed replays them)"
  python3 "$out/inputs.py" "$out/in" "$seed" || return 1
  rc=0
  # The interpreter's outputs (the reference), and the CPU target's (compared here).
  cases "$out/in" fp8.ph >"$out/cases.all"
  while IFS='|' read -r tag src k sizes ins outs; do
    a=""; for i in $ins; do a="$a --in ${i%%=*}=$out/in/${i#*=}"; done
    ri=""; rc_=""; for o in $outs; do ri="$ri --out $o=$out/ref/$tag.$o.npy"; rc_="$rc_ --out $o=$out/cpu/$tag.$o.npy"; done
    # shellcheck disable=SC2086
    "$ph" run "$out/src/$src" --kernel "$k" --target interp $sizes $a $ri >"$out/ref/$tag.log" 2>&1 ||
      { echo "FAIL interpreter $tag"; cat "$out/ref/$tag.log"; rc=1; continue; }
    # shellcheck disable=SC2086
    if "$ph" run "$out/src/$src" --kernel "$k" --target cpu $sizes $a $rc_ --check >"$out/cpu/$tag.log" 2>&1; then
      for o in $outs; do python3 "$out/exact.py" "$out/ref/$tag.$o.npy" "$out/cpu/$tag.$o.npy" "cpu $tag.$o" || rc=1; done
    else
      echo "FAIL cpu $tag"; cat "$out/cpu/$tag.log"; rc=1
    fi
  done <"$out/cases.all"
  rm -rf "$out/cpu" "$out/ref"/*.log
  # The GPU builds: each source for each architecture.
  for arch in $archs; do
    for f in fp8 examples/fp8_quantize examples/fp8_dequantize gemm_fp8; do
      d=$out/b/$arch/$f
      mkdir -p "$(dirname "$d")"
      if "$ph" build "$out/src/$f.ph" --target "$arch" --no-cache -o "$d" >"$d.build.log" 2>&1; then
        [ "$arch" = sm_80 ] && ptx_in_place "$d"
      else
        echo "FAIL build $arch $f"; tail -20 "$d.build.log"; rc=1
      fi
    done
  done
  echo "built $out ($(du -sh "$out" | cut -f1)); build exit $rc"
  return $rc
}

# Each variant's PTX, NUL-terminated, where ph-run reads its cubin (cuModuleLoadData takes PTX).
ptx_in_place() {
  for ptx in "$1"/*.ptx; do
    [ -f "$ptx" ] || continue
    cubin=${ptx%.ptx}.cubin
    [ -f "$cubin" ] && { cat "$ptx"; printf '\0'; } >"$cubin"
  done
}

run() {
  dir=$(cd "$1" && pwd) logs=$2
  mkdir -p "$logs" && logs=$(cd "$logs" && pwd)
  r=$dir/ph-run
  "$r" --info >"$logs/info.txt" 2>&1 || { echo "skipped: no GPU"; cat "$logs/info.txt"; return 77; }
  cat "$logs/info.txt"
  fails=$logs/failures
  rm -f "$fails" "$logs/summary.txt"
  mkdir -p "$logs/got"
  n=0
  for arch in $archs; do
    while IFS='|' read -r tag src k sizes ins outs; do
      b=$dir/b/$arch/${src%.ph}
      t="$arch $tag"
      n=$((n + 1))
      [ -f "$b/manifest.json" ] || { echo "FAIL $t: not built"; echo "$t" >>"$fails"; continue; }
      a=""; for i in $ins; do a="$a --in ${i%%=*}=$dir/in/${i#*=}"; done
      o_=""; for o in $outs; do o_="$o_ --out $o=$logs/got/$arch.$tag.$o.npy"; done
      # shellcheck disable=SC2086
      if "$r" "$b" --kernel "$k" $sizes $a $o_ --check --timeout 60 >"$logs/got/$arch.$tag.log" 2>&1; then
        echo "ok   $t: --check"
      else
        echo "FAIL $t: --check (exit $?)"; sed 's/^/       /' "$logs/got/$arch.$tag.log" | tail -12; echo "$t check" >>"$fails"
      fi
      for o in $outs; do
        python3 "$dir/exact.py" "$dir/ref/$tag.$o.npy" "$logs/got/$arch.$tag.$o.npy" "$t.$o" || echo "$t.$o exact" >>"$fails"
      done
    done <"$dir/cases.all"
  done
  if [ -f "$fails" ]; then
    echo "fp8_device: $(wc -l <"$fails") failure(s) in $n runs" | tee "$logs/summary.txt"
    return 1
  fi
  echo "fp8_device: $n runs on $archs; every output within --check of the interpreter and, but for gemm_fp8, equal to it bit for bit" | tee "$logs/summary.txt"
}

case $mode in
  build) [ $# -eq 2 ] || { echo "usage: fp8_device.sh build PH OUT" >&2; exit 2; }
         build "$@" ;;
  run) [ $# -eq 2 ] || { echo "usage: fp8_device.sh run DIR LOGS" >&2; exit 2; }
       mkdir -p "$2"
       run "$@" >"$2/run.log" 2>&1
       st=$?
       cat "$2/run.log"
       exit $st ;;
  *) echo "usage: fp8_device.sh build PH OUT | run DIR LOGS" >&2; exit 2 ;;
esac
