"""The catalogue figures' common parts (rmaplots.figures and figures_ch3/4/5): Result (what an entry
drew, every value with the rows it is the median of), medians and groups of rows, and the drawing
helpers (lines, stacked and grouped bars, axes, thesis lines, saving)."""
import os
import re

import numpy as np

from . import data, regimes, safeio, style

JOIN_PHASES = {"radix": ["histogram", "window_alloc", "network_partition", "local_partition", "build_probe"],
               "sortmerge": ["partition", "window_alloc", "sort", "merge", "match"]}
TXN_PARTS = [("lock", "lat_txn_lock_us"), ("data", "lat_txn_data_us"), ("vote", "lat_txn_vote_us"),
             ("end", "lat_txn_end_us")]
# on top of a join's phases: its time at barriers for the slowest rank (wait), then the thesis'
# imbalance (slowest rank's total minus the summed average phases); together the slowest rank's total
SYNC_PARTS = [("wait", "t_wait_avg"), ("imbalance", "t_imbalance_avg")]
REQ_PARTS = [("rtt", "lat_req_rtt_us"), ("queue", "lat_req_queue_us"), ("server", "lat_req_server_us")]
TPCC_TYPES = ("new_order", "payment", "order_status", "delivery", "stock_level")


class Result:
    """What an entry drew: files, values {(what, series, x): number}, sources {same key: (rows, column)}
    of the values that are a median over rows (the others are derived: normalised, thesis, params),
    the table lines, notes and the one-line comparison with the thesis."""

    def __init__(self, entry):
        self.entry, self.files, self.values, self.sources, self.lines, self.compare, self.notes = \
            entry, [], {}, {}, [], "", []
        self.drawn = []  # (axes, series label, style.runs_line points) of every line drawn
        self.machine = None  # regimes.Machine of the rows the lines were drawn from

    def keep(self, what, series, x, v):
        if v is not None:
            self.values[(what, series, x)] = v
        return v

    def median(self, what, series, x, rows, col):
        """The median of col over rows, kept as the value (what, series, x) with its rows."""
        v = self.keep(what, series, x, med(rows, col))
        if v is not None:
            self.sources[(what, series, x)] = (list(rows), col)
        return v

    def flags(self, ax):
        """Legend entries for the marked points of the lines drawn on ax (style.flag_handles)."""
        return style.flag_handles(self.machine, [p for a, _, p in self.drawn if a is ax]) if self.machine else []

    def marks(self):
        """One line per marked point of every line drawn: which, where (x and the axis' label), why."""
        out = []
        for ax, lab, pts in self.drawn:
            ranks = ax.get_xlabel().startswith("MPI ranks")
            out += [f"{lab or 'the line'} at {style.count(int(x), 'rank') if ranks else f'{x:g} ({ax.get_xlabel()})'}: "
                    f"{self.machine.why(k)}" for x, _, k, _ in pts or [] if k is not None and k.flagged]
        return list(dict.fromkeys(out))


def fmt_num(v, nd=3):
    return "—" if v is None else f"{v:.{nd}f}"


def med(rows, col):
    return data.median(data.values(rows, col))


def groups(rows, key):
    """{key(row): rows} in sorted key order (numbers before words)."""
    out = {}
    for r in rows:
        out.setdefault(key(r), []).append(r)
    return dict(sorted(out.items(), key=lambda kv: tuple((0, x, "") if isinstance(x, (int, float)) else (1, 0, str(x))
                                                         for x in (kv[0] if isinstance(kv[0], tuple) else (kv[0],)))))


def num(r, col):
    v = data.num(r, col)
    return v if v is not None else 0.0


def joins(rows, algo=None, **eq):
    out = [r for r in data.joins(rows) if (algo is None or r["algo"] == algo)]
    for c, v in eq.items():
        out = [r for r in out if data.num(r, c) == float(v)]
    return out


def locks(rows, workload=None):
    return [r for r in data.locks(rows) if workload is None or r.get("workload") == workload]


def fmt_size(n):
    for div, suf in ((1 << 20, "Mi"), (1 << 10, "Ki")):
        if n >= div and n % div == 0:
            return f"{n // div:g} {suf}B"
    return f"{n:g} B"


def fmt_count(n):
    for div, suf in ((1e9, "G"), (1e6, "M"), (1e3, "K")):
        if n >= div:
            return f"{n / div:g}{suf}"
    return f"{n:g}"


