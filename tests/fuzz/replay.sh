#!/bin/sh
# replay.sh REPLAYER DIR...: run a fuzz target once over every file in the directories (the
# committed corpus and crash reproducers), under whatever sanitizers the build has.
set -u
prog=$1; shift
files=$(for d in "$@"; do [ -d "$d" ] && find "$d" -type f ! -name README.md; done | sort)
[ -n "$files" ] || { echo "replay.sh: no inputs in $*"; exit 1; }
# shellcheck disable=SC2086
exec "$prog" $files
