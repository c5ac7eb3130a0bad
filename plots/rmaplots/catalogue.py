"""The catalogue of the thesis' figures and tables that run on MPI (jobs/figure.sh): per entry its id,
what it shows, the thesis section, and the sweep that feeds it; per sweep the runs at the local size
(this machine, one host) and at the thesis' size (Slurm). Runs are the existing rmabench commands;
jobs/figure.sh runs them through jobs/lib.sh (rmb_run) and draws with `rmaplot figure ID`.

A run is (label, ranks, ranks per host or None for the allocation's, arguments). In the arguments,
@csv stands for `--output <the sweep's results.csv>`, @model for `--model <params>` (when the sweep
calibrated: its params file) and @params for the params file calibrate writes."""

import math
import os
import re

from . import data

LOCAL_TUPLES = "1M"   # tuples of R per rank at the local size (thesis: 40M per core)
THESIS_TUPLES = "40M"


class Run:
    def __init__(self, label, ranks, args, ppn=None):
        self.label, self.ranks, self.args, self.ppn = label, ranks, args, ppn

    def line(self):
        return f"{self.label}\t{self.ranks}\t{self.ppn or '-'}\t{self.args}"


class Sweep:
    """The runs one or more entries draw from; minutes: how long the local runs are expected to take on
    a shared 2-core machine, rounded up (a budget for planning, not a result)."""

    def __init__(self, name, local, slurm, minutes, hosts="1", local_as=None):
        self.name, self.local, self.slurm, self.minutes, self.hosts = name, local, slurm, minutes, hosts
        self.local_name = local_as or name  # a sweep whose local runs are another's reuses its results

    def dir_name(self, scale):
        return self.local_name if scale == "local" else self.name

    def runs(self, scale):
        if scale == "local" and os.environ.get("RMB_FIGURE_TINY") == "1":
            return tiny(self.local)
        return self.local if scale == "local" else self.slurm

    def max_ranks(self, scale="local"):
        return max(r.ranks for r in (self.local if scale == "local" else self.slurm))


def tiny(runs):
    """The local runs at a tiny size (RMB_FIGURE_TINY=1, for tests): at most 2 ranks, one run per
    configuration, 20K tuples per rank (40K in total), 300 ms lock runs, a calibration of a second."""
    subs = [(r"--tuples-per-rank \S+", "--tuples-per-rank 20K"), (r"--r-tuples \S+", "--r-tuples 40K"),
            (r"--fact-rows \S+", "--fact-rows 20K"), (r"--micro-blocks \S+", "--micro-blocks 256"),
            (r"--duration \S+", "--duration 300ms"), (r"--repeat \d+", "--repeat 1"),
            (r"--tuples \S+ --put-bytes .*", "--tuples 64K --put-bytes 1M --membw-bytes 8M --repeats 1 --rounds 1")]
    out = []
    for r in runs:
        if r.ranks > 2 or re.search(r" #[2-9]$", r.label):
            continue
        args = r.args
        for a, b in subs:
            args = re.sub(a, b, args)
        out.append(Run(r.label, r.ranks, args, r.ppn))
    return out


def _calibrate(quick):
    args = "calibrate --output @params" + (" --tuples 256K --put-bytes 4M --membw-bytes 32M --repeats 2 --rounds 1"
                                          if quick else "")
    return Run("calibrate", 2, args)


def _join(label, ranks, args, repeat=3, ppn=None):
    return Run(label, ranks, f"join {args} --repeat {repeat} @csv", ppn)


def _query(label, ranks, args, repeat=3, ppn=None):
    return Run(label, ranks, f"query {args} --repeat {repeat} @csv", ppn)


def _lock(label, ranks, args, repeat, duration, ppn=None):
    return [Run(f"{label} #{i + 1}", ranks, f"lock {args} --duration {duration} @csv", ppn) for i in range(repeat)]


# Runs per configuration at the local size (jobs/figure.sh): after the sweep, a configuration gets
# more runs until the 95% confidence interval of the mean of its measure (MEASURE) lies within
# +-WIDTH of the mean, or it has CAP runs; figures show the runs and their range either way.
WIDTH = 0.10
CAP = 10
MEASURE = {"join": "t_total_max", "lock": "commits_per_s"}


def pairs(args):
    """The (flag, value) pairs of a run's arguments that name its configuration: not @csv/@model,
    --output, --model or --repeat (more runs of the same configuration repeat a different count)."""
    words = [w for w in args.split() if not w.startswith("@")]
    return {(w, words[i + 1]) for i, w in enumerate(words[:-1])
            if w.startswith("--") and not words[i + 1].startswith("--") and w not in ("--output", "--model", "--repeat")}


