#!/bin/sh
# Prints the exact request of one invocation with standard tools (sh, head, jq), as docs/control-plane.md
# describes: request.json is the whole body; request.delta.json is the first prefix_bytes bytes of its
# base invocation's request followed by its suffix.
# Usage: rebuild-request.sh <run_dir>/io/invocations <invocation_id>
set -eu
dir=$1/$2
if [ -f "$dir/request.json" ]; then
  cat "$dir/request.json"
else
  delta=$dir/request.delta.json
  "$0" "$1" "$(jq -r .base "$delta")" | head -c "$(jq -r .prefix_bytes "$delta")"
  jq -j .suffix "$delta"
fi
