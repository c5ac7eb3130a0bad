"""model/validate_stats.py on made-up runs whose answers follow from their numbers: which runs are
disturbed (steal, run delay beyond the crowding of the run's own ranks), the estimator (the least
disturbed run: the smallest time, the largest throughput), the odd/even half-split, when a
configuration has enough runs or is not judged, the floor's states, the labels of a difference
between configurations, and two validations' verdicts side by side. Also that the minimum repeats
where the median does not: a made-up machine whose disturbed share changes between two
validations.
    test_validate_stats.py MODEL_DIR"""
import random
import sys

sys.path.insert(0, sys.argv[1])
import validate_stats as vs  # noqa: E402

bad = []


def check(cond, what):
    if not cond:
        bad.append(what)


# disturbed: steal over 5%, run delay over 10% beyond the crowding of the run's own ranks
check(vs.disturbed(0.0, 0.02) == "", "a quiet run is clean")
check(vs.disturbed(0.06, 0.0).startswith("steal 6%"), "6% steal is disturbed")
check(vs.disturbed(0.05, 0.10) == "", "the thresholds themselves are clean")
check(vs.disturbed(0.0, 0.35).startswith("run delay 35%"), "35% run delay is disturbed")
check(vs.disturbed(None, None) == "", "unmeasured figures are not held against a run")
check(vs.crowded_baseline(4, 2) == 0.5 and vs.crowded_baseline(2, 2) == 0 and vs.crowded_baseline(None, 2) == 0,
      "4 ranks on 2 cores wait half their time for each other")
check(vs.disturbed(0.0, 0.55, vs.crowded_baseline(4, 2)) == "", "55% run delay with 4 ranks on 2 cores: 5% beyond")
check(vs.disturbed(0.0, 0.65, vs.crowded_baseline(4, 2)) != "", "65% with 4 ranks on 2 cores: 15% beyond")

# the estimator: the least disturbed run
check(vs.estimate([0.30, 0.21, None, 0.25]) == (1, 0.21), "the smallest time, its index")
check(vs.estimate([100.0, 140.0, 90.0], higher_is_better=True) == (1, 140.0), "the largest throughput")
check(vs.estimate([0.2, 0.2]) == (0, 0.2), "equal times: the first")
check(vs.estimate([None, None]) is None, "no value: none")

# the half-split: odd runs (1st, 3rd, ...) against even runs
check(vs.half_split([1.0, 1.1, 1.2]) is None, "three runs: too few for two halves of two")
s = vs.half_split([1.0, 1.1, 1.2, 1.3])  # odd: min(1.0, 1.2) = 1.0; even: min(1.1, 1.3) = 1.1
check(abs(s - (1 / 1.1 - 1) * -1) < 1e-12, f"half-split 1.0 against 1.1: {s}")
check(abs(vs.half_split([5.0, 6.0, 4.0, 5.0], True) - (5.0 / 6.0 - 1) * -1) < 1e-12, "throughput: the largest of each half")

# settled: repeats, more runs, does not repeat, disturbed
agree = [0.100, 0.101, 0.130, 0.102]  # halves 0.100 and 0.101: 1% apart
apart = [0.100, 0.150, 0.105, 0.160]  # halves 0.100 and 0.150: 50% apart
check(vs.settled([(agree, False, vs.TOL_TOTAL)], runs_done=1, cap_runs=8) == (True, "repeats"), "agreeing halves: repeats")
check(vs.settled([(apart, False, vs.TOL_TOTAL)], runs_done=1, cap_runs=8) == (False, "more runs"), "halves apart: more runs")
check(vs.settled([(apart, False, vs.TOL_TOTAL)], runs_done=8, cap_runs=8) == (True, "does not repeat"),
      "halves apart at the cap: does not repeat")
check(vs.settled([([0.1, None, None], False, vs.TOL_TOTAL)], runs_done=8, cap_runs=8) == (True, "disturbed"),
      "too few clean runs at the cap: disturbed")
check(vs.settled([(agree, False, vs.TOL_TOTAL), (apart, False, vs.TOL_PHASE)], 1, 8)[0] is False,
      "every held quantity must repeat")
check(vs.final_state("more runs", 2) == "disturbed" and vs.final_state("more runs", 6) == "does not repeat"
      and vs.final_state("repeats", 6) == "repeats", "rounds run out: disturbed or does not repeat")

check(vs.not_judged("disturbed", 3) == "not judged: every run disturbed" and vs.not_judged("does not repeat", 9).endswith(
    "the measurement does not repeat") and vs.not_judged("disturbed", 0) == "not judged: no run (see the logs)", "the reasons")

# the floor's states
check(vs.floor_regime(0.11) == "fast" and vs.floor_regime(0.50) == "slow" and vs.floor_regime(None) == ""
      and vs.floor_regime(-1) == "", "floor 0.11 fast, 0.50 slow, unmeasured none")
check(vs.dominant({"fast": [1, 2], "slow": [1, 2, 3]}) == "slow" and vs.dominant({}) is None, "the group with most runs")

# a difference between configurations: floor, spread or effect
check(vs.explained(100.0, 60.0, 0.02, 0.03, 0.11, 0.50, floor_part=-0.35) == "floor",
      "40% slower in the slow floor state, 35% of it the floor's: floor")
check(vs.explained(100.0, 96.0, 0.03, 0.02) == "spread", "4% within the runs' 3% + 2%: spread")
check(vs.explained(100.0, 80.0, 0.03, 0.02, 0.11, 0.12) == "effect", "20% in one floor state: effect")
check(vs.explained(100.0, 60.0, 0.02, 0.03, 0.11, 0.50, floor_part=-0.05) == "effect",
      "the floor explains 5% of 40%: effect")

# two validations' verdicts
n, same = vs.agreement({"a": "within", "b": "outside", "c": "not judged: x"}, {"a": "within", "b": "within", "d": "within"})
check((n, same) == (2, 1), f"agreement over the configurations in both: {(n, same)}")

# Why the minimum: a machine that lengthens a run by a random share when it is disturbed, and
# disturbs 20% of the runs in one validation and 60% in the next. The minimum of 12 runs moves by
# far less between the two than the median does.
rnd = random.Random(62)


def runs(share, n=12, cost=1.0):
    return [cost * (1 + rnd.uniform(0, 0.02)) * (1 + (rnd.uniform(0.2, 1.5) if rnd.random() < share else 0)) for _ in range(n)]


moves_min, moves_med = [], []
for _ in range(200):
    a, b = runs(0.2), runs(0.6)
    moves_min.append(abs(vs.estimate(b)[1] / vs.estimate(a)[1] - 1))
    moves_med.append(abs(sorted(b)[6] / sorted(a)[6] - 1))
moves_min.sort()
moves_med.sort()
check(moves_min[180] < 0.03, f"the minimum moved by {moves_min[180]:.1%} (90th percentile of 200 pairs)")
check(moves_med[100] > 0.10, f"the median moved by {moves_med[100]:.1%} (median of 200 pairs)")

for b in bad:
    print("FAIL:", b)
print("test_validate_stats: all passed" if not bad else f"test_validate_stats: {len(bad)} failed")
sys.exit(1 if bad else 0)
