#!/usr/bin/env bash
# editors-nightly.sh - Neovim's newest release (Debian unstable's) against ph-lsp, and the VS Code
# end-to-end test (code-server 4.100.3 + Chromium, the packaged .vsix, the real ph-lsp), which is
# not in CI: installing code-server takes ~4 min and the test
# ~4-6 min on CI's 2 cores, and CI already builds and runs the suite twice (plain and under
# ASan + UBSan) within its 40 minutes. Run it nightly (or before a release) on the same kind of
# machine; it fails on any failed check.
#   scripts/editors-nightly.sh [OUT_DIR]     screenshots and logs in OUT_DIR (default build/tests/editors/e2e)
#   PH_EDITORS_SCREENSHOTS=1 ...             also copies the screenshots into docs/images/
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
dir=${PH_BUILD_DIR:-build}
out=${1:-$dir/tests/editors/e2e}
bash scripts/editors-setup.sh
[ -x "$dir/bin/ph-lsp" ] && [ -x "$dir/bin/ph" ] || PH_BUILD_DIR=$dir bash scripts/build.sh
# Neovim's newest (Debian unstable's: the 0.11+ API) against the real server; CI runs 0.7 and 0.10.
bash scripts/editors-nvim-setup.sh latest
PH_LSP="$root/$dir/bin/ph-lsp" PH_BIN="$root/$dir/bin/ph" timeout 300 "${PH_NVIM_PREFIX:-/opt/ph-nvim}/latest/bin/nvim" \
  --headless --clean -c "luafile tests/editors/nvim/lsp_test.lua"
t0=$(date +%s)
bash scripts/editors-e2e-setup.sh
t1=$(date +%s)
PH_EDITOR_E2E=1 PH_LSP="$root/$dir/bin/ph-lsp" bash tests/editors/e2e/run.sh "$out"
t2=$(date +%s)
echo "editors-nightly: code-server set-up $((t1 - t0)) s, end-to-end test $((t2 - t1)) s"
if [ -n "${PH_EDITORS_SCREENSHOTS:-}" ]; then
  # The docs' "first five minutes" pictures, as the test took them.
  for pair in settings:vscode-settings no-gpu:vscode-no-gpu run:vscode-first-run compile:vscode-compile; do
    cp "$out/${pair#*:}.png" "docs/images/first-${pair%%:*}.png"
  done
  cp "$out/vscode-ir.png" docs/images/vscode-ph.png        # the README's picture
  cp "$out/vscode-hover.png" docs/images/vscode-ph-hover.png
  echo "editors-nightly: docs/images/first-*.png, vscode-ph.png, vscode-ph-hover.png updated"
fi
