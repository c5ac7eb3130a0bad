#!/bin/bash
# jobs/figure.sh: every thesis figure and table that runs on MPI, from one command. The catalogue
# (plots/rmaplots/catalogue.py) names for each entry what it shows, its thesis section and the sweep
# of existing rmabench commands that feeds it; this script runs the sweep (jobs/lib.sh's rmb_run)
# and draws the entry with `rmaplot figure ID`, the thesis' numbers beside ours where it gives them.
#
#   jobs/figure.sh list                      the catalogue: id, thesis section, what it shows and needs
#   jobs/figure.sh ID [--out DIR] [--dry-run]   the local sweep of ID (this machine, small size), then
#                                            its figure/table: DIR/ID/ID.png and DIR/ID/ID.md
#   jobs/figure.sh all [--out DIR] [--dry-run]  every entry locally (each sweep once, entries sharing a
#                                            sweep reuse it), then one page for a paper's artifact
#                                            appendix: DIR/report.md (per entry what was run, the time it
#                                            took, how it compares with the thesis, its figure and tables)
#                                            and DIR/figures.pdf (every figure, one a page)
#   jobs/figure.sh ID --slurm [--dry-run] [-- SBATCH_ARGS...]
#                                            the thesis-scale sweep on Slurm and a dependent plotting
#                                            job: jobs/submit.sh --figure ID
# --out DIR   results directory (default results/figures-<timestamp>); sweeps under DIR/sweeps/NAME/
#             (results.csv, logs/, params.txt where the sweep calibrates); a sweep an earlier run
#             finished there is reused, its figure drawn again only with --force
# --force     replace what an earlier run left in DIR (a sweep it did not finish, figures, report)
# Runs per point: after a sweep, each configuration runs again until the 95% CI of its mean lies within
# +-10% of the mean or it has 10 runs (rmaplot catalogue more; plots/rmaplots/catalogue.py WIDTH, CAP).
# Exit status: 0 when every entry ran and was drawn, 1 when any failed, 2 for bad input.
# Environment: RMB_BUILD (default build/, Open MPI), RMB_RUN_TIMEOUT and the rest of jobs/lib.sh.
set -u
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
source "$root/jobs/lib.sh"
usage() { sed -n '2,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//'; }
py=${RMB_PYTHON:-/usr/bin/python3}
[[ -x $py ]] || py=python3

[[ $# -ge 1 ]] || { usage >&2; exit 2; }
what=$1; shift
case $what in
-h|--help) usage; exit 0 ;;
list) exec "$py" "$root/plots/rmaplot" catalogue ;;
esac
ids=$("$py" "$root/plots/rmaplot" catalogue ids) || exit 2
if [[ $what != all && " $ids " != *" $what "* ]]; then
    echo "rmabench jobs: $what: not a catalogue id or 'all' or 'list' (jobs/figure.sh list)" >&2
    exit 2
fi
out="" slurm=0 dry=0 pass=()
while [[ $# -gt 0 ]]; do
    case $1 in
    --out) rmb_need "$1" $# "${2-}"; out=$2; shift ;;
    --slurm) slurm=1 ;;
    --dry-run) dry=1 ;;
    --force) export RMB_FORCE=1 ;;
    --) pass=("$@"); break ;;
    *) echo "rmabench jobs: $1: unknown flag (jobs/figure.sh --help)" >&2; exit 2 ;;
    esac
    shift
done
if [[ $slurm == 1 ]]; then
    [[ $what == all ]] && { echo "rmabench jobs: --slurm: one id at a time (jobs/submit.sh --figure ID)" >&2; exit 2; }
    args=(--figure "$what")
    [[ $dry == 1 ]] && args+=(--dry-run)
    [[ -n $out ]] && args+=(--results "$out")
    exec "$root/jobs/submit.sh" "${args[@]}" "${pass[@]}"
fi
[[ $dry == 1 ]] && export RMB_DRY_RUN=1

