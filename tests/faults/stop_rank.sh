#!/bin/bash
# A rank of a join stopped (SIGSTOP) mid-campaign: the wait bound (bench/wait_bound.h) ends the run.
#   stop_rank.sh BUILD MPIRUN
# `rmabench join --repeat 1000 --wait-bound 3` at 3 ranks, rank 2 stopped after its first verified
# run: a rank that waits for it writes one line naming the call it waited in and rank 2 as stopped,
# the launcher exits non-zero within the bound plus a margin (not by this test's timeout), and the
# stopped rank does not outlive the launcher.
set -u
build=$1 mpirun=$2
source "$(dirname "$0")/faultlib.sh"
bin=$build/rmabench
work=$(mktemp -d /tmp/rmb-fault-stop.XXXXXX)
trap 'release_stopped; rm -rf "$work"' EXIT

bound=3 mark="--seed 7300001"
timeout -k 5 90 "$mpirun" -n 3 "$bin" join --tuples-per-rank 20K --repeat 1000 --wait-bound $bound $mark >"$work/out" 2>&1 &
launcher=$!
for ((i = 0; i < 600; i++)); do grep -qs '^verification: PASS' "$work/out" && break; sleep 0.05; done
pid=$(rank_pid "$mark" 2)
if [[ -n $pid ]]; then kill -STOP "$pid"; stopped=$pid; ok "stopped rank 2 (pid $pid)"
else fail "rank 2 not found (or the join never verified a run)"; fi
t_stop=$SECONDS
wait "$launcher"; rc=$?
waited=$((SECONDS - t_stop))
grep -v '^[a-z_ ]*  *[0-9.-]* ' "$work/out" | grep -v '^#' | tail -12
if [[ $rc == 0 ]]; then fail "launcher exit status 0 although a rank stopped"
elif [[ $rc == 124 || $rc == 137 ]] && ((waited >= 80)); then fail "hung until the test's timeout (exit $rc)"
else ok "launcher exit status $rc, $waited s after the stop (wait bound $bound s)"; fi
((waited <= bound + 15)) || fail "$waited s from the stop to the end, more than the bound $bound s + 15 s"
re="^rmabench: rank [01]: [A-Za-z_ ()-]+ did not complete after [0-9.]+ s; rank 2 \\(pid ${pid:-X}\\) is stopped \\(a signal: SIGSTOP, SIGTSTP\\)$"
line=$(grep -E "$re" "$work/out" | head -1)
[[ -n $line ]] && ok "reported: ${line#rmabench: }" || fail "no line 'rmabench: rank R: CALL did not complete after X s; rank 2 (pid $pid) is stopped ...'"
check_stopped_gone rank
echo "stop-rank: $fails failure(s)"
exit $((fails > 0))
