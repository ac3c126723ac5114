#!/bin/sh
# The research library, a folder of Markdown sources next to the agent (a stand-in for a search API).
#   library.sh search QUERY   the sources whose text contains QUERY (case-insensitive), with the matching lines
#   library.sh read NAME      one source, by the name search printed
set -eu
# The agent writes `library.sh ACTION -- VALUE`: the -- tells delta the value is never an option. Drop it.
if [ "${2:-}" = -- ]; then action=$1; shift 2; set -- "$action" "$@"; fi
library="$(dirname "$0")/../library"
case ${1:-} in
  search)
    cd "$library"
    grep -iF -- "$2" *.md || echo "(nothing in the library mentions \"$2\")"
    ;;
  read)
    case $2 in
      *[!A-Za-z0-9._-]* | .*) echo "not a source name: $2 (use a name that search printed, e.g. lfp.md)" >&2; exit 1 ;;
    esac
    [ -f "$library/$2" ] || { echo "no source named $2; the library has: $(cd "$library" && ls | tr '\n' ' ')" >&2; exit 1; }
    cat "$library/$2"
    ;;
  *) echo "usage: library.sh search QUERY | read NAME" >&2; exit 2 ;;
esac
