#!/bin/sh
# delta-sessions under a name the model chooses ("main", "build") instead of the random session id:
#   session.sh start NAME [command...]   start a session (bash by default) and remember its id under NAME
#   session.sh exec NAME                 run the command read from stdin in that session
#   session.sh end NAME                  end the session and forget the name
# Every answer is delta-sessions' own JSON. The names live beside the sessions, in <sessions dir>/names/.
set -u
# The agent writes `session.sh ACTION -- NAME`: the -- tells delta the name is never an option.
action=${1:-}
[ $# -ge 1 ] && shift
[ "${1:-}" = -- ] && shift
name=${1:-}
[ $# -ge 1 ] && shift
fail() {
  printf '{ "error": { "code": "%s", "message": "%s" } }\n' "$1" "$2"
  exit 1
}
case $name in
  "" | *[!A-Za-z0-9_-]*) fail INVALID_NAME "a session name is 1 or more letters, digits, - or _" ;;
esac
names="${DELTA_SESSIONS_DIR:-.sessions}/names"
case $action in
  start)
    [ -e "$names/$name" ] && fail NAME_IN_USE "a session named $name is already running; end it or choose another name"
    answer=$(delta-sessions start -- "$@") || { printf '%s\n' "$answer"; exit 1; }
    id=$(printf '%s\n' "$answer" | sed -n 's/.*"session_id": *"\(sess_[A-Za-z0-9_-]*\)".*/\1/p' | head -n 1)
    mkdir -p "$names" && printf '%s\n' "$id" > "$names/$name"
    printf '%s\n' "$answer"
    ;;
  exec | end)
    [ -f "$names/$name" ] || fail NAME_NOT_FOUND "no session is named $name; start one with this name first"
    id=$(cat "$names/$name")
    if [ "$action" = exec ]; then
      exec delta-sessions exec "$id"
    fi
    delta-sessions end "$id" && rm -f "$names/$name"
    ;;
  *) fail INVALID_ARGUMENT "usage: session.sh start|exec|end NAME [command...]" ;;
esac
