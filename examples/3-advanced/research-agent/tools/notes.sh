#!/bin/sh
# The agent's research notes: notes.md in the workspace, one "- finding (source)" line each.
#   notes.sh add SOURCE          append the finding read from stdin, citing SOURCE
#   notes.sh show OUTPUT_FILE    write the notes as a context block (the computed_file generator)
set -eu
# The agent writes `notes.sh ACTION -- VALUE`: the -- tells delta the value is never an option. Drop it.
if [ "${2:-}" = -- ]; then action=$1; shift 2; set -- "$action" "$@"; fi
case ${1:-} in
  add)
    finding=$(cat | tr '\n' ' ' | sed 's/ *$//')
    printf -- '- %s (%s)\n' "$finding" "$2" >> notes.md
    echo "saved; notes.md has $(grep -c '^- ' notes.md) notes"
    ;;
  show)
    mkdir -p "$(dirname "$2")"
    {
      echo "## Your research notes (notes.md)"
      echo
      # `show` runs outside the sandbox (a context generator), over a workspace tools write: never read
      # notes.md through a link or from a FIFO or device a tool put in its place.
      if [ -L notes.md ] || { [ -e notes.md ] && [ ! -f notes.md ]; }; then
        echo "(notes.md is not a regular file, so it was not read; save notes with save_note only)"
      elif [ -s notes.md ]; then tail -n 40 notes.md; else echo "(none yet)"; fi
    } > "$2"
    ;;
  *) echo "usage: notes.sh add SOURCE | show OUTPUT_FILE" >&2; exit 2 ;;
esac