def rows_of(run, rows):
    """The verified rows in rows that run made (or a run of its configuration): its bench, its ranks,
    and every flag and value of its arguments in the row's command line."""
    bench = run.args.split()[0]
    want = pairs(run.args)
    out = []
    for r in data.verified(rows, bench):
        if data.num(r, "ranks") != run.ranks:
            continue
        words = r.get("command", "").split()
        have = {(w, words[i + 1]) for i, w in enumerate(words[:-1])}
        if want <= have:
            out.append(r)
    return out


def runs_needed(xs):
    """How many more runs a measure's values xs need for their 95% CI to lie within +-WIDTH of the
    mean (half-width shrinks as one over the root of the runs), at least one and at most CAP in all;
    0 when it already does or CAP runs were made."""
    n = len(xs)
    if n >= CAP:
        return 0
    if n < 2:
        return 2 - n
    m, h = data.mean_ci95(xs)
    if m and h <= WIDTH * abs(m):
        return 0
    want = math.ceil(n * (h / (WIDTH * abs(m))) ** 2) if m else CAP
    return max(1, min(CAP, want) - n)


def more(sweep, rows, scale="local"):
    """The runs that give every configuration of the sweep the runs runs_needed() asks for: a join run
    again with --repeat of the count (both algorithms of --algo both: the one that needs more), a lock
    run as that many runs more (labelled on from its last #)."""
    out, seen = [], set()
    for run in sweep.runs(scale):
        if run.args.startswith("calibrate"):
            continue
        base = re.sub(r" #\d+$", "", run.label)
        if base in seen:
            continue
        seen.add(base)
        got = rows_of(run, rows)
        bench = run.args.split()[0]
        by_algo = {}
        for r in got:
            by_algo.setdefault(r.get("algo", ""), []).append(data.num(r, MEASURE[bench]))
        need = max((runs_needed([v for v in vs if v is not None]) for vs in by_algo.values()), default=2)
        if need <= 0:
            continue
        n = min((len(v) for v in by_algo.values()), default=0)
        if bench == "join":  # labelled by the runs they make, so no round's log replaces another's
            args = re.sub(r"--repeat \d+", f"--repeat {need}", run.args)
            out.append(Run(f"{base} runs {n + 1}-{n + need}", run.ranks, args, run.ppn))
        else:
            out += [Run(f"{base} #{n + i + 1}", run.ranks, run.args, run.ppn) for i in range(need)]
    return out


THESIS_CORES = (128, 256, 512, 1024, 2048, 4096)
LOCK_CORES = (72, 144, 288, 576, 1152, 2304, 5040)
BUFFER_SIZES = ("512", "2K", "8K", "32K", "128K", "512K")
SKEWS = ("0", "1.05", "1.2")
PROBS = ("0", "0.01", "0.05", "0.1", "0.25", "0.5")


