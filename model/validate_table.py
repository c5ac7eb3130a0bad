"""The report of model/validate.sh, and its decisions between rounds.

    validate_table.py OUT_DIR                 the table, the verdicts, validate.csv, verdicts.csv and
                                              validate.png (after the matrix)
    validate_table.py --pending OUT_DIR LIB   the lines of LIB's matrix.txt that need more runs
    validate_table.py --compare OUT_A OUT_B   how many configurations two validations judged alike
    validate_table.py --floor-state fast|slow CALIBRATION...   those whose floor is in that state

Per library folder (OUT_DIR/<lib>/): matrix.txt (one configuration a line: "join HOSTS RANKS
TUPLES_PER_RANK RATIO" or "lock HOSTS SERVERS AGENTS REMOTE_PROB LOCKS_PER_TXN"), joins.csv and
lock.csv (every run), runs.txt (invocations per configuration), and pooled/ (the calibrations pooled
by rmamodel pool: params.txt and the files derived from it, and params-floor-fast|slow.txt of the
calibrations in one floor state).

Per configuration (and join algorithm): the runs a shared machine disturbed are left out and
counted (model/validate_stats.py: steal, run delay); each quantity is the least disturbed clean run's
(the fastest; a lock's highest throughput), predicted for that run from the pooled calibration
(rmamodel join|lock --shape with the run's model_shape, so the prediction takes the state the run
measured: its allocation state and its floor); a configuration is judged when every quantity's odd
runs and even runs agree within a third of its target, else reported "not judged: the measurement
does not repeat" (or "every run disturbed"). A join is held to its total without window allocation
within 15% and every phase within 20% (a phase under 2% of the total, both sides, is shown, not
held; window allocation only where its state was calibrated); a lock run to its throughput within
15%, and only where its ranks fit the host's cores (oversubscribed ones are reported). Acceptance:
of the judged join configurations of each library and join, totals in >= 90% and phases in >= 75%;
locks within 15% in >= 75% of the judged ones; >= 90% of the matrix judged."""
import csv
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(os.path.dirname(os.path.realpath(__file__)), "..", "plots"))
import validate_stats as vs  # noqa: E402
from rmaplots import safeio  # noqa: E402  (the one writer)

PHASES = {"radix": ["histogram", "window_alloc", "network_partition", "local_partition", "build_probe"],
          "sortmerge": ["window_alloc", "partition", "sort", "merge", "match"]}
SMALL = 0.02  # a phase under this share of the total (both sides) is shown, not held to the target
TARGET_SHARE_TOTAL, TARGET_SHARE_PHASES, TARGET_SHARE_JUDGED, TARGET_SHARE_LOCK = 0.90, 0.75, 0.90, 0.75
CAP_INVOCATIONS = {"join": 8, "lock": 12}  # invocations per configuration before "not judged"
FAILED = "failed (status or verification)"


def rows_of(path):
    try:
        with open(path, newline="") as f:
            return list(csv.DictReader(f))
    except OSError:
        return []


def num(r, col):
    v = r.get(col, "")
    try:
        return float(v) if v not in ("", None) else None
    except ValueError:
        return None


def count(text):
    """'2M' -> 2000000 (rmabench's counts: K, M, G are powers of 1000)."""
    m = re.fullmatch(r"([0-9.]+)([KMG]?)", text)
    return int(float(m.group(1)) * {"": 1, "K": 1e3, "M": 1e6, "G": 1e9}[m.group(2)]) if m else None


def matrix(libdir):
    """[(line, kind, key)] of matrix.txt; key matches the CSV rows of the configuration."""
    out = []
    try:
        lines = open(os.path.join(libdir, "matrix.txt")).read().splitlines()
    except OSError:
        return out
    for line in lines:
        f = line.split()
        if f and f[0] == "join" and len(f) == 5:
            out.append((line, "join", (int(f[1]), int(f[2]), count(f[3]), int(f[4]))))
        elif f and f[0] == "lock" and len(f) == 6:
            out.append((line, "lock", (int(f[1]), int(f[2]), int(f[3]), float(f[4]), int(f[5]))))
    return out


def key_of(r):
    if r.get("bench") == "join":
        ranks = int(r["ranks"])
        return "join", (int(r["hosts"]), ranks, int(r["tuples_per_rank"]), int(float(r["ratio"])))
    return "lock", (int(r["hosts"]), int(r["servers"]), int(r["agents"]), float(r["remote_prob"]), int(float(r["locks_per_txn"] or 0)))


