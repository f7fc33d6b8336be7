#!/usr/bin/env bash
# main.sh - the main job: builds Ph and runs the seed's flash-attention kernel
# (examples/flash_attention.ph), on the GPU when there is one, else on the CPU target,
# checked against the fp64 interpreter.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
bash scripts/build.sh
ph=build/bin/ph
if [ -e /dev/nvidia0 ] || command -v nvidia-smi >/dev/null 2>&1; then
  target=gpu
  sizes=(--size Nq=4096 --size Nk=4096)
else
  target=cpu
  sizes=(--size Nq=256 --size Nk=200)
fi
echo "== ph check examples/flash_attention.ph"
$ph check examples/flash_attention.ph && echo "clean"
echo "== ph run examples/flash_attention.ph --kernel flash_attention --target $target ${sizes[*]} --check"
$ph run examples/flash_attention.ph --kernel flash_attention --target "$target" "${sizes[@]}" --seed 1 --check
