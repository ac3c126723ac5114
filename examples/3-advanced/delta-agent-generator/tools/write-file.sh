#!/bin/sh
# write-file.sh PATH: write stdin to PATH (relative to the workspace), creating its directories.
set -eu
[ "${1:-}" = -- ] && shift
mkdir -p -- "$(dirname -- "$1")"
cat > "$1"
echo "wrote $1 ($(wc -c < "$1" | tr -d ' ') bytes)"
