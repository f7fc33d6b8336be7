#!/bin/sh
# The conversion rules on the GPU (issue 20; docs/language.md, "Conversions" and "Precision"):
# every kernel of tests/lit/run/Inputs/conversions.ph (f16 <-> bf16 stores, f32 -> f16/bf16
# rounding and overflow, 16-bit -> f32/i32, i32 -> float, explicit casts, chains of 16-bit
# arithmetic, f32 a * b + a) and tests/gpu/conversions/gemm.ph (the same after a tensor-core
# GEMM), built for sm_80 and sm_90a with each lowering setting (PH_GPU_LOWERING auto, tilegpu; the
# legacy SIMT emitter was deleted on 2026-12-06),
# run on inputs full of the table's special values (tests/gpu/conversions/inputs.py: ties,
# overflow, +-inf, NaN, subnormals, +-0, the ends of i32), and compared with the fp64
# interpreter twice: `ph-run --check` (ph-run has the interpreter: within --check's tolerance,
# NaN and equal infinities agreeing) and bit for bit (exact.py: a conversion has one right
# answer) against the interpreter's outputs written here by `ph run --target interp`.
# Also issue 20's other GPU reproducers: decode_combine at B = H = 64 (infinities in both
# outputs agree), `ph-run`'s limits (--size T=2^31-1, --in X=/dev/zero: refused before
# allocating or reading) and `--timeout` on a kernel that runs for longer than its limit.
#
#   conversions_device.sh build PH OUT    here (the compiler; no GPU): OUT/ and OUT.tar.xz
#   conversions_device.sh run DIR LOGS    there (ph-run, python3; no compiler): LOGS/run.log,
#                                         LOGS/summary.txt; exit 0 when everything agrees
#
# An sm_80 build travels as its PTX in the cubin's place (the driver compiles it for the H200,
# as tests/differential/gpu.py does); sm_90a's cubins load as they are. `run` exits 77 without
# a GPU.
set -u
mode=${1:-}
[ $# -gt 0 ] && shift
here=$(cd "$(dirname "$0")" && pwd)
N=64        # rows of every tensor (gemm_convert needs a multiple of 64)
SEED=2026   # inputs.py's seed

# Every build: ARCH LOWERING.
builds="sm_80 auto
sm_80 tilegpu
sm_90a auto
sm_90a tilegpu"

build() {
  ph=$1 out=$2
  root=$(cd "$here/../.." && pwd)
  conv=$root/tests/lit/run/Inputs/conversions.ph
  gemm=$root/tests/gpu/conversions/gemm.ph
  rm -rf "$out" "$out.tar.xz"
  mkdir -p "$out/in" "$out/ref" "$out/cpu" "$out/b"
  out=$(cd "$out" && pwd)
  cp "$root/tests/gpu/conversions_device.sh" "$root/tests/gpu/conversions/exact.py" "$root/tests/gpu/conversions/inputs.py" "$out/"
  cp "$(dirname "$ph")/ph-run" "$out/ph-run" && strip "$out/ph-run" 2>/dev/null
  python3 "$root/tests/gpu/conversions/inputs.py" "$out/in" $N $SEED || return 1
  rc=0
  # The interpreter's outputs (the reference), and the CPU target's (compared here too).
  while IFS='|' read -r k ins outs; do
    src=$conv; [ "$k" = gemm_convert ] && src=$gemm
    a=""; for i in $ins; do a="$a --in ${i%%=*}=$out/in/${i#*=}"; done
    ri=""; rc_=""; for o in $outs; do ri="$ri --out $o=$out/ref/$k.$o.npy"; rc_="$rc_ --out $o=$out/cpu/$k.$o.npy"; done
    # shellcheck disable=SC2086
    "$ph" run "$src" --kernel "$k" --target interp --size N=$N $a $ri >"$out/ref/$k.log" 2>&1 ||
      { echo "FAIL interpreter $k"; cat "$out/ref/$k.log"; rc=1; continue; }
    # shellcheck disable=SC2086
    if "$ph" run "$src" --kernel "$k" --target cpu --size N=$N $a $rc_ >"$out/cpu/$k.log" 2>&1; then
      for o in $outs; do python3 "$out/exact.py" "$out/ref/$k.$o.npy" "$out/cpu/$k.$o.npy" "cpu $k.$o" || rc=1; done
    else
      echo "FAIL cpu $k"; cat "$out/cpu/$k.log"; rc=1
    fi
  done <"$out/in/cases.txt"
  rm -rf "$out/cpu"
  # The GPU builds: every architecture and lowering.
  echo "$builds" | while read -r arch low; do
    d=$out/b/$arch-$low
    mkdir -p "$d"
    for f in conv gemm; do
      src=$conv; [ $f = gemm ] && src=$gemm
      if PH_GPU_LOWERING=$low "$ph" build "$src" --target "$arch" --no-cache -o "$d/$f" >"$d/$f.build.log" 2>&1; then
        [ "$arch" = sm_80 ] && ptx_in_place "$d/$f"
      else
        echo "FAIL build $arch $low $f"; tail -20 "$d/$f.build.log"; echo x >>"$out/build-failures"
      fi
    done
  done
  [ -f "$out/build-failures" ] && rc=1
  # Issue 20's other GPU reproducers.
  "$ph" build "$root/examples/decode_attention.ph" --kernel decode_combine --target sm_90a --no-cache -o "$out/b/decode" \
    >"$out/b/decode.build.log" 2>&1 || { echo "FAIL build decode_combine"; rc=1; }
  "$ph" build "$root/examples/rotary_pairs.ph" --target sm_90a --no-cache -o "$out/b/rotary" \
    >"$out/b/rotary.build.log" 2>&1 || { echo "FAIL build rotary_pairs"; rc=1; }
  "$ph" build "$root/tests/gpu/conversions/spin.ph" --target sm_90a --no-cache -o "$out/b/spin" \
    >"$out/b/spin.build.log" 2>&1 || { echo "FAIL build spin"; rc=1; }
  tar -cJf "$out.tar.xz" -C "$(dirname "$out")" "$(basename "$out")" || return 1
  echo "built $out ($(du -sh "$out" | cut -f1)), $out.tar.xz ($(du -h "$out.tar.xz" | cut -f1)); build exit $rc"
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
  echo "$builds" | while read -r arch low; do
    while IFS='|' read -r k ins outs; do
      f=conv; [ "$k" = gemm_convert ] && f=gemm
      b=$dir/b/$arch-$low/$f
      tag="$arch $low $k"
      [ -f "$b/manifest.json" ] || { echo "FAIL $tag: not built"; echo "$tag" >>"$fails"; continue; }
      a=""; for i in $ins; do a="$a --in ${i%%=*}=$dir/in/${i#*=}"; done
      o_=""; for o in $outs; do o_="$o_ --out $o=$logs/got/$arch-$low.$k.$o.npy"; done
      # shellcheck disable=SC2086
      if "$r" "$b" --kernel "$k" --size N=$N $a $o_ --check --timeout 120 >"$logs/got/$arch-$low.$k.log" 2>&1; then
        echo "ok   $tag: --check"
      else
        echo "FAIL $tag: --check (exit $?)"; sed 's/^/       /' "$logs/got/$arch-$low.$k.log" | tail -12; echo "$tag check" >>"$fails"
      fi
      for o in $outs; do
        g=$logs/got/$arch-$low.$k.$o.npy
        if [ "$k" = mul_add_f32 ]; then
          # The language rounds a * b and then the sum; a fused multiply-add rounds once.
          # Written down, not failed: --check above holds it to f32's tolerance.
          python3 "$dir/exact.py" "$dir/ref/$k.$o.npy" "$g" "$tag.$o (fma?)" | sed 's/^DIFF /info /'
        else
          python3 "$dir/exact.py" "$dir/ref/$k.$o.npy" "$g" "$tag.$o" || echo "$tag.$o exact" >>"$fails"
        fi
      done
    done <"$dir/in/cases.txt"
  done
  # decode_combine (issue 20): infinities and NaN in both outputs agree; it printed
  # `max abs err 320, rel err -nan ... FAILED` on the CPU target before.
  for s in 0 1 2; do
    if "$r" "$dir/b/decode" --kernel decode_combine --size B=64 --size H=64 --seed $s --check >"$logs/decode.$s.log" 2>&1; then
      echo "ok   decode_combine B=H=64 seed $s: $(grep -m1 'check' "$logs/decode.$s.log")"
    else
      echo "FAIL decode_combine seed $s"; tail -8 "$logs/decode.$s.log"; echo "decode $s" >>"$fails"
    fi
  done
  # ph-run's limits: refused with a message, before allocating or reading (exit 1, no crash).
  limit() { # label expected-text args...
    label=$1 want=$2; shift 2
    "$r" "$dir/b/rotary" "$@" >"$logs/limit.$label.log" 2>&1
    st=$?
    if [ $st -eq 1 ] && grep -q "$want" "$logs/limit.$label.log"; then
      echo "ok   limit $label: $(head -1 "$logs/limit.$label.log")"
    else
      echo "FAIL limit $label: exit $st"; tail -5 "$logs/limit.$label.log"; echo "limit $label" >>"$fails"
    fi
  }
  limit bytes "more than the limit" --size T=2147483647
  limit i32 "does not fit in i32" --size T=9223372036854775807
  limit devzero "not a regular file" --size T=8 --in X=/dev/zero
  # --timeout: a kernel that would run for ages (2^62 dependent multiply-adds a thread) is
  # stopped after 3 s with exit 124 (`timeout` guards the call, should the stop hang).
  t0=$(date +%s)
  timeout -s KILL 90 "$r" "$dir/b/spin" --kernel spin --size N=64 --arg n=2147483647 --timeout 3 >"$logs/timeout.log" 2>&1
  st=$? t1=$(date +%s)
  if [ $st -eq 124 ] && [ $((t1 - t0)) -lt 30 ]; then
    echo "ok   --timeout 3 on a long kernel: exit 124 after $((t1 - t0)) s: $(grep -m1 'time limit' "$logs/timeout.log")"
  else
    echo "FAIL --timeout 3: exit $st after $((t1 - t0)) s"; tail -5 "$logs/timeout.log"; echo timeout >>"$fails"
  fi
  if [ -f "$fails" ]; then
    echo "conversions_device: $(wc -l <"$fails") failure(s)" | tee "$logs/summary.txt"
    return 1
  fi
  echo "conversions_device: every conversion equals the interpreter's, bit for bit" | tee "$logs/summary.txt"
}

case $mode in
  build) build "$@" ;;
  run) [ $# -eq 2 ] || { echo "usage: conversions_device.sh run DIR LOGS" >&2; exit 2; }
       mkdir -p "$2"
       run "$@" >"$2/run.log" 2>&1
       st=$?
       cat "$2/run.log"
       exit $st ;;
  *) echo "usage: conversions_device.sh build PH OUT | run DIR LOGS" >&2; exit 2 ;;
esac
