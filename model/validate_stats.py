"""The statistics of model/validate.sh's protocol, on plain numbers (no files, no MPI): which runs a
shared machine disturbed, the estimator of a measured quantity over the runs left, whether that
estimate repeats (odd runs against even runs), the regime a run met, and the verdict of one
configuration. model/validate_table.py applies them to the CSVs; tests/model/test_validate_stats.py
checks them on made-up runs whose answers follow from their numbers.

The estimator is the minimum of the runs' times (the largest of a throughput): the machine's other
work (another program's turn on a core, the hypervisor's steal, a cache another process filled) can
only lengthen a run of fixed work, so the least disturbed run is the one closest to the cost the
model predicts, and the minimum over n runs settles as n grows (its distribution is bounded below),
while a median moves with the share of disturbed time, which on a shared machine changes from minute
to minute. The calibration keeps the same statistic of its repetitions (rmabench calibrate, and
rmamodel pool over the calibrations validate.sh re-measures between rounds)."""
import math
import os

# A run is disturbed, and repeated rather than used, when the hypervisor took more than MAX_STEAL of
# the host's CPU time during it (/proc/stat steal), or when a rank waited for a CPU another task held
# for more than MAX_RUN_DELAY of it (the scheduler's run delay) beyond what its own ranks sharing the
# cores explain (crowded_baseline). bench/host_steal.h prints a warning at 5% of either.
# model/validate.sh --max-steal and --max-run-delay set them (RMB_VALIDATE_MAX_STEAL, _RUN_DELAY).
MAX_STEAL = float(os.environ.get("RMB_VALIDATE_MAX_STEAL", 0.05))
MAX_RUN_DELAY = float(os.environ.get("RMB_VALIDATE_MAX_RUN_DELAY", 0.10))
# The estimate repeats when the odd runs' and the even runs' estimates agree within a third of the
# target they are held to: a miss near the target then cannot flip between two validations by more
# than the estimate's own uncertainty.
TARGET_TOTAL, TARGET_PHASE = 0.15, 0.20
TOL_TOTAL, TOL_PHASE = TARGET_TOTAL / 3, TARGET_PHASE / 3
# clean runs needed before the half-split is asked (at least this many in each half: 2)
MIN_CLEAN = 4
# the cache-line floor's two states (the two virtual CPUs placed close or apart, several times
# slower: docs/models-validation.md); a floor at or above this is the slow state
FLOOR_SLOW_US = 0.30


def crowded_baseline(ranks_on_machine, cores):
    """The share of a run its ranks wait for each other's turns when they outnumber the machine's
    cores and all compute: 1 - cores / ranks (0 when they do not outnumber them)."""
    if not ranks_on_machine or not cores or ranks_on_machine <= cores:
        return 0.0
    return 1.0 - cores / ranks_on_machine


def disturbed(steal, run_delay, baseline=0.0, max_steal=MAX_STEAL, max_run_delay=MAX_RUN_DELAY):
    """The reason a run is repeated rather than used ("steal 12%", "run delay 35%"), or "" when it is
    clean. None for a figure means it was not measured (an older row, no /proc): not held against it."""
    if steal is not None and steal > max_steal:
        return f"steal {steal:.0%}"
    if run_delay is not None and run_delay - baseline > max_run_delay:
        return f"run delay {run_delay:.0%}" + (f" (crowded baseline {baseline:.0%})" if baseline > 0 else "")
    return ""


def estimate(values, higher_is_better=False):
    """(index, value) of the least disturbed run: the smallest time, or the largest throughput; None
    for no value. values: None where a run has none."""
    have = [(v, i) for i, v in enumerate(values) if v is not None]
    if not have:
        return None
    v, i = (max if higher_is_better else min)(have, key=lambda t: (t[0], -t[1]) if higher_is_better else (t[0], t[1]))
    return i, v


