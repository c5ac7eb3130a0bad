#!/bin/sh
# `rmabench lock --plan` (cmd/lock/lock_plan.c, locking/lock_plan.h).
#   lock_plan_check.sh scale RMABENCH
#     no MPI: at 4096 ranks x 32 per host and 5040 x 36 (thesis ch. 5) the plan fits the bound of
#     issue 13 (memory per rank beyond data <= 256 MiB with the defaults, both transports), its
#     output has as many lines as at 4 ranks, and the placement flags are refused as documented.
#   lock_plan_check.sh agree MPI_CHECK MPIRUN RMABENCH
#     real runs at 3 and 4 ranks (rma and msg, synthetic and bank) record in their CSV rows what
#     --plan printed for the same flags: servers, agents, the mailboxes as allocated, the lock table
#     bound and the planned memory; and --plan refuses what a run refuses, with the run's line.
set -u
mode=$1; shift
tmp=$(mktemp -d /tmp/rmb-lock-plan.XXXXXX); trap 'rm -rf "$tmp"' EXIT

if [ "$mode" = scale ]; then
    rmabench=$1
    fail=0
    for args in "4096 32" "5040 36" "4096 32 --transport msg" "4 4"; do
        set -- $args
        n=$1; m=$2; shift 2
        "$rmabench" lock --plan --ranks "$n" --ranks-per-host "$m" "$@" >"$tmp/plan-$n-$m$*.txt" 2>&1 ||
            { echo "FAIL: --plan --ranks $n --ranks-per-host $m $* exited $?"; cat "$tmp/plan-$n-$m$*.txt"; fail=1; }
    done
    # the placement flags: the same names and meaning as `rmabench join --plan`
    expect() { # WANT_LINE ARGS...
        want=$1; shift
        out=$("$rmabench" lock "$@" 2>&1); rc=$?
        if [ "$rc" -ne 2 ] || [ "$out" != "$want" ]; then echo "FAIL: lock $*: exit $rc, '$out', expected 2, '$want'"; fail=1; fi
    }
    expect "rmabench: --ranks: required with --plan" --plan
    expect "rmabench: --ranks: only with --plan (a run takes its ranks from mpirun)" --ranks 8
    expect "rmabench: --ranks-per-host: 9 is more than --ranks 8" --plan --ranks 8 --ranks-per-host 9
    expect "rmabench: --output: --plan runs nothing, so it writes no row" --plan --ranks 8 --output "$tmp/x.csv"
    expect "rmabench: lock: needs at least 2 ranks (one lock server and one agent)" --plan --ranks 1
    [ -e "$tmp/x.csv" ] && { echo "FAIL: --plan wrote $tmp/x.csv"; fail=1; }
    /usr/bin/python3 - "$tmp" <<'PY' || fail=1
import glob, os, re, sys
MiB = 1 << 20
bad = []
def field(text, name):
    m = re.search(r"^" + re.escape(name) + r": (\d+)", text, re.M)
    return int(m.group(1)) if m else None
lines = {}
for path in sorted(glob.glob(os.path.join(sys.argv[1], "plan-*.txt"))):
    text = open(path).read()
    name = os.path.basename(path)
    n, m = map(int, re.match(r"plan-(\d+)-(\d+)", name).groups())
    lines[name] = text.count("\n")
    m_rank = re.search(r"^memory per rank: (\d+) B .*, beyond data (\d+) B", text, re.M)
    m_host = re.search(r"^memory per host: (\d+) B", text, re.M)
    if not m_rank or not m_host or field(text, "servers") is None:
        bad.append(f"{name}: no servers / memory lines"); continue
    rank, beyond = map(int, m_rank.groups())
    if field(text, "servers") + field(text, "agents") != n: bad.append(f"{name}: servers + agents != {n}")
    if beyond > 256 * MiB: bad.append(f"{name}: {beyond / MiB:.1f} MiB per rank beyond data, bound 256 MiB")
    if not rank <= int(m_host.group(1)) <= m * rank: bad.append(f"{name}: memory per host outside [rank, {m} x rank]")
    print(f"{name}: memory per rank {rank / MiB:.1f} MiB (beyond data {beyond / MiB:.1f} MiB), "
          f"per host {int(m_host.group(1)) / MiB:.1f} MiB, {lines[name]} lines")
