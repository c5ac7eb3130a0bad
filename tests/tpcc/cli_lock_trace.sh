#!/bin/sh
# rmabench lock-trace: a trace that reads back as the generator's transactions, bad flags (one
# line, exit 2, no file), an unusable --output (names the file, leaves nothing behind).
#   cli_lock_trace.sh RMABENCH TRACE_CHECK
set -u
rmabench=$1; check=$2
d=$(mktemp -d /tmp/rmabench-lock-trace-XXXXXX)
trap 'rm -rf "$d"' EXIT
fail=0
err() { echo "FAIL: $*"; fail=1; }

# 1. a trace, read back and compared with the generator
timeout 60 "$rmabench" lock-trace tpcc --warehouses 3 --transactions 2K --isolation read-committed \
    --home-warehouse 1 --seed 7 --output "$d/t.trace" >"$d/out" 2>"$d/err"
rc=$?; cat "$d/out" "$d/err"
[ $rc -eq 0 ] || err "exit $rc for a good command"
grep -q '^locks per transaction: ' "$d/out" || err "no locks-per-transaction line"
grep -q '^payment ' "$d/out" || err "no per-type line"
grep -q '^remote: ' "$d/out" || err "no remote line"
"$check" "$d/t.trace" 3 1 1 7 2000 || err "trace does not match the generator"
# an existing trace is refused (one line naming --force, the file as it was), replaced whole with --force
cp "$d/t.trace" "$d/before"
timeout 60 "$rmabench" lock-trace tpcc --warehouses 2 --transactions 500 --seed 9 --output "$d/t.trace" >"$d/out" 2>&1
rc=$?
[ $rc -eq 2 ] && [ "$(wc -l <"$d/out")" -eq 1 ] && grep -q "t.trace: exists; give --force to replace it" "$d/out" ||
    err "an existing trace: exit $rc, $(cat "$d/out")"
cmp -s "$d/t.trace" "$d/before" || err "an existing trace was changed without --force"
rm -f "$d/before"
timeout 60 "$rmabench" lock-trace tpcc --warehouses 2 --transactions 500 --seed 9 --output "$d/t.trace" --force >/dev/null 2>&1 ||
    err "overwrite failed"
"$check" "$d/t.trace" 2 0 0 9 500 || err "overwritten trace does not match"

# every transaction's home drawn uniformly: a readable trace
timeout 60 "$rmabench" lock-trace tpcc --warehouses 3 --home-warehouse -1 --transactions 1000 --output "$d/u.trace" >"$d/out" 2>&1 ||
    err "--home-warehouse -1 failed: $(cat "$d/out")"
[ "$(grep -c '^B$' "$d/u.trace")" -eq 1000 ] || err "--home-warehouse -1: not 1000 transactions"
rm -f "$d/u.trace"

# 2. bad input: exit 2, one line on stderr naming the flag, no file
bad() { # expected-prefix, args...
    want=$1; shift
    timeout 30 "$rmabench" lock-trace "$@" >"$d/out" 2>"$d/err"
    rc=$?
    lines=$(wc -l <"$d/err")
    echo "+ lock-trace $*  -> exit $rc: $(cat "$d/err")"
    [ $rc -eq 2 ] || err "exit $rc, expected 2 for: $*"
    [ "$lines" -eq 1 ] || err "$lines lines on stderr, expected 1 for: $*"
    grep -q "^rmabench: $want" "$d/err" || err "stderr does not start with 'rmabench: $want' for: $*"
}
bad '--warehouses: ' tpcc --warehouses 0 --output "$d/b.trace"
bad '--bogus: unknown flag' tpcc --bogus 1 --output "$d/b.trace"
bad '--isolation: ' tpcc --isolation snapshot --output "$d/b.trace"
bad '--transactions: ' tpcc --transactions 12Q --output "$d/b.trace"
bad '--home-warehouse: ' tpcc --warehouses 2 --home-warehouse 2 --output "$d/b.trace"
bad '--output: ' tpcc --warehouses 2
bad "lock-trace: 'ycsb': unknown workload" ycsb --output "$d/b.trace"
bad '--home-warehouse: -1 with 20000 warehouses' tpcc --warehouses 20000 --home-warehouse -1 --output "$d/b.trace"
[ ! -e "$d/b.trace" ] || err "bad input left $d/b.trace"

# 3. unusable --output: names the file, nothing left behind
bad "--output: $d/missing/x.trace: cannot create" tpcc --output "$d/missing/x.trace"
mkdir "$d/dir.trace"
bad "--output: $d/dir.trace: not a regular file (a directory)" tpcc --output "$d/dir.trace"
left=$(ls -A "$d" | grep -v -x -e t.trace -e dir.trace -e out -e err -e int)
[ -z "$left" ] || err "left behind: $left"
[ -z "$(ls -A "$d/dir.trace")" ] || err "wrote into the directory"

# an interrupted run leaves no temporary file
mkdir "$d/int"
"$rmabench" lock-trace tpcc --transactions 100M --output "$d/int/big.trace" >/dev/null 2>&1 &
pid=$!
sleep 1
kill -TERM $pid; wait $pid
[ -z "$(ls -A "$d/int")" ] || err "interrupted run left: $(ls -A "$d/int")"

[ $fail -eq 0 ] && echo "cli lock-trace: PASS"
exit $fail
