# fp8_all.sh IN SRC: every kernel of IN/cases.txt (tests/gpu/fp8/inputs.py) on the interpreter and
# the CPU target, each output compared bit for bit (tests/gpu/conversions/exact.py). `ph` from PATH.
in=$1 src=$2
ex=$(dirname "$0")/../../../gpu/conversions/exact.py
while IFS='|' read -r k n ins outs; do
  a=""; for i in $ins; do a="$a --in ${i%%=*}=$in/${i#*=}"; done
  ri=""; rc=""; for o in $outs; do ri="$ri --out $o=$in/$k.$o.ref.npy"; rc="$rc --out $o=$in/$k.$o.cpu.npy"; done
  ph run "$src" --kernel "$k" --target interp --size N=$n $a $ri >/dev/null || echo "DIFF interp failed: $k"
  ph run "$src" --kernel "$k" --target cpu --size N=$n $a $rc >/dev/null || echo "DIFF cpu failed: $k"
  for o in $outs; do python3 "$ex" "$in/$k.$o.ref.npy" "$in/$k.$o.cpu.npy" "$k.$o"; done
done <"$in/cases.txt"
