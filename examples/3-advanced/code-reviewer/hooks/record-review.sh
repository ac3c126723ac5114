#!/bin/sh
# on_run_end: append one line per review run to review-history.log in .delta/, next to the runs.
# A hook runs outside the sandbox with the user's rights, and the workspace is written by tools, so it is
# hostile ground (docs/hooks.md, "Hooks and a hostile workspace"): this hook never writes there, and it
# reads REVIEW.md only when that is a regular file, never through a link a tool planted.
history="$(dirname "$RUN_DIR")/review-history.log"
if [ -L "$history" ] || { [ -e "$history" ] && [ ! -f "$history" ]; }; then
  echo "record-review: $history is not a regular file; nothing written" >&2
  exit 1
fi
status=$(sed -n 's/.*"status": *"\([A-Z_]*\)".*/\1/p' "$DELTA_HOOK_IO_PATH/input/context.json" | head -n 1)
findings=0
if [ -f REVIEW.md ] && [ ! -L REVIEW.md ]; then findings=$(grep -c '^- ' REVIEW.md) || true; fi
printf '%s %s %s findings\n' "$DELTA_RUN_ID" "${status:-UNKNOWN}" "${findings:-0}" >> "$history"
