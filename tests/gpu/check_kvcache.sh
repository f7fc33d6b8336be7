#!/bin/sh
# Issue 8's kernels on the GPU against the fp64 interpreter: batched multi-head attention
# (f16 and bf16, causal and not, D 64 and 128), kv_append, flash-decoding's split kernel
# with GQA (lengths 1, 37 and the whole cache), its tensor-core variant (decode_attention_tc.ph:
# split and combine) and paged decode (a shuffled block table).
#
#   check_kvcache.sh build PH OUT       compile the kernels and write the inputs (needs the compiler)
#   check_kvcache.sh run PH_RUN OUT     `ph-run --check` on each (needs a GPU; 77 without one)
set -u
mode=$1; shift
root=$(cd "$(dirname "$0")/../.." && pwd)
case $mode in
build)
  ph=$1 out=$2
  mkdir -p "$out"
  for k in mha_f16 mha_bf16 mha_causal_f16; do "$ph" build "$root/examples/mha.ph" --kernel $k -o "$out/$k" || exit 1; done
  "$ph" build "$root/examples/kv_append.ph" --kernel kv_append_step -o "$out/kv_append_step" || exit 1
  "$ph" build "$root/examples/decode_attention.ph" --kernel decode_split -o "$out/decode_split" || exit 1
  "$ph" build "$root/examples/paged_decode.ph" --kernel paged_decode -o "$out/paged_decode" || exit 1
  "$ph" build "$root/examples/decode_attention_tc.ph" -o "$out/decode_tc" || exit 1
  /usr/bin/python3 - "$out" <<'PY'
import sys
import numpy as np
d = sys.argv[1] + "/"
rng = np.random.default_rng()
b, hk, g, n, D = 3, 2, 4, 300, 128
h = hk * g
np.save(d + "dq.npy", rng.uniform(-1, 1, (b, h, D)).astype(np.float16))
np.save(d + "dk.npy", rng.uniform(-1, 1, (b, hk, n, D)).astype(np.float16))
np.save(d + "dv.npy", rng.uniform(-1, 1, (b, hk, n, D)).astype(np.float16))
np.save(d + "dlens.npy", np.array([1, 37, 300], dtype=np.int32))
pool, npages, ps = 48, 16, 16
np.save(d + "pkp.npy", rng.uniform(-1, 1, (pool, hk, ps, D)).astype(np.float16))
np.save(d + "pvp.npy", rng.uniform(-1, 1, (pool, hk, ps, D)).astype(np.float16))
np.save(d + "ptable.npy", rng.permutation(pool)[: b * npages].reshape(b, npages).astype(np.int32))
np.save(d + "plens.npy", np.array([1, 16, 250], dtype=np.int32))
PY
  ;;
run)
  R=$1 out=$2
  "$R" --info >/dev/null 2>&1 || { echo "skipped: no GPU"; exit 77; }
  cd "$out" || exit 1
  fails=0
  t() { echo "== $*"; if "$@" > last.log 2>&1; then grep -E "vs interpreter" last.log; else tail -15 last.log; fails=$((fails+1)); fi; }
  for D in 64 128; do
    t "$R" mha_f16 --config D=$D --size B=2 --size H=3 --size N=192 --seed 1 --check
    t "$R" mha_causal_f16 --config D=$D --size B=2 --size H=3 --size N=192 --seed 2 --check
    t "$R" mha_bf16 --config D=$D --size B=2 --size H=3 --size N=128 --seed 3 --check
  done
  t "$R" kv_append_step --size B=3 --size H=4 --size N=40 --seed 4 --check
  t "$R" decode_split --in Q=dq.npy --in K=dk.npy --in V=dv.npy --in Lens=dlens.npy --check
  for c in BC=32,S=16 BC=64,S=12; do
    t "$R" decode_tc --kernel decode_split_tc --config $c --in Q=dq.npy --in K=dk.npy --in V=dv.npy --in Lens=dlens.npy --check
  done
  t "$R" decode_tc --kernel decode_combine_tc --config S=12 --size B=3 --size H=8 --size HK=2 --seed 5 --check
  # A configuration the sizes do not suit is left out of a bench, not an error: N=192 breaks
  # the BR=128 variants' `@aligned(N = BR)`; the BR=64 ones are timed.
  echo "== $R mha_f16 --config D=64 --size N=192 --bench (BR=128 skipped)"
  if "$R" mha_f16 --config D=64 --size B=1 --size H=2 --size N=192 --bench --warmup 1 --iters 3 > last.log 2>&1 &&
     grep -q 'note: skipped \[D=64,BR=128,BC=[0-9]*\].*@aligned' last.log && grep -q 'D=64,BR=64,BC=' last.log; then
    echo "  bench with BR=128 skipped: ok"
  else
    tail -15 last.log; fails=$((fails+1))
  fi
  t "$R" paged_decode --in Q=dq.npy --in Kp=pkp.npy --in Vp=pvp.npy --in Table=ptable.npy --in Lens=plens.npy --check
  echo "failures: $fails"
  [ $fails -eq 0 ]
  ;;
esac
