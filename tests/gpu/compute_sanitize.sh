#!/bin/sh
# Every example kernel under NVIDIA's compute-sanitizer: memcheck (out-of-bounds and misaligned
# accesses of global and shared memory, and leaks of device allocations) and racecheck (shared-
# memory hazards between the threads of a CTA, i.e. a missing barrier), at shapes that leave
# partial last blocks so that the masked paths run too (mha is `@aligned(N = 64)`: whole blocks). Each run also checks its results
# against the fp64 interpreter (`ph-run --check`), so a sanitized kernel is also a right one.
#
#   compute_sanitize.sh build PH OUT          compile the kernels and write inputs (needs the compiler)
#   compute_sanitize.sh run PH_RUN OUT        run them under compute-sanitizer (needs a GPU)
#   compute_sanitize.sh all PH PH_RUN OUT
#
# `run` exits 77 (skipped) without a GPU or without compute-sanitizer, 1 when any run reports
# an error. PH_SANITIZER_TOOLS (default "memcheck racecheck") picks the tools.
set -u
mode=$1; shift
root=$(cd "$(dirname "$0")/../.." && pwd)
here=$root/tests/gpu

# kernel|folder|arguments
cases="
flash_attention|flash_attention|--size Nq=128 --size Nk=200
flash_attention|flash_attention|--size Nq=64 --size Nk=1
flash_attention_manual|flash_attention_manual|--size Nq=128 --size Nk=77
causal_attention|causal_attention|--size N=96
rotary|rotary|--size T=20
rotary_pairs|rotary_pairs|--size T=13
mha_f16|mha_f16|--config D=64 --size B=2 --size H=2 --size N=128
mha_f16|mha_f16|--config D=128 --size B=1 --size H=2 --size N=64
mha_bf16|mha_bf16|--config D=128 --size B=1 --size H=2 --size N=128
mha_causal_f16|mha_causal_f16|--config D=64 --size B=2 --size H=2 --size N=192
kv_append_step|kv_append_step|--size B=3 --size H=2 --size N=40
decode_split|decode_split|--in Q=@dq.npy --in K=@dk.npy --in V=@dv.npy --in Lens=@dlens.npy
decode_combine|decode_combine|--size B=2 --size H=4
decode_split_tc|decode_tc|--config BC=32,S=16 --in Q=@dq.npy --in K=@dk.npy --in V=@dv.npy --in Lens=@dlens.npy
decode_combine_tc|decode_tc|--config S=16 --size B=2 --size H=8 --size HK=2
paged_decode|paged_decode|--in Q=@dq.npy --in Kp=@pkp.npy --in Vp=@pvp.npy --in Table=@ptable.npy --in Lens=@plens.npy
tc_odd_n|tc_odd_n|--size M=128 --size K=96
"

build() {
  ph=$1 out=$2
  mkdir -p "$out"
  b() { # file kernel
    "$ph" build "$root/examples/$1.ph" --kernel "$2" -o "$out/$2" >"$out/$2.build.log" 2>&1 || {
      echo "FAIL build $2"; cat "$out/$2.build.log"; return 1; }
  }
  for k in flash_attention flash_attention_manual causal_attention rotary rotary_pairs; do b $k $k || return 1; done
  # Issue 8's kernels and their inputs (caches of 300 rows at lengths 1, 37 and the whole
  # cache, a shuffled page table): check_kvcache.sh builds them into the same folders.
  sh "$here/check_kvcache.sh" build "$ph" "$out" >"$out/kvcache.build.log" 2>&1 || {
    echo "FAIL build (check_kvcache.sh)"; cat "$out/kvcache.build.log"; return 1; }
  b decode_attention decode_combine || return 1
  "$ph" build "$root/examples/decode_attention_tc.ph" -o "$out/decode_tc" >"$out/decode_tc.build.log" 2>&1 || {
    echo "FAIL build decode_attention_tc"; cat "$out/decode_tc.build.log"; return 1; }
  # mma.sync's B read by ldmatrix.x4 and, for an odd last 8-column block, .x2 (tests/gpu/Inputs).
  "$ph" build "$here/Inputs/tc_paths.ph" --kernel tc_odd_n -o "$out/tc_odd_n" >"$out/tc_odd_n.build.log" 2>&1 || {
    echo "FAIL build tc_odd_n"; cat "$out/tc_odd_n.build.log"; return 1; }
  echo "built 16 kernels into $out"
}

run() {
  phrun=$1 out=$2
  "$phrun" --info >/dev/null 2>&1 || { echo "skipped: no GPU"; return 77; }
  cs=$(command -v compute-sanitizer || ls /usr/local/cuda/bin/compute-sanitizer 2>/dev/null || true)
  [ -n "$cs" ] || { echo "skipped: compute-sanitizer not found"; return 77; }
  "$cs" --version | tail -1
  out=$(cd "$out" && pwd)
  rm -f "$out/failures"
  for tool in ${PH_SANITIZER_TOOLS:-memcheck racecheck}; do
    extra=""
    [ "$tool" = memcheck ] && extra="--leak-check full"
    echo "$cases" | while IFS='|' read -r k dir args; do
      [ -z "$k" ] && continue
      args=$(echo "$args" | sed "s|@|$out/|g")
      log="$out/$tool.$k.log"
      # shellcheck disable=SC2086
      if "$cs" --tool "$tool" $extra --error-exitcode 3 "$phrun" "$out/$dir" --kernel "$k" $args --seed 7 --check \
           >"$log" 2>&1; then
        echo "ok   $tool $k $args: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$log" | tail -1)"
      else
        echo "FAIL $tool $k $args"; tail -30 "$log"; echo FAIL >>"$out/failures"
      fi
    done
  done
  if [ -f "$out/failures" ]; then echo "$(wc -l <"$out/failures") run(s) failed"; return 1; fi
  echo "compute-sanitizer: no errors, no hazards, every result agrees with the interpreter"
}

case $mode in
  build) build "$@" ;;
  run) run "$@" ;;
  all) ph=$1 phrun=$2 out=$3
       "$phrun" --info >/dev/null 2>&1 || { echo "skipped: no GPU"; exit 77; }
       build "$ph" "$out" && run "$phrun" "$out" ;;
  *) echo "usage: $0 build|run|all ..." >&2; exit 2 ;;
esac
