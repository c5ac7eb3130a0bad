"""The configuration of a results row: every column that docs/columns.md declares of kind config or
resolved, the ones that say how a run was done (MPI library, commit, placement, window, buffers,
algorithm parameters, workload, isolation, checking) rather than what it measured. Every figure and table groups rows by it, so that no point,
bar, line or table row pools two experiments; configuration(row, view) is the one rule, and series()
splits rows into the lines of a figure.

A View is what one figure or table puts on its axis (x: those columns are not configuration there)
and which configuration columns may change along that axis within one line (follow: the hosts and
ranks per host of a rank sweep, the radix bits the planner resolved from "auto", the servers of a
lock sweep). A point (one x of one line) never holds rows whose configurations differ in any
column, follow columns included: where they would, the line is split by the column that needs the
fewest lines (view.split first: ranks per host before hosts, as Fig 4.6 draws them)."""
import hashlib
import importlib.util
import math
import os
import re
from fractions import Fraction

from . import regimes


def _declared():
    """The results columns as docs/columns.md declares them (name, kind, written by, ...), read by
    cmd/results_columns.py, the reader the build makes the C schema with."""
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.realpath(__file__))))
    spec = importlib.util.spec_from_file_location("results_columns", os.path.join(root, "cmd", "results_columns.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod, mod.read(os.path.join(root, "docs", "columns.md"))


_COLUMNS, DECLARED = _declared()
# Columns that are not configuration (kinds provenance, derived, measured, model): when, where, which
# repetition, derived sizes, planned memory, how an auto choice was made, and everything measured.
NOT_CONFIG = {c.name for c in DECLARED if c.kind not in _COLUMNS.CONFIG_KINDS} | set(regimes.EXPLICIT)  # and the
# machine's state a run met (plots/rmaplots/regimes.py)
# A column of an older or newer CSV that docs/columns.md does not declare: measured when its name
# says so, else treated as configuration (unknown() names it).
MEASURED_PREFIXES = ("t_", "model_", "lat_", "membw_")


def _config_columns(keep):
    return tuple(c.name for c in DECLARED if c.kind in _COLUMNS.CONFIG_KINDS and keep(c.writers))


# Configuration per bench, in the declaration's order: what the joins and the lock runs share, then
# each one's own. Derived columns beside them: mpi (library name and version string), trace (the
# lock trace file, from the command line).
COMMON = ("mpi",) + _config_columns(lambda w: {"join", "lock"} <= w)
BENCH = {b: tuple(c for c in _config_columns(lambda w: b in w) if c not in COMMON) for b in _COLUMNS.COMMANDS}
BENCH["lock"] += ("trace",)
JOIN, LOCK = BENCH["join"], BENCH["lock"]
# Resolved by the join's planner when left at auto (cmd/join/join_record.c): they change with the
# rank count and the data size, so a sweep over either may change them along one line; so does the
# window flavour --window auto measures before each run (window_choice says it was auto).
RESOLVED = tuple(c.name for c in DECLARED if c.kind == "resolved") + ("window",)
# The legend's order: what a reader looks for first, then the rest as the legends have always named
# them; configuration columns not named here follow in the order docs/columns.md declares them.
ORDER = ("algo", "workload", "trace", "isolation", "mpi", "hosts", "ranks_per_host", "ranks", "oversubscribed",
         "poll_yield", "mpi_env", "host_cores", "server_share", "servers", "remote_prob", "window", "window_life", "flush",
         "exchange", "schedule", "link_rate", "buffer_size", "buffers_per_partition", "compress", "transport", "notify_shm", "checked",
         "git_commit", "warmups", "numa_policy", "tuples_per_rank", "ratio", "selectivity", "skew", "uneven", "buffer_memory",
         "radix_bits", "local_fanout_bits", "passes", "scatter", "assign", "ranges", "run_size", "merge_fanin",
         "merge_bands", "band_count", "simd", "run_sort")


def _norm(v):
    """One spelling per value: '0.10' and '0.1' are the same remote probability."""
    v = (v or "").strip()
    try:
        x = float(v)
    except ValueError:
        return v
    return f"{x:.12g}" if math.isfinite(x) else v


_MPI_NAMES = ((r"Open MPI v(\d+(?:\.\d+)*)", "Open MPI {}"), (r"MVAPICH2? Version:?\s*(\d[\w.]*)", "MVAPICH {}"),
              (r"MPICH Version:?\s*(\d[\w.]*)", "MPICH {}"), (r"Intel\(R\) MPI Library (\d[\w.]*)", "Intel MPI {}"))


def mpi_name(r):
    """The row's MPI library as short name and version ("MPICH 4.0.2"), never the configure dump
    that MPICH puts into mpi_version (~3000 characters)."""
    lib, full = r.get("mpi_library", "").strip(), r.get("mpi_version", "").strip()
    if re.search(r"\d", lib) and len(lib) <= 40:
        return lib
    for pat, fmt in _MPI_NAMES:
        m = re.search(pat, full)
        if m:
            return fmt.format(m.group(1))
    text = lib or full
    return text if len(text) <= 40 else text[:39] + "…"


def _trace_file(r):
    m = re.search(r"--trace(?:=|\s+)(\S+)", r.get("command", ""))
    return os.path.basename(m.group(1)) if m else ""


def _value(r, col):
    if col == "mpi":  # the library's name, and its full version string: two builds stay apart
        return (mpi_name(r), r.get("mpi_version", "").strip())
    if col == "isolation":  # only TPC-C reads --isolation (cmd/lock/lock_opts.c); older CSVs recorded it for all
        return _norm(r.get(col)) if r.get("workload") == "tpcc" else ""
    if col == "remote_prob":  # only synthetic and bank read --remote-prob; the row records 0 for the others
        return _norm(r.get(col)) if r.get("workload") in ("synthetic", "bank") else ""
    if col == "trace":
        return _trace_file(r) if r.get("workload") == "trace" else ""
    if col == "server_share":  # servers per rank, constant along a scale-out of both layers
        s, n = _num(r, "servers"), _num(r, "ranks")
        return str(Fraction(int(s), int(n))) if s is not None and n else ""
    return _norm(r.get(col, ""))


def _num(r, col):
    try:
        x = float(r.get(col, ""))
    except (TypeError, ValueError):
        return None
    return x if math.isfinite(x) else None


def unknown(header):
    """Columns of a CSV header this module does not know: treated as configuration (a new column
    that says how a run was done must not be pooled over), and named in the report."""
    known = set(NOT_CONFIG) | set(COMMON) | {c for cols in BENCH.values() for c in cols}
    return [c for c in header if c not in known and not c.startswith(MEASURED_PREFIXES) and not c.startswith("_")]


class View:
    """What one figure or table varies: x, the columns on its axis (not configuration there); follow,
    configuration columns that may change along the axis within one line; split, the order in which
    columns are tried when a point would otherwise pool rows (derived columns allowed:
    server_share); model, whether the model parameters file is configuration (model figures)."""

    def __init__(self, name, x=(), follow=(), split=(), model=False):
        self.name, self.x, self.follow, self.model = name, tuple(x), tuple(follow), model
        self.split = tuple(split) + tuple(c for c in follow if c not in split)

    def xval(self, r):
        vals = tuple(_num(r, c) for c in self.x)
        return vals[0] if len(vals) == 1 else vals


# What changes once a host's ranks outnumber its cores (jobs/lib.sh: polling yields, Open MPI told to
# yield when idle; --flush auto takes request flushes): it changes along a rank sweep on fixed hosts,
# so a line follows it into its oversubscribed points, which the figures draw hollow (regimes.py,
# style.runs_line)
OVERSUBSCRIPTION = ("oversubscribed", "poll_yield", "mpi_env", "flush")
RANKS = View("ranks", x=("ranks",), follow=("hosts", "ranks_per_host") + RESOLVED + OVERSUBSCRIPTION,
             split=("ranks_per_host", "hosts"))
# one line per ranks per host (Fig 4.6)
SCALEUP = View("scale-up", x=("ranks",), follow=("hosts",) + RESOLVED + OVERSUBSCRIPTION)
MODEL_RANKS = View("model", x=("ranks",), follow=("hosts", "ranks_per_host") + RESOLVED + OVERSUBSCRIPTION,
                   split=("ranks_per_host", "hosts"), model=True)
SIZE = View("size", x=("tuples_per_rank", "ratio", "selectivity"), follow=RESOLVED)
LOCK_RANKS = View("lock ranks", x=("ranks",), follow=("hosts", "ranks_per_host", "servers", "agents", "warehouses")
                  + OVERSUBSCRIPTION, split=("ranks_per_host", "hosts", "server_share", "servers"))
REMOTE = View("remote", x=("remote_prob",))
LOCK_MODEL = View("lock model", x=("remote_prob",), model=True)
POINT = View("point")  # a table row or a bar: every configuration column


def configuration(r, view=POINT):
    """{column: value} of every configuration column of the row's bench, in legend order, without
    the view's x columns, with the view's derived split columns (server_share) and, for model views,
    the parameters file. Columns that do not apply to a run are '' (a reference join has no window)."""
    bench = r.get("bench", "")
    cols = COMMON + BENCH.get(bench, ())
    cols += tuple(c for c in view.split if c not in cols and c in ("server_share",))
    cols += tuple(c for c in unknown(r.keys()))
    if view.model:
        cols += ("model_params",)
    cols = [c for c in cols if c not in view.x]
    rank = {c: i for i, c in enumerate(ORDER)}
    cols.sort(key=lambda c: rank.get(c, len(ORDER)))
    return {c: _value(r, c) for c in cols}


class Series:
    """One line of a figure: key ((column, value), ...) shared by all its rows, points {x: rows} in
    ascending x, label (the columns that differ between the figure's lines)."""

    def __init__(self, key, points):
        self.key, self.points, self.label = key, dict(sorted(points.items(), key=lambda kv: _sortable(kv[0]))), ""

    @property
    def config(self):
        return dict(self.key)

    @property
    def rows(self):
        return [r for rs in self.points.values() for r in rs]


def _sortable(v):
    if isinstance(v, tuple):
        return tuple(_sortable(x) for x in v)
    return (v is None, v if v is not None else 0)


def _valsort(v):
    """Numbers in numeric order before words ('2' before '10'); the MPI column by name."""
    if isinstance(v, tuple):
        return tuple(_valsort(x) for x in v)
    try:
        return (0, float(v), "")
    except ValueError:
        return (1, 0.0, v)


def series(rows, view):
    """The lines of a figure: rows grouped by configuration without the view's x and follow columns,
    then split by follow columns (view.split order, fewest lines first) until no point holds rows of
    two configurations. Returns (series sorted by key, legend columns: those that differ between
    series)."""
    cfgs = [(r, configuration(r, view)) for r in rows]
    follow = set(view.follow) | {c for c in view.split if c not in view.follow}

    def grouped(chosen):
        out = {}
        for r, c in cfgs:
            key = tuple((k, v) for k, v in c.items() if k not in follow or k in chosen)
            out.setdefault(key, {}).setdefault(view.xval(r), []).append((r, c))
        return out

    def pooled(groups):  # points whose rows differ in some configuration column
        return sum(1 for pts in groups.values() for pt in pts.values() if len({tuple(c.items()) for _, c in pt}) > 1)

    chosen = []
    groups = grouped(chosen)
    while pooled(groups):
        cand = [c for c in view.split if c not in chosen]
        scored = []
        for i, c in enumerate(cand):
            g = grouped(chosen + [c])
            scored.append((pooled(g), len(g), i, c, g))
        _, _, _, best, groups = min(scored, key=lambda s: s[:3])
        chosen.append(best)
    out = [Series(k, {x: [r for r, _ in pt] for x, pt in pts.items()}) for k, pts in groups.items()]
    out.sort(key=lambda s: tuple((k, _valsort(v)) for k, v in s.key))
    return relabel(out), differing([s.config for s in out])


def relabel(series):
    """Names each series by the columns that differ between these series (a figure that leaves some
    out names the rest among themselves); returns the series."""
    cols = legend_columns([s.config for s in series])
    for s in series:
        s.label = label(s.config, cols, [t.config for t in series])
    return series


def differing(configs):
    """Configuration columns whose value is not the same in all the given configurations."""
    if not configs:
        return []
    cols = [c for c in configs[0] if c in set.intersection(*(set(x) for x in configs))]
    return [c for c in cols if len({x[c] for x in configs}) > 1]


def legend_columns(configs):
    """The columns that name configurations apart, compactly: those with two different values where
    they apply (a sort-merge run has no radix bits: that alone does not name it), then, while two
    configurations would share a name, the other differing columns in legend order."""
    every = differing(configs)
    cols = [c for c in every if len({x[c] for x in configs if x[c] != ""}) > 1]
    for c in every:
        if len({tuple(x[k] for k in cols) for x in configs}) == len({tuple(x[k] for k in every) for x in configs}):
            break
        if c not in cols:
            cols.append(c)
    return [c for c in every if c in cols]


def shared(configs):
    """{column: value} of the columns all the given configurations agree on."""
    if not configs:
        return {}
    return {c: v for c, v in configs[0].items() if all(x.get(c) == v for x in configs)}


def _count(v, one, many):
    try:
        n = float(v)
    except ValueError:
        return f"{v} {many}"
    return f"{v} {one if n == 1 else many}"


def _si(v, unit=""):
    try:
        n = float(v)
    except ValueError:
        return v
    for div, suf in ((1 << 30, "Gi"), (1 << 20, "Mi"), (1 << 10, "Ki")) if unit == "B" else \
            ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if n >= div and n % div == 0:
            return f"{n / div:g} {suf}{unit}" if unit else f"{n / div:g}{suf}"
    return f"{n:g} {unit}".strip()


def _pct(v):
    try:
        return f"{100 * float(v):g}%"
    except ValueError:
        return v


_FORMAT = {
    "algo": lambda v: v, "workload": lambda v: v, "isolation": lambda v: v, "trace": lambda v: f"trace {v}",
    "git_commit": lambda v: f"commit {v[:7]}", "hosts": lambda v: _count(v, "host", "hosts"),
    "ranks_per_host": lambda v: _count(v, "rank/host", "ranks/host"), "ranks": lambda v: _count(v, "rank", "ranks"),
    "warmups": lambda v: _count(v, "warm-up", "warm-ups"), "numa_policy": lambda v: f"numa {v}",
    "tuples_per_rank": lambda v: f"{_si(v)} tuples/rank", "ratio": lambda v: f"1:{v}",
    "selectivity": lambda v: f"selectivity {v}", "skew": lambda v: "no skew" if v == "0" else f"skew {v}",
    "uneven": lambda v: "uneven" if v not in ("0", "") else "even", "window": lambda v: f"window {v}",
    "window_life": lambda v: f"window-life {v}",
    "flush": lambda v: f"flush {v}", "buffer_size": lambda v: f"buffer {_si(v, 'B')}",
    "buffers_per_partition": lambda v: _count(v, "buffer/partition", "buffers/partition"),
    "exchange": lambda v: f"exchange {v}", "schedule": lambda v: f"schedule {v}", "link_rate": lambda v: f"links {v}",
    "compress": lambda v: "compressed" if v == "1" else "uncompressed", "radix_bits": lambda v: f"radix bits {v}",
    "local_fanout_bits": lambda v: f"local bits {v}", "passes": lambda v: _count(v, "pass", "passes"),
    "scatter": lambda v: f"scatter {v}",
    "assign": lambda v: f"assign {v}", "ranges": lambda v: f"ranges {v}", "run_size": lambda v: f"runs of {_si(v)}",
    "merge_fanin": lambda v: f"fan-in {v}", "merge_bands": lambda v: _count(v, "band", "bands"), "band_count": lambda v: f"band count {v}", "simd": lambda v: f"simd {v}", "run_sort": lambda v: f"{v} run sort", "remote_prob": lambda v: f"remote {_pct(v)}",
    "servers": lambda v: _count(v, "server", "servers"), "agents": lambda v: "",  # implied by ranks and servers
    "server_share": lambda v: f"{v} of ranks serve", "transport": lambda v: f"transport {v}",
    "notify_shm": lambda v: {"on": "shm mailbox", "off": "--notify-shm off", "unused": "no shm peers", "unavailable": "no shm window"}.get(v, f"notify_shm {v}"),
    "deadlock": lambda v: f"deadlock {v}", "lock_timeout": lambda v: f"lock timeout {v} s",
    "locks_per_txn": lambda v: f"{v} locks/txn", "warehouses": lambda v: _count(v, "warehouse", "warehouses"),
    "accounts": lambda v: _count(v, "account", "accounts"), "duration": lambda v: f"duration {v} s",
    "transactions_per_agent": lambda v: f"{v} txn/agent", "vote_no_prob": lambda v: f"vote no {_pct(v)}",
    "checked": lambda v: {"yes": "checked", "no": "--no-check"}.get(v, f"checked {v}"),
    "model_params": lambda v: f"params {os.path.basename(v)}",
    "host_cores": lambda v: f"{v} cores/host",
    "oversubscribed": lambda v: {"yes": "oversubscribed", "no": "not oversubscribed"}.get(v, f"oversubscribed {v}"),
    "poll_yield": lambda v: {"yes": "polling yields", "no": "polling spins first"}.get(v, f"poll_yield {v}"),
    "mpi_env": lambda v: f"MPI env {v}",
}


def fmt(col, value, all_values=()):
    """One column's value as a reader reads it ('2 hosts', 'window create', 'MPICH 4.0.2'); '' for a
    column that does not apply. all_values: the column's values in the figure (an MPI library name
    gets its build's hash only where two builds share the name)."""
    if col == "mpi":
        name, full = value
        twins = {f for n, f in all_values if n == name}
        return name + (f" build {hashlib.sha1(full.encode()).hexdigest()[:6]}" if len(twins) > 1 else "")
    if value == "":
        return ""
    f = _FORMAT.get(col)
    return f(value) if f else f"{col} {value}"


def label(cfg, cols, all_cfgs=()):
    """The compact name of a configuration by the given columns ('radix, MPICH 4.0.2, 2 hosts'); ''
    without columns (the only configuration of a figure)."""
    parts = [fmt(c, cfg[c], [x[c] for x in all_cfgs if c in x]) for c in cols if c in cfg]
    parts = [p for p in parts if p]
    return ", ".join(parts) if parts else ", ".join(f"{c} {cfg[c] or '-'}" for c in cols if c in cfg and c != "mpi")


def describe(cfg, skip=()):
    """Every non-empty configuration column of cfg as text (the report's 'shared by all' line)."""
    return ", ".join(p for p in (fmt(c, v, [v]) for c, v in cfg.items() if c not in skip) if p)
