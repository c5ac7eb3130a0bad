#!/bin/bash
# jobs/figure.sh end to end at a tiny size (RMB_FIGURE_TINY=1: at most 2 ranks, 20K tuples per rank,
# 300 ms lock runs, one run per configuration): fig4.2 (joins, a figure with the thesis' peak beside
# ours) and table5.2 (TPC-C per transaction type, new-order/s), each its sweep and its drawing, and
# the reader's summary over them (report.md with what was run, figures.pdf); then
# `list` names every entry, a bad id exits 2, and the Slurm dry runs of fig4.2 and table5.1 print the
# chain (calibrate, figure, plot) and the srun steps at the thesis' size.
#   figure_test.sh SOURCE_ROOT BUILD_DIR
set -u
root=$1 build=$2
fail=0
check() { if ! eval "$1"; then echo "FAIL: $2"; fail=1; fi; }
D=$(mktemp -d /tmp/rmb-figure-test.XXXXXX)
trap 'rm -rf "$D"' EXIT
export RMB_BUILD=$build RMB_FIGURE_TINY=1 RMB_RUN_TIMEOUT=60
RMB_PYTHON_TEST=/usr/bin/python3
[[ -x $RMB_PYTHON_TEST ]] || RMB_PYTHON_TEST=python3
for id in fig4.2 table5.2; do
    out=$("$root/jobs/figure.sh" "$id" --out "$D/f" 2>&1)
    rc=$?
    echo "$out"
    check '[[ $rc == 0 ]]' "$id: figure.sh exited $rc"
    check 'grep -q "runs, 0 failed" <<<"$out"' "$id: a run failed"
    check '[[ -s $D/f/$id/$id.md ]]' "$id: no $id.md"
    check 'grep -q "^- Against the thesis: .*thesis: Cray XC40, Aries" "$D/f/$id/$id.md"' "$id: no comparison with the thesis' machine"
done
check '[[ -s $D/f/fig4.2/fig4_2.png && -s $D/f/fig4.2/fig4_2.pdf ]]' "fig4.2: no figure"
check 'grep -q "^- What was run: ranks 1, 2 on 1 host ([0-9]* cores/host); not oversubscribed; 1 run per point; commit [0-9a-f]\{7\}; " "$D/f/fig4.2/fig4.2.md"' "fig4.2: no line saying what was run"
# the reader's summary of what ran (jobs/figure.sh all ends with it): entries of the two sweeps drawn,
# the others named as without results, every figure a page of one PDF
out=$("$RMB_PYTHON_TEST" "$root/plots/rmaplot" summary "$D/f" 2>&1)
echo "$out"
check 'grep -q "wrote $D/f/report.md and $D/f/figures.pdf" <<<"$out"' "summary: no report and PDF"
check 'grep -q "^| \[fig4.2\](fig4.2/fig4.2.md) | 4.3 (Fig 4.2) | ranks 1, 2 on 1 host" "$D/f/report.md"' "summary: no row for fig4.2"
check 'grep -q "^| \[fig3.7\](fig3.7/fig3.7.md) | 3.4 (Fig 3.7) | no results |" "$D/f/report.md"' "summary: an entry without results not named"
check 'grep -q "^!\[fig4.2\](fig4.2/fig4_2.png)" "$D/f/report.md"' "summary: fig4.2's figure not linked"
check '[[ $(grep -ac "/Type /Page\b" "$D/f/figures.pdf") -ge 9 ]]' "summary: figures.pdf has fewer pages than the sweeps' figures"
# table5.2: ours (both isolation levels, new-order/s above 0) beside the thesis' row
check 'grep -qE "^\| ours, serializable \| .* \| [1-9][0-9]* \|$" "$D/f/table5.2/table5.2.md"' "table5.2: no new-order/s of ours"
check 'grep -q "^| This dissertation (thesis) | 2PL-BW | 5.0k (140) | 5.9M |" "$D/f/table5.2/table5.2.md"' "table5.2: no thesis row"
check 'grep -qE "^\| serializable \| new-order \| [1-9][0-9]* \| [0-9.]+ \| 0 \|" "$D/f/table5.2/table5.2.md"' "table5.2: no per-type row"
check '[[ $(grep -c "^\"\?[^,]*,lock," "$D/f/sweeps/lock-scale/results.csv") == 2 ]]' "table5.2: expected 2 lock rows"

# shellcheck disable=SC2034 # read in check's eval
list=$("$root/jobs/figure.sh" list)
for id in fig3.7 fig3.9 fig3.10a fig3.10b fig3.11 fig3.12 fig3.16 skew3.4.5 fanout buffers fig4.2 fig4.3a fig4.3b \
          fig4.4a fig4.4b fig4.5 fig4.6 table4.1 table4.2 fig5.5 fig5.6 fig5.7 table5.1 table5.2 lock-split; do
    check 'grep -q "^$id " <<<"$list"' "list: no $id"
done
"$root/jobs/figure.sh" fig9.9 >/dev/null 2>&1
rc=$?
check '[[ $rc == 2 ]]' "a bad id exits $rc, not 2"
out=$("$root/jobs/submit.sh" --figure fig4.2 --dry-run --results "$D/c" 2>&1)
check 'grep -q "sbatch .*--dependency=afterany:DRY-calibrate .*--nodes=128 --ntasks-per-node=32 .*figure.sbatch" <<<"$out"' "fig4.2: figure job not sized or chained"
check 'grep -qF -- "-N 128 -n 4096 --ntasks-per-node=32 --kill-on-bad-exit=1 $build/rmabench join --algo both --tuples-per-rank 40M --repeat 5" <<<"$out"' "fig4.2: no 4096-rank step"
check 'grep -q "sbatch .*--dependency=afterany:DRY-figure .*plot.sbatch" <<<"$out" && grep -qF "rmaplot figure fig4.2" <<<"$out"' "fig4.2: no plot job"
out=$("$root/jobs/figure.sh" table5.1 --slurm --dry-run --out "$D/c" 2>&1)
check '[[ $(grep -c "rmabench lock --workload synthetic --servers 2520 --remote-prob" <<<"$out") == 18 && $(grep -c -- "--servers 1260 --remote-prob" <<<"$out") == 18 ]]' "table5.1: not 2 agent counts x 6 probabilities x 3 runs"
check '[[ ! -e $D/c ]]' "a dry run created the campaign directory"
[[ $fail == 0 ]] && echo "figure_test: all passed"
exit $fail
