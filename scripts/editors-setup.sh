#!/usr/bin/env bash
# editors-setup.sh - installs what the editor tests need: npm packages (npm ci, locked) and
# Debian's neovim, emacs-nox and elpa-eglot. Idempotent; .ci/run calls it before ctest.
#   scripts/editors-setup.sh            npm packages + apt packages (apt only when missing)
#   PH_EDITORS_NO_APT=1 scripts/...     npm packages only
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)

# Debian packages for the real-client tests (apt only when something is missing: it is slow).
need=()
command -v nvim >/dev/null || need+=(neovim)
command -v emacs >/dev/null || need+=(emacs-nox)
[ -d /usr/share/emacs/site-lisp/elpa/eglot-1.9 ] || ls -d /usr/share/emacs/site-lisp/elpa/eglot* >/dev/null 2>&1 || need+=(elpa-eglot)
if [ ${#need[@]} -gt 0 ] && [ -z "${PH_EDITORS_NO_APT:-}" ]; then
  echo "editors-setup: apt-get install ${need[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${need[@]}"
fi

# Neovim 0.10 beside Debian 12's 0.7 (unpacked from Debian 13's packages; ~15 s once).
if [ -z "${PH_EDITORS_NO_APT:-}" ]; then bash "$root/scripts/editors-nvim-setup.sh" 0.10; fi

# npm packages of the extension and of the node tests, exactly as locked. npm 11 runs no
# install scripts unless allowed; none is needed (esbuild's binary is an optional dependency,
# vsce-sign only signs).
cd "$root/vscode-extension"
if [ -f node_modules/.package-lock.json ] && cmp -s package-lock.json node_modules/.ph-lock-stamp 2>/dev/null; then
  echo "editors-setup: node_modules up to date"
else
  npm ci --no-audit --no-fund --loglevel=error
  cp package-lock.json node_modules/.ph-lock-stamp
fi
echo "editors-setup: ok (node $(node --version), nvim $(nvim --version | head -1 | cut -d' ' -f2) and $(${PH_NVIM_PREFIX:-/opt/ph-nvim}/0.10/bin/nvim --version 2>/dev/null | head -1 | cut -d' ' -f2), $(emacs --version 2>/dev/null | head -1))"
