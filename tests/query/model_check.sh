#!/bin/sh
# rmamodel query: both designs' predictions at 2, 3 and 4 tables and the crossovers, from a parameter
# set given on the command line (no file, no MPI). Properties the equations must have:
#   - the shuffle's time grows with the joins, the pull design's fact stream does not;
#   - on one host with these rates the pull design wins from 3 tables on and a crossover in joins is named;
#   - across hosts, a link slow enough makes the memory ranks' links the pull design's bound, and a
#     crossover link rate is found between 0.001 and 1000 Gbit/s;
#   - bad input: one line naming the flag, exit 2.
set -u
rmamodel=$1
fail=0
sets="--set P_scan=400 --set P_partition=150 --set P_build=60 --set P_probe=100 --set bw_put_intra=4 \
      --set t_get_block=3 --set bw_get=2 --set bw_host=1"
# shellcheck disable=SC2086
one=$("$rmamodel" query $sets --ranks 4 --memory-ranks 1 --fact-rows 4M) || { echo "FAIL: exit $?"; fail=1; }
echo "$one"
col() { echo "$1" | awk -v t="$2" -v c="$3" '$1 == t { print $c }'; }
s2=$(col "$one" 2 6) s3=$(col "$one" 3 6) s4=$(col "$one" 4 6) st2=$(col "$one" 2 3) st4=$(col "$one" 4 3)
awk -v a="$s2" -v b="$s3" -v c="$s4" 'BEGIN { exit !(a < b && b < c) }' || { echo "FAIL: shuffle $s2 $s3 $s4 not growing"; fail=1; }
awk -v a="$st2" -v b="$st4" 'BEGIN { exit !(b <= a * 1.01 + 1e-9 && b >= a * 0.99) }' || { echo "FAIL: fact stream $st2 -> $st4"; fail=1; }
echo "$one" | grep -Eq '^crossover joins: pull is faster from [23] table' || { echo "FAIL: no crossover in joins"; fail=1; }
# shellcheck disable=SC2086
two=$("$rmamodel" query $sets --ranks 4 --ranks-per-host 1 --memory-ranks 1 --fact-rows 4M --link-rate 0.1) ||
    { echo "FAIL: exit $?"; fail=1; }
echo "$two"
echo "$two" | grep -Eq "^4 .*pull: the memory ranks' links" || { echo "FAIL: the slow link is not the pull bound"; fail=1; }
echo "$two" | grep -Eq '^crossover link rate: [0-9.e+-]+ Gbit/s' || { echo "FAIL: no crossover link rate"; fail=1; }
# shellcheck disable=SC2086
out=$("$rmamodel" query $sets --ranks 4 --memory-ranks 4 2>&1); rc=$?
echo "$out"
[ "$rc" -eq 2 ] && [ "$(echo "$out" | grep -c '^rmamodel: --memory-ranks: ')" -eq 1 ] || { echo "FAIL: refusal"; fail=1; }
out=$("$rmamodel" query --set P_scan=400 --ranks 4 2>&1); rc=$?
echo "$out"
[ "$rc" -eq 2 ] && echo "$out" | grep -q 'is not set' || { echo "FAIL: a missing parameter is not named"; fail=1; }
exit $fail
