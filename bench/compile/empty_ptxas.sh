#!/bin/sh
# A stand-in for ptxas that writes an empty cubin: `PH_PTXAS=bench/compile/empty_ptxas.sh
# ph build ... --no-cache --time` measures our own steps only, without ptxas's time (docs/compile.md).
out=""
while [ $# -gt 0 ]; do [ "$1" = "-o" ] && out=$2; shift; done
: > "$out"
