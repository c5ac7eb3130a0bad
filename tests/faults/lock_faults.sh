#!/bin/bash
# Fault tests of `rmabench lock` (issue 7).
#   lock_faults.sh SCENARIO BUILD MPIRUN
# stop-server  A lock server stops answering (SIGSTOP while 2 agents run, --wait-bound 3): an agent
#              reports its rank, what it waited for and from which rank, the launcher exits non-zero
#              within the bound plus a margin (no hang), and no rank is left behind.
# kill-rank    Rank 0 (an agent, and the rank that writes the CSV) SIGKILLed in the middle of a
#              lock run with --output: the launcher exits non-zero, the rows written before stay byte
#              for byte, the CSV holds only whole rows.
# load         Bank transfers at 4 ranks on 4 accounts for 2 s with --vote-no-prob 0.3, under
#              --deadlock timeout and waitdie: deadlocks are broken (timeouts / wait-die refusals
#              counted), no votes counted, every abort is accounted for (aborted = refused + no
#              votes), and the balances still add up (verification: PASS).
set -u
scenario=$1 build=$2 mpirun=$3
source "$(dirname "$0")/faultlib.sh"
bin=$build/rmabench
work=$(mktemp -d /tmp/rmb-fault-lock.XXXXXX)
trap 'release_stopped; rm -rf "$work"' EXIT

# wait until the run's header (printed by rank 0 right before the transactions start) is out
wait_started() { # OUTFILE SECONDS
    local i
    for ((i = 0; i < $2 * 20; i++)); do grep -qs '^# lock servers at ranks' "$1" && return 0; sleep 0.05; done
    return 1
}

case $scenario in
stop-server)
    bound=3 mark="--seed 7200001"
    timeout -k 5 60 "$mpirun" -n 3 "$bin" lock --duration 40s --wait-bound $bound $mark >"$work/out" 2>&1 &
    launcher=$!
    if wait_started "$work/out" 30; then
        srv=$(sed -n 's/^# lock servers at ranks \([0-9]*\).*/\1/p' "$work/out")
        sleep 0.5
        pid=$(rank_pid "$mark" "$srv")
        if [[ -n $pid ]]; then kill -STOP "$pid"; stopped=$pid; ok "stopped lock server rank $srv (pid $pid)"
        else fail "server rank $srv not found"; fi
    else
        fail "the lock run did not start in 30 s"
    fi
    t_stop=$SECONDS
    wait "$launcher"; rc=$?
    waited=$((SECONDS - t_stop))
    cat "$work/out"
    if [[ $rc == 0 ]]; then fail "launcher exit status 0 although a server stopped answering"
    elif [[ $rc == 124 || $rc == 137 ]] && ((waited >= 40)); then fail "hung until the test's timeout (exit $rc)"
    else ok "launcher exit status $rc, $waited s after the stop (wait bound $bound s)"; fi
    ((waited <= bound + 15)) || fail "$waited s from the stop to the end, more than the bound $bound s + 15 s"
    # a bounded polling loop reports "no <what> from rank S"; a blocking call (a flush that needs the
    # stopped target, MPICH) is cut by the wait bound's watchdog (bench/wait_bound.h): "<what> to rank S
    # did not complete after X s; rank S (pid P) is stopped ..."
    re="^rmabench: rank ([0-9]+): (no (lock response|2PC vote|end-of-transaction acknowledgement) from rank ${srv:-X} after|MPI_[A-Za-z_ +]+ (of [a-z0-9 -]+ )?(to rank ${srv:-X} )?did not complete after) [0-9.]+ s(; rank ${srv:-X} \\(pid [0-9]+\\) is stopped .*)?$"
    line=$(grep -E "$re" "$work/out" | head -1)
    if [[ -n $line ]]; then
        who=$(sed -E "s/$re/\\1/" <<<"$line")
        [[ $who != "$srv" ]] && ok "agent rank $who reported: ${line#rmabench: }" || fail "the report came from the server itself"
    else
        fail "no line 'rmabench: rank R: no <what> from rank $srv after X s' or 'rmabench: rank R: <call> to rank $srv did not complete after X s'"
    fi
    # the stopped rank is gone once the launcher is (a SIGKILL reaches stopped processes)
    check_stopped_gone server
    ;;
