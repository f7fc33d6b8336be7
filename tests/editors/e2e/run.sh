#!/usr/bin/env bash
# run.sh - the VS Code end-to-end test: code-server 4.100.3 (Code 1.100.3) with the packaged
# .vsix, driven by Debian's Chromium through playwright-core, against the real ph-lsp.
# Slow (a minute with code-server installed, ~3 more to install it), so it runs only with
# PH_EDITOR_E2E=1; without it the test says so and passes (ctest SKIP_RETURN_CODE 77).
#   PH_EDITOR_E2E=1 PH_LSP=build/bin/ph-lsp tests/editors/e2e/run.sh [OUT_DIR]
# OUT_DIR (default $TMPDIR/ph-e2e) receives the screenshots and the logs. PH_DRIVER: the `ph`
# the server runs (default: the one next to ph-lsp). PH_E2E_KEEP=1 keeps the work folder (the
# workspace, code-server's logs under udd/logs, the server's log) and prints its path.
set -euo pipefail
root=$(cd "$(dirname "$0")/../../.." && pwd)
if [ "${PH_EDITOR_E2E:-}" != 1 ]; then
  echo "SKIP: the code-server end-to-end test runs only with PH_EDITOR_E2E=1 (it takes minutes)"
  exit 77
fi
lsp=$(readlink -f "${PH_LSP:-$root/build/bin/ph-lsp}")
[ -x "$lsp" ] || { echo "FAIL: ph-lsp not found at $lsp (set PH_LSP)"; exit 1; }
"$root/scripts/editors-e2e-setup.sh" >/dev/null
CS=${PH_CODE_SERVER_PREFIX:-/opt/ph-code-server}/lib/node_modules/code-server
out=$(mkdir -p "${1:-${TMPDIR:-/tmp}/ph-e2e}" && cd "${1:-${TMPDIR:-/tmp}/ph-e2e}" && pwd)
work=$(mktemp -d)
server_pid=
# code-server runs in a session of its own (setsid, below): its node processes (the parent,
# the forked server, the extension host) and the ph-lsp it starts share one process group,
# and cleanup ends that group. Killing only `$!` left node running: `cs ... &` forked a
# subshell for the function, and `$!` was that shell, not node.
cleanup() {
  if [ -n "$server_pid" ]; then
    kill -TERM -- "-$server_pid" 2>/dev/null || true
    for _ in $(seq 50); do kill -0 -- "-$server_pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL -- "-$server_pid" 2>/dev/null || true
  fi
  wait 2>/dev/null
  if [ "${PH_E2E_KEEP:-}" = 1 ]; then echo "kept: $work"; else rm -rf "$work"; fi
}
trap cleanup EXIT

# The extension, packaged as a user would get it.
"$root/tests/editors/vsce/package_test.sh" "$work/ph-lang.vsix" >"$out/package.log" || { cat "$out/package.log"; exit 1; }

# A workspace: a kernel with a misspelt builtin (line 21) and a correct one.
mkdir -p "$work/ws" "$work/udd/User" "$work/exts" "$work/bin"
# ph-lsp through a link of our own, so the test can find (and kill) exactly its server;
# the server still finds `ph` next to its real path.
ln -s "$lsp" "$work/bin/ph-lsp"
sed '21s/rowmax(s)/rowmx(s)/' "$root/examples/flash_attention_manual.ph" >"$work/ws/bad_attention.ph"
cp "$root/examples/causal_attention.ph" "$root/examples/flash_attention.ph" "$work/ws/"
# A shape error (`dot` where `dot_t` is meant) that `ph build` reports too.
sed '17s/dot_t(q, k)/dot(q, k)/' "$root/examples/flash_attention_manual.ph" >"$work/ws/shape_error.ph"
# code-server saves after a second by default (files.autoSave afterDelay): off here, so that the
# unsaved-buffer step runs an unsaved buffer and its revert restores the file; the auto save
# step turns it on in the workspace settings.
cat >"$work/udd/User/settings.json" <<JSON
{
  "ph.server.path": "$work/bin/ph-lsp",
  "ph.path": "${PH_DRIVER:-}",
  "ph.target": "cpu",
  "ph.sizes": { "N": 64 },
  "ph.compileOnSave": false,
  "files.autoSave": "off",
  "workbench.startupEditor": "none",
  "workbench.tips.enabled": false,
  "security.workspace.trust.enabled": false,
  "extensions.autoCheckUpdates": false,
  "extensions.autoUpdate": false,
  "telemetry.telemetryLevel": "off",
  "editor.codeLens": true,
  "editor.hover.delay": 100,
  "workbench.colorTheme": "Default Dark Modern"
}
JSON
export XDG_CONFIG_HOME=$work/xdg-config XDG_DATA_HOME=$work/xdg-data
cs() { node "$CS/out/node/entry.js" --extensions-dir "$work/exts" --user-data-dir "$work/udd" "$@"; }
cs --install-extension "$work/ph-lang.vsix" --force >"$out/install.log" 2>&1
cs --list-extensions --show-versions | grep -q '^ph-lang.ph-lang@' || { cat "$out/install.log"; echo "FAIL: extension not installed"; exit 1; }
echo "ok   extension installed in code-server $(cs --version | head -1)"

port=$((18000 + RANDOM % 2000))
# setsid execs node in place (a background job of a script is no group leader), so `$!` is
# node's pid and the id of its new process group.
setsid node "$CS/out/node/entry.js" --extensions-dir "$work/exts" --user-data-dir "$work/udd" \
   --bind-addr "127.0.0.1:$port" --auth none --disable-telemetry --disable-update-check \
   --disable-workspace-trust "$work/ws" >"$out/code-server.log" 2>&1 &
server_pid=$!
for _ in $(seq 100); do curl -sf -o /dev/null "http://127.0.0.1:$port/healthz" && break; sleep 0.2; done
curl -sf -o /dev/null "http://127.0.0.1:$port/healthz" || { cat "$out/code-server.log"; echo "FAIL: code-server did not start"; exit 1; }

PH_E2E_USER_SETTINGS="$work/udd/User/settings.json" PH_E2E_URL="http://127.0.0.1:$port/?folder=$work/ws" PH_E2E_OUT="$out" PH_E2E_LOGS="$work/udd/logs" PH_E2E_LSP="$work/bin/ph-lsp" PH_E2E_WS="$work/ws" \
  timeout 900 node "$root/tests/editors/e2e/e2e_test.js"