def _sweeps():
    t, T = LOCAL_TUPLES, THESIS_TUPLES
    s = {}
    s["weak"] = Sweep("weak", [_join(f"join both np={n}", n, f"--algo both --tuples-per-rank {t}") for n in (1, 2, 4)],
                      [_join(f"join both np={n}", n, f"--algo both --tuples-per-rank {T}", 5) for n in THESIS_CORES], 1.5)
    s["scaleup"] = Sweep("scaleup", s["weak"].local,
                         [_join(f"join both np={n} ppn={p}", n, f"--algo both --tuples-per-rank {T}", 3, p)
                          for p in (4, 8, 16) for n in (256, 512, 1024)], 1.5, local_as="weak")
    sizes = [("1M", "1", "1"), ("500K", "2", "1"), ("250K", "4", "1"), ("250K", "4", "0.5"), ("250K", "4", "0.25")]
    s["sizes"] = Sweep("sizes", [_join(f"join both {r} 1:{q} sel={x}", 2, f"--algo both --tuples-per-rank {r} --ratio {q} "
                                       f"--selectivity {x}") for r, q, x in sizes],
                       [_join(f"join both {r} 1:{q} sel={x}", 1024, f"--algo both --tuples-per-rank {r} --ratio {q} "
                              f"--selectivity {x}", 5)
                        for r, q, x in [("40M", "1", "1"), ("20M", "2", "1"), ("10M", "4", "1"), ("10M", "4", "0.5"),
                                        ("10M", "4", "0.25")]], 1)
    s["model-join"] = Sweep("model-join", [_calibrate(True), _join("join both np=2 --model", 2,
                                                                   f"--algo both --tuples-per-rank {t} @model")],
                            [_calibrate(False), _join("join both np=1024 --model", 1024,
                                                      f"--algo both --tuples-per-rank {T} @model", 5)], 1.5)
    s["putbw"] = Sweep("putbw", [_calibrate(True)] +
                       [_join(f"radix buffer {b} x{k}", 2, f"--algo radix --tuples-per-rank {t} --buffer-size {b} "
                              f"--buffers-per-partition {k}", 2) for k in (1, 2) for b in BUFFER_SIZES],
                       [_calibrate(False)] +
                       [_join(f"radix buffer {b} x{k}", 2, f"--algo radix --tuples-per-rank {T} --buffer-size {b} "
                              f"--buffers-per-partition {k}", 3, 1) for k in (1, 2) for b in BUFFER_SIZES], 2, "1 (Slurm: 2)")
    s["fanout"] = Sweep("fanout", [_join(f"radix bits {b}", 2, f"--algo radix --tuples-per-rank {t} --radix-bits {b}", 2)
                                   for b in (2, 4, 6, 8, 10, 12)],
                        [_join(f"radix bits {b}", 1024, f"--algo radix --tuples-per-rank {T} --radix-bits {b}", 3)
                         for b in (10, 11, 12, 13, 14)], 1)
    s["one-vs-dist"] = Sweep("one-vs-dist", [_join(f"join both R={r} np={n}", n, f"--algo both --r-tuples {r}", 2)
                                             for r in ("512K", "1M", "2M") for n in (1, 2)],
                             [_join(f"join both R={r} np={n}", n, f"--algo both --r-tuples {r}", 3, p)
                              for r in ("1024M", "2048M", "4096M") for n, p in ((8, 8), (64, 8))], 0.5, "1 (thesis: 1 and 8)")
    s["strong"] = Sweep("strong", [_join(f"join both R={r} np={n}", n, f"--algo both --r-tuples {r}", 2)
                                   for r in ("512K", "1M", "2M") for n in (1, 2, 4)],
                        [_join(f"join both R={r} np={n}", n, f"--algo both --r-tuples {r}", 3, 8)
                         for r in ("1024M", "2048M", "4096M") for n in (16, 32, 48, 64, 80)], 1, "1 (thesis: 2-10)")
    s["small-large"] = Sweep("small-large", [_join(f"join both R={r} 1:{q} np={n}", n, f"--algo both --r-tuples {r} --ratio {q}", 2)
                                             for r, q in (("2M", 1), ("1M", 2), ("500K", 4), ("250K", 8)) for n in (2, 4)],
                             [_join(f"join both R={r} 1:{q} np={n}", n, f"--algo both --r-tuples {r} --ratio {q}", 3, 8)
                              for r, q in (("2048M", 1), ("1024M", 2), ("512M", 4), ("256M", 8)) for n in (16, 48, 80)],
                             1.5, "1 (thesis: 2-10)")
    s["netpass"] = Sweep("netpass", [_join(f"radix np={n}", n, f"--algo radix --tuples-per-rank {t}", 2) for n in (4, 8)],
                         [_join(f"radix nodes={k} ppn={p}", k * p, "--algo radix --r-tuples 2048M", 3, p)
                          for p in (4, 8) for k in (2, 4, 6, 8, 10)], 1, "1 (thesis: 2-10)")
    skew_local, skew_slurm = [], []
    for z in SKEWS:
        for a in ("round-robin", "sized"):
            skew_local.append(_join(f"radix skew {z} {a}", 4, f"--algo radix --tuples-per-rank 125K --ratio 16 --skew {z} "
                                    f"--assign {a}", 2))
            skew_slurm += [_join(f"radix skew {z} {a} nodes={k}", 8 * k, f"--algo radix --r-tuples 128M --ratio 16 "
                                 f"--skew {z} --assign {a}", 3, 8) for k in (4, 8)]
        for g in ("equal", "splitters"):
            skew_local.append(_join(f"sortmerge skew {z} {g}", 4, f"--algo sortmerge --tuples-per-rank 125K --ratio 16 "
                                    f"--skew {z} --ranges {g}", 2))
            skew_slurm += [_join(f"sortmerge skew {z} {g} nodes={k}", 8 * k, f"--algo sortmerge --r-tuples 128M "
                                 f"--ratio 16 --skew {z} --ranges {g}", 3, 8) for k in (4, 8)]
    s["skew"] = Sweep("skew", skew_local, skew_slurm, 2.5, "1 (thesis: 4 and 8)")
    tpcc = [f"--workload tpcc --isolation {i}" for i in ("serializable", "read-committed")]
    s["lock-scale"] = Sweep("lock-scale", [r for n in (2, 4) for w in tpcc
                                           for r in _lock(f"lock {w.split()[-1]} np={n}", n, f"{w} --servers {n // 2}", 2, "1s")],
                            [r for n in LOCK_CORES for w in tpcc
                             for r in _lock(f"lock {w.split()[-1]} np={n}", n, f"{w} --servers {n // 2}", 3, "10s", 36)],
                            1)
    s["lock-model"] = Sweep("lock-model", [_calibrate(True)] +
                            [r for n in (2, 4) for p in PROBS
                             for r in _lock(f"lock synthetic p={p} np={n}", n, f"--workload synthetic --servers {n // 2} "
                                            f"--remote-prob {p} @model", 2, "1s")],
                            [_calibrate(False)] +
                            [r for n in (2520, 5040) for p in PROBS
                             for r in _lock(f"lock synthetic p={p} np={n}", n, f"--workload synthetic --servers {n // 2} "
                                            f"--remote-prob {p} @model", 3, "10s", 36)], 4)
    s["lock-split"] = Sweep("lock-split", [r for srv in (3, 2, 1)
                                           for r in _lock(f"lock tpcc {srv}/6 servers", 6, f"--workload tpcc --servers {srv}",
                                                          2, "1s")],
                            [r for srv in (2520, 1680, 840)
                             for r in _lock(f"lock tpcc {srv}/5040 servers", 5040, f"--workload tpcc --servers {srv}",
                                            3, "10s", 36)], 1)
    _query_sweeps(s)
    return s


