#!/usr/bin/env bash
# editors-nvim-setup.sh - newer Neovims beside Debian 12's 0.7, for the Neovim client test
# (tests/editors/nvim/lsp_test.lua): Debian 13's 0.10 (CI runs it) and, with `latest`, Debian
# unstable's (0.12 when written; the nightly runs it). Debian 12 has only 0.7.2, and Debian
# 13's packages need a newer C library, so each one is unpacked from Debian's own .debs into
# PREFIX/VERSION together with the C library it was built for, and PREFIX/VERSION/bin/nvim runs
# it through that library's loader. Nothing of the system changes: apt runs on a private
# sources list and state under PREFIX, and no package is installed.
#   scripts/editors-nvim-setup.sh [0.10|latest]...   (default: 0.10)
#   PH_NVIM_PREFIX (default /opt/ph-nvim)             /opt/ph-nvim/0.10/bin/nvim, .../latest/bin/nvim
# Idempotent (a stamp per version); ~15 s and 11 MB of downloads each.
set -euo pipefail
prefix=${PH_NVIM_PREFIX:-/opt/ph-nvim}
[ $# -gt 0 ] || set -- 0.10
for want in "$@"; do
  case $want in
    0.10) suite=trixie ;;
    latest) suite=sid ;;
    *) echo "editors-nvim-setup: unknown version '$want' (0.10 or latest)" >&2; exit 2 ;;
  esac
  dest=$prefix/$want
  if [ -x "$dest/bin/nvim" ] && [ -f "$dest/.ph-ready" ]; then
    echo "editors-nvim-setup: $("$dest/bin/nvim" --version | head -1) already in $dest"; continue
  fi
  apt_dir=$prefix/.apt-$suite
  if ! command -v patchelf >/dev/null; then
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq && apt-get install -y -qq --no-install-recommends patchelf
  fi
  rm -rf "$dest" "$apt_dir"
  mkdir -p "$apt_dir/lists/partial" "$apt_dir/cache/archives/partial" "$apt_dir/debs" "$dest/bin"
  echo "deb http://deb.debian.org/debian $suite main" > "$apt_dir/sources.list"
  opts=(-o "Dir::Etc::sourcelist=$apt_dir/sources.list" -o Dir::Etc::sourceparts=- -o "Dir::State::Lists=$apt_dir/lists"
        -o "Dir::Cache=$apt_dir/cache" -o APT::Sandbox::User=root)
  apt-get "${opts[@]}" update -qq
  # neovim and everything it needs, down to the C library (13 packages for 0.10).
  mapfile -t pkgs < <(apt-cache "${opts[@]}" depends --recurse --no-recommends --no-suggests --no-conflicts \
    --no-breaks --no-replaces --no-enhances neovim | grep -v '^ ' | sort -u)
  (cd "$apt_dir/debs" && apt-get "${opts[@]}" download -qq "${pkgs[@]}")
  for d in "$apt_dir"/debs/*.deb; do dpkg-deb -x "$d" "$dest/root"; done
  r=$dest/root
  # The binary gets its own loader and libraries written in (patchelf), rather than being run
  # through the loader: the 0.9+ terminal UI starts a second nvim from /proc/self/exe. Its
  # compiled-in runtime is /usr/share/nvim/runtime (Debian 12's 0.7 one), hence VIMRUNTIME;
  # its tree-sitter parsers (help files need vimdoc's) are looked for in /usr/lib/nvim.
  patchelf --set-interpreter "$r/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2" \
    --force-rpath --set-rpath "$r/usr/lib/x86_64-linux-gnu" "$r/usr/bin/nvim"
  cat > "$dest/bin/nvim" <<EOF
#!/bin/sh
# Debian $suite's Neovim with its own C library (scripts/editors-nvim-setup.sh).
export VIMRUNTIME=$r/usr/share/nvim/runtime
exec $r/usr/bin/nvim --cmd 'set runtimepath+=$r/usr/lib/nvim' "\$@"
EOF
  chmod +x "$dest/bin/nvim"
  "$dest/bin/nvim" --headless --clean -c 'lua io.stdout:write(vim.version().minor >= 10 and "ok\n" or "old\n")' -c 'qa!' | grep -qx ok
  rm -rf "$apt_dir"
  touch "$dest/.ph-ready"
  echo "editors-nvim-setup: $("$dest/bin/nvim" --version | head -1) in $dest (Debian $suite, ${#pkgs[@]} packages)"
done
