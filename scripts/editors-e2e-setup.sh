#!/usr/bin/env bash
# editors-e2e-setup.sh - installs code-server 4.100.3 (the last on Node 20) and Debian's
# Chromium for the VS Code end-to-end test (tests/editors/e2e, run with PH_EDITOR_E2E=1).
# code-server's postinstall needs GitHub and --unsafe-perm, so it is installed with
# --ignore-scripts and the postinstall is done here by hand (see shared/EDITOR-TESTING.md).
#   PH_CODE_SERVER_PREFIX (default /opt/ph-code-server)   where code-server goes
# Idempotent: does nothing when code-server and chromium are already there. ~3 min fresh.
set -euo pipefail
P=${PH_CODE_SERVER_PREFIX:-/opt/ph-code-server}
CS=$P/lib/node_modules/code-server
if [ -x /usr/bin/chromium ] && [ -f "$CS/.ph-ready" ]; then
  echo "editors-e2e-setup: code-server and chromium already installed in $P"; exit 0
fi
export DEBIAN_FRONTEND=noninteractive
pkgs=(g++ make libkrb5-dev ripgrep chromium)
missing=()
for p in "${pkgs[@]}"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
if [ ${#missing[@]} -gt 0 ]; then
  apt-get update -qq && apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
npm install -g --prefix "$P" --ignore-scripts --no-audit --no-fund --loglevel=error code-server@4.100.3
(cd "$CS" && npm rebuild --dangerously-allow-all-scripts argon2 >/dev/null 2>&1) || true
test -n "$(find "$CS/node_modules/argon2" -name '*.node' | head -1)"
cd "$CS/lib/vscode"
npm install --omit=dev --ignore-scripts --no-audit --no-fund --loglevel=error
# node-pty's post-install step fails under `yes=false` after building pty.node: hence the checks.
npm rebuild --dangerously-allow-all-scripts @parcel/watcher @vscode/spdlog node-pty native-watchdog kerberos @vscode/deviceid >/dev/null 2>&1 || true
test -f node_modules/node-pty/build/Release/pty.node
test -f node_modules/kerberos/build/Release/kerberos.node
test -f node_modules/@vscode/spdlog/build/Release/spdlog.node
mkdir -p node_modules/@vscode/ripgrep/bin && cp /usr/bin/rg node_modules/@vscode/ripgrep/bin/rg
rm -rf node_modules.asar && ln -s node_modules node_modules.asar
(cd bin/remote-cli && ln -sf code-linux.sh code-server)
(cd bin/helpers && ln -sf browser-linux.sh browser.sh)
(cd extensions && npm install --omit=dev --ignore-scripts --no-audit --no-fund --loglevel=error && node ./postinstall.mjs >/dev/null)
node "$CS/out/node/entry.js" --version
touch "$CS/.ph-ready"
echo "editors-e2e-setup: ok ($CS)"
