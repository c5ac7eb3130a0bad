"""What a point measured beyond its configuration: whether its ranks outnumbered the host's cores, and
which state of the machine each of its runs met. Two states move results without any flag changing:
the cache-line floor between two cores (a virtual machine's host places its virtual CPUs close or apart: every
lock round trip moves with it) and window allocation's page regime (pages reused at once, or returned
through the host and faulted back: the window_alloc phase's time per byte moves several-fold).

This module is the one place that reads them from a row. Explicit columns win where the CSV has
them (FLOOR_COLUMNS, ALLOC_RATE_COLUMNS, ALLOC_STATE_COLUMNS); otherwise they are derived from the
columns every row has: the floor from floor_rtt_us (lock runs measure it before they start; one above
the run's median round trip was disturbed, and is left out), the allocation rate from
t_window_alloc_avg over the window bytes a rank allocates ((r_tuples + s_tuples) / ranks tuples of 8
bytes packed, compress = 1, or 16). Either may be absent: then the point carries no regime of that
kind.

Regimes are found in the values themselves, not at a fixed threshold: the values a figure's runs
read are sorted and split at their widest gap when the two sides lie at least a factor GAP apart,
so a machine whose floor only wanders has one regime and no point is marked (docs/figures.md gives
the values seen)."""
import math
import statistics

from . import data

# the per-run columns that hold them (docs/columns.md); the derived values stand in for the first two
# where a row lacks them
FLOOR_COLUMNS = ("floor_rtt_us",)
ALLOC_RATE_COLUMNS = ("alloc_s_per_gb",)
ALLOC_STATE_COLUMNS = ("alloc_regime",)
EXPLICIT = FLOOR_COLUMNS + ALLOC_RATE_COLUMNS + ALLOC_STATE_COLUMNS  # measured, never configuration (config.py)
# below this many window bytes per rank the allocation's fixed costs (collectives, a few ms) hide
# the per-byte rate: no regime is derived
MIN_WINDOW_BYTES = 4 << 20
GAP = {"floor": 2.0, "alloc": 2.5}
UNIT = {"floor": "us", "alloc": "s/GB"}
WHAT = {"floor": "cache-line floor", "alloc": "window allocation"}


def oversubscribed(r):
    """True when the run's ranks on a host outnumbered its cores (the CSV's oversubscribed column, or
    ranks_per_host above host_cores in rows without it); None when the row does not say."""
    v = (r.get("oversubscribed") or "").strip()
    if v in ("yes", "no"):
        return v == "yes"
    rph, cores = data.num(r, "ranks_per_host"), data.num(r, "host_cores")
    return None if rph is None or not cores else rph > cores


def _first(r, cols):
    for c in cols:
        v = data.num(r, c)
        if v is not None and v > 0:
            return v
    return None


def floor_us(r):
    """The cache-line round trip the run measured [us], or None. A floor above the run's own median
    request round trip was not the floor the run stood on: the two ranks did not run at once while it
    was measured (cores shared with other jobs), so it reads None."""
    v = _first(r, FLOOR_COLUMNS)
    rtt = data.num(r, "lat_req_rtt_median_us")
    return None if v is None or (rtt is not None and v > rtt) else v


def floor_disturbed(r):
    """The floor a run measured that floor_us() leaves out (above the run's round trip), or None."""
    v = _first(r, FLOOR_COLUMNS)
    return v if v is not None and floor_us(r) is None else None


def window_bytes_per_rank(r):
    """Bytes of window one rank allocates in a join (its share of R and S as received), or None for
    rows without a window (the reference join, lock runs)."""
    if r.get("bench") != "join" or r.get("algo") not in ("radix", "sortmerge"):
        return None
    tuples, ranks = (data.num(r, "r_tuples") or 0) + (data.num(r, "s_tuples") or 0), data.num(r, "ranks")
    if not tuples or not ranks:
        return None
    return tuples / ranks * (8 if (r.get("compress") or "").strip() == "1" else 16)


def alloc_s_per_gb(r):
    """Seconds per GB of window the run's window_alloc phase took, or None (no window, too small a
    window to tell, no time, or windows a later run reused: --window-life pool or dynamic after the
    process's first join). A row's own alloc_s_per_gb wins over the derived rate; too small a
    window hides the rate in either."""
    b = window_bytes_per_rank(r)
    if b is not None and b < MIN_WINDOW_BYTES:
        return None
    if r.get("window_life") in ("pool", "dynamic") and r.get("query_state") == "steady":
        return None
    v = _first(r, ALLOC_RATE_COLUMNS)
    if v is not None:
        return v
    t = data.num(r, "t_window_alloc_avg")
    if b is None or t is None or t <= 0:
        return None
    return t / (b / 1e9)


def _value(r, kind):
    return floor_us(r) if kind == "floor" else alloc_s_per_gb(r)


def split(values, gap):
    """The threshold between two regimes among values (the geometric middle of their widest gap), or
    None when the widest gap is narrower than the factor gap (one regime)."""
    xs = sorted(v for v in values if v and v > 0)
    if len(xs) < 2:
        return None
    ratio, i = max((b / a, i) for i, (a, b) in enumerate(zip(xs, xs[1:])))
    return math.sqrt(xs[i] * xs[i + 1]) if ratio >= gap else None


