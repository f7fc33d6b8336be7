#!/bin/sh
# Issue 8's bench and GPU checks in one device call (docs/gpu.md, "Decode and prefill").
#
#   decode_device.sh build PH PH_RUN DIR [VERSION]   here: ph-run, cubins, test cases under DIR
#   decode_device.sh run DIR [VERSIONS] [tests|checks|notests] [MORE]   on the GPU machine ($OUT: logs)
#     tests: the GPU checks and the prefill bench; checks: the GPU checks only
#
# VERSION names a folder DIR/VERSION holding examples/decode_attention.ph's build; `run`
# benches every folder of VERSIONS (comma-separated, default v0) next to PyTorch, and the
# folders of MORE (comma-separated) at KV heads 8 only, without PyTorch (earlier versions).
set -u
mode=$1; shift
root=$(cd "$(dirname "$0")/../.." && pwd)
case $mode in
build)
  ph=$1 phrun=$2 dir=$3 ver=${4:-v0}
  mkdir -p "$dir"
  cp "$phrun" "$dir/ph-run"
  rm -rf "$dir/$ver"
  "$ph" build "$root/examples/decode_attention.ph" -o "$dir/$ver" | grep -v '^wrote' || exit 1
  for k in mha_f16 mha_causal_f16; do "$ph" build "$root/examples/mha.ph" --kernel $k -o "$dir/prefill/$k" >/dev/null || exit 1; done
  rm -rf "$dir/kv" "$dir/ex"; mkdir -p "$dir/kv" "$dir/ex"
  sh "$root/tests/gpu/check_kvcache.sh" build "$ph" "$dir/kv" >/dev/null || exit 1
  sh "$root/tests/gpu/check_examples.sh" build "$ph" "$root/examples" "$dir/ex" >/dev/null || exit 1
  du -sh "$dir"
  ;;
run)
  dir=$(cd "$1" && pwd) vers=${2:-v0} tests=${3:-tests} more=${4:-}
  out=${OUT:-/tmp/decode-out}; mkdir -p "$out"
  export PYTHONUNBUFFERED=1
  nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,memory.used,temperature.gpu --format=csv,noheader
  dirs=""; for v in $(echo "$vers" | tr , ' '); do dirs="$dirs${dirs:+,}$dir/$v"; done
  fails=0
  if [ "$tests" != notests ]; then
    sh "$root/tests/gpu/check_kvcache.sh" run "$dir/ph-run" "$dir/kv" > "$out/check_kvcache.log" 2>&1
    rc=$?; echo "check_kvcache.sh: rc=$rc, $(grep -c 'vs interpreter' "$out/check_kvcache.log") lines 'vs interpreter', $(tail -1 "$out/check_kvcache.log")"
    [ $rc -eq 0 ] || fails=$((fails+1))
    sh "$root/tests/gpu/check_examples.sh" run "$dir/ph-run" "$dir/ex" > "$out/check_examples.log" 2>&1
    rc=$?; echo "check_examples.sh: rc=$rc, $(tail -1 "$out/check_examples.log")"
    [ $rc -eq 0 ] || fails=$((fails+1))
    if [ "$tests" = tests ]; then
      python3 "$root/bench/gpu/bench_prefill.py" "$dir/ph-run" "$dir/prefill" --out "$out/prefill.jsonl" > "$out/prefill.log" 2>&1 || fails=$((fails+1))
      tail -7 "$out/prefill.log"
    fi
  fi
  # DECODE_ARGS: more options for bench_decode.py (--shapes, --backends, --iters).
  python3 "$root/bench/gpu/bench_decode.py" "$dir/ph-run" "$dirs" --labels "$vers" --out "$out/decode.jsonl" ${DECODE_ARGS:-} 2>&1 \
    | tee "$out/decode.log" | grep -v -E '^   |Warning|f = lambda' || fails=$((fails+1))
  if [ -n "$more" ]; then
    mdirs=""; for v in $(echo "$more" | tr , ' '); do mdirs="$mdirs${mdirs:+,}$dir/$v"; done
    python3 "$root/bench/gpu/bench_decode.py" "$dir/ph-run" "$mdirs" --labels "$more" --shapes 8:4096,8:32768 --no-torch \
      --out "$out/decode_more.jsonl" > "$out/decode_more.log" 2>&1 || fails=$((fails+1))
    grep -E "^   [^ ]+: split|FAILED" "$out/decode_more.log"
  fi
  first=$(echo "$vers" | cut -d, -f1)
  command -v cuobjdump >/dev/null && cuobjdump -sass "$dir/$first"/decode_split.*G4*.cubin > "$out/sass_decode_split_g4.txt" 2>&1
  echo "failures: $fails"
  [ $fails -eq 0 ]
  ;;
esac
