#!/bin/bash
# jobs/ without a cluster:
#   dry-run  jobs/submit.sh --dry-run prints the sbatch chain (afterany on calibration, afterany for
#            the plot job) and the srun steps 1, 2, 4 nodes; jobs/local.sh --dry-run the local sweep
#   local    jobs/local.sh --quick: whole rows with the record.c header, verified joins at 1 and 2
#            ranks, a failed run recorded as a row, figures and report
#   jobs_test.sh dry-run|local SOURCE_ROOT BUILD_DIR
set -u
mode=$1 root=$2 build=$3
fail=0
check() { if ! eval "$1"; then echo "FAIL: $2"; fail=1; fi; }
D=$(mktemp -d /tmp/rmb-jobs-test.XXXXXX)
trap 'rm -rf "$D"' EXIT
export RMB_BUILD=$build
mpi=$(sed -n 's/^#define RMB_MPI_CHOICE "\(.*\)"/\1/p' "$build/bench/rmb_config.h")
if [[ $mode == dry-run ]]; then
    out=$("$root/jobs/submit.sh" --dry-run --mpi "$mpi" --campaign scaleout --results "$D/c" -- --nodes=4 --ntasks-per-node=3 2>&1)
    echo "$out"
    srun_mpi=$([[ $mpi == mpich ]] && echo pmi2 || echo pmix)
    for k in 1 2 4; do
        check 'grep -qF -- "srun --mpi=$srun_mpi -N $k -n $((3 * k)) --ntasks-per-node=3 --kill-on-bad-exit=1 $build/rmabench join --algo both --tuples-per-rank 16M --repeat 5 --output $D/c/job-DRY-join-scaleout/results.csv" <<<"$out"' "no scale-out step on $k nodes"
    done
    check '[[ $(grep -c "rmabench join" <<<"$out") == 3 ]]' "expected exactly 3 join steps"
    check 'grep -q "sbatch .*--dependency=afterany:DRY-calibrate .*--nodes=4 .*join-scaleout.sbatch" <<<"$out"' "join job not chained after calibration"
    check 'grep -q "sbatch .*--dependency=afterany:DRY-join-scaleout .*plot.sbatch" <<<"$out"' "plot job not chained with afterany"
    check 'grep -qF "rmaplot report $D/c/job-\*/results.csv --out $D/c/report" <<<"$out"' "plot job command"
    check '[[ ! -e $D/c ]]' "a dry run created the campaign directory"
    # the campaigns' steps and plans are the same text under both libraries (rmabench --plan starts
    # no MPI): once, in the Open MPI build; the MPICH build checks its srun --mpi above
    if [[ $mpi != mpich ]]; then
        out=$(RMB_TUPLES=1M "$root/jobs/submit.sh" --dry-run --mpi "$mpi" --campaign all --results "$D/c" -- --nodes=2 2>&1)
        check 'grep -q "join-sizes.sbatch" <<<"$out" && grep -q "lock.sbatch" <<<"$out" && grep -q "join-scaleup.sbatch" <<<"$out"' "campaign all lacks jobs"
        check 'grep -q -- "--ratio 4 --selectivity 0.25" <<<"$out"' "no 1:N sweep step"
        check 'grep -q -- "--remote-prob 0.5 " <<<"$out" && grep -q -- "--isolation read-committed" <<<"$out"' "no lock sweep steps"
        check 'grep -q -- "-N 2 -n 32 --ntasks-per-node=16" <<<"$out"' "no scale-up step with 16 ranks per node"
        # the thesis campaign: 40M tuples per rank, both joins, the node counts that give 128 and 256
        # ranks at 16 per node (512.. do not fit 16 nodes), each step followed by its --plan; with 8 GiB
        # per node the plan says that a node cannot hold 16 ranks of 40M tuples, and what to change
        out=$(RMB_HOST_MEMORY=8G "$root/jobs/submit.sh" --dry-run --mpi "$mpi" --campaign thesis --results "$D/c" -- --nodes=16 --ntasks-per-node=16 2>&1)
        echo "$out" | head -60
        for k in 8 16; do
            check 'grep -qF -- "-N $k -n $((16 * k)) --ntasks-per-node=16 --kill-on-bad-exit=1 $build/rmabench join --algo both --tuples-per-rank 40M" <<<"$out"' "thesis: no join step on $k nodes"
            check 'grep -qF -- "| # rmabench join --plan: $((16 * k)) ranks on $k host(s), 16 per host; nothing launched" <<<"$out"' "thesis: no plan under the $k-node step"
        done
        check '[[ $(grep -c "^    srun .*rmabench join" <<<"$out") == 2 ]]' "thesis: expected exactly 2 join steps"
        check '[[ $(grep -c "^        | radix: tuple format 8 B packed" <<<"$out") == 2 && $(grep -c "^        | sortmerge: tuple format 8 B packed" <<<"$out") == 2 ]]' "thesis: plans do not name both joins' formats"
        check '[[ $(grep -c "^        | memory per host: .* (16 ranks); --host-memory 8.0 GiB available" <<<"$out") == 2 ]]' "thesis: no memory per node in the plans"
        check 'grep -qE "^        \| rmabench: --tuples-per-rank: the run needs about .* on one host but only 8.0 GiB is available; use fewer ranks per host" <<<"$out"' "thesis: no refusal naming what to change"
        check 'grep -q "lock.sbatch" <<<"$out" && grep -qE "^        (\| # rmabench lock --plan|\(no plan for the lock steps)" <<<"$out"' "thesis: lock steps neither planned nor said why not"
    fi
    out=$("$root/jobs/local.sh" --dry-run --mpi "$mpi" --out "$D/l" 2>&1)
    echo "$out"
    check 'grep -q -- "-n 1 .*rmabench join --algo both --tuples-per-rank 1M --repeat 3" <<<"$out"' "local: no 1-rank join"
    check 'grep -q -- "-n $(nproc) .*rmabench join" <<<"$out"' "local: no join on all cores"
    check 'grep -q "rmabench calibrate --output $D/l/params-$mpi.txt" <<<"$out"' "local: no calibration"
    # world-size check on output only (no CSV rows): calibrate's header and the join/lock header
    ( source "$root/jobs/lib.sh"; RMB_ROOT=$root RMB_PYTHON=/usr/bin/python3
      printf '# rmabench calibrate: 1 ranks on 1 host(s), 1 per host; MPICH 4.0.2; 0.1 s\n%.0s' 1 2 3 4 >"$D/singletons.log"
      printf '# rmabench calibrate: 4 ranks on 1 host(s), 4 per host; MPICH 4.0.2; 0.1 s\n' >"$D/world.log"
      printf '# ranks 1 on 1 host(s), 1 per host (vm); MPICH 4.0.2\n' >"$D/join1.log"
      rmb_check_world "$D/none.csv" 0 4 "$D/singletons.log" 2>/dev/null && exit 1
      rmb_check_world "$D/none.csv" 0 4 "$D/world.log" || exit 1
      rmb_check_world "$D/none.csv" 0 4 "$D/join1.log" 2>/dev/null && exit 1
      exit 0 ) || { echo "FAIL: rmb_check_world misses calibrate's or join's world size"; fail=1; }
    check '"$root/jobs/submit.sh" --campaign bogus >/dev/null 2>&1; [[ $? == 2 ]]' "bad --campaign not exit 2"
    check '"$root/jobs/local.sh" --repeat x >/dev/null 2>&1; [[ $? == 2 ]]' "bad --repeat not exit 2"
    # flags given with --quick keep their values; a missing or bad value is one line, exit 2, before
    # a dry run prints anything; every printed rmabench command passes rmabench's own parser
    out=$("$root/jobs/local.sh" --dry-run --quick --tuples 7K --repeat 2 --duration 150ms --mpi "$mpi" --out "$D/q" 2>&1)
    check 'grep -q -- "--tuples-per-rank 7K --repeat 2 " <<<"$out" && grep -q -- "--duration 150ms" <<<"$out"' "--quick overrode explicit flags"
    for bad in "--tuples" "--tuples 5Q" "--repeat 0" "--duration 0s" "--out"; do
        # shellcheck disable=SC2086
        check 'o=$("$root/jobs/local.sh" --dry-run $bad 2>&1); [[ $? == 2 && $(wc -l <<<"$o") == 1 && $o == "rmabench jobs: "* ]]' "local.sh --dry-run $bad: not one line, exit 2"
    done
    check 'o=$(RMB_CALIBRATE_ARGS="--tuples 5" "$root/jobs/local.sh" --dry-run --out "$D/q2" 2>&1); [[ $? == 2 && $(wc -l <<<"$o") == 1 && $o == *"--tuples: 5 is out of range"* ]]' \
        "a bad value in RMB_CALIBRATE_ARGS printed before it was refused"