kill-rank)
    csv=$work/results.csv
    "$bin" record --output "$csv" --set bench=join --set status=ok --set exit_code=0 --set verification=PASS --set command="earlier run, with a comma" || fail "rmabench record"
    timeout -k 5 60 "$mpirun" -n 3 "$bin" lock --workload bank --accounts 8 --transactions-per-agent 50 --output "$csv" \
        >"$work/first" 2>&1 || { cat "$work/first"; fail "a complete lock run failed"; }
    cp "$csv" "$work/before.csv"
    before=$(stat -c %s "$csv")
    (($(csv_rows "$csv") == 2)) || fail "expected 2 rows before the killed run, got $(csv_rows "$csv")"
    mark="--seed 7200002"
    timeout -k 5 60 "$mpirun" -n 3 "$bin" lock --workload bank --accounts 8 --duration 40s --wait-bound 10 $mark \
        --output "$csv" >"$work/out" 2>&1 &
    launcher=$!
    if wait_started "$work/out" 30; then
        sleep 0.5
        pid=$(rank_pid "$mark" 0)
        if [[ -n $pid ]]; then kill -KILL "$pid"; ok "killed rank 0 (pid $pid) during the run"
        else fail "rank 0 not found"; fi
    else
        fail "the lock run did not start in 30 s"
    fi
    t_kill=$SECONDS
    wait "$launcher"; rc=$?
    tail -5 "$work/out"
    if [[ $rc == 0 ]]; then fail "launcher exit status 0 after a rank was killed"
    elif ((SECONDS - t_kill >= 30)); then fail "the launcher hung until the test's timeout"
    else ok "launcher exit status $rc, $((SECONDS - t_kill)) s after the kill"; fi
    cmp -s "$csv" "$work/before.csv" && ok "the CSV is unchanged ($before bytes, 2 rows)" || fail "the CSV changed"
    check_whole_rows "$csv" || fail "partial rows"
    ;;
load)
    for dl in timeout waitdie; do
        lt=(); [[ $dl == timeout ]] && lt=(--lock-timeout 5ms) # refused beside waitdie, which ignores it
        timeout -k 5 90 "$mpirun" -n 4 "$bin" lock --workload bank --accounts 4 --remote-prob 0.5 --vote-no-prob 0.3 \
            --deadlock $dl "${lt[@]}" --duration 2s --wait-bound 30 >"$work/out" 2>&1
        rc=$?
        grep -E '^(committed|aborted|servers|bank|invariants|verification):' "$work/out"
        [[ $rc == 0 ]] || { cat "$work/out"; fail "$dl: exit status $rc"; continue; }
        grep -q '^verification: PASS' "$work/out" || fail "$dl: no verification: PASS"
        read -r committed aborted refused novotes < <(sed -nE \
            's/^aborted: ([0-9]+) \(.*; ([0-9]+) refused lock requests, ([0-9]+) no votes\)/\1 \2 \3/p' "$work/out" |
            { read -r a r v; echo "$(sed -n 's/^committed: \([0-9]*\) .*/\1/p' "$work/out") $a $r $v"; })
        broken=$(sed -nE "s/^servers: .*\(([0-9]+) timeouts, ([0-9]+) wait-die.*/\1 \2/p" "$work/out")
        echo "$dl: committed $committed, aborted $aborted = $refused refused + $novotes no votes; timeouts / wait-die: $broken"
        ((committed > 0)) || fail "$dl: nothing committed"
        ((novotes > 0)) || fail "$dl: no 'no' vote counted with --vote-no-prob 0.3"
        ((aborted == refused + novotes)) || fail "$dl: $aborted aborts but $refused refusals + $novotes no votes"
        if [[ $dl == timeout ]]; then ((${broken% *} > 0)) || fail "timeout: no deadlock broken by a timeout"
        else ((${broken#* } > 0)) || fail "waitdie: no wait-die refusal"; fi
    done
    ;;
*) echo "lock_faults.sh: unknown scenario $scenario" >&2; exit 2 ;;
esac
[[ $fails == 0 ]] && echo "lock_faults $scenario: all checks passed"
exit $((fails > 0))
