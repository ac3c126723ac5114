#!/bin/sh
# on_run_end: append one line per review run to review-history.log in the workspace (the hook runs there).
status=$(sed -n 's/.*"status": *"\([A-Z_]*\)".*/\1/p' "$DELTA_HOOK_IO_PATH/input/context.json" | head -n 1)
findings=$(grep -c '^- ' REVIEW.md 2>/dev/null || echo 0)
printf '%s %s %s findings\n' "$DELTA_RUN_ID" "${status:-UNKNOWN}" "$findings" >> review-history.log
