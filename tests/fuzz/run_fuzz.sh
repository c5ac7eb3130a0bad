#!/bin/sh
# run_fuzz.sh FUZZER CORPUS SECONDS: fuzz for SECONDS starting from the committed corpus, without
# changing it (new inputs go to a scratch directory; crashes are kept under /tmp for inspection).
# Prints the number of executions; fails on a crash, a leak, a timeout or a violated invariant.
set -u
fuzzer=$1; corpus=$2; secs=$3
# scratch files on tmpfs when there is one: the file-reading targets write one per execution
base=/dev/shm; [ -d $base ] && [ -w $base ] || base=${TMPDIR:-/tmp}
work=$(mktemp -d "$base/rmb-fuzz-$(basename "$fuzzer").XXXXXX")
mkdir -p "$work/new" "$work/crash"
TMPDIR=$work "$fuzzer" -max_total_time="$secs" -timeout=10 -rss_limit_mb=1024 -max_len=4096 \
    -artifact_prefix="$work/crash/" -print_final_stats=1 "$work/new" "$corpus" >"$work/log" 2>&1
rc=$?
grep -E '^(stat::number_of_executed_units|stat::peak_rss_mb|#[0-9]+ +DONE)' "$work/log"
if [ $rc -ne 0 ]; then
    tail -60 "$work/log"
    mkdir -p /tmp/rmb-fuzz-crashes && cp "$work"/crash/* /tmp/rmb-fuzz-crashes/ 2>/dev/null
    rm -rf "$work"
    echo "FAIL: $(basename "$fuzzer") exit status $rc; reproducers copied to /tmp/rmb-fuzz-crashes/"
    exit 1
fi
execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/log")
echo "$(basename "$fuzzer"): $execs executions in ${secs}s, no crash"
rm -rf "$work"
