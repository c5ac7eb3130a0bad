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
#                                            sweep reuse it), then DIR/report.md with every entry, the
#                                            time each took and one line each against the thesis
#   jobs/figure.sh ID --slurm [--dry-run] [-- SBATCH_ARGS...]
#                                            the thesis-scale sweep on Slurm and a dependent plotting
#                                            job: jobs/submit.sh --figure ID
# --out DIR   results directory (default results/figures-<timestamp>); sweeps under DIR/sweeps/NAME/
#             (results.csv, logs/, params.txt where the sweep calibrates); a sweep an earlier run
#             finished there is reused, its figure drawn again only with --force
# --force     replace what an earlier run left in DIR (a sweep it did not finish, figures, report)
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
for id in $ids; do
    [[ $dry == 1 ]] || echo "=== $id"
    run_entry "$id" || failed=$((failed + 1))
done
[[ $dry == 1 ]] && exit 0
report=$out/report.md
{
    echo "# Thesis figures and tables (jobs/figure.sh all)"
    echo
    echo "Local sizes on $(hostname) ($(nproc) cores), $(date -u '+%Y-%m-%d %H:%M UTC'); build: $RMB_BUILD."
    echo "Seconds: the entry's sweep, when it ran it first (entries after it on the same sweep reuse it), and its"
    echo "drawing; a sweep that an earlier figure.sh run left in this directory is reused, not timed."
    echo
    echo "| entry | thesis | sweep | seconds | against the thesis |"
    echo "|---|---|---|---|---|"
    for id in $ids; do
        s=$(cat "$out/$id/seconds" 2>/dev/null || echo failed)
        c=$(sed -n 's/^- Against the thesis: //p' "$out/$id/$id.md" 2>/dev/null | sed 's/|/\\|/g')
        echo "| [$id](#$id) | $(grep -m1 '^## ' "$out/$id/$id.md" 2>/dev/null | sed 's/.*(thesis \(.*\))$/\1/') |" \
             "$(sweep_of "$id") | $s | ${c:-—} |"
    done
    echo
    for id in $ids; do
        [[ -f $out/$id/$id.md ]] || { echo "## $id: failed (see $out/sweeps/)"; echo; continue; }
        sed "s#](\([^)]*\.png\))#]($id/\1)#" "$out/$id/$id.md"
        echo
    done
} >"$report.tmp" && mv "$report.tmp" "$report" || { rm -f "$report.tmp"; rmb_die "$report: cannot write"; }
echo "rmabench jobs: report: $report ($failed of $(wc -w <<<"$ids") entries failed)"
rmb_finish && ((failed == 0))
