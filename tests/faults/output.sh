#!/bin/bash
# The results file unusable: every case ends with one line naming the file, exit status 2, and
# nothing already in a results file lost or half-written.
#   output.sh BUILD MPIRUN
# - --output in a directory that does not exist, or a directory: refused before MPI_Init;
# - --output /dev/full (every write fails with ENOSPC) under the launcher at 2 ranks;
# - a full disk on a regular file, simulated with a file-size limit (ulimit -f, EFBIG): the row
#   that does not fit is rolled back, the rows before stay byte for byte (rmabench record: the
#   limit cannot be put on MPI ranks, whose shared-memory files it would break first).
set -u
build=$1 mpirun=$2
source "$(dirname "$0")/faultlib.sh"
work=$(mktemp -d /tmp/rmb-fault-output.XXXXXX)
trap 'rm -rf "$work"' EXIT
bin=$build/rmabench
join=(join --tuples-per-rank 1K)

expect() { # NAME EXIT REGEX -- CMD...
    local name=$1 want=$2 re=$3; shift 4
    timeout -k 5 60 "$@" >"$work/out" 2>&1
    local rc=$?
    if [[ $rc == "$want" ]] && grep -Eq -- "$re" "$work/out"; then ok "$name: exit $rc, $(grep -Em1 -- "$re" "$work/out")"
    else fail "$name: exit $rc (want $want), output:"; tail -5 "$work/out"; fi
}

expect "missing directory" 2 '^rmabench: --output: /nonexistent-dir/r\.csv: cannot create: No such file or directory$' -- \
    "$mpirun" -n 2 "$bin" "${join[@]}" --output /nonexistent-dir/r.csv
expect "a directory" 2 "^rmabench: --output: $work: not a regular file\$" -- "$mpirun" -n 2 "$bin" "${join[@]}" --output "$work"
expect "/dev/full" 2 '^rmabench: --output: /dev/full: cannot write: No space left on device$' -- \
    "$mpirun" -n 2 "$bin" "${join[@]}" --output /dev/full

# full disk on a regular file: a size limit just above the rows already written
csv=$work/results.csv
"$bin" record --output "$csv" --set bench=join --set status=ok --set command="first" >/dev/null || fail "rmabench record"
"$bin" record --output "$csv" --set bench=join --set status=ok --set command="second" >/dev/null || fail "rmabench record"
cp "$csv" "$work/before.csv"
size=$(stat -c %s "$csv")
limit=$(( (size + 100 + 511) / 512 ))   # ulimit -f counts 512-byte blocks: room for part of a row only
expect "file-size limit (record)" 2 "^rmabench: .*$csv: cannot write: File too large\$" -- \
    bash -c "trap '' XFSZ; ulimit -f $limit; exec \"\$@\"" _ "$bin" record --output "$csv" --set bench=join --set command="$(printf 'x%.0s' $(seq 3000))"
cmp -s "$csv" "$work/before.csv" && ok "nothing half-written: the file is byte for byte as before" || fail "the file changed"
check_whole_rows "$csv" || fail "partial rows"
[[ $fails == 0 ]] && echo "output: all checks passed"
exit $((fails > 0))