else
    t0=$(date +%s)
    "$root/jobs/local.sh" --quick --mpi "$mpi" --out "$D/r"
    echo "local.sh --quick: $(( $(date +%s) - t0 )) s"
    csv=$D/r/results.csv
    check '[[ "$(head -1 "$csv")" == "$("$build/rmabench" record --header)" ]]' "results.csv header is not record.c's"
    /usr/bin/python3 - "$csv" <<'PY' || fail=1
import csv, sys
raw = list(csv.reader(open(sys.argv[1], newline="")))
bad = [f"row {i} has {len(r)} fields, header {len(raw[0])}" for i, r in enumerate(raw[1:], 2) if len(r) != len(raw[0])]
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
for ranks in ("1", "2"):
    got = sorted(r["algo"] for r in rows if r["bench"] == "join" and r["ranks"] == ranks and r["verification"] == "PASS")
    if got != ["radix", "sortmerge"]: bad.append(f"{ranks} ranks: verified joins {got}")
for r in rows:
    if r["status"] != "ok": bad.append(f"{r['bench']} {r['algo']} ranks {r['ranks']}: status {r['status']} exit {r['exit_code']}")
    if (r["exit_code"], r["verification"]) != ("0", "PASS"): bad.append(f"row disagrees: {r['status']}/{r['exit_code']}/{r['verification']}")