def invocations(libdir):
    """{matrix line: invocations run} from runs.txt (validate.sh appends a line per invocation)."""
    n = {}
    try:
        for line in open(os.path.join(libdir, "runs.txt")).read().splitlines():
            n[line] = n.get(line, 0) + 1
    except OSError:
        pass
    return n


def crowded(r):
    """A run whose ranks outnumber its machine's cores (namespace hosts share one machine's)."""
    return r.get("oversubscribed") == "yes"


def baseline(r):
    ranks, cores = num(r, "ranks"), num(r, "host_cores")
    return vs.crowded_baseline(ranks, cores) if crowded(r) and r.get("hosts") == "1" else 0.0


def runs_of(rows, kind, key):
    """The configuration's runs in time order: [(row, reason it was disturbed or '')]."""
    out = []
    for r in rows:
        if r.get("repeat_index", "").startswith("-") or r.get("bench") != kind or key_of(r) != (kind, key):
            continue
        if r.get("status", "ok") != "ok" or (kind == "join" and r.get("verification") != "PASS"):
            out.append((r, FAILED))  # never used; the configuration says so
            continue
        out.append((r, vs.disturbed(num(r, "host_steal"), num(r, "run_delay"), baseline(r))))
    return out


def join_series(runs, algo):
    """The held quantities of one join algorithm's clean runs: [(values, higher_is_better, tol)]."""
    clean = [r for r, why in runs if not why and r.get("algo") == algo]
    total = [num(r, "t_total_max") - (num(r, "t_window_alloc_avg") or 0) if num(r, "t_total_max") else None for r in clean]
    series = [(total, False, vs.TOL_TOTAL)]
    med_total = median(total)
    for p in PHASES[algo]:
        if p == "window_alloc":
            continue  # its own state decides it (alloc_regime): not asked to repeat across states
        vals = [num(r, f"t_{p}_avg") for r in clean]
        if med_total and all(v is not None and v < SMALL * med_total for v in vals):
            continue  # small: not held
        series.append((vals, False, vs.TOL_PHASE))
    return series


def lock_series(runs):
    clean = [r for r, why in runs if not why]
    return [([num(r, "commits_per_s") for r in clean], True, vs.TOL_TOTAL)]


def pending(out, lib):
    """The matrix lines of lib that need more runs (validate.sh runs them in the next round)."""
    libdir = os.path.join(out, lib)
    joins, locks, done = rows_of(os.path.join(libdir, "joins.csv")), rows_of(os.path.join(libdir, "lock.csv")), invocations(libdir)
    need = []
    for line, kind, key in matrix(libdir):
        runs = runs_of(joins if kind == "join" else locks, kind, key)
        cap = CAP_INVOCATIONS[kind]
        if kind == "join":
            algos = sorted({r.get("algo") for r, _ in runs}) or ["radix"]
            ok = all(vs.settled(join_series(runs, a), done.get(line, 0), cap)[0] for a in algos)
        elif any(crowded(r) for r, _ in runs):  # reported, never judged: a few runs show it
            ok = done.get(line, 0) >= vs.MIN_CLEAN
        else:
            ok = vs.settled(lock_series(runs), done.get(line, 0), cap)[0]
        if not ok:
            need.append(line)
    return need


# --- predictions from the pooled calibration -------------------------------------------------------
class Predictor:
    """rmamodel join|lock --shape for a run's model_shape, with the pooled file that stands for the
    file the run used (its model_params), cached."""

    def __init__(self, rmamodel, libdir):
        self.rmamodel, self.libdir, self.cache = rmamodel, libdir, {}

    def params_for(self, r):
        used = (r.get("model_params") or "").split(" + ")[0]
        pooled = os.path.join(self.libdir, "pooled", os.path.basename(used)) if used else ""
        if r.get("bench") == "lock":  # the calibrations of the floor state the run met
            regime = vs.floor_regime(num(r, "floor_rtt_us"))
            alt = os.path.join(self.libdir, "pooled", f"params-floor-{regime}.txt")
            if regime and os.path.basename(used) == "params.txt" and os.path.exists(alt):
                return alt
        return pooled if pooled and os.path.exists(pooled) else used

    def __call__(self, r, sets=()):
        """The prediction of run r; sets: --set NAME=VALUE overrides (the model without a term)."""
        shape, params = r.get("model_shape", ""), self.params_for(r)
        if not shape or not params or not self.rmamodel:
            return {}
        cmd = [self.rmamodel, "join", "--algo", r["algo"]] if r.get("bench") == "join" else [self.rmamodel, "lock"]
        cmd += [a for s in sets for a in ("--set", s)]
        k = (tuple(cmd), params, shape)
        if k not in self.cache:
            p = subprocess.run(cmd + ["--params", params, "--shape", shape, "--csv"], capture_output=True, text=True)
            vals = {}
            for row in list(csv.reader(p.stdout.splitlines()))[1:]:
                if len(row) == 2:
                    vals[row[0]] = float(row[1])
            if p.returncode:
                print(f"note: {' '.join(cmd)} --params {params}: {p.stderr.strip()}")
            vals["_params"] = params
            self.cache[k] = vals
        return self.cache[k]


