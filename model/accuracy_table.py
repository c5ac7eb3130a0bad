"""The accuracy table of model/accuracy.sh: per join phase, the model's error against the measured
median in each calibration folder given (cal-N/ with results.csv and lock.csv), summarised as the
median error, its range over the calibrations, and the calibrations that missed the target.
Error = (model - measured) / measured: positive when the model predicts too long a time."""
import csv
import io
import os
import statistics
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.realpath(__file__)), "..", "plots"))
from rmaplots import safeio  # noqa: E402  (only regular text files are read)

PHASES = {"radix": ["histogram", "window_alloc", "network_partition", "local_partition", "build_probe"],
          "sortmerge": ["window_alloc", "partition", "sort", "merge", "match"]}
TARGET_PHASE, TARGET_TOTAL = 0.20, 0.15


def rows_of(path):
    """The rows of a results CSV; [] when there is none (a run that wrote nothing). A path that is not
    a regular text file (a FIFO, binary data) ends the script with one line (safeio.run_main)."""
    try:
        text = safeio.read_text(path).decode("utf-8", errors="replace")
    except FileNotFoundError:
        return []
    return list(csv.DictReader(io.StringIO(text, newline="")))


def med(rs, col):
    v = [float(r[col]) for r in rs if r.get(col, "") not in ("", None)]
    return statistics.median(v) if v else None


def rel_err(rs, measured, model):
    """(model - measured) / measured of the medians over rows rs, None when either is missing."""
    m, p = med(rs, measured), med(rs, model)
    return (p - m) / m if m and p is not None else None


def quantities(names):
    return ([(n, f"t_{n}_avg", f"model_{n}", TARGET_PHASE) for n in names] +
            [("total", "t_total_max", "model_total_with_alloc", TARGET_TOTAL),
             # the model has no imbalance term: the mean total over ranks (sum of average phases)
             ("total_without_imbalance", "t_total_avg", "model_total_with_alloc", TARGET_TOTAL)])


def pct(x):
    return "-" if x is None else f"{x:+.1%}"


def main(dirs):
    n = len(dirs)
    compared, missed = 0, []
    failed = set()
    for algo, names in PHASES.items():
        per_cal = [[r for r in rows_of(os.path.join(d, "results.csv")) if r.get("algo") == algo] for d in dirs]
        if not any(per_cal):
            continue
        for d, rs in zip(dirs, per_cal):
            failed |= {f"{os.path.basename(d)}: {algo} verification {r.get('verification')}"
                       for r in rs if r.get("verification") != "PASS"}
        first = next(rs for rs in per_cal if rs)
        print(f"{algo}: {n} calibration(s), {sum(map(len, per_cal))} runs, {first[0]['ranks']} ranks, "
              f"{first[0]['tuples_per_rank']} tuples of R per rank, {first[0]['mpi_library']}")
        print(f"  {'phase':<24} {'measured':>9} {'model':>9} {'err med':>8} {'err min':>8} {'err max':>8}  target")
        for name, mcol, pcol, target in quantities(names):
            meas = [med(rs, mcol) for rs in per_cal]
            pred = [med(rs, pcol) for rs in per_cal]
            per = [(os.path.basename(d), (p - m) / m) for d, m, p in zip(dirs, meas, pred) if m and p is not None]
            errs = [e for _, e in per]
            if not errs:
                continue
            miss = [f"{cal} {e:+.0%}" for cal, e in per if target is not None and abs(e) > target]
            verdict = "" if target is None else (f"{len(errs) - len(miss)}/{len(errs)} within {target:.0%}")
            if target is not None:
                compared += 1
            if miss:
                missed.append(f"{algo} {name}: {', '.join(miss)}")
            ms = [x for x in meas if x is not None]
            ps = [x for x in pred if x is not None]
            print(f"  {name:<24} {statistics.median(ms):9.4f} {statistics.median(ps):9.4f} "
                  f"{pct(statistics.median(errs)):>8} {pct(min(errs)):>8} {pct(max(errs)):>8}  {verdict}")
    lk = [[r for r in rows_of(os.path.join(d, "lock.csv")) if r.get("model_throughput")] for d in dirs]
    errs = [e for e in (rel_err(rs, "throughput", "model_throughput") for rs in lk if rs) if e is not None]
    if errs:
        allr = [r for rs in lk for r in rs]
        print(f"lock: {len(allr)} runs, 1 server + 1 agent, 10 locks per transaction (reported, no target)")
        print(f"  {'throughput [tx/s]':<24} {med(allr, 'throughput'):9.0f} {med(allr, 'model_throughput'):9.0f} "
              f"{pct(statistics.median(errs)):>8} {pct(min(errs)):>8} {pct(max(errs)):>8}")
    print(f"load: {' '.join(open('/proc/loadavg').read().split()[:3])}")
    for f in sorted(failed):
        print(f"FAILED RUN {f}")
    if not compared:
        print("no measured phase to compare (are the joins built?)")
        return 1
    print("misses: " + ("none" if not missed else ""))
    for m in missed:
        print(f"  {m}")
    print("all targets met in every calibration" if not missed else "some targets missed (listed above)")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(safeio.run_main("accuracy_table.py", main, sys.argv[1:]))