def _query_sweeps(s):
    """The star query (rmabench query, docs/query.md): the seed's Fig. 7a-c. Locally 4 ranks (1 or 2
    memory ranks) and SSB's shapes at 1M lineorder rows; on Slurm the seed's 8 machines, a memory and a
    compute rank each, at SSB scale factor 100 (600M rows)."""
    star = lambda m: [_query(f"query pull tables={t} mem={m}", 4, f"--design pull --tables {t} --memory-ranks {m} "
                             f"--fact-rows 1M --warmup 1") for t in (2, 3, 4)]
    shuffle = [_query(f"query shuffle tables={t}", 4, f"--design shuffle --tables {t} --fact-rows 1M --warmup 1")
               for t in (2, 3, 4)]
    s["query-star"] = Sweep("query-star", star(1) + star(2) + shuffle,
                            [_query(f"query {d} tables={t}", 16, f"--design {d} --tables {t} --fact-rows 600M "
                                    f"{'--memory-ranks 8 ' if d == 'pull' else ''}--warmup 1", 3, 2)
                             for d in ("pull", "shuffle") for t in (2, 3, 4)], 1)
    micro = "--micro prefetch --micro-prefetch 1,2,4,6,8,10,16 --micro-block-size 512,2K,8K"
    s["query-prefetch"] = Sweep("query-prefetch", [_query("query micro prefetch", 2, f"{micro} --micro-blocks 16K", 5)],
                                [_query("query micro prefetch", 2, f"{micro} --micro-blocks 1M", 5, 1)], 0.5)
    s["query-readers"] = Sweep("query-readers", [_query("query micro readers", 5, "--micro readers --micro-blocks 8K", 5)],
                               [_query("query micro readers", 9, "--micro readers --micro-blocks 1M", 5, 1)], 0.5)


SWEEPS = _sweeps()


class Entry:
    """One figure or table: id, what it shows, thesis section, its sweep, and how it is drawn
    (figures.DRAW[id])."""

    def __init__(self, id_, shows, section, sweep):
        self.id, self.shows, self.section, self.sweep = id_, shows, section, SWEEPS[sweep]

    def needs(self):
        s = self.sweep
        n = len(s.local)
        return (f"up to {s.max_ranks()} ranks, {s.hosts} host(s), {n} runs, ~{s.minutes:g} min locally (more where a "
                f"configuration's runs spread: up to {CAP} each); Slurm: up to {s.max_ranks('slurm')} ranks")


