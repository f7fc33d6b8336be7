#!/usr/bin/env bash
# package_test.sh - type-checks the extension, packages it offline with vsce, and checks the
# .vsix: the manifest activates on `ph`, contributes the language, grammar, snippets, commands
# and settings, and the bundle holds the language client (no node_modules shipped).
# Usage: tests/editors/vsce/package_test.sh [OUT.vsix]   (after scripts/editors-setup.sh)
set -euo pipefail
root=$(cd "$(dirname "$0")/../../.." && pwd)
ext=$root/vscode-extension
if [ ! -x "$ext/node_modules/.bin/vsce" ]; then
  echo "FAIL: vscode-extension/node_modules is missing: run scripts/editors-setup.sh first" >&2; exit 1
fi
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
out=${1:-$tmp/ph-lang.vsix}
cd "$ext"
t0=$(date +%s.%N)
timeout 120 npx --no-install tsc --noEmit -p .
echo "ok   tsc --noEmit"
timeout 120 npx --no-install vsce package --no-dependencies --skip-license -o "$out" >"$tmp/vsce.log" 2>&1 \
  || { cat "$tmp/vsce.log"; echo "FAIL vsce package"; exit 1; }
echo "ok   vsce package -> $(du -k "$out" | cut -f1) KB in $(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN{printf "%.1f", b-a}') s"
mkdir "$tmp/x" && (cd "$tmp/x" && unzip -q "$out")
exec node "$root/tests/editors/vsce/check_vsix.js" "$tmp/x"