for b in bad: print("FAIL:", b)
sys.exit(1 if bad else 0)
PY
    check '[[ -s $D/r/report.md ]] && head -c 8 "$D/r/join_throughput.png" | od -c | grep -q "P   N   G"' "no report or figure"
    # a run that fails is a row with its status and exit code; the rows before it stay
    n=$(wc -l <"$csv")
    cp "$csv" "$D/before.csv"
    (source "$root/jobs/lib.sh"; RMB_FORCE=1; rmb_init t; rmb_results_dir "$D/r"; RMB_RUN_N=1
     rmb_run "bad flag" 1 1 -- join --algo radix --tuples-per-rank 0 --output "$RMB_CSV") >/dev/null
    check '[[ $(wc -l <"$csv") == $((n + 1)) ]] && tail -1 "$csv" | grep -q ",join,failed,2,"' "failed run not recorded with exit code 2"
    check '/usr/bin/python3 -c "import csv,sys; r = list(csv.DictReader(open(sys.argv[1])))[-1]; sys.exit(r[\"verification\"] != \"NONE\")" "$csv"' \
        "failed run's row does not say verification NONE"
    # results.csv must be a regular file: a FIFO there stops the job (exit 2) before anything blocks on it
    mkdir -p "$D/fifo" && mkfifo "$D/fifo/results.csv"
    check '(source "$root/jobs/lib.sh"; rmb_init t; rmb_results_dir "$D/fifo") 2>"$D/fifo.err"; [[ $? == 2 ]] && grep -q "results.csv: not a regular file (a FIFO)" "$D/fifo.err" && [[ -p $D/fifo/results.csv ]]' \
        "a FIFO as results.csv was not refused with exit 2"
    check 'cmp -s <(head -n "$n" "$csv") "$D/before.csv"' "earlier rows changed"
    # a job whose runs fail exits 1 (its failed runs are rows): here every run times out
    RMB_RANKS=1 RMB_RUN_TIMEOUT=1 "$root/jobs/local.sh" --quick --mpi "$mpi" --out "$D/timeouts" >"$D/timeouts.out" 2>&1
    rc=$?
    check '[[ $rc == 1 ]] && grep -q "runs, [1-9][0-9]* failed" "$D/timeouts.out"' "a job with failed runs exited $rc, not 1"
fi
[[ $fail == 0 ]] && echo "jobs $mode: ok"
exit $fail
