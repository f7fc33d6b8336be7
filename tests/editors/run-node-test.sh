#!/usr/bin/env bash
# run-node-test.sh - runs one node test of tests/editors, failing clearly when npm ci was not run.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
if [ ! -d "$root/vscode-extension/node_modules/vscode-textmate" ]; then
  echo "FAIL: vscode-extension/node_modules is missing: run scripts/editors-setup.sh first" >&2
  exit 1
fi
exec timeout 120 node "$@"
