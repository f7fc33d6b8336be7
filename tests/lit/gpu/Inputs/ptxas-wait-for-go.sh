#!/bin/sh
# A stand-in for ptxas (tests/lit/gpu/build-stream.test): writes an empty cubin; from its
# second run on it first waits (20 s at most, then fails) for the file `go` in the current
# folder, which the test's reader creates once it has read the first variant's event.
out=""
while [ $# -gt 0 ]; do [ "$1" = "-o" ] && out=$2; shift; done
if [ -e ran-once ]; then
  i=0
  while [ ! -e go ]; do
    i=$((i + 1))
    [ $i -gt 2000 ] && { echo "ptxas-wait-for-go: no go after 20 s" >&2; exit 1; }
    sleep 0.01
  done
fi
: > ran-once
: > "$out"
