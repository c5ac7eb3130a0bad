#!/bin/sh
# rmabench query --plan at scale, nothing launched: a weak-scaled run at 1024 and 4096 ranks (16 per
# host, a quarter of them memory ranks) fits, prints O(1) lines, and its per-rank arrays grow at most
# as the rank count (O(P) words: 4x the ranks, at most 4x the arrays); the data per rank stays put;
# too little --host-memory exits 2 with one line naming the flag.
set -u
rmabench=$1
fail=0
plan() { "$rmabench" query --plan --ranks "$1" --ranks-per-host 16 --memory-ranks "$(($1 / 4))" --fact-rows "$2" \
    --host-memory "${3:-1T}"; }
a=$(plan 1024 1G) || { echo "FAIL: plan at 1024 ranks exited $?"; fail=1; }
b=$(plan 4096 4G) || { echo "FAIL: plan at 4096 ranks exited $?"; fail=1; }
printf '%s\n--\n%s\n' "$a" "$b"
for p in "$a" "$b"; do
    echo "$p" | grep -q '^plan: fits$' || { echo "FAIL: no 'plan: fits'"; fail=1; }
    [ "$(echo "$p" | wc -l)" -le 10 ] || { echo "FAIL: more than 10 lines"; fail=1; }
done
val() { echo "$1" | sed -n "s/^plan bytes: .*$2=\([0-9]*\).*/\1/p"; }
aa=$(val "$a" arrays) ab=$(val "$b" arrays) ma=$(val "$a" memory_rank) mb=$(val "$b" memory_rank)
[ -n "$aa" ] && [ -n "$ab" ] || { echo "FAIL: no 'plan bytes' line"; exit 1; }
[ "$ab" -le $((4 * aa)) ] || { echo "FAIL: arrays $aa -> $ab bytes for 4x the ranks: more than O(P)"; fail=1; }
[ "$ab" -gt "$aa" ] || { echo "FAIL: arrays did not grow with the ranks ($aa -> $ab): not counted"; fail=1; }
# the data per memory rank is the same at both sizes (weak scaling), give or take the cells' partial blocks
[ "$mb" -le $((ma + ma / 8)) ] || { echo "FAIL: a memory rank's need grew from $ma to $mb bytes"; fail=1; }
out=$(plan 4096 4G 1G 2>&1)
rc=$?
echo "$out" | tail -2
[ "$rc" -eq 2 ] || { echo "FAIL: a host of 1 GiB: exit $rc, expected 2"; fail=1; }
[ "$(echo "$out" | grep -c '^rmabench: --fact-rows: the run needs about')" -eq 1 ] || { echo "FAIL: no one-line refusal"; fail=1; }
exit $fail