def lines(ax, res, rows, x, series, col, scale=1.0, what=None, label=str, machine=None, color=None):
    """One line per series value (style.runs_line): at each x the median of col over the runs, the
    runs themselves and their range, each point marked by what its runs measured (machine: a
    regimes.Machine; by default the entry's, figures.draw: of all its verified rows). col: a column,
    kept as a median of rows (Result.median), or a function of a row (a derived value, kept as such);
    color: the series value's colour (style.COLORS where the thesis' series share it), else by order. Returns [(series value, runs_line points)]."""
    if machine is not None or res.machine is None:
        res.machine = machine or regimes.Machine(rows)
    out = []
    for i, (s, rs) in enumerate(groups(rows, series).items()):
        pts = []
        for xv, g in groups(rs, x).items():
            vals = [v for v in (col(r) for r in g) if v is not None] if callable(col) else data.values(g, col)
            if not vals:
                continue
            if callable(col):
                res.keep(what, s, xv, data.median(vals))
            else:
                res.median(what or col, s, xv, g, col)
            pts.append((xv, g, vals))
        c = color(s) if color else style.CYCLE[i % len(style.CYCLE)]
        got = style.runs_line(ax, pts, label(s), c, style.MARKERS[i % len(style.MARKERS)],
                              scale=scale, machine=res.machine)
        res.drawn.append((ax, label(s), got))
        out.append((s, got))
    ax.set_ylim(bottom=0)
    ax.grid(alpha=0.3)
    return out


def log2_axis(ax, xs, fmt=lambda v: f"{v:g}"):
    xs = sorted(set(xs))
    ax.set_xscale("log", base=2)
    ax.set_xticks(xs, [fmt(v) for v in xs])
    ax.minorticks_off()
    if len(xs) == 1:
        ax.set_xlim(xs[0] / 1.5, xs[0] * 1.5)


def stacked(ax, res, rows, x, parts, what, xfmt=str, horizontal=False):
    """Stacked bars of the medians of parts [(name, column)] at each x (categories)."""
    gs = groups(rows, x)
    pos = np.arange(len(gs))
    base = np.zeros(len(gs))
    for name, col in parts:
        h = np.array([res.median(what, name, xv, g, col) or 0.0 for xv, g in gs.items()])
        kw = dict(label=name, color=style.PHASE_COLORS.get(name), hatch={"imbalance": "//", "wait": ".."}.get(name))
        if horizontal:
            ax.barh(pos, h, 0.6, left=base, **kw)
        else:
            ax.bar(pos, h, 0.6, bottom=base, **kw)
        base += h
    if horizontal:
        ax.set_yticks(pos, [xfmt(v) for v in gs], fontsize=7)
    else:
        ax.set_xticks(pos, [xfmt(v) for v in gs])
    ax.grid(axis="x" if horizontal else "y", alpha=0.3)
    return list(gs)


def grouped(ax, res, rows, cat, bar, col, what, scale=1.0, catfmt=str, barfmt=str, overlay=None):
    """Grouped bars: one group per cat value, one bar per bar value, height the median of col; overlay
    (column): its median drawn hatched over the top of each bar (a part of the bar, e.g. imbalance)."""
    cats = list(groups(rows, cat))
    bars = list(groups(rows, bar))
    w = 0.8 / max(1, len(bars))
    for j, b in enumerate(bars):
        for i, c in enumerate(cats):
            g = [r for r in rows if cat(r) == c and bar(r) == b]
            v = res.median(what, b, c, g, col)
            if v is None:
                continue
            ax.bar(i + (j - (len(bars) - 1) / 2) * w, v * scale, w * 0.95, color=style.CYCLE[j % len(style.CYCLE)],
                   label=barfmt(b) if i == 0 else None)
            if overlay:
                o = res.median(overlay, b, c, g, overlay) or 0.0
                ax.bar(i + (j - (len(bars) - 1) / 2) * w, o * scale, w * 0.95, bottom=(v - o) * scale, fill=False,
                       hatch="//", edgecolor="#333333", label=("imbalance (max − avg)" if i == 0 and j == 0 else None))
    ax.set_xticks(range(len(cats)), [catfmt(c) for c in cats])
    ax.grid(axis="y", alpha=0.3)