ENTRIES = [
    Entry("fig3.7", "MPI_Put bandwidth against message size: calibrate's put curve (bw_put_<bytes>) and the radix network pass per send-buffer size", "3.4 (Fig 3.7)", "putbw"),
    Entry("fig3.9", "distributed against one process: time at the same total |R|", "3.4.2 (Fig 3.9)", "one-vs-dist"),
    Entry("fig3.10a", "strong scaling, large-to-large: time against ranks at a fixed total |R| = |S|", "3.4.3 (Fig 3.10a/c/e)", "strong"),
    Entry("fig3.10b", "strong scaling, small-to-large: |S| fixed, |R| = |S|/1..8, time against ranks", "3.4.3 (Fig 3.10b/d/f)", "small-large"),
    Entry("fig3.11", "radix join phases under strong scaling (largest fixed total)", "3.4.3 (Fig 3.11)", "strong"),
    Entry("fig3.12", "sort-merge join phases under strong scaling (largest fixed total)", "3.4.3 (Fig 3.12)", "strong"),
    Entry("fig3.16", "network-partitioning pass at 4 against 8 ranks per host", "3.5 (Fig 3.16)", "netpass"),
    Entry("skew3.4.5", "Zipf 1.05 / 1.20 skew: round-robin vs sized assignment (radix), equal vs splitter ranges (sort-merge), imbalance", "3.4.5", "skew"),
    Entry("fanout", "radix join against the network fan-out (radix bits)", "3.2 / 4.2 (fan-out)", "fanout"),
    Entry("buffers", "radix join against the send-buffer size and count", "3.2.1 / 4.2 (buffers)", "putbw"),
    Entry("fig4.2", "join throughput against ranks (weak scaling), thesis peak beside it", "4.3 (Fig 4.2)", "weak"),
    Entry("fig4.3a", "radix join phases per rank count", "4.3 (Fig 4.3a)", "weak"),
    Entry("fig4.3b", "radix network pass detail: MPI_Put, flush/wait per rank count", "4.3 (Fig 4.3b)", "weak"),
    Entry("fig4.4a", "sort-merge join phases per rank count", "4.3 (Fig 4.4a)", "weak"),
    Entry("fig4.4b", "sort-merge sort-phase detail: MPI_Put, flush/wait per rank count", "4.3 (Fig 4.4b)", "weak"),
    Entry("fig4.5", "phases of both joins per input size", "4.3 (Fig 4.5)", "sizes"),
    Entry("fig4.6", "scale-out and scale-up: throughput per ranks per host", "4.3 (Fig 4.6)", "scaleup"),
    Entry("table4.1", "time per input size, 1:N ratio and selectivity, thesis' times beside", "4.3 (Table 4.1)", "sizes"),
    Entry("table4.2", "model against measurement per phase, thesis' beside", "4.4 (Table 4.2)", "model-join"),
    Entry("fig5.5", "TPC-C transactions/s and lock requests/s against ranks, both isolation levels", "5.4.2 (Fig 5.5)", "lock-scale"),
    Entry("fig5.6", "TPC-C transaction latency (lock, data, vote, end) and lock request latency", "5.4.2 (Fig 5.6)", "lock-scale"),
    Entry("fig5.7", "synthetic workload against the remote lock probability", "5.4.3 (Fig 5.7)", "lock-model"),
    Entry("table5.1", "lock model against measurement at two agent counts, thesis' beside", "5.5 (Table 5.1)", "lock-model"),
    Entry("table5.2", "TPC-C per transaction type: commits, aborts, new-order/s; thesis and related work beside", "5.6 (Table 5.2)", "lock-scale"),
    Entry("lock-split", "TPC-C throughput against the servers' share of the ranks", "5.4.2 (lock-server split)", "lock-split"),
    Entry("query7a", "star query of 2-4 tables pulled by compute ranks from memory ranks against shuffled join by join", "seed 001 5.1 (Fig 7a)", "query-star"),
    Entry("query7b", "blocks scanned per second against prefetch depth and block size, one compute rank", "seed 001 5.2 (Fig 7b)", "query-prefetch"),
    Entry("query7c", "blocks per second per compute rank against the compute ranks reading one memory rank: reads and broadcast", "seed 001 5.2 (Fig 7c)", "query-readers"),
]
BY_ID = {e.id: e for e in ENTRIES}


def listing():
    """The catalogue as `jobs/figure.sh list` prints it."""
    w = max(len(e.id) for e in ENTRIES)
    out = [f"{'id':<{w}}  {'thesis':<24}  shows / needs"]
    for e in ENTRIES:
        out.append(f"{e.id:<{w}}  {e.section:<24}  {e.shows}")
        out.append(f"{'':<{w}}  {'':<24}  sweep '{e.sweep.local_name}': {e.needs()}")
    return out