def shape_set(key, value):
    """A row whose model inputs have key=value (added when absent)."""
    def edit(r):
        shape = r.get("model_shape", "")
        shape = re.sub(rf"\b{key}=\S+", f"{key}={value}", shape) if re.search(rf"\b{key}=", shape) else f"{shape} {key}={value}"
        return dict(r, model_shape=shape)
    return edit


# the model's terms that take a state the run measured or a host's shared memory, each with how the
# same run is predicted without it (a row edit and --set overrides): the report's before/after
TERMS = {("radix", "network_partition"): ("the network pass beside its puts (net_contention)", lambda r: r, ("net_contention=0",)),
         ("radix", "histogram"): ("the histogram at its bins (the scan curve)", shape_set("hist_bits", 0), ()),
         ("radix", "window_alloc"): ("window allocation in the state the run met", shape_set("alloc", "reused"), ()),
         ("sortmerge", "window_alloc"): ("window allocation in the state the run met", shape_set("alloc", "reused"), ())}


def terms_note(verdicts):
    """Per new term of the model: of the judged configurations it concerns, how many are within the
    target with it and without it (the same runs predicted both ways)."""
    out, rows = [], {}
    for v in verdicts:
        if not v.get("judged"):
            continue
        for name, with_, without in v.get("terms", []):
            rows.setdefault(name, []).append((with_, without))
        if v.get("at_cal_floor") is not None and v.get("estimate"):
            rows.setdefault("the lock at the run's floor", []).append((vs.err(v["predicted"], v["estimate"]),
                                                                        vs.err(v["at_cal_floor"], v["estimate"])))
    for name, pairs in sorted(rows.items()):
        tgt = vs.TARGET_TOTAL if name.startswith("the lock") else vs.TARGET_PHASE
        ok = lambda e: e is not None and abs(e) <= tgt
        out.append(f"  {name}: within {tgt:.0%} in {sum(ok(a) for a, _ in pairs)} of {len(pairs)} with it, "
                   f"{sum(ok(b) for _, b in pairs)} without (errors with: {', '.join(f'{a:+.0%}' for a, _ in pairs if a is not None)}; "
                   f"without: {', '.join(f'{b:+.0%}' for _, b in pairs if b is not None)})")
    return out


