"""Every entry of the thesis catalogue (plots/rmaplots/catalogue.py, jobs/figure.sh) renders from a
small fixture, without MPI, and plots what the rows say:
- the fixture is made here from the catalogue's own local runs: for each run, one row per repetition
  (and per algorithm of --algo both) whose parameter columns are what the run's flags say and whose
  measured columns are random, plus one failed row per configuration with absurd values;
- every entry draws (its PNG for figures, its ID.md with the line against the thesis) and each
  value it plots or tabulates that is a median over rows is checked against the median computed here
  from the fixture's strings, over exactly the verified rows of one configuration (command and
  algorithm): never a failed row, never two configurations in one point, never a run left out;
- every figure passes the layout check (rmaplots.layout) and entries with thesis numbers name the
  thesis' machine.
   test_catalogue.py RMAPLOT"""
import csv
import math
import os
import random
import re
import statistics
import sys
import tempfile
import time

started = time.monotonic()
rmaplot = sys.argv[1]
sys.path.insert(0, os.path.dirname(os.path.realpath(rmaplot)))
from rmaplots import catalogue, data, figure_kit, figures, layout, style  # noqa: E402

failures = []
check = lambda cond, what: cond or failures.append(what) or print("FAIL:", what)  # noqa: E731


def count(v):
    m = re.fullmatch(r"([0-9.]+)([KMG]?)", v)
    return float(m.group(1)) * {"": 1, "K": 1e3, "M": 1e6, "G": 1e9}[m.group(2)]


def size(v):
    m = re.fullmatch(r"([0-9]+)([KM]?)", v)
    return int(m.group(1)) * {"": 1, "K": 1024, "M": 1 << 20}[m.group(2)]


rnd = random.Random(14)
JOIN_MEASURED = [f"t_{p}_{k}" for p in data.PHASES for k in ("avg", "max")] + \
    [f"model_{p}" for p in data.PHASES] + ["throughput", "t_network_partition_gbs"]
QUERY_MEASURED = ["t_total_max", "t_total_avg", "blocks_per_s", "t_probe_max", "t_exchange_max", "throughput"]
LOCK_MEASURED = ["commits_per_s", "lock_requests_per_s", "model_t_tx_us", "model_throughput", "new_order_per_s",
                 "twopc_participants_mean"] + [c for _, c in figure_kit.TXN_PARTS + figure_kit.REQ_PARTS] + \
    [f"{k}_{t}" for k in ("committed", "aborted") for t in figure_kit.TPCC_TYPES] + ["committed"]


def rows_of(run):
    """The rows `run` would append: its flags as columns, measured columns random."""
    words = run.args.replace("@model", "").replace("@csv", "").split()
    flags = {w[2:]: words[i + 1] for i, w in enumerate(words) if w.startswith("--") and i + 1 < len(words)}
    bench = words[0]
    if bench == "calibrate":
        return []
    base = dict(bench=bench, command=f"mpirun -n {run.ranks} rmabench " + " ".join(words), ranks=str(run.ranks), hosts="1", ranks_per_host=str(run.ranks),
                timestamp="2026-11-24T23:00:00Z", job_id="", git_commit="abc", mpi_library="Open MPI 4.1.4",
                mpi_version="Open MPI v4.1.4",
                # one host of 2 cores, as the local sweeps run: more ranks than 2 are oversubscribed
                host_cores="2", oversubscribed="yes" if run.ranks > 2 else "no")
    out = []
    if bench == "query":
        return query_rows_of(run, flags, base)
    if bench == "join":
        algos = ["radix", "sortmerge"] if flags["algo"] == "both" else [flags["algo"]]
        ratio = float(flags.get("ratio", "1"))
        r = count(flags["r-tuples"]) if "r-tuples" in flags else count(flags["tuples-per-rank"]) * run.ranks
        base.update(tuples_per_rank=f"{r / run.ranks:g}", r_tuples=f"{r:g}", s_tuples=f"{r * ratio:g}",
                    ratio=f"{ratio:g}", selectivity=flags.get("selectivity", "1"), skew=flags.get("skew", "0"),
                    assign=flags.get("assign", "round-robin"), ranges=flags.get("ranges", "splitters"),
                    buffer_size=str(size(flags.get("buffer-size", "64K"))),
                    buffers_per_partition=flags.get("buffers-per-partition", "2"),
                    radix_bits=flags.get("radix-bits", str(3 + (run.ranks - 1).bit_length())))
        reps, measured = int(flags.get("repeat", "1")), JOIN_MEASURED
    else:
        servers = int(flags["servers"])
        base.update(workload=flags["workload"], isolation=flags.get("isolation", ""), servers=str(servers),
                    agents=str(run.ranks - servers), remote_prob=flags.get("remote-prob", "0"),
                    duration=flags["duration"].rstrip("s"), deadlock="timeout")
        algos, reps, measured = [""], 1, LOCK_MEASURED
    for algo in algos:
        for k in range(reps + 1):  # the last one fails, with absurd values
            bad = k == reps
            r = dict(base, algo=algo, repeat_index=str(k), status="failed" if bad else "ok",
                     exit_code="1" if bad else "0", verification="FAIL" if bad else "PASS")
            r.update({c: f"{1e6 if bad else rnd.uniform(0.5, 2.0):.6f}" for c in measured})
            if bench == "join" and run.ranks > 2 and not bad:  # the oversubscribed runs in the slow page regime
                r["t_window_alloc_avg"] = f"{10 * float(r['t_window_alloc_avg']):.6f}"
            out.append(r)
    return out