def label_and_save(res, fig, ax, outdir, xlabel, ylabel, title, extra=()):
    """Axis labels, the legend beside the axes (with the marks of the points drawn, and extra entries),
    the title; saved."""
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    style.legend(ax, extra=res.flags(ax) + list(extra))
    style.title(fig, title)
    save(res, fig, outdir)


def panel(res, ax, xlabel, ylabel, title):
    """One panel of a figure of several: labels, its title, its legend below it."""
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title, fontsize=9)
    style.legend(ax, below=True, extra=res.flags(ax))


def title_and_save(res, fig, outdir, title, height):
    """The figure's title, its height (room for legends below the axes); saved."""
    style.title(fig, title)
    fig.set_figheight(height)
    save(res, fig, outdir)


def log_y(ax):
    """A log y axis from half the smallest to twice the largest point of its lines (error bars that
    reach 0 would take it to 0)."""
    ys = [y for ln in ax.get_lines() for y in ln.get_ydata() if y > 0]
    ax.set_yscale("log")
    if ys:
        lo = min(ys) / 2
        ax.set_ylim(lo, max(ys) * 2)
        for c in ax.collections:  # error bars down to 0 end at the axis, not at log(0)
            if hasattr(c, "get_segments"):
                c.set_segments([np.column_stack([seg[:, 0], np.maximum(seg[:, 1], lo)]) for seg in c.get_segments()])


def thesis_line(ax, xs, ys, text, color="#555555"):
    """The thesis' values as a dashed line; the y axis grows to hold them (lines() fixed it at 0)."""
    ax.plot(xs, ys, linestyle="--", color=color, marker="x", label=text)
    ax.set_autoscaley_on(True)
    ax.relim()
    ax.autoscale_view(scalex=False)
    if ax.get_yscale() == "linear":
        ax.set_ylim(bottom=0)


def save(res, fig, outdir, suffix=""):
    res.files.append(style.save(fig, outdir, res.entry.id.replace(".", "_") + suffix))


def join_title(rows):
    t = sorted({r["tuples_per_rank"] for r in rows})
    return f"{', '.join(fmt_count(float(x)) for x in t)} tuples/rank"


# --- chapter 3 --------------------------------------------------------------------------------------
def params_value(params, name):
    """A value of a calibrate params file ('name value ...' or 'name = value'); None when absent."""
    if not params or not os.path.isfile(params):
        return None
    for ln in safeio.read_text(params).decode("utf-8", "replace").splitlines():
        m = re.match(rf"\s*{re.escape(name)}\s*[=:\s]\s*([0-9.eE+-]+)", ln)
        if m:
            try:
                return float(m.group(1))
            except ValueError:
                return None
    return None

def phases_by(res, rows, outdir, algo, x, xlabel, title, xfmt=str):
    a = [r for r in rows if r["algo"] == algo]
    if not a:
        return res.notes.append(f"no verified {algo} runs")
    fig, (ax,) = style.figure(width=6.0, height=3.8)
    parts = [(p, f"t_{p}_avg") for p in JOIN_PHASES[algo]] + SYNC_PARTS
    keys = stacked(ax, res, a, x, parts, f"{algo} phases", xfmt)
    shade = []
    if xlabel == "MPI ranks":  # bars per rank count: oversubscribed ones say so, slower states shaded
        suffix, shaded, notes = style.mark_bars([ax], groups(a, x), res.machine, 0.4)
        ax.set_xticks(range(len(keys)), [f"{xfmt(k)}{o}" for k, o in zip(keys, suffix)])
        res.notes += notes
        shade = [style.shade_entry(res.machine)] if shaded else []
    label_and_save(res, fig, ax, outdir, xlabel, "time [s], average over ranks", title, shade)

def largest_total(rows):
    rs = joins(rows)
    big = max((num(r, "r_tuples") for r in rs), default=0)
    return [r for r in rs if num(r, "r_tuples") == big], big

def phase_share(res, what, phase, name):
    v = {}
    for (w, p, x), m in res.values.items():
        if w == what:
            v.setdefault(x, {})[p] = m
    if not v:
        return ""
    x = max(v)
    tot = sum(v[x].values()) or 1.0
    return f"{name} is {100 * v[x].get(phase, 0) / tot:.0f}% of the time at {x} ranks (ours)"