# --- one configuration ---------------------------------------------------------------------------
def judge_join(lib, key, algo, runs, predict, invoked):
    """(configuration name, points [(phase, predicted, measured, error, split, held)], verdict dict)."""
    hosts, ranks, tpr, ratio = key
    name = f"{lib} {algo} {hosts}h x {ranks // hosts} {tpr / 1e6:g}M 1:{ratio}"
    mine = [(r, why) for r, why in runs if r.get("algo") == algo]
    clean = [r for r, why in mine if not why]
    verdict = {"configuration": name, "runs": len(mine), "clean": len(clean),
               "disturbed": [why for _, why in mine if why], "invocations": invoked}
    if any(why == FAILED for _, why in mine):
        verdict["reason"] = "a run failed (status or verification): see the logs"
    done, state = vs.settled(join_series(runs, algo), invoked, CAP_INVOCATIONS["join"])
    state = vs.final_state(state, len(clean))
    points = []
    shown = clean or [r for r, why in mine if why != FAILED]  # no clean run: the disturbed ones, shown, not held
    # the allocation state most clean runs met: window_alloc and the total with it are of that state
    groups = {}
    for r in shown:
        groups.setdefault(r.get("alloc_regime", ""), []).append(r)
    regime = vs.dominant(groups)
    verdict.update(alloc_regime=regime or "", floor_us=median([num(r, "floor_rtt_us") for r in shown]),
                   floor_cal_us=median([num(r, "model_floor_rtt_us") for r in shown]))
    totals = [num(r, "t_total_max") - (num(r, "t_window_alloc_avg") or 0) if num(r, "t_total_max") else None for r in shown]
    best_total = vs.estimate(totals)
    for q in PHASES[algo] + ["total_without_alloc", "total"]:
        pool = groups.get(regime, []) if q in ("window_alloc", "total") else shown
        if q == "total_without_alloc":
            vals = [num(r, "t_total_max") - (num(r, "t_window_alloc_avg") or 0) if num(r, "t_total_max") else None for r in pool]
        elif q == "total":
            vals = [num(r, "t_total_max") for r in pool]
        else:
            vals = [num(r, f"t_{q}_avg") for r in pool]
        best = vs.estimate(vals)
        if best is None:
            continue
        run = pool[best[0]]
        pred = predict(run)
        pq = {"total_without_alloc": "total", "total": "total_with_alloc"}.get(q, q)
        predicted = pred.get(pq)
        split = vs.half_split(vals)
        held = q not in ("total",) and bool(clean)  # the total with window allocation is reported, its state apart
        if q == "window_alloc" and predicted is None:
            held = False  # this state of fresh memory was not calibrated
        if q not in ("total", "total_without_alloc") and best_total and predicted is not None and \
                predicted < SMALL * best_total[1] and best[1] < SMALL * best_total[1]:
            held = False  # small
        points.append((q, predicted, best[1], vs.err(predicted, best[1]), split, held))
        without = TERMS.get((algo, q))
        if without and held:  # the same run without the model's term for this quantity
            before = predict(without[1](run), without[2]).get(pq)
            verdict.setdefault("terms", []).append((without[0], vs.err(predicted, best[1]), vs.err(before, best[1])))
    verdict["state"] = state if done else "more runs"
    if state != "repeats" or "reason" in verdict:
        verdict["judged"] = False
        verdict["verdict"] = "not judged: " + verdict["reason"] if "reason" in verdict else vs.not_judged(state, len(mine))
        return name, points, verdict
    tot = next((e for q, _, _, e, _, _ in points if q == "total_without_alloc"), None)
    total_ok = tot is not None and abs(tot) <= vs.TARGET_TOTAL
    bad = [(q, e) for q, _, _, e, _, held in points if held and q not in ("total", "total_without_alloc")
           and (e is None or abs(e) > vs.TARGET_PHASE)]
    verdict.update(judged=True, total_ok=total_ok, phases_ok=not bad, misses=bad, total_err=tot)
    verdict["verdict"] = f"total {'within' if total_ok else 'outside'}, phases {'within' if not bad else 'outside'}"
    return name, points, verdict


def judge_lock(lib, key, runs, predict, invoked):
    hosts, servers, agents, remote, locks = key
    rows = [r for r, _ in runs]
    over = any(crowded(r) for r in rows)
    name = f"{lib} lock {hosts}h {servers}s/{agents}a remote {remote:g} locks {locks}" + (" oversubscribed" if over else "")
    clean = [r for r, why in runs if not why]
    verdict = {"configuration": name, "runs": len(runs), "clean": len(clean), "disturbed": [w for _, w in runs if w],
               "invocations": invoked}
    done, state = vs.settled(lock_series(runs), invoked, CAP_INVOCATIONS["lock"])
    state = vs.final_state(state, len(clean))
    groups = {}
    for r in clean or [r for r, why in runs if why != FAILED]:
        groups.setdefault(vs.floor_regime(num(r, "floor_rtt_us")), []).append(r)
    regime = vs.dominant(groups)
    pool = groups.get(regime, [])
    vals = [num(r, "commits_per_s") for r in pool]
    best = vs.estimate(vals, higher_is_better=True)
    points = []
    if best:
        run = pool[best[0]]
        predicted = predict(run).get("throughput")
        points.append(("throughput", predicted, best[1], vs.err(predicted, best[1]), vs.half_split(vals, True), not over and bool(clean)))
        # the same run predicted at the calibration's floor (the floor not an input): what the state
        # the run measured changed
        at_cal = predict(with_floor(run, 0)).get("throughput")
        verdict.update(rtt_us=num(run, "lat_req_rtt_median_us"), run=run, predicted=predicted,
                       at_cal_floor=at_cal if at_cal != predicted else None, predict=predict)
    verdict.update(floor_regime=regime or "", floor_us=median([num(r, "floor_rtt_us") for r in pool]),
                   floor_cal_us=median([num(r, "model_floor_rtt_us") for r in pool]),
                   spread=points[0][4] if points else None, estimate=best[1] if best else None)
    verdict["state"] = state if done else "more runs"
    if over:
        verdict.update(judged=False, verdict="reported, not judged: oversubscribed")
    elif state != "repeats":
        verdict.update(judged=False, verdict=vs.not_judged(state, len(runs)))
    else:
        e = points[0][3] if points else None
        verdict.update(judged=True, lock_ok=e is not None and abs(e) <= vs.TARGET_TOTAL, total_err=e)
        verdict["verdict"] = "within" if verdict["lock_ok"] else "outside"
    return name, points, verdict


