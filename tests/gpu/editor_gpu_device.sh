#!/usr/bin/env bash
# editor_gpu_device.sh - Run and Benchmark driven from an editor on a real GPU (issue 19), in one
# device call. The GPU machine has CUDA and python3 but no LLVM, MLIR or editors, so the pack holds
# ph and ph-lsp linked statically (ph-static, ph-lsp-static: MLIR, LLVM and libstdc++ inside), the
# standard library, the Neovim plugin, the README's example, Debian 13's Neovim 0.10
# (scripts/editors-nvim-setup.sh) and these scripts. There: ph run on the GPU, then
# tests/gpu/editor_gpu_lsp.py (an editor over stdio: lenses, Run, Benchmark with default
# settings), then headless Neovim with the plugin (tests/gpu/editor_gpu_nvim.lua: :PhRun,
# :PhBench). docs/editors.md, "Running on a GPU".
#
#   editor_gpu_device.sh pack [BUILD] [DEST]   here: builds the static targets in BUILD (default
#                                              build/), writes DEST (default .device/editorgpu)
#   editor_gpu_device.sh run PACK LOGS [cpu]   there: LOGS/summary.txt, lsp.log, nvim.log, ...;
#                                              exit 0 = all passed, 77 = no GPU (skipped).
#                                              `cpu`: the same pipeline on a machine without a GPU,
#                                              expecting the CPU fallback (checks the pack here)
set -u
mode=${1:-}; shift || true
here=$(cd "$(dirname "$0")" && pwd)
case $mode in
pack)
  root=$(cd "$here/../.." && pwd)
  build=${1:-$root/build} dest=${2:-$root/.device/editorgpu}
  set -e
  export CCACHE_BASEDIR=$root CCACHE_NOHASHDIR=true
  cmake --build "$build" --target ph-static ph-lsp-static -j "${PH_PACK_JOBS:-2}"
  stage=$(mktemp -d)
  trap 'rm -rf "$stage"' EXIT
  mkdir -p "$stage/ph/bin" "$stage/ph/share/ph" "$stage/ph/examples" "$dest"
  cp "$build/bin/ph-static" "$stage/ph/bin/ph"
  cp "$build/bin/ph-lsp-static" "$stage/ph/bin/ph-lsp"
  strip "$stage/ph/bin/ph" "$stage/ph/bin/ph-lsp"
  cp -r "$root/std" "$stage/ph/share/ph/std"   # found as bin/../share/ph/std (Prelude::defaultDir)
  cp -r "$root/nvim" "$stage/ph/nvim"
  cp "$root/examples/flash_attention.ph" "$stage/ph/examples/"
  rm -f "$dest"/*.tar.xz
  tar -C "$stage" -cf - ph | xz -T"${PH_PACK_JOBS:-2}" -6 > "$dest/ph.tar.xz"
  nvim=${PH_NVIM_PREFIX:-/opt/ph-nvim}/0.10
  if [ -x "$nvim/bin/nvim" ]; then
    # Its loader path is written into the binary: it unpacks to the same folder there.
    tar -C / --exclude='*/usr/share/doc' --exclude='*/usr/share/locale' --exclude='*/usr/share/man' \
        -cf - "${nvim#/}" | xz -T"${PH_PACK_JOBS:-2}" -6 > "$dest/nvim-0.10.tar.xz"
  else
    echo "editor_gpu_device: no $nvim/bin/nvim (scripts/editors-nvim-setup.sh): the pack runs without Neovim" >&2
  fi
  cp "$here/editor_gpu_device.sh" "$here/editor_gpu_lsp.py" "$here/editor_gpu_nvim.lua" "$dest/"
  { echo "commit $(git -C "$root" rev-parse --short HEAD 2>/dev/null)$(git -C "$root" diff --quiet 2>/dev/null || echo +)"
    echo "built $(date -u +%FT%TZ)"; (cd "$dest" && du -b ./*.tar.xz); } > "$dest/pack.txt"
  echo "editor_gpu_device: $dest ($(du -sh "$dest" | cut -f1)):"; ls -l "$dest"
  ;;
run)
  pack=$(cd "${1:?usage: editor_gpu_device.sh run PACK LOGS [cpu]}" && pwd) logs=${2:-/tmp/editorgpu-logs} cpu=${3:-}
  mkdir -p "$logs"
  logs=$(cd "$logs" && pwd)
  summary=$logs/summary.txt
  : > "$summary"
  say() { echo "$*" | tee -a "$summary"; }
  fails=0
  step() { # step NAME RC
    if [ "$2" = 0 ]; then say "PASS $1"; else say "FAIL $1 (exit $2)"; fails=$((fails + 1)); fi
  }
  expect=gpu gpu_name=
  if [ "$cpu" = cpu ]; then
    expect=cpu; export PH_LSP_NO_GPU=1
  else
    gpu_name=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)
    if [ -z "$gpu_name" ]; then
      say "SKIP: no GPU here (nvidia-smi lists none): Run and Benchmark on a GPU were not tried;"
      say "      \`editor_gpu_device.sh run PACK LOGS cpu\` checks the pack's CPU fallback"
      exit 77
    fi
  fi
  dir=${PH_EDITOR_GPU_DIR:-/tmp/editorgpu}
  rm -rf "$dir" && mkdir -p "$dir"
  tar -C "$dir" -xJf "$pack/ph.tar.xz" || { say "FAIL unpack $pack/ph.tar.xz"; exit 1; }
  ph=$dir/ph/bin/ph lsp=$dir/ph/bin/ph-lsp
  # ptxas and libdevice: the toolkit's folder, wherever this machine has it.
  if [ -z "${PH_CUDA_DIR:-}" ] && [ ! -x /usr/local/cuda/bin/ptxas ]; then
    p=$(command -v ptxas || command -v nvcc || true)
    [ -n "$p" ] && export PH_CUDA_DIR=$(dirname "$(dirname "$(readlink -f "$p")")")
  fi
  { echo "expect $expect; GPU: ${gpu_name:-none}"; cat "$pack/pack.txt" 2>/dev/null; uname -a; ldd --version 2>&1 | head -1
    nvidia-smi 2>&1 | head -12; echo "PH_CUDA_DIR=${PH_CUDA_DIR:-/usr/local/cuda}"; ls -l "${PH_CUDA_DIR:-/usr/local/cuda}/bin/ptxas" 2>&1
    echo "python3: $(command -v python3) $(python3 --version 2>&1)"; ldd "$ph" "$lsp" 2>&1; "$ph" --version 2>&1; } > "$logs/env.txt" 2>&1
  if ldd "$ph" "$lsp" 2>&1 | grep -q "not found"; then
    say "FAIL the static binaries need a library this machine lacks:"; ldd "$ph" "$lsp" | grep "not found" | tee -a "$summary"
    exit 1
  fi
  ex=$dir/ph/examples/flash_attention.ph
  # 1. The driver alone: the README's example checked on the target, as the server will run it.
  timeout 120 "$ph" run "$ex" --kernel flash_attention --target "$expect" --size Nq=1024 --size Nk=1024 --check --json \
      > "$logs/ph_run.json" 2>&1
  rc=$?
  [ $rc = 0 ] && [ "$expect" = gpu ] && ! grep -q '"device"' "$logs/ph_run.json" && rc=3
  step "ph run --target $expect --check: $(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d.get("target"), d.get("device", ""), d.get("time_ms"), "ms, check", d.get("check", {}).get("passed"))' "$logs/ph_run.json" 2>/dev/null || tail -c 300 "$logs/ph_run.json")" $rc
  # 2. An editor over stdio: lenses, Run, Benchmark, default settings.
  timeout 300 python3 "$pack/editor_gpu_lsp.py" --lsp "$lsp" --file "$ex" --expect "$expect" --gpu-name "$gpu_name" \
      --log "$logs" > "$logs/lsp.log" 2>&1
  rc=$?
  cat "$logs/lsp.log"
  step "editor_gpu_lsp.py --expect $expect: $(tail -1 "$logs/lsp.log")" $rc
  # 3. Neovim 0.10 headless with the plugin: :PhRun, :PhBench.
  if [ -f "$pack/nvim-0.10.tar.xz" ]; then
    [ -x /opt/ph-nvim/0.10/bin/nvim ] || tar -C / -xJf "$pack/nvim-0.10.tar.xz"
    nvim=/opt/ph-nvim/0.10/bin/nvim
    PH_EXPECT=$expect PH_GPU_NAME=$gpu_name PH_LSP=$lsp PH_FILE=$ex PH_PLUGIN=$dir/ph/nvim \
      timeout 300 "$nvim" --headless --clean -c "luafile $pack/editor_gpu_nvim.lua" > "$logs/nvim.log" 2>&1
    rc=$?
    cat "$logs/nvim.log"
    step "Neovim $("$nvim" --version 2>/dev/null | head -1) :PhRun/:PhBench: $(tail -1 "$logs/nvim.log")" $rc
  else
    say "FAIL no nvim-0.10.tar.xz in the pack"; fails=$((fails + 1))
  fi
  say "$fails failed"
  [ $fails = 0 ]
  ;;
*)
  echo "usage: editor_gpu_device.sh pack [BUILD] [DEST] | run PACK LOGS [cpu]" >&2
  exit 2
  ;;
esac
