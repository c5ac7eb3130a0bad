#!/bin/bash
# The results file unusable: every case ends with one line naming the file, exit status 2, and
# nothing already in a results file lost or half-written.
#   output.sh BUILD MPIRUN
# - --output in a directory that does not exist, a directory, or a device (/dev/full): refused
#   before MPI_Init, the device left alone (only regular files take rows: tests/faults/output_kinds.sh);
# - a full disk under the launcher at 2 ranks: a results file on a tmpfs of a few pages (as root;
#   skipped with a message otherwise) that the join's row does not fit: ENOSPC, the rows before
#   stay byte for byte;
# - a file-size limit (ulimit -f) with SIGXFSZ at its default (which kills a process that writes past
#   the limit): `rmabench record`, and the join under the launcher at 2 ranks with its results file
#   padded to just below an 8 MiB limit (the MPI runtime's own shared-memory files need a few MiB):
#   the writer ignores the signal, the row that does not fit fails with EFBIG and is rolled back,
#   one line, exit 2, the rows before byte for byte.
set -u
build=$1 mpirun=$2
source "$(dirname "$0")/faultlib.sh"
work=$(mktemp -d /tmp/rmb-fault-output.XXXXXX)
mnt=""
trap '[[ -n $mnt ]] && umount "$mnt"; rm -rf "$work"' EXIT
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
expect "a directory" 2 "^rmabench: --output: $work: not a regular file \\(a directory\\)\$" -- \
    "$mpirun" -n 2 "$bin" "${join[@]}" --output "$work"
before=$(stat -c '%F %t:%T %i' /dev/full)
expect "/dev/full" 2 '^rmabench: --output: /dev/full: not a regular file \(a character device\)$' -- \
    "$mpirun" -n 2 "$bin" "${join[@]}" --output /dev/full
[[ $(stat -c '%F %t:%T %i' /dev/full) == "$before" ]] && ok "/dev/full left alone" || fail "/dev/full changed"

# a full disk under the launcher: a tmpfs of the fewest pages that hold the header and an earlier row
# with at least 512 bytes to spare, then nearly filled by a padded row
"$bin" record --output "$work/sizing.csv" --set bench=join --set exit_code=1 --set command="earlier run" >/dev/null ||
    fail "rmabench record (sizing)"
first=$(stat -c %s "$work/sizing.csv" 2>/dev/null || echo 0)
row=$(tail -n 1 "$work/sizing.csv" | wc -c)   # a row's length grows with the columns declared
cap=$(( (first + row + 512 + 4095) / 4096 * 4096 ))
if [[ $(id -u) == 0 ]] && mkdir "$work/tiny" && mount -t tmpfs -o "size=$cap,mode=0755" rmb-full "$work/tiny" 2>"$work/mount.err"; then
    mnt=$work/tiny
    csv=$mnt/results.csv
    "$bin" record --output "$csv" --set bench=join --set exit_code=1 --set command="earlier run" >/dev/null || fail "rmabench record"
    pad=$(( cap - $(stat -c %s "$csv") - row - 200 ))   # the padded row leaves about 200 bytes: a join row cannot fit
    (( pad > 0 )) || { fail "full tmpfs: no room to pad ($cap bytes, first row $(stat -c %s "$csv"))"; pad=1; }
    "$bin" record --output "$csv" --set bench=join --set exit_code=1 --set command="$(head -c "$pad" /dev/zero | tr '\0' x)" >/dev/null ||
        fail "rmabench record (padding)"
    cp "$csv" "$work/full-before.csv"
    expect "full tmpfs (join, 2 ranks)" 2 "^rmabench: --output: $csv: cannot write: No space left on device \\(nothing written\\)\$" -- \
        "$mpirun" -n 2 "$bin" "${join[@]}" --output "$csv"
    cmp -s "$csv" "$work/full-before.csv" && ok "full tmpfs: the rows before are byte for byte as they were" ||
        fail "full tmpfs: the file changed"
    check_whole_rows "$csv" || fail "partial rows"
else
    echo "skip: full disk under the launcher needs root to mount a tmpfs ($(cat "$work/mount.err" 2>/dev/null))"
fi

# full disk on a regular file: a size limit just above the rows already written
csv=$work/results.csv
"$bin" record --output "$csv" --set bench=join --set status=ok --set exit_code=0 --set verification=PASS --set command="first" >/dev/null ||
    fail "rmabench record"
"$bin" record --output "$csv" --set bench=join --set exit_code=1 --set command="second" >/dev/null || fail "rmabench record"
cp "$csv" "$work/before.csv"
size=$(stat -c %s "$csv")
# bash's ulimit -f counts 1024-byte blocks (512 only in POSIX mode): room for at most 1123 more bytes,
# part of the 3000-byte row below; the limit and the row are checked to disagree before the run
limit=$(( (size + 100 + 1023) / 1024 ))
(( limit * 1024 < size + 3000 )) || fail "file-size limit $limit KiB leaves room for the whole row: fix the test"
expect "file-size limit (record)" 2 "^rmabench: .*$csv: cannot write: File too large \\(nothing written\\)\$" -- \
    bash -c "trap - XFSZ; ulimit -f $limit; exec \"\$@\"" _ "$bin" record --output "$csv" --set bench=join --set exit_code=1 --set command="$(printf 'x%.0s' $(seq 3000))"
cmp -s "$csv" "$work/before.csv" && ok "nothing half-written: the file is byte for byte as before" || fail "the file changed"
check_whole_rows "$csv" || fail "partial rows"

# the join under the launcher, its results file just below an 8 MiB limit: the row fails whole
csv=$work/limit.csv
"$bin" record --output "$csv" --set bench=join --set status=ok --set exit_code=0 --set verification=PASS --set command="first" >/dev/null ||
    fail "rmabench record"
/usr/bin/python3 - "$csv" $((8192 * 1024 - 300)) <<'PY'
import sys
path, size = sys.argv[1], int(sys.argv[2])
text = open(path).read()
row = text.splitlines()[1] + "\n"
with open(path, "a") as f:
    n = len(text.encode())
    while n + len(row) <= size:
        f.write(row)
        n += len(row)
PY
cp "$csv" "$work/limit-before.csv"
expect "file-size limit (join, 2 ranks)" 2 "^rmabench: --output: $csv: cannot write: File too large \\(nothing written\\)\$" -- \
    bash -c "trap - XFSZ; ulimit -f 8192; exec timeout -k 5 60 \"\$@\"" _ "$mpirun" -n 2 "$bin" "${join[@]}" --output "$csv"
cmp -s "$csv" "$work/limit-before.csv" && ok "file-size limit (join): the rows before are byte for byte as they were" ||
    fail "file-size limit (join): the file changed"
check_whole_rows "$csv" >/dev/null || fail "partial rows"
[[ $fails == 0 ]] && echo "output: all checks passed"
exit $((fails > 0))