def with_floor(r, floor_us):
    """A lock row whose model inputs take floor_us as the run's floor (0: the calibration's)."""
    shape = re.sub(r"floor_us=\S+", f"floor_us={floor_us:.17g}", r.get("model_shape", ""))
    return dict(r, model_shape=shape)


def calibration_floor(path):
    """A calibration's t_floor_rtt in microseconds, None without one."""
    try:
        for line in open(path):
            if line.startswith("t_floor_rtt "):
                return float(line.split("=")[1].split()[0])
    except (OSError, ValueError, IndexError):
        pass
    return None


def median(v):
    v = sorted(x for x in v if x is not None)
    return v[len(v) // 2] if v else None


# --- the report ----------------------------------------------------------------------------------
def fmt(v, spec="11.4g"):
    return "-" if v is None else format(v, spec)


def state_note(v):
    """The machine's state beside a configuration: its floor (and the calibration's), its allocation state."""
    parts = []
    if v.get("floor_us"):
        parts.append(f"floor {v['floor_us']:.3f} us ({vs.floor_regime(v['floor_us'])})" +
                     (f", calibration {v['floor_cal_us']:.3f}" if v.get("floor_cal_us") else ""))
    if v.get("alloc_regime"):
        parts.append(f"allocation {v['alloc_regime']}")
    if v.get("rtt_us"):
        parts.append(f"request round trip {v['rtt_us']:.3f} us")
    if v.get("at_cal_floor") and v.get("estimate"):
        parts.append(f"at the calibration's floor the model said {v['at_cal_floor']:.4g} ({vs.err(v['at_cal_floor'], v['estimate']):+.0%})")
    return "; ".join(parts)


def disturbed_note(verdicts):
    reasons = [w for v in verdicts for w in v["disturbed"] if w != FAILED]
    steal = sum(w.startswith("steal") for w in reasons)
    return f"{len(reasons)} runs repeated (disturbed: {steal} by steal > {vs.MAX_STEAL:.0%}, " \
           f"{len(reasons) - steal} by run delay > {vs.MAX_RUN_DELAY:.0%} beyond the crowding of their own ranks)"


def floor_part(a, b):
    """The share of the change from configuration a to b that moving b's run to a's floor takes back in
    the model's prediction (None where either has no floor or no prediction)."""
    run, fa = b.get("run"), a.get("floor_us")
    if not run or not fa or not b.get("floor_us") or not b.get("predicted"):
        return None
    at_a = b["predict"](with_floor(run, fa)).get("throughput")
    return b["predicted"] / at_a - 1 if at_a else None


def lock_differences(verdicts):
    """Adjacent lock configurations of one library: their difference labelled floor, spread or effect."""
    out = []
    for a, b in zip(verdicts, verdicts[1:]):
        if a["configuration"].split()[0] != b["configuration"].split()[0] or not a.get("estimate") or not b.get("estimate"):
            continue
        label = vs.explained(a["estimate"], b["estimate"], a.get("spread"), b.get("spread"), a.get("floor_us"), b.get("floor_us"),
                             floor_part=floor_part(a, b))
        out.append(f"  {a['configuration']} -> {b['configuration']}: {b['estimate'] / a['estimate'] - 1:+.0%} ({label})")
    return out


def estimator_note(out, libs):
    """Why the minimum: over every join configuration's clean runs, how far the odd runs' and the even
    runs' estimates of the total lie apart with the minimum and with the median (a diagnostic)."""
    mins, meds = [], []
    for lib in libs:
        libdir = os.path.join(out, lib)
        rows = rows_of(os.path.join(libdir, "joins.csv"))
        for _, kind, key in matrix(libdir):
            if kind != "join":
                continue
            for algo in ("radix", "sortmerge"):
                clean = [r for r, why in runs_of(rows, kind, key) if not why and r.get("algo") == algo]
                v = [num(r, "t_total_max") - (num(r, "t_window_alloc_avg") or 0) for r in clean if num(r, "t_total_max")]
                if len(v) < vs.MIN_CLEAN:
                    continue
                mins.append(vs.half_split(v))
                odd, even = sorted(v[0::2]), sorted(v[1::2])
                meds.append(abs(odd[len(odd) // 2] / even[len(even) // 2] - 1))
    if not mins:
        return "the estimator: no configuration with enough clean runs to split"
    mins.sort()
    meds.sort()
    return (f"the estimator: odd runs against even runs of the total, over {len(mins)} join configurations: the minimum "
            f"{mins[len(mins) // 2]:.1%} apart (median; worst {mins[-1]:.1%}), the median {meds[len(meds) // 2]:.1%} (worst {meds[-1]:.1%})")


def summary(verdicts):
    """Per library and join: the counts against the targets; returns (lines, met)."""
    lines, met = [], True
    joins = [v for v in verdicts if " lock " not in v["configuration"]]
    locks = [v for v in verdicts if " lock " in v["configuration"]]
    for lib in sorted({v["configuration"].split()[0] for v in joins}):
        for algo in ("radix", "sortmerge"):
            vv = [v for v in joins if v["configuration"].startswith(f"{lib} {algo} ")]
            if not vv:
                continue
            j = [v for v in vv if v.get("judged")]
            tot, ph = sum(v["total_ok"] for v in j), sum(v["phases_ok"] for v in j)
            ok = j and tot >= TARGET_SHARE_TOTAL * len(j) and ph >= TARGET_SHARE_PHASES * len(j) and \
                len(j) >= TARGET_SHARE_JUDGED * len(vv)
            met &= bool(ok)
            lines.append(f"  {lib} {algo}: {len(j)} of {len(vv)} judged ({len(j) / len(vv):.0%}; target >= 90%); totals within 15% "
                         f"in {tot} ({tot / len(j) if j else 0:.0%}; >= 90%), every phase within 20% in {ph} "
                         f"({ph / len(j) if j else 0:.0%}; >= 75%)")
    users = [v for v in locks if "oversubscribed" not in v["configuration"]]
    jl = [v for v in users if v.get("judged")]
    lk = sum(v.get("lock_ok", False) for v in jl)
    met &= bool(jl) and lk >= TARGET_SHARE_LOCK * len(users) and len(jl) >= TARGET_SHARE_JUDGED * len(users)
    lines.append(f"  lock: {len(jl)} of {len(users)} configurations with ranks <= cores judged; within 15% in {lk} "
                 f"(target >= 75% of them); {len(locks) - len(users)} oversubscribed reported, not judged")
    return lines, met


def figure(points, path):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print(f"note: no matplotlib: {path} not drawn")
        return
    fig, axes = plt.subplots(1, 2, figsize=(11, 5))
    for ax, kind in zip(axes, ("join", "lock")):
        pts = [(c, p, pr, me) for c, p, pr, me in points if (p == "throughput") == (kind == "lock") and pr and me]
        if not pts:
            ax.set_visible(False)
            continue
        lo = min(min(pr, me) for _, _, pr, me in pts) / 2
        hi = max(max(pr, me) for _, _, pr, me in pts) * 2
        xs = [lo, hi]
        ax.plot(xs, xs, "k-", lw=0.8, label="measured = predicted")
        ax.fill_between(xs, [x * 0.85 for x in xs], [x * 1.15 for x in xs], color="0.85", label="±15%")
        for ph in sorted({p for _, p, _, _ in pts}):
            sel = [(pr, me) for _, p, pr, me in pts if p == ph]
            ax.scatter([s[0] for s in sel], [s[1] for s in sel], s=14, label=ph, marker="s" if ph.startswith("total") else "o")
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlim(lo, hi)
        ax.set_ylim(lo, hi)
        ax.set_xlabel("predicted " + ("time [s]" if kind == "join" else "throughput [tx/s]"))
        ax.set_ylabel("measured (least disturbed run) " + ("time [s]" if kind == "join" else "throughput [tx/s]"))
        ax.set_title("joins: judged configurations, per phase" if kind == "join" else "lock table (judged)")
        ax.grid(alpha=0.3, which="both")
        ax.legend(fontsize=7)
    fig.suptitle("model/validate.sh: the least disturbed run against its prediction (pooled calibration)")
    fig.tight_layout()
    safeio.write_output(path, lambda tmp: fig.savefig(tmp, dpi=120, format="png"))
    plt.close(fig)


def measured_params(path):
    """{name: value} of a calibration's parameters measured over rounds (the file records their spread)."""
    out = {}
    try:
        lines = open(path).read().splitlines()
    except OSError:
        return out
    for line in lines:
        name, eq, rest = line.partition("=")
        if eq and not line.startswith("#") and " spread " in rest:
            try:
                out[name.strip()] = float(rest.split()[0])
            except ValueError:
                pass
    return out


def drift(libdir, lib, big=0.15):
    """How far the calibration moved between the first and the last of the validation (diagnostic)."""
    cals = sorted((f for f in os.listdir(os.path.join(libdir, "cal")) if f.endswith(".txt")),
                  key=lambda f: int(re.sub(r"\D", "", f) or 0)) if os.path.isdir(os.path.join(libdir, "cal")) else []
    a = measured_params(os.path.join(libdir, "params.txt"))
    b = measured_params(os.path.join(libdir, "cal", cals[-1])) if cals else {}
    ch = sorted(((b[k] / a[k] - 1, k) for k in a.keys() & b.keys() if a[k] > 0 and b[k] > 0), key=lambda x: -abs(x[0]))
    if not ch:
        return f"drift {lib}: no calibration after the first to compare"
    mags = sorted(abs(c) for c, _ in ch)
    moved = [f"{k} {c:+.0%}" for c, k in ch if abs(c) > big]
    return (f"drift {lib}: the last of {len(cals) + 1} calibrations differs from the first by a median {mags[len(mags) // 2]:.0%} "
            f"(max {mags[-1]:.0%}) over {len(ch)} measured parameters; {len(moved)} moved more than {big:.0%}"
            f"{': ' + ', '.join(moved[:8]) if moved else ''}{' ...' if len(moved) > 8 else ''}; the predictions use them pooled")


def calibrations_note(libdir, lib):
    """The machine's state during the calibrations the predictions pool: their steal and run delay
    (rmabench calibrate records them), so that a reader sees when even the least disturbed of them ran
    on a busy machine."""
    delays, steals = [], []
    files = [os.path.join(libdir, "params.txt")] + [os.path.join(libdir, "cal", f) for f in sorted(os.listdir(os.path.join(libdir, "cal")))
                                                     if f.endswith(".txt")] if os.path.isdir(os.path.join(libdir, "cal")) else []
    for f in files:
        try:
            m = re.search(r"^interference = host steal ([-0-9.]+), run delay ([-0-9.]+)", open(f).read(), re.M)
        except OSError:
            m = None
        if m:
            steals.append(float(m.group(1)))
            delays.append(float(m.group(2)))
    if not delays:
        return f"calibrations {lib}: their interference is not recorded"
    note = "; the least disturbed of them waited over half its time: the pool's fastest repetitions may be disturbed too" \
        if min(delays) > 0.5 else ""
    return (f"calibrations {lib}: {len(delays)} pooled, run delay {min(delays):.0%} to {max(delays):.0%}, steal up to "
            f"{max(steals):.0%}{note}")


def main(out, rmamodel):
    libs = sorted(d for d in os.listdir(out) if os.path.isdir(os.path.join(out, d)) and os.path.exists(os.path.join(out, d, "matrix.txt")))
    table, verdicts, points_all = [], [], []
    for lib in libs:
        libdir = os.path.join(out, lib)
        predict = Predictor(rmamodel, libdir)
        joins, locks, done = rows_of(os.path.join(libdir, "joins.csv")), rows_of(os.path.join(libdir, "lock.csv")), invocations(libdir)
        for line, kind, key in matrix(libdir):
            if kind == "join":
                runs = runs_of(joins, kind, key)
                for algo in ("radix", "sortmerge"):
                    if not any(r.get("algo") == algo for r, _ in runs) and runs:
                        continue
                    name, pts, v = judge_join(lib, key, algo, runs, predict, done.get(line, 0))
                    table.append((name, pts, v))
                    verdicts.append(v)
            else:
                name, pts, v = judge_lock(lib, key, runs_of(locks, kind, key), predict, done.get(line, 0))
                table.append((name, pts, v))
                verdicts.append(v)
    if not table:
        print("validate: no configuration in any matrix (see the logs)")
        return 1
    print(f"{'configuration':<52} {'phase':<20} {'predicted':>11} {'measured':>11} {'error':>8} {'split':>6}")
    rows = []
    for name, pts, v in table:
        for q, pr, me, e, sp, held in pts:
            note = "" if held else " (reported)"
            print(f"{name:<52} {q:<20} {fmt(pr)} {fmt(me)} {'-' if e is None else f'{e:+.1%}':>8} "
                  f"{'-' if sp is None else f'{sp:.1%}':>6}{note}")
            rows.append([name, q, "" if pr is None else f"{pr:.6g}", "" if me is None else f"{me:.6g}",
                         "" if e is None else f"{e:.4f}", "" if sp is None else f"{sp:.4f}", int(held), int(bool(v.get("judged"))),
                         v["clean"], v["runs"]])
            if v.get("judged") and held:
                points_all.append((name, q, pr, me))
        st = state_note(v)
        print(f"  -> {v['verdict']} ({v['clean']} clean of {v['runs']} runs{', ' + st if st else ''})")
    # OUT_DIR's own tables, derived from its rows: written again on every call (model/validate.sh
    # refuses an --out of an earlier run without --force)
    safeio.set_replace(True)
    write_csv(os.path.join(out, "validate.csv"), ["configuration", "phase", "predicted", "measured", "error", "half_split", "held",
                                                  "judged", "clean_runs", "runs"], rows)
    write_csv(os.path.join(out, "verdicts.csv"),
              ["configuration", "verdict", "judged", "total_error", "clean_runs", "runs", "invocations", "floor_rtt_us",
               "calibration_floor_rtt_us", "alloc_regime", "disturbed"],
              [[v["configuration"], v["verdict"], int(bool(v.get("judged"))),
                "" if v.get("total_err") is None else f"{v['total_err']:.4f}", v["clean"], v["runs"], v["invocations"],
                "" if not v.get("floor_us") else f"{v['floor_us']:.4f}",
                "" if not v.get("floor_cal_us") else f"{v['floor_cal_us']:.4f}", v.get("alloc_regime", ""),
                "; ".join(v["disturbed"])] for v in verdicts])
    print("misses of the judged configurations:")
    for v in verdicts:
        if v.get("judged") and v.get("misses"):
            print(f"  {v['configuration']}: " + ", ".join(f"{q} {'-' if e is None else f'{e:+.0%}'}" for q, e in v["misses"]))
        if v.get("judged") and (v.get("total_ok") is False or v.get("lock_ok") is False):
            print(f"  {v['configuration']}: {'throughput' if 'lock_ok' in v else 'total'} {v['total_err']:+.0%}")
    print("lock configurations side by side (floor: the floor states differ and explain it; spread: within the runs' own; effect):")
    print("\n".join(lock_differences([v for v in verdicts if " lock " in v["configuration"]]) or ["  (fewer than two)"]))
    print("the model's terms for the states a run measures and a host's shared memory, with and without them (judged configurations):")
    print("\n".join(terms_note(verdicts) or ["  (no judged configuration they concern)"]))
    print(disturbed_note(verdicts))
    print(estimator_note(out, libs))
    for lib in libs:
        print(drift(os.path.join(out, lib), lib))
        print(calibrations_note(os.path.join(out, lib), lib))
    lines, met = summary(verdicts)
    print("\n".join(lines))
    judged = sum(bool(v.get("judged")) for v in verdicts)
    load = " ".join(open("/proc/loadavg").read().split()[:3]) if os.path.exists("/proc/loadavg") else "unknown"
    print(f"validate: {len(verdicts)} configurations, {judged} judged ({judged / len(verdicts):.0%}); load {load}: "
          f"{'MET' if met else 'NOT MET'}")
    figure(points_all, os.path.join(out, "validate.png"))
    return 0


def write_csv(path, header, rows):
    """header and rows as a whole CSV file at path (safeio: written beside it, then renamed)."""
    def fill(tmp):
        with open(tmp, "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(header)
            w.writerows(rows)
    safeio.write_output(path, fill)


def compare(a, b):
    def verdicts(d):
        return {r["configuration"]: r["verdict"] for r in rows_of(os.path.join(d, "verdicts.csv"))}
    va, vb = verdicts(a), verdicts(b)
    n, same = vs.agreement(va, vb)
    judged = sum(1 for c in set(va) & set(vb) if not va[c].startswith(("not judged", "reported")) and
                 not vb[c].startswith(("not judged", "reported")))
    for c in sorted(set(va) & set(vb)):
        if va[c] != vb[c]:
            print(f"  differs: {c}: {va[c]} | {vb[c]}")
    print(f"compare: {n} configurations in both; the same verdict in {same} ({same / n if n else 0:.0%}; target >= 90%); "
          f"judged in both: {judged}")
    return 0


def cli(args):
    """The command line (usage below); its exit status."""
    if len(args) == 3 and args[0] == "--pending":
        print("\n".join(pending(args[1], args[2])))
        return 0
    if len(args) >= 2 and args[0] == "--floor-state":  # the calibration files whose floor is in that state
        for f in args[2:]:
            if vs.floor_regime(calibration_floor(f)) == args[1]:
                print(f)
        return 0
    if len(args) == 3 and args[0] == "--compare":
        return compare(args[1], args[2])
    if len(args) in (1, 2) and os.path.isdir(args[0]):
        return main(args[0], args[1] if len(args) == 2 else os.environ.get("RMB_RMAMODEL", ""))
    print("usage: validate_table.py OUT_DIR [RMAMODEL] | --pending OUT_DIR LIB | --compare OUT_A OUT_B | "
          "--floor-state fast|slow CALIBRATION...", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(safeio.run_main("validate_table.py", cli, sys.argv[1:]))