rmb_init figure
out=${out:-$root/results/figures-$(date +%Y%m%d-%H%M%S)}
[[ $out == /* ]] || out=$PWD/$out
[[ $dry == 1 ]] || mkdir -p "$out" || rmb_die "$out: cannot create the results directory"
[[ $what == all && -e $out/report.md && ${RMB_FORCE:-0} != 1 ]] && rmb_die "$out/report.md: exists; give --force to replace it"

sweep_of() { "$RMB_PYTHON" "$RMB_ROOT/plots/rmaplot" catalogue runs "$1" local | sed -n '1s/^# sweep //p'; }

# more_runs ID DIR: rounds of the runs `rmaplot catalogue more` asks for (configurations whose 95% CI
# is wider than +-10% of the mean and that have fewer than 10 runs), until none is asked for
more_runs() {
    local id=$1 dir=$2 round n
    for round in 1 2 3 4 5 6 7 8 9 10; do
        n=$("$RMB_PYTHON" "$RMB_ROOT/plots/rmaplot" catalogue more "$id" "$RMB_CSV" | grep -vc '^#')
        [[ $n == 0 ]] && return 0
        echo "rmabench jobs: $id: round $round: $n more run(s) for a 95% CI within +-10% of the mean (at most 10 runs each)"
        plan() { rmb_catalogue_plan "$id" local "$dir/params.txt" more; }
        rmb_plan
    done
}

# run_entry ID: its sweep (once per DIR: a sweep that finished is reused), then its figure; prints
# the seconds it took into $out/ID/seconds
run_entry() {
    local id=$1 sweep dir t0
    t0=$EPOCHREALTIME
    sweep=$(sweep_of "$id")
    dir=$out/sweeps/$sweep
    # a finished sweep is read, not written: reused as it is
    RMB_RESULTS_REUSE=$([[ -f $dir/done && $dry != 1 ]] && echo 1 || echo 0) rmb_results_dir "$dir"
    if [[ $dry == 1 || ! -f $dir/done ]]; then
        [[ $dry == 1 ]] || echo "rmabench jobs: $id: sweep '$sweep' into $dir"
        plan() { rmb_catalogue_plan "$id" local "$dir/params.txt"; }
        rmb_plan
        [[ $dry == 1 || ${RMB_FIGURE_TINY:-0} == 1 ]] || more_runs "$id" "$dir"
        [[ $dry == 1 ]] || : >"$dir/done"
    else
        echo "rmabench jobs: $id: sweep '$sweep' already ran in $dir"
    fi
    local -a draw=("$RMB_PYTHON" "$RMB_ROOT/plots/rmaplot" figure "$id" "$RMB_CSV" --out "$out/$id" "${RMB_FORCE_ARGS[@]}")
    # the sweep's calibration, where it has one (a sweep without calibrate runs has none)
    [[ $dry == 1 || -f $dir/params.txt ]] && draw+=(--params "$dir/params.txt")
    if [[ $dry == 1 ]]; then rmb_quote "${draw[@]}"; return 0; fi
    if [[ ! -s $RMB_CSV ]]; then
        echo "rmabench jobs: $id: no results (every run failed?): see $RMB_LOG_DIR" >&2
        return 1
    fi
    "${draw[@]}" || { echo "rmabench jobs: $id: drawing failed" >&2; return 1; }
    awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.0f\n", b - a }' >"$out/$id/seconds"
}

if [[ $what != all ]]; then
    run_entry "$what" || exit 1
    [[ $dry == 1 ]] || echo "rmabench jobs: $what: $out/$what/$what.md"
    rmb_finish
    exit
fi

failed=0
load0=$(cut -d' ' -f1-3 /proc/loadavg)
for id in $ids; do
    [[ $dry == 1 ]] || echo "=== $id"
    run_entry "$id" || failed=$((failed + 1))
done
[[ $dry == 1 ]] && exit 0
{
    echo "Local sizes on $(hostname) ($(nproc) cores), $(date -u '+%Y-%m-%d %H:%M UTC'); build: $RMB_BUILD; load average"
    echo "at the start $load0, at the end $(cut -d' ' -f1-3 /proc/loadavg) (other jobs on the machine move every timing)."
    echo "Seconds: the entry's sweep, when it ran it first (entries after it on the same sweep reuse it), and its"
    echo "drawing; a sweep that an earlier figure.sh run left in this directory is reused, not timed."
} >"$out/machine.txt"
"$RMB_PYTHON" "$RMB_ROOT/plots/rmaplot" summary "$out" || failed=$((failed + 1))
echo "rmabench jobs: report: $out/report.md, figures: $out/figures.pdf ($failed of $(wc -w <<<"$ids") entries failed)"
rmb_finish && ((failed == 0))