def half_split(values, higher_is_better=False, min_runs=MIN_CLEAN):
    """|estimate of the odd runs / estimate of the even runs - 1| over the runs in time order (the
    1st, 3rd, ... against the 2nd, 4th, ...), or None with fewer than min_runs values."""
    v = [x for x in values if x is not None]
    if len(v) < min_runs:
        return None
    odd, even = estimate(v[0::2], higher_is_better), estimate(v[1::2], higher_is_better)
    if not odd or not even or odd[1] <= 0 or even[1] <= 0:
        return None
    return abs(odd[1] / even[1] - 1)


def floor_regime(floor_us):
    """'fast', 'slow', or '' (not measured: ranks sharing cores, one rank on the host, across hosts)."""
    if floor_us is None or floor_us <= 0:
        return ""
    return "slow" if floor_us >= FLOOR_SLOW_US else "fast"


def dominant(groups):
    """The key of the group with the most runs (the first such key in sorted order), None for none."""
    if not groups:
        return None
    return max(sorted(groups), key=lambda k: len(groups[k]))


def err(predicted, measured):
    """(predicted - measured) / measured, None when either is missing."""
    if predicted is None or not measured:
        return None
    return (predicted - measured) / measured


def settled(series, runs_done, cap_runs, min_runs=MIN_CLEAN):
    """Whether a configuration needs no more runs, and why, from its quantities' clean values in
    time order. series: [(values, higher_is_better, tolerance)], the quantities held to a target
    (small phases left out by the caller). Returns (done, state): state 'repeats' (every quantity's
    half-split within its tolerance), 'does not repeat' (cap reached without that), 'disturbed'
    (cap reached with fewer than min_runs clean values), or 'more runs' (not done)."""
    clean = min((sum(v is not None for v in vals) for vals, _, _ in series), default=0)
    splits = [half_split(vals, hib, min_runs) for vals, hib, _ in series]
    if series and clean >= min_runs and all(s is not None and s <= tol for s, (_, _, tol) in zip(splits, series)):
        return True, "repeats"
    if runs_done < cap_runs:
        return False, "more runs"
    return True, "disturbed" if clean < min_runs else "does not repeat"


def final_state(state, clean, min_runs=MIN_CLEAN):
    """A configuration's state when the validation ended: one that still wanted runs (its rounds ran
    out before its cap) did not repeat, or had too few clean runs."""
    if state != "more runs":
        return state
    return "disturbed" if clean < min_runs else "does not repeat"


def not_judged(state, runs):
    """The reason a configuration is not judged, from its final state and its runs."""
    if runs == 0:
        return "not judged: no run (see the logs)"
    return "not judged: " + ("every run disturbed" if state == "disturbed" else "the measurement does not repeat")


def explained(value_a, value_b, spread_a, spread_b, floor_a=None, floor_b=None, floor_part=None):
    """What a difference between two configurations' estimates is: 'floor' when the two ran in
    different floor states and the model's share of the difference from the floor alone (floor_part,
    the prediction's change from moving the floor, as a fraction of value_a) explains at least half
    of it; 'spread' when it is within the two estimates' own half-split disagreements; else 'effect'
    (of the parameter that differs). A reader of a figure told 'floor' or 'spread' must not read the
    difference as the parameter's."""
    if not value_a or value_b is None:
        return ""
    diff = value_b / value_a - 1
    if floor_regime(floor_a) and floor_regime(floor_b) and floor_regime(floor_a) != floor_regime(floor_b) \
            and floor_part is not None and abs(floor_part) >= 0.5 * abs(diff):
        return "floor"
    if abs(diff) <= (spread_a or 0) + (spread_b or 0):
        return "spread"
    return "effect"


def agreement(verdicts_a, verdicts_b):
    """Two validations' verdicts ({configuration: verdict}; 'not judged: ...' counts as a verdict):
    (configurations in both, how many have the same verdict)."""
    both = sorted(set(verdicts_a) & set(verdicts_b))
    return len(both), sum(1 for c in both if verdicts_a[c] == verdicts_b[c])


def finite(x):
    return x is not None and not (isinstance(x, float) and (math.isnan(x) or math.isinf(x)))
