#!/usr/bin/env bash
# need.sh - runs an editor test, failing with a clear message when its editor is missing.
#   tests/editors/need.sh nvim -- timeout 60 nvim --headless ...
set -euo pipefail
tool=$1; shift; [ "$1" = -- ] && shift
if ! command -v "$tool" >/dev/null; then
  echo "FAIL: \`$tool\` is not installed: run scripts/editors-setup.sh first" >&2
  exit 1
fi
exec "$@"