if len(set(lines.values())) != 1: bad.append(f"output lines differ with the rank count: {lines}")
if bad: sys.exit("FAIL: " + "; ".join(bad))
PY
    [ $fail -eq 0 ] && echo "lock_plan_check scale: all passed"
    exit $fail
fi

mpi_check=$1; mpirun=$2; rmabench=$3
fail=0
run() { # NP ARGS...: a real run appending to lock.csv, then --plan for the same flags
    np=$1; shift
    "$mpi_check" "$mpirun" "$np" --pass 1 --timeout 60 -- "$rmabench" lock --transactions-per-agent 20 "$@" \
        --output "$tmp/lock.csv" >"$tmp/run.txt" 2>&1 || { cat "$tmp/run.txt"; fail=1; }
    "$rmabench" lock --plan --ranks "$np" --transactions-per-agent 20 "$@" >>"$tmp/plans.txt" 2>&1 || fail=1
    echo "== end of plan" >>"$tmp/plans.txt"
}
run 4
run 3 --transport msg --servers 1
run 4 --workload bank --accounts 40 --no-check
# a refusal: the run's line and the plan's are the same
"$mpi_check" "$mpirun" 4 --exit 2 --timeout 60 -- "$rmabench" lock --workload bank --accounts 3 >"$tmp/refused-run.txt" 2>&1
"$rmabench" lock --plan --ranks 4 --workload bank --accounts 3 >"$tmp/refused-plan.txt" 2>&1; rc=$?
want=$(grep '^rmabench: ' "$tmp/refused-run.txt" | grep -v '^rmabench: warning' | head -1)
if [ "$rc" -ne 2 ] || [ -z "$want" ] || [ "$(cat "$tmp/refused-plan.txt")" != "$want" ]; then
    echo "FAIL: --plan refusal (exit $rc): '$(cat "$tmp/refused-plan.txt")', the run's: '$want'"; fail=1
fi
/usr/bin/python3 - "$tmp/lock.csv" "$tmp/plans.txt" <<'PY' || fail=1
import csv, re, sys
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
plans = open(sys.argv[2]).read().split("== end of plan\n")[:-1]
bad = []
if len(rows) != len(plans) or len(rows) != 3: sys.exit(f"FAIL: {len(rows)} rows, {len(plans)} plans, expected 3")
def num(text, pattern):
    m = re.search(pattern, text, re.M)
    return m.group(1) if m else None
for i, (row, plan) in enumerate(zip(rows, plans)):
    want = {
        "servers": num(plan, r"^servers: (\d+)"),
        "agents": num(plan, r"^agents: (\d+)"),
        "mailbox_server_bytes": num(plan, r"^mailbox per server: (\d+) B"),
        "mailbox_agent_bytes": num(plan, r"^mailbox per agent: (\d+) B"),
        "lock_table_pairs_max": num(plan, r"^lock table per server: at most \d+ B .*? for (\d+) "),
        "mem_rank_planned": num(plan, r"^memory per rank: (\d+) B"),
        "mem_rank_beyond_data_planned": num(plan, r"^memory per rank: .*beyond data (\d+) B"),
    }
    for col, v in want.items():
        if v is None: bad.append(f"run {i + 1}: --plan printed no {col}")
        elif row[col] != v: bad.append(f"run {i + 1}: {col} = {row[col]} in the CSV, {v} in --plan")
    print(f"run {i + 1}: " + ", ".join(f"{c}={row[c]}" for c in want))
if bad: sys.exit("FAIL: " + "; ".join(bad))
PY
[ $fail -eq 0 ] && echo "lock_plan_check agree: all passed"
exit $fail
