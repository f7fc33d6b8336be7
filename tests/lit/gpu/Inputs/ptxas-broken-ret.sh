#!/bin/sh
# Stands in for ptxas (PH_PTXAS) in tests/lit/gpu/lowering/ptxas-line.ph: runs the real ptxas
# (PH_REAL_PTXAS, else ptxas on PATH, else $PH_CUDA_DIR or /usr/local/cuda) on a copy of the
# PTX whose first `ret;` is `ret.bogus;`, so that ptxas itself fails with its own words and
# the PTX line it names. Same arguments otherwise (ph runs `ptxas -arch=.. -v -O3 in.ptx -o out`).
real=${PH_REAL_PTXAS:-$(command -v ptxas)}
[ -n "$real" ] || real=${PH_CUDA_DIR:-/usr/local/cuda}/bin/ptxas
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
for a in "$@"; do
  shift
  case $a in
  *.ptx) awk '!done && /^[ \t]*ret;/ { sub(/ret;/, "ret.bogus;"); done = 1 } { print }' "$a" > "$tmp/k.ptx"; a=$tmp/k.ptx ;;
  esac
  set -- "$@" "$a"
done
"$real" "$@"