def query_rows_of(run, flags, base):
    """An rmabench query run's rows: one per repetition of the star query, or per point of a
    micro-benchmark sweep (block size x depth; method x readers); the last of each fails."""
    reps = int(flags.get("repeat", "1"))
    micro = flags.get("micro", "")
    points = [{}]
    if micro == "prefetch":
        points = [dict(block_size=str(size(b)), prefetch=d, readers="1", replicate="read")
                  for b in flags["micro-block-size"].split(",") for d in flags["micro-prefetch"].split(",")]
    elif micro == "readers":
        points = [dict(block_size="2048", prefetch="8", readers=str(n), replicate=how)
                  for how in ("read", "bcast") for n in range(1, run.ranks)]
    else:
        base = dict(base, design=flags["design"], tables=flags["tables"], fact_rows=f"{count(flags['fact-rows']):g}")
        if flags["design"] == "pull":
            base.update(memory_ranks=flags.get("memory-ranks", "1"), prefetch="8", block_size="2048", replicate="read")
    out = []
    for pt in points:
        n = 1 if micro else reps
        for k in range(n + 1):
            bad = k == n
            r = dict(base, algo="", micro=micro, repeat_index=str(k), status="failed" if bad else "ok",
                     exit_code="1" if bad else "0", verification="FAIL" if bad else "PASS", **pt)
            r.update({c: f"{1e6 if bad else rnd.uniform(0.5, 2.0):.6f}" for c in QUERY_MEASURED})
            out.append(r)
    return out


def config_key(r):
    """What tells two configurations of one command apart: the algorithm, a query's design and a
    micro-benchmark's point."""
    return (r["command"], r["algo"]) + tuple(r.get(c, "") for c in ("design", "prefetch", "block_size", "readers",
                                                                      "replicate"))


def write_csv(path, rows):
    header = list(dict.fromkeys(data.REQUIRED + [c for r in rows for c in r]))
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, header, restval="")
        w.writeheader()
        w.writerows(rows)


problems = {}


def save_png(fig, outdir, name):
    """style.save, checked for layout, without the PDF (the time of this test goes into drawing)."""
    try:
        style.finish(fig)
        problems[name] = layout.layout_problems(fig)
        fig.savefig(os.path.join(outdir, f"{name}.png"), dpi=style.DPI)
    finally:
        style.plt.close(fig)
    return f"{name}.png"