class Regime:
    """One kind of machine state (floor, alloc) among a set of rows: the threshold between its low and
    high regime (None: one regime), and the range of values each side read."""

    def __init__(self, kind, rows, labels=None):
        self.kind = kind
        self.labels = labels or {}  # explicit regime of a row (id -> 'low'/'high'), ALLOC_STATE_COLUMNS
        rows = [(r, _value(r, kind)) for r in rows]
        # the rows without an explicit regime (joins without --model) are split by their values
        self.threshold = split([v for r, v in rows if v is not None and id(r) not in self.labels], GAP[kind])
        self.two = self.threshold is not None or len(set(self.labels.values())) > 1
        sides = [(self.state(r), v) for r, v in rows if v is not None]
        self.low = [v for side, v in sides if side != "high"]
        self.high = [v for side, v in sides if side == "high"]

    def state(self, r):
        """'low', 'high' or None (one regime, or the row has no value)."""
        if id(r) in self.labels:
            return self.labels[id(r)] if self.two else None
        v = _value(r, self.kind)
        if v is None or self.threshold is None:
            return None
        return "high" if v >= self.threshold else "low"

    def text(self, side=None):
        """'cache-line floor 0.09-0.12 us against 0.48-0.52 us' (side: that side's range only)."""
        def rng(xs):
            if not xs:
                return "?"
            lo, hi = min(xs), max(xs)
            f = (lambda x: f"{x:.2f}") if self.kind == "floor" else (lambda x: f"{x:.2g}" if x < 10 else f"{x:.0f}")
            return f"{f(lo)}" if f(lo) == f(hi) else f"{f(lo)}-{f(hi)}"
        u = UNIT[self.kind]
        if side == "high":
            return f"{WHAT[self.kind]} {rng(self.high)} {u}"
        if side == "low":
            return f"{WHAT[self.kind]} {rng(self.low)} {u}"
        return f"{WHAT[self.kind]} {rng(self.high)} {u} against {rng(self.low)} {u}"


def _explicit_labels(rows):
    """{id(row): 'low'/'high'} from an explicit allocation regime column, ordered by the derived rate
    where rows have one (the regime whose runs allocated slower per byte is 'high'), else by name
    (one that names the host, returned pages, faults or slowness is 'high')."""
    col = next((c for c in ALLOC_STATE_COLUMNS if any((r.get(c) or "").strip() for r in rows)), None)
    if not col:
        return {}
    names = {}
    for r in rows:
        n = (r.get(col) or "").strip()
        b = window_bytes_per_rank(r)
        if n and (b is None or b >= MIN_WINDOW_BYTES):  # too small a window to tell its state
            names.setdefault(n, []).append(r)
    rate = {n: statistics.median([v for v in (alloc_s_per_gb(r) for r in rs) if v is not None] or [0.0])
            for n, rs in names.items()}
    # without rates, a name that says pages went through the host (or slow) is the slower regime
    slowish = lambda n: any(w in n.lower() for w in ("slow", "host", "return", "fault"))  # noqa: E731
    order = sorted(names, key=lambda n: (rate[n], slowish(n), n))
    return {id(r): ("low" if n == order[0] else "high") for n, rs in names.items() for r in rs}


class Point:
    """What the runs of one point met: oversub (ranks beyond the cores in any run), and per kind of
    regime the states its runs read: slow (all in the high regime), mixed (runs in both)."""

    def __init__(self, oversub, states):
        self.oversub = oversub
        self.slow = sorted(k for k, s in states.items() if s == {"high"})
        self.mixed = sorted(k for k, s in states.items() if s == {"low", "high"})

    @property
    def flagged(self):
        return self.oversub or bool(self.slow) or bool(self.mixed)

    @property
    def state(self):
        """The machine state all its runs met (the kinds in the slower regime), None when its runs
        were oversubscribed or met two states: no state to compare it in."""
        return None if self.oversub or self.mixed else tuple(self.slow)


def comparable(points):
    """Which of points (regimes.Point or None each) compare as scaling: not oversubscribed, runs in one
    state, and that state the one most of them share (the faster where as many share each). Returns
    ([bool per point], the slower kinds of that state: () for the faster)."""
    states = [None if p is None else p.state for p in points]
    counts = {}
    for s in states:
        if s is not None:
            counts[s] = counts.get(s, 0) + 1
    if not counts:
        return [p is None for p in points], ()
    best = max(counts, key=lambda s: (counts[s], -len(s)))
    return [p is None or s == best for p, s in zip(points, states)], best


class Machine:
    """The machine states a figure's rows met. Machine(rows).point(runs) says how one point's runs
    stand; legend() names the marks a figure needs."""

    def __init__(self, rows):
        rows = list(rows)
        self.regimes = {"floor": Regime("floor", rows), "alloc": Regime("alloc", rows, _explicit_labels(rows))}
        self.oversub = [r for r in rows if oversubscribed(r)]

    def point(self, runs):
        states = {}
        for k, reg in self.regimes.items():
            s = {reg.state(r) for r in runs} - {None}
            if s:
                states[k] = s
        return Point(any(oversubscribed(r) for r in runs), states)

    def why(self, p):
        """One line per reason a point is not like the others ('' when it is)."""
        out = []
        if p.oversub:
            out.append("more ranks than cores (oversubscribed): ranks share cores")
        out += [f"in the slower regime: {self.regimes[k].text('high')} (others {self.regimes[k].text('low').split(' ', 2)[-1]})"
                for k in p.slow]
        out += [f"runs in two regimes: {self.regimes[k].text()}" for k in p.mixed]
        return "; ".join(out)

    def kinds(self):
        """The kinds of regime with two regimes among these rows."""
        return [k for k, reg in self.regimes.items() if reg.two]


def cores_text(rows):
    """'2 cores/host' of rows (the distinct host_cores values), '' when unrecorded."""
    v = sorted({r.get("host_cores", "") for r in rows} - {""}, key=lambda x: float(x) if x.replace(".", "").isdigit() else 0)
    return f"{'/'.join(v)} cores/host" if v else ""
