#!/bin/sh
# Installs the pinned vscode-jsonrpc / vscode-languageserver-protocol (package-lock.json)
# into node_modules/ beside this script. Needs npm and the registry, once.
set -eu
cd "$(dirname "$0")"
if [ -d node_modules/vscode-languageserver-protocol ] && [ node_modules -nt package-lock.json ]; then
  exit 0
fi
npm ci --no-audit --no-fund --loglevel=error