style.save = save_png
with tempfile.TemporaryDirectory() as tmp:
    loaded = {}
    for name, sweep in catalogue.SWEEPS.items():
        rows = [r for run in sweep.local for r in rows_of(run)]
        path = os.path.join(tmp, f"{name}.csv")
        write_csv(path, rows)
        loaded[name] = data.load([path])
    params = os.path.join(tmp, "params.txt")
    with open(params, "w") as f:
        f.write("bw_put_intra 3.5 GB/s\n")
        for k, b in enumerate((64, 256, 1024, 4096, 16384, 65536, 262144, 1048576)):
            f.write(f"bw_put_{b} {0.1 * (k + 1)} GB/s\n")
    checked = 0
    for e in catalogue.ENTRIES:
        rows = loaded[e.sweep.name]
        ok = [r for r in rows if r["status"] == "ok"]
        out = os.path.join(tmp, e.id)
        os.makedirs(out)
        try:
            res = figures.draw(e.id, rows, out, params)
        except Exception as ex:  # noqa: BLE001 (a test reports every entry)
            check(False, f"{e.id}: drawing raised {type(ex).__name__}: {ex}")
            continue
        if e.id == "fig3.7":  # calibrate's put curve is drawn point by point from the parameter file
            curve = {x: v for (w, _, x), v in res.values.items() if w == "bw_put_curve"}
            check(len(curve) == 8 and abs(curve.get(1048576.0, 0) - 0.8) < 1e-9, f"fig3.7: put curve {curve}")
        md = open(os.path.join(out, f"{e.id}.md")).read()
        check("Against the thesis: " in md and "no comparison" not in md, f"{e.id}: no line against the thesis")
        for f in res.files:
            check(os.path.getsize(os.path.join(out, f)) > 1000, f"{e.id}: {f} is empty")
        check(res.files or res.lines, f"{e.id}: neither a figure nor a table")
        check(len(res.sources) > 0, f"{e.id}: plotted no median of the rows")
        for key, (used, col) in res.sources.items():
            cfgs = {config_key(r) for r in used}
            check(len(cfgs) == 1, f"{e.id} {key}: one point pools {len(cfgs)} configurations")
            every = [r for r in ok if config_key(r) in cfgs]
            check(sorted(id(r) for r in used) == sorted(id(r) for r in every),
                  f"{e.id} {key}: drew {len(used)} rows of its configuration, the fixture has {len(every)} verified")
            want = statistics.median(float(r[col]) for r in every)
            check(abs(res.values[key] - want) <= 1e-9 * abs(want), f"{e.id} {key}: drew {res.values[key]}, median {want}")
            checked += 1
    for name, p in problems.items():
        check(not p, f"{name}: layout: {'; '.join(p[:3])}")
    for fid in ("fig4.2", "table4.1", "table4.2", "fig5.5", "fig5.6", "table5.1", "table5.2"):
        md = open(os.path.join(tmp, fid, f"{fid}.md")).read()
        check("thesis: Cray XC40, Aries" in md, f"{fid}: the thesis' machine is not named")

# runs per point: `rmaplot catalogue more` asks for runs until the 95% CI lies within +-WIDTH of the
# mean or CAP runs were made, and matches a run's rows by its flags and ranks alone
weak = catalogue.SWEEPS["weak"]
wrows = [r for run in weak.local for r in rows_of(run)]
for run in weak.local:
    mine = catalogue.rows_of(run, wrows)
    check(len(mine) == 2 * 3 and {r["ranks"] for r in mine} == {str(run.ranks)},
          f"more: {run.label}: matched {len(mine)} rows, not its 3 runs x 2 algorithms")


def with_values(rows, f):
    return [dict(r, t_total_max=f"{f(i):.6f}", commits_per_s=f"{f(i):.6f}") for i, r in enumerate(rows)]


tight = catalogue.more(weak, with_values(wrows, lambda i: 1.0 + 0.001 * (i % 3)))
check(tight == [], f"more: runs asked for where the CI is already within the width: {[r.line() for r in tight]}")
wide = catalogue.more(weak, with_values(wrows, lambda i: (0.5, 1.0, 2.0)[i % 3]))
want = [min(catalogue.CAP, math.ceil(3 * (data.mean_ci95([0.5, 1.0, 2.0])[1] / (catalogue.WIDTH * 7 / 6)) ** 2)) - 3] * 3
check([int(re.search(r"--repeat (\d+)", r.args).group(1)) for r in wide] == want and
      all("runs 4-" in r.label and "--tuples-per-rank 1M" in r.args for r in wide),
      f"more: a wide CI at 3 runs asks for {[r.line() for r in wide]}, not --repeat {want}")
capped = [dict(r, repeat_index=str(k)) for r in with_values(wrows, lambda i: (0.5, 1.0, 2.0)[i % 3]) for k in range(4)]
check(catalogue.more(weak, capped) == [], "more: runs asked for beyond the cap")
lk = catalogue.SWEEPS["lock-scale"]
lrows = with_values([r for run in lk.local[:1] for r in rows_of(run)], lambda i: 1.0)
got = [r.label for r in catalogue.more(lk, lrows)]
check(got[:3] == ["lock serializable np=2 #2", "lock read-committed np=2 #1", "lock read-committed np=2 #2"],
      f"more: a lock configuration with one run and one with none ask for {got[:3]}")

print(f"test_catalogue: {len(catalogue.ENTRIES)} entries, {checked} medians checked, {len(problems)} figures laid out, "
      f"{time.monotonic() - started:.1f} s")
if failures:
    sys.exit(f"{len(failures)} failure(s)")
print("test_catalogue: all passed")
