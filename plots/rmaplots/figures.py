"""The catalogue's figures and tables (rmaplots.catalogue; `rmaplot figure ID`): each draws from the
rows of its sweep the medians over runs of one point (a point groups the rows that agree in the
entry's x and series columns; a sweep's CSV holds nothing else that varies), puts the thesis' numbers
beside ours where the thesis gives them (rmaplots.thesis, labelled with its machine), and says in one
line how ours compares. Every value it draws or tabulates is kept in Result.values
({(what, series, x): median}) so that a test can check them against the rows."""
import os
import re

import numpy as np
from matplotlib.ticker import MaxNLocator

from . import catalogue, data, safeio, style, thesis

JOIN_PHASES = {"radix": ["histogram", "window_alloc", "network_partition", "local_partition", "build_probe"],
               "sortmerge": ["partition", "window_alloc", "sort", "merge", "match"]}
TXN_PARTS = [("lock", "lat_txn_lock_us"), ("data", "lat_txn_data_us"), ("vote", "lat_txn_vote_us"),
             ("end", "lat_txn_end_us")]
REQ_PARTS = [("rtt", "lat_req_rtt_us"), ("queue", "lat_req_queue_us"), ("server", "lat_req_server_us")]
TPCC_TYPES = ("new_order", "payment", "order_status", "delivery", "stock_level")


class Result:
    """What an entry drew: files, values {(what, series, x): number}, sources {same key: (rows, column)}
    of the values that are a median over rows (the others are derived: normalised, thesis, params),
    the table lines, notes and the one-line comparison with the thesis."""

    def __init__(self, entry):
        self.entry, self.files, self.values, self.sources, self.lines, self.compare, self.notes = \
            entry, [], {}, {}, [], "", []

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


def _f(v, nd=3):
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


def _size(n):
    for div, suf in ((1 << 20, "Mi"), (1 << 10, "Ki")):
        if n >= div and n % div == 0:
            return f"{n // div:g} {suf}B"
    return f"{n:g} B"


def _count(n):
    for div, suf in ((1e9, "G"), (1e6, "M"), (1e3, "K")):
        if n >= div:
            return f"{n / div:g}{suf}"
    return f"{n:g}"


def lines(ax, res, rows, x, series, col, scale=1.0, what=None, label=str):
    """One line per series value: the median of col at each x (error bars: data.interval)."""
    for i, (s, rs) in enumerate(groups(rows, series).items()):
        pts = []
        for xv, g in groups(rs, x).items():
            m, lo, hi, _ = data.interval(data.values(g, col))
            if m is None:
                continue
            res.median(what or col, s, xv, g, col)
            pts.append((xv, m * scale, max(0, (m - lo) * scale), max(0, (hi - m) * scale)))
        if pts:
            ax.errorbar([p[0] for p in pts], [p[1] for p in pts], yerr=[[p[2] for p in pts], [p[3] for p in pts]],
                        capsize=3, label=label(s), color=style.CYCLE[i % len(style.CYCLE)],
                        marker=style.MARKERS[i % len(style.MARKERS)])
    ax.set_ylim(bottom=0)
    ax.grid(alpha=0.3)


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
        kw = dict(label=name, color=style.PHASE_COLORS.get(name), hatch="//" if name == "imbalance" else None)
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


def label_and_save(res, fig, ax, outdir, xlabel, ylabel, title):
    """Axis labels, the legend beside the axes, the title; saved."""
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    style.legend(ax)
    style.title(fig, title)
    save(res, fig, outdir)


def panel(ax, xlabel, ylabel, title):
    """One panel of a figure of several: labels, its title, its legend below it."""
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title, fontsize=9)
    style.legend(ax, below=True)


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
    return f"{', '.join(_count(float(x)) for x in t)} tuples/rank"


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


PUT_CURVE_SIZES = (64, 256, 1024, 4096, 16384, 65536, 262144, 1048576)  # model/params.h PUT_CURVE_SIZES


def fig3_7(res, rows, outdir, params):
    rs = [r for r in joins(rows, "radix") if data.num(r, "buffers_per_partition") == 2]
    if not rs:
        return res.notes.append("no radix runs with 2 buffers per partition")
    fig, (ax,) = style.figure(width=6.5, height=4.2)
    lines(ax, res, rs, lambda r: num(r, "buffer_size"), lambda r: "radix network pass", "t_network_partition_gbs",
          label=lambda s: "ours: radix network pass, GB/s per rank")
    xs = sorted({num(r, "buffer_size") for r in rs})
    # calibrate's MPI_Put curve (Fig 3.7 proper): one message size per point, all ranks of a host
    # sending; bw_put_<bytes> within a host, bw_put_host_<bytes> between hosts (multi-host calibrations)
    for prefix, what, c in (("bw_put_", "within a host", "#2ca02c"), ("bw_put_host_", "between hosts", "#d62728")):
        curve = [(b, params_value(params, f"{prefix}{b}")) for b in PUT_CURVE_SIZES]
        curve = [(b, v) for b, v in curve if v]
        for b, v in curve:
            res.keep(f"{prefix}curve", "calibrate", float(b), v)
        if curve:
            ax.plot([b for b, _ in curve], [v for _, v in curve], "D-", color=c, markersize=5,
                    label=f"ours: calibrate MPI_Put curve {what}, all ranks sending")
            xs = sorted(set(xs) | {float(b) for b, _ in curve})
    bw = params_value(params, "bw_put_intra")
    if bw and not params_value(params, "bw_put_65536"):  # a parameter file from before the curve
        res.keep("bw_put_intra", "calibrate", 65536.0, bw)
        ax.plot([65536], [bw], "D", color="#2ca02c", markersize=8, label=f"ours: calibrate bw_put_intra (64 KiB puts), {bw:.2f} GB/s")
    for net, c in (("FDR", "#555555"), ("QDR", "#999999")):
        v = thesis.NET_PEAK_GBS[net]
        thesis_line(ax, [thesis.NET_FULL_FROM, max(xs + [65536.0])], [v, v],
                    f"thesis: {net} InfiniBand, {v} GB/s between two machines from 8 KiB", c)
    span = xs + [float(thesis.NET_FULL_FROM), 65536.0]
    # a tick every factor of 4 from 64 B: the curve spans 64 B to MiBs, too wide for a label per size
    ticks = [64.0 * 4 ** k for k in range(16) if min(span) / 4 < 64.0 * 4 ** k < max(span) * 4]
    log2_axis(ax, ticks, lambda v: _size(int(v)))
    ax.set_xlabel("message size = send buffer size")
    ax.set_ylabel("bandwidth [GB/s]")
    ax.set_ylim(bottom=0)
    style.legend(ax, below=True)
    title_and_save(res, fig, outdir, f"Put bandwidth against message size (cf. Fig 3.7), {join_title(rs)}, 2 ranks; median of runs", 4.2 + style.legend_height(4))
    best = max((v for (w, _, x), v in res.values.items() if w == "t_network_partition_gbs"), default=None)
    full = [x for (w, _, x), v in res.values.items() if w == "t_network_partition_gbs" and best and v >= 0.9 * best]
    res.notes.append("the calibrate curve is MPI_Put alone per message size (bw_put_<bytes>); the radix line is the "
                     "network pass per send-buffer size (t_network_partition_gbs), which includes its partitioning work")
    if best:
        res.compare = (f"ours reaches 90% of its best network-pass rate ({best:.2f} GB/s per rank) from "
                       f"{_size(int(min(full)))} messages; thesis (FDR/QDR InfiniBand): full bandwidth from 8 KiB")


def fig3_9(res, rows, outdir, params):
    rs = joins(rows)
    fig, axes = style.figure(ncols=2, width=4.2, height=3.8)
    for ax, algo in zip(axes, ("radix", "sortmerge")):
        a = [r for r in rs if r["algo"] == algo]
        lines(ax, res, a, lambda r: num(r, "r_tuples"), lambda r: int(num(r, "ranks")), "t_total_max",
              what=f"{algo} t_total_max", label=lambda s: f"{s} rank" + ("s" if s != 1 else ""))
        if a:
            log2_axis(ax, [num(r, "r_tuples") for r in a], _count)
        panel(ax, "|R| = |S| in total [tuples]", "time [s]", algo)
    style.title(fig, "Distributed against one process, same total input (cf. Fig 3.9); median of runs")
    save(res, fig, outdir)
    parts = []
    for algo in ("radix", "sortmerge"):
        v = {(s, x): m for (w, s, x), m in res.values.items() if w == f"{algo} t_total_max"}
        if not v:
            continue
        big = max(x for _, x in v)
        one = v.get((1, big))
        most = max(s for s, x in v if x == big)
        if one and most != 1 and (most, big) in v:
            parts.append(f"{algo} {most} ranks take {v[(most, big)] / one:.2f}x one rank's time at {_count(big)}"
                         f" (thesis, FDR InfiniBand: at most {1 + thesis.DIST_OVER_ONE[algo]:.2f}x at 4096M)")
    res.compare = "; ".join(parts)


def strong(res, rows, outdir, params, key, what):
    rs = joins(rows)
    fig, axes = style.figure(ncols=2, width=4.2, height=3.8)
    for ax, algo in zip(axes, ("radix", "sortmerge")):
        a = [r for r in rs if r["algo"] == algo]
        lines(ax, res, a, lambda r: num(r, "ranks"), key, "t_total_max", what=f"{algo} t_total_max",
              label=lambda s: s[1])
        if a:
            log2_axis(ax, [num(r, "ranks") for r in a], lambda v: f"{v:g}")
        panel(ax, "MPI ranks", "time [s]", algo)
    title_and_save(res, fig, outdir, f"Strong scaling, {what} (cf. Fig 3.10): fixed totals, median of runs", 3.8 + style.legend_height(4))
    parts = []
    for algo in ("radix", "sortmerge"):
        v = {(s, x): m for (w, s, x), m in res.values.items() if w == f"{algo} t_total_max"}
        for s in sorted({s for s, _ in v}):
            xs = sorted(x for t, x in v if t == s)
            if len(xs) > 1:
                parts.append(f"{algo} {s[1]}: {xs[-1]:g} ranks take {v[(s, xs[-1])] / v[(s, xs[0])]:.2f}x the time of {xs[0]:g}")
    res.compare = "; ".join(parts) + (" (thesis, InfiniBand clusters: time falls sub-linearly with more machines for "
                                      "radix, and doubles with the input: 1.89-2.07x)")


def fig3_10a(res, rows, outdir, params):
    strong(res, rows, outdir, params, lambda r: (num(r, "r_tuples"), f"|R| = |S| = {_count(num(r, 'r_tuples'))}"),
           "large-to-large")


def fig3_10b(res, rows, outdir, params):
    strong(res, rows, outdir, params, lambda r: (num(r, "ratio"), f"1:{num(r, 'ratio'):g}, |S| = "
                                                 f"{_count(num(r, 's_tuples'))}"), "small-to-large")


def phases_by(res, rows, outdir, algo, x, xlabel, title, xfmt=str):
    a = [r for r in rows if r["algo"] == algo]
    if not a:
        return res.notes.append(f"no verified {algo} runs")
    fig, (ax,) = style.figure(width=6.0, height=3.8)
    parts = [(p, f"t_{p}_avg") for p in JOIN_PHASES[algo]] + [("imbalance", "t_imbalance_avg")]
    stacked(ax, res, a, x, parts, f"{algo} phases", xfmt)
    label_and_save(res, fig, ax, outdir, xlabel, "time [s], average over ranks",
                   title)


def _largest_total(rows):
    rs = joins(rows)
    big = max((num(r, "r_tuples") for r in rs), default=0)
    return [r for r in rs if num(r, "r_tuples") == big], big


def fig3_11(res, rows, outdir, params):
    rs, big = _largest_total(rows)
    phases_by(res, rs, outdir, "radix", lambda r: int(num(r, "ranks")), "MPI ranks",
              f"Radix join phases, |R| = |S| = {_count(big)} in total (cf. Fig 3.11); hatched: imbalance; median of runs")
    res.compare = _share(res, "radix phases", "network_partition", "the network pass")


def fig3_12(res, rows, outdir, params):
    rs, big = _largest_total(rows)
    phases_by(res, rs, outdir, "sortmerge", lambda r: int(num(r, "ranks")), "MPI ranks",
              f"Sort-merge join phases, |R| = |S| = {_count(big)} in total (cf. Fig 3.12); hatched: imbalance; median of runs")
    res.compare = _share(res, "sortmerge phases", "sort", "sorting")


def _share(res, what, phase, name):
    v = {}
    for (w, p, x), m in res.values.items():
        if w == what:
            v.setdefault(x, {})[p] = m
    if not v:
        return ""
    x = max(v)
    tot = sum(v[x].values()) or 1.0
    return f"{name} is {100 * v[x].get(phase, 0) / tot:.0f}% of the time at {x} ranks (ours)"


def fig3_16(res, rows, outdir, params):
    rs = joins(rows, "radix")
    fig, (ax,) = style.figure(width=6.0, height=3.8)
    grouped(ax, res, rs, lambda r: int(num(r, "hosts")), lambda r: int(num(r, "ranks_per_host")),
            "t_network_partition_max", "t_network_partition_max", catfmt=lambda c: f"{c} host" + ("s" if c != 1 else ""),
            barfmt=lambda b: f"{b} ranks/host")
    label_and_save(res, fig, ax, outdir, "hosts", "network pass [s], slowest rank",
                   f"Network-partitioning pass at 4 and 8 ranks per host (cf. Fig 3.16), {join_title(rs)}; median of runs")
    v = {(b, c): m for (w, b, c), m in res.values.items()}
    for c in sorted({c for _, c in v}):
        if (4, c) in v and (8, c) in v:
            res.compare = (f"on {c} host(s) 8 ranks/host take {v[(8, c)] / v[(4, c)]:.2f}x the network-pass time of 4 "
                           "(thesis, QDR InfiniBand: 8 no faster than 4 from 5 machines on: the network is saturated)")
    if any(c == 1 for _, c in v):
        res.notes.append("locally all ranks share one host (and 2 cores): the pass measures shared memory, not a network")


def skew(res, rows, outdir, params):
    rs = joins(rows)
    fig, axes = style.figure(ncols=2, width=4.4, height=3.8)
    for ax, algo, col in zip(axes, ("radix", "sortmerge"), ("assign", "ranges")):
        a = [r for r in rs if r["algo"] == algo]
        grouped(ax, res, a, lambda r: num(r, "skew"), lambda r, c=col: r.get(c, ""), "t_total_max", f"{algo} t_total_max",
                catfmt=lambda c: "uniform" if c == 0 else f"Zipf {c:g}", barfmt=lambda b, c=col: f"{c} {b}",
                overlay="t_imbalance_max")
        panel(ax, "skew of S's references to R", "time [s], slowest rank", algo)
    title_and_save(res, fig, outdir, "Skew (cf. §3.4.5): hatched top = imbalance (max − average over ranks); median of runs", 3.8 + style.legend_height(3))
    parts = []
    for algo, a, b in (("radix", "round-robin", "sized"), ("sortmerge", "equal", "splitters")):
        v = {(s, c): m for (w, s, c), m in res.values.items() if w == f"{algo} t_total_max"}
        z = max((c for _, c in v), default=None)
        if z is not None and (a, z) in v and (b, z) in v:
            parts.append(f"{algo} at Zipf {z:g}: {b} takes {v[(b, z)] / v[(a, z)]:.2f}x the time of {a}")
    res.notes.append("the CSV holds the imbalance over ranks (max − average), not each rank's time")
    res.compare = "; ".join(parts) + " (thesis: no table; skew handling evens the ranks' shares)"


def fanout(res, rows, outdir, params):
    rs = joins(rows, "radix")
    fig, (ax,) = style.figure(width=6.0, height=3.8)
    phases_parts = [(p, f"t_{p}_avg") for p in JOIN_PHASES["radix"]] + [("imbalance", "t_imbalance_avg")]
    stacked(ax, res, rs, lambda r: int(num(r, "radix_bits")), phases_parts, "radix phases")
    label_and_save(res, fig, ax, outdir, "network fan-out [radix bits]", "time [s], average over ranks",
                   f"Radix join against the network fan-out, {join_title(rs)}, 2 ranks; hatched: imbalance; median of runs")
    tot = {}
    for (w, p, x), m in res.values.items():
        tot[x] = tot.get(x, 0) + m
    if tot:
        best = min(tot, key=tot.get)
        res.compare = f"fastest at {best} radix bits ({tot[best]:.3f} s); the thesis uses enough partitions for every core"


def buffers(res, rows, outdir, params):
    rs = joins(rows, "radix")
    fig, (ax,) = style.figure(width=6.0, height=3.8)
    lines(ax, res, rs, lambda r: num(r, "buffer_size"), lambda r: int(num(r, "buffers_per_partition")), "t_total_max",
          label=lambda s: f"{s} buffer{'s' if s != 1 else ''} per partition")
    if rs:
        log2_axis(ax, [num(r, "buffer_size") for r in rs], lambda v: _size(int(v)))
    label_and_save(res, fig, ax, outdir, "send buffer size", "time [s], slowest rank",
                   f"Radix join against send-buffer size and count, {join_title(rs)}, 2 ranks; median of runs")
    v = {(s, x): m for (w, s, x), m in res.values.items()}
    if v:
        (s, x) = min(v, key=v.get)
        res.compare = f"fastest with {s} buffer(s) of {_size(int(x))} (the thesis fixes 64 KiB, 2 per partition)"


# --- chapter 4 --------------------------------------------------------------------------------------
def throughput_axes(res, fig, ax, xs, outdir, title, entries):
    """The join throughput figures' rank axis, labels, legend below for `entries` lines, title; saved."""
    if xs:
        log2_axis(ax, xs)
    ax.set_xlabel("MPI ranks")
    ax.set_ylabel("throughput [M input tuples/s]")
    style.legend(ax, below=True)
    title_and_save(res, fig, outdir, title, 4.0 + style.legend_height(entries))


def fig4_2(res, rows, outdir, params):
    rs = joins(rows)
    fig, (ax,) = style.figure(width=6.5, height=4.0)
    lines(ax, res, rs, lambda r: num(r, "ranks"), lambda r: r["algo"], "throughput", 1e-6, label=lambda s: f"ours: {s}")
    xs = sorted({num(r, "ranks") for r in rs})
    per = thesis.JOIN_PEAK["tuples_per_s"] / thesis.JOIN_PEAK["ranks"]
    if xs:
        thesis_line(ax, xs, [per * x * 1e-6 for x in xs], f"{thesis.ARIES}: {per / 1e6:.1f} M/s per rank "
                    f"(48.7 G/s at 4096 ranks), scaled to these ranks")
    throughput_axes(res, fig, ax, xs, outdir, f"Join throughput against ranks (cf. Fig 4.2), {join_title(rs)}, 1:1; "
                    f"median of runs, {data.CI_TEXT}", 3)
    best = max(((m / x, s, x) for (w, s, x), m in res.values.items()), default=None)
    if best:
        res.compare = (f"best per rank: {best[1]} {best[0] / 1e6:.1f} M tuples/s per rank at "
                       f"{style.count(int(best[2]), 'rank')}, "
                       f"{best[0] / per:.2f}x the thesis' {per / 1e6:.1f} M/s per rank ({thesis.ARIES})")


def fig_phases_weak(res, rows, outdir, algo, fig_id):
    rs = joins(rows, algo)
    phases_by(res, rs, outdir, algo, lambda r: int(num(r, "ranks")), "MPI ranks",
              f"{algo} join phases per rank count (cf. {fig_id}), {join_title(rs)}; hatched: imbalance; median of runs")
    t = thesis.TABLE_4_2[algo]
    phase = "network_partition" if algo == "radix" else "sort"
    ours = _share(res, f"{algo} phases", phase, phase)
    res.compare = f"{ours}; thesis at 1024 cores ({thesis.ARIES}): {100 * t[phase][0] / t['total'][0]:.0f}%"


def fig_detail(res, rows, outdir, algo, fig_id, phase):
    rs = joins(rows, algo)
    fig, (ax,) = style.figure(width=6.0, height=3.8)
    parts = [("put", "t_put_avg"), ("flush", "t_flush_avg")]
    stacked(ax, res, rs, lambda r: int(num(r, "ranks")), parts, f"{algo} detail")
    gs = groups(rs, lambda r: int(num(r, "ranks")))
    ph = [res.median(f"{algo} {phase}", phase, x, g, f"t_{phase}_avg") or 0 for x, g in gs.items()]
    ax.plot(range(len(ph)), ph, "kD", markersize=6, linestyle="none", label=f"whole {phase} phase")
    label_and_save(res, fig, ax, outdir, "MPI ranks", "time [s], average over ranks",
                   f"{algo}: MPI_Put and flush/wait inside {phase} (cf. {fig_id}), {join_title(rs)}; median of runs")
    v = {(p, x): m for (w, p, x), m in res.values.items() if w == f"{algo} detail"}
    if v:
        x = max(x for _, x in v)
        res.compare = (f"at {x} ranks put + flush take {100 * (v.get(('put', x), 0) + v.get(('flush', x), 0)) / (res.values.get((f'{algo} {phase}', phase, x)) or 1):.0f}% "
                       f"of {phase} (thesis: MPI_Put costs grow from 2048 cores on, {thesis.ARIES})")


def fig4_5(res, rows, outdir, params):
    rs = [r for r in joins(rows) if num(r, "selectivity") == 1]
    fig, axes = style.figure(ncols=2, width=4.4, height=3.8)
    for ax, algo in zip(axes, ("radix", "sortmerge")):
        a = [r for r in rs if r["algo"] == algo]
        parts = [(p, f"t_{p}_avg") for p in JOIN_PHASES[algo]] + [("imbalance", "t_imbalance_avg")]
        stacked(ax, res, a, lambda r: (-num(r, "tuples_per_rank"), num(r, "ratio")), parts, f"{algo} phases",
                xfmt=lambda k: f"{_count(-k[0])}/{_count(-k[0] * k[1])}")
        ax.set_xlabel("|R|/|S| per rank [tuples]")
        ax.set_ylabel("time [s], average over ranks")
        ax.set_title(algo, fontsize=9)
        style.legend(ax)
    style.title(fig, "Phases per input size (cf. Fig 4.5); hatched: imbalance; median of runs")
    save(res, fig, outdir)
    res.compare = "see table4.1 for the times beside the thesis'"


def fig4_6(res, rows, outdir, params):
    rs = joins(rows)
    fig, (ax,) = style.figure(width=6.5, height=4.0)
    lines(ax, res, rs, lambda r: num(r, "ranks"), lambda r: (r["algo"], int(num(r, "ranks_per_host"))), "throughput",
          1e-6, label=lambda s: f"{s[0]}, {s[1]} rank{'s' if s[1] != 1 else ''}/host")
    throughput_axes(res, fig, ax, sorted({num(r, "ranks") for r in rs}), outdir,
                    f"Scale-out and scale-up (cf. Fig 4.6), {join_title(rs)}; median of runs", 6)
    hosts = {r["hosts"] for r in rs}
    if hosts == {"1"}:
        res.notes.append("locally every run is on one host: ranks per host = ranks, so each line has one point")
    res.compare = "thesis (Cray XC40, Aries): 4 ranks per node gives the highest throughput"


def table4_1(res, rows, outdir, params):
    rs = joins(rows)
    gs = groups(rs, lambda r: (-num(r, "tuples_per_rank"), num(r, "ratio"), -num(r, "selectivity")))
    out = ["| R/S per rank | output/rank | radix [s] | sort-merge [s] | radix rel. | sort-merge rel. | "
           f"{thesis.ARIES}: R/S per core | radix [s] | sort-merge [s] | radix rel. | sort-merge rel. |",
           "|---|---|---|---|---|---|---|---|---|---|---|"]
    first = {}
    for i, ((nt, q, ns), g) in enumerate(gs.items()):
        t = {a: res.median("t_total_max", a, (nt, q, ns), [r for r in g if r["algo"] == a], "t_total_max")
             for a in ("radix", "sortmerge")}
        if i == 0:
            first = t
        rel = {a: (t[a] / first[a] if t[a] and first.get(a) else None) for a in t}
        th = thesis.TABLE_4_1[i] if i < len(thesis.TABLE_4_1) else None
        tcell = "| — | — | — | — | — |" if th is None else (
            f"| {_count(th[0])}/{_count(th[1])} | {th[3]:.2f} ± {th[4]:.2f} | {th[5]:.2f} ± {th[6]:.2f} | "
            f"{th[3] / thesis.TABLE_4_1[0][3]:.2f} | {th[5] / thesis.TABLE_4_1[0][5]:.2f} |")
        out.append(f"| {_count(-nt)}/{_count(-nt * q)} | {_count(-nt * q * -ns)} | {_f(t['radix'])} | {_f(t['sortmerge'])} "
                   f"| {_f(rel['radix'], 2)} | {_f(rel['sortmerge'], 2)} {tcell}")
    res.lines = ["Medians over runs of the slowest rank's time at " +
                 ", ".join(sorted({r['ranks'] for r in rs})) + " ranks; rel.: time over the first row's.", ""] + out
    v = res.values
    last = list(gs)[2] if len(gs) > 2 else None
    if last and v.get(("t_total_max", "radix", last)) and first.get("radix"):
        res.compare = (f"R shrunk to a quarter (S fixed): ours takes {v[('t_total_max', 'radix', last)] / first['radix']:.2f}x "
                       f"(radix), thesis {thesis.TABLE_4_1[2][3] / thesis.TABLE_4_1[0][3]:.2f}x ({thesis.ARIES})")


def table4_2(res, rows, outdir, params):
    rs = [r for r in joins(rows) if data.num(r, "model_total") is not None]
    out = []
    parts = []
    for algo in ("radix", "sortmerge"):
        a = [r for r in rs if r["algo"] == algo]
        if not a:
            continue
        out += [f"**{algo}**, {a[0]['ranks']} ranks, {join_title(a)}", "",
                f"| phase | ours measured [s] | ours model [s] | ours diff [s] | {thesis.ARIES} measured [s] | thesis model [s] | thesis diff [s] |",
                "|---|---|---|---|---|---|---|"]
        for p in JOIN_PHASES[algo] + ["imbalance", "total"]:
            m = res.median("measured", algo, p, a, "t_total_max" if p == "total" else f"t_{p}_avg")
            pr = res.median("model", algo, p, a, f"model_{p}")
            tm, tp = thesis.TABLE_4_2[algo].get(p, (None, None))
            d = None if m is None or pr is None else pr - m
            td = None if tm is None or tp is None else tp - tm
            out.append(f"| {p} | {_f(m, 4)} | {_f(pr, 4)} | {'—' if d is None else f'{-d:+.4f}'} | {_f(tm, 2)} | "
                       f"{_f(tp, 2)} | {'—' if td is None else f'{-td:+.2f}'} |")
        out.append("")
        m, pr = res.values.get(("measured", algo, "total")), res.values.get(("model", algo, "total"))
        tm, tp = thesis.TABLE_4_2[algo]["total"]
        if m and pr:
            parts.append(f"{algo}: model/measured total {pr / m:.2f} (thesis {tp / tm:.2f})")
    res.lines = ["Diff: measured − model, as the thesis' Table 4.2 gives it.", ""] + out
    res.compare = "; ".join(parts)


# --- chapter 5 --------------------------------------------------------------------------------------
def fig5_5(res, rows, outdir, params):
    rs = locks(rows, "tpcc")
    fig, axes = style.figure(ncols=2, width=4.4, height=3.8)
    peak = thesis.TPCC_PEAK
    for ax, col, what, th in ((axes[0], "commits_per_s", "transactions", None),
                              (axes[1], "lock_requests_per_s", "lock requests", peak["lock_requests"])):
        lines(ax, res, rs, lambda r: num(r, "ranks"), lambda r: r.get("isolation", ""), col, 1e-3,
              label=lambda s: f"ours: {s}")
        xs = sorted({num(r, "ranks") for r in rs})
        if xs:
            if th is None:
                for iso in ("serializable", "read-committed"):
                    per = peak[iso] / peak["cores"]
                    thesis_line(ax, xs, [per * x * 1e-3 for x in xs], f"{thesis.ARIES}: {iso}, {per:.0f}/s per rank, scaled",
                                "#555555" if iso == "serializable" else "#aaaaaa")
            else:
                thesis_line(ax, xs, [th / peak["cores"] * x * 1e-3 for x in xs],
                            f"{thesis.ARIES}: {th / peak['cores']:.0f}/s per rank, scaled")
            log2_axis(ax, xs)
        log_y(ax)  # the thesis' per-rank rates are orders of magnitude above a shared 2-core VM's
        panel(ax, "MPI ranks (half serve locks)", f"{what} [k/s], log scale", what)
    title_and_save(res, fig, outdir, "TPC-C throughput against ranks (cf. Fig 5.5); median of runs", 3.8 + style.legend_height(4))
    parts = []
    for iso in ("serializable", "read-committed"):
        v = {x: m for (w, s, x), m in res.values.items() if w == "commits_per_s" and s == iso}
        if v:
            x = max(v)
            parts.append(f"{iso}: {v[x] / x:.0f} tx/s per rank at {x:g} ranks vs thesis "
                         f"{peak[iso] / peak['cores']:.0f} ({thesis.ARIES}, 5040 cores)")
    res.compare = "; ".join(parts)


def _largest(rows):
    if not rows:
        return [], 0
    n = max(num(r, "ranks") for r in rows)
    return [r for r in rows if num(r, "ranks") == n], int(n)


def fig5_6(res, rows, outdir, params):
    rs, n = _largest(locks(rows, "tpcc"))
    fig, axes = style.figure(ncols=2, width=4.6, height=3.2)
    stacked(axes[0], res, rs, lambda r: r.get("isolation", ""), TXN_PARTS, "transaction us", horizontal=True)
    axes[0].set_xlabel("transaction latency [us] (median of runs)")
    axes[0].set_title(f"(a) transaction, {n} ranks", fontsize=9)
    isos = stacked(axes[1], res, rs, lambda r: r.get("isolation", ""), REQ_PARTS, "request us", horizontal=True)
    # thesis: 2.8 us a request, 0.13 us waiting, 0.38 us at the server, the rest round trip and queueing
    y = len(isos)
    th = [("rtt", thesis.TPCC_LOCK_US - 0.13 - 0.38), ("queue", 0.13), ("server", 0.38)]
    left = 0.0
    for name, w in th:
        axes[1].barh(y, w, 0.6, left=left, color=style.PHASE_COLORS.get(name))
        left += w
    axes[1].set_yticks(list(range(len(isos) + 1)), [str(i) for i in isos] + [f"{thesis.ARIES}\nserializable"], fontsize=7)
    axes[1].text(left, y, f" {thesis.TPCC_LOCK_US} us", va="center", fontsize=7)  # too short a bar to see beside ours
    for ax in axes:
        ax.xaxis.set_major_locator(MaxNLocator(nbins=5))
    axes[1].set_xlabel("lock request latency [us] (median of runs)")
    axes[1].set_title("(b) lock request", fontsize=9)
    for ax in axes:
        style.legend(ax, below=True)
    title_and_save(res, fig, outdir, "TPC-C latency breakdown (cf. Fig 5.6); data: row images read and written with MPI_Get/MPI_Put", 3.2 + style.legend_height(4))
    v = res.values
    ser = "serializable"
    tot = sum(v.get(("transaction us", p, ser), 0) for p, _ in TXN_PARTS)
    if tot:
        non_lock = 1 - v.get(("transaction us", "lock", ser), 0) / tot
        req = sum(v.get(("request us", p, ser), 0) for p, _ in REQ_PARTS)
        res.compare = (f"serializable: data, 2PC and end take {100 * non_lock:.0f}% of a transaction (thesis "
                       f"{100 * thesis.TPCC_NONLOCK_SHARE:.0f}%), a lock request {req:.1f} us (thesis {thesis.TPCC_LOCK_US} us, "
                       f"{thesis.ARIES})")


def fig5_7(res, rows, outdir, params):
    rs = locks(rows, "synthetic")
    fig, axes = style.figure(ncols=2, width=4.4, height=3.8)
    lines(axes[0], res, rs, lambda r: 100 * num(r, "remote_prob"), lambda r: int(num(r, "ranks")), "commits_per_s", 1e-3,
          label=lambda s: f"ours: {s} ranks")
    axes[0].set_xlabel("remote lock probability [%]")
    axes[0].set_ylabel("transactions [k/s]")
    axes[0].set_title("(a) throughput", fontsize=9)
    style.legend(axes[0], below=True)
    big, n = _largest(rs)
    gs = groups(big, lambda r: 100 * num(r, "remote_prob"))
    base = sum(med(next(iter(gs.values())), c) or 0 for _, c in TXN_PARTS) if gs else 1.0
    pos = np.arange(len(gs))
    left = np.zeros(len(gs))
    for name, col in TXN_PARTS:
        w = np.array([res.keep("normalised", name, x, (med(g, col) or 0) / (base or 1)) for x, g in gs.items()])
        axes[1].barh(pos, w, 0.6, left=left, label=name, color=style.PHASE_COLORS.get(name))
        left += w
    axes[1].set_yticks(pos, [f"{x:g}%" for x in gs], fontsize=7)
    axes[1].set_xlabel("time normalised to the lowest probability")
    axes[1].set_ylabel("remote lock probability")
    axes[1].set_title(f"(b) {n} ranks", fontsize=9)
    style.legend(axes[1], below=True)
    title_and_save(res, fig, outdir, "Remote lock probability, synthetic workload (cf. Fig 5.7); median of runs", 3.8 + style.legend_height(4))
    v = {x: m for (w, s, x), m in res.values.items() if w == "commits_per_s" and s == n}
    if v and len(v) > 1:
        res.compare = (f"{n} ranks: throughput at {max(v):g}% remote is {v[max(v)] / v[min(v)]:.2f}x that at {min(v):g}% "
                       f"({thesis.ARIES}: transaction time grows 2.8x from 0% to 50%)")


def table5_1(res, rows, outdir, params):
    rs = [r for r in locks(rows, "synthetic") if data.num(r, "model_t_tx_us") is not None]
    gs = groups(rs, lambda r: (int(num(r, "agents")), num(r, "remote_prob")))
    out = ["| agents | remote prob | ours predicted [us] | ours predicted [k tx/s] | ours measured [k tx/s] | ours err | "
           f"{thesis.ARIES}: predicted [us] | 1260 agents pred./meas. [M tx/s] | 2520 agents pred./meas. [M tx/s] | thesis err (2520) |",
           "|---|---|---|---|---|---|---|---|---|---|"]
    errs = []
    for (agents, p), g in gs.items():
        pt = res.median("model_t_tx_us", agents, p, g, "model_t_tx_us")
        pp = res.median("model_throughput", agents, p, g, "model_throughput")
        mm = res.median("commits_per_s", agents, p, g, "commits_per_s")
        err = None if not pp or not mm else (pp - mm) / mm
        i = thesis.TABLE_5_1_PROBS.index(p) if p in thesis.TABLE_5_1_PROBS else None
        if i is None:
            tcell = "| — | — | — | — |"
            terr = None
        else:
            a, b = thesis.TABLE_5_1[1260], thesis.TABLE_5_1[2520]
            terr = (b["predicted"][i] - b["measured"][i]) / b["measured"][i]
            tcell = (f"| {thesis.TABLE_5_1_TIME_US[i]:.3f} | {a['predicted'][i]:.2f} / {a['measured'][i]:.2f} | "
                     f"{b['predicted'][i]:.2f} / {b['measured'][i]:.2f} | {100 * terr:+.1f}% |")
        if err is not None and terr is not None:
            errs.append((agents, p, err, terr))
        out.append(f"| {agents} | {p:g} | {_f(pt)} | {_f(pp and pp / 1e3)} | {_f(mm and mm / 1e3)} | "
                   f"{'—' if err is None else f'{100 * err:+.1f}%'} {tcell}")
    res.lines = ["err: (predicted − measured) / measured. The thesis ran 1260 and 2520 agents (concurrent "
                 "transactions); ours are the agent counts above.", ""] + out
    if errs:
        agents = max(e[0] for e in errs)
        lo = min((e for e in errs if e[0] == agents), key=lambda e: e[1])
        hi = max((e for e in errs if e[0] == agents), key=lambda e: e[1])
        res.compare = (f"{agents} agents: model error {100 * lo[2]:+.0f}% at {lo[1]:g} and {100 * hi[2]:+.0f}% at "
                       f"{hi[1]:g} remote (thesis {100 * lo[3]:+.0f}% and {100 * hi[3]:+.0f}%, {thesis.ARIES})")


def table5_2(res, rows, outdir, params):
    rs, n = _largest(locks(rows, "tpcc"))
    out = [f"TPC-C at {n} ranks, medians over runs: commits and aborts in a run, and commits per second of the "
           "agents' time (a run's commits of the type x its transactions/s / its commits).", "",
           "| isolation | type | commits | commits/s | aborts |", "|---|---|---|---|---|"]
    for iso, g in groups(rs, lambda r: r.get("isolation", "")).items():
        for t in TPCC_TYPES:
            c = res.median(f"committed_{t}", iso, t, g, f"committed_{t}")
            a = res.median(f"aborted_{t}", iso, t, g, f"aborted_{t}")
            rate = data.median([num(r, f"committed_{t}") * num(r, "commits_per_s") / num(r, "committed")
                                for r in g if num(r, "committed") > 0])
            out.append(f"| {iso} | {t.replace('_', '-')} | {_f(c, 0)} | {_f(rate, 1)} | {_f(a, 0)} |")
        p = res.median("twopc_participants_mean", iso, "-", g, "twopc_participants_mean")
        out.append(f"| {iso} | 2PC participants per 2PC transaction | {_f(p, 2)} | | |")
    out += ["", "| system | mechanism | cores (machines) | new-order/s (SNOT/s) |", "|---|---|---|---|"]
    for iso, g in groups(rs, lambda r: r.get("isolation", "")).items():
        no = res.median("new_order_per_s", iso, n, g, "new_order_per_s")
        out.append(f"| ours, {iso} | 2PL, {g[0].get('deadlock', '')} | {n} (1) | {_f(no, 0)} |")
    for name, mech, cores, v in thesis.TABLE_5_2:
        out.append(f"| {name} | {mech} | {cores} | {_count(v)} |")
    res.lines = out + ["", f"The first thesis row is {thesis.ARIES}; the others are the related work its Table 5.2 lists."]
    no = res.values.get(("new_order_per_s", "serializable", n))
    if no:
        res.compare = (f"serializable: {no / n:.0f} new-order/s per rank vs thesis "
                       f"{thesis.TPCC_PEAK['new_order'] / thesis.TPCC_PEAK['cores']:.0f} ({thesis.ARIES}, 5.9M on 5040 cores)")


def lock_split(res, rows, outdir, params):
    rs = locks(rows, "tpcc")
    fig, (ax,) = style.figure(width=6.0, height=3.8)
    share = lambda r: num(r, "servers") / max(1.0, num(r, "ranks"))  # noqa: E731
    gs = groups(rs, share)
    xs = list(gs)
    ours = [res.median("commits_per_s", "tpcc", x, g, "commits_per_s") or 0 for x, g in gs.items()]
    top = max(ours) if ours else 1.0
    w = 0.38
    ax.bar(np.arange(len(xs)) - w / 2, [o / (top or 1) for o in ours], w, label="ours", color=style.CYCLE[0])
    th = {1 / 2: thesis.LOCK_SPLIT["1/2"], 1 / 3: thesis.LOCK_SPLIT["1/3"], 1 / 6: thesis.LOCK_SPLIT["1/6"]}
    tv = [next((v for k, v in th.items() if abs(k - x) < 0.02), None) for x in xs]
    ax.bar([i + w / 2 for i, v in enumerate(tv) if v], [v / max(th.values()) for v in tv if v], w,
           label=f"{thesis.ARIES} (13.6, 10.2, 4.72 M tx/s)", color="#999999")
    ax.set_xticks(range(len(xs)), [f"{x:.2f}" for x in xs])
    ax.set_xlabel("share of ranks serving locks")
    ax.set_ylabel("TPC-C transactions/s, relative to the best")
    ax.grid(axis="y", alpha=0.3)
    style.legend(ax, below=True)
    title_and_save(res, fig, outdir, "Lock-server split, TPC-C serializable (cf. §5.4.2); median of runs", 3.8 + style.legend_height(2))
    if ours and top:
        best = xs[ours.index(top)]
        res.compare = (f"ours is fastest with {best:.2f} of the ranks serving ({top:.0f} tx/s); thesis with 1/2 "
                       f"(18 of 36 cores, 13.6 M tx/s, {thesis.ARIES})")


DRAW = {"fig3.7": fig3_7, "fig3.9": fig3_9, "fig3.10a": fig3_10a, "fig3.10b": fig3_10b, "fig3.11": fig3_11,
        "fig3.12": fig3_12, "fig3.16": fig3_16, "skew3.4.5": skew, "fanout": fanout, "buffers": buffers,
        "fig4.2": fig4_2, "fig4.3a": lambda *a: fig_phases_weak(*a[:3], "radix", "Fig 4.3a"),
        "fig4.3b": lambda *a: fig_detail(*a[:3], "radix", "Fig 4.3b", "network_partition"),
        "fig4.4a": lambda *a: fig_phases_weak(*a[:3], "sortmerge", "Fig 4.4a"),
        "fig4.4b": lambda *a: fig_detail(*a[:3], "sortmerge", "Fig 4.4b", "sort"),
        "fig4.5": fig4_5, "fig4.6": fig4_6, "table4.1": table4_1, "table4.2": table4_2, "fig5.5": fig5_5,
        "fig5.6": fig5_6, "fig5.7": fig5_7, "table5.1": table5_1, "table5.2": table5_2, "lock-split": lock_split}


def draw(entry_id, rows, outdir, params=None):
    """Draws one catalogue entry into outdir (ID.png/.pdf for figures) and writes outdir/ID.md (what it
    shows, the table, the comparison with the thesis); returns the Result."""
    e = catalogue.BY_ID[entry_id]
    res = Result(e)
    DRAW[entry_id](res, rows, outdir, params)
    if not res.values:
        res.notes.append("no verified rows for this entry")
    md = [f"## {e.id}: {e.shows} (thesis {e.section})", ""]
    md += [f"![{e.id}]({f})" for f in res.files] + ([""] if res.files else [])
    md += res.lines + ([""] if res.lines else [])
    md += [f"- Note: {n}" for n in res.notes]
    md.append(f"- Against the thesis: {res.compare or 'no comparison (no thesis numbers or no rows)'}")
    res.markdown = md

    def fill(tmp):
        with open(tmp, "w") as f:
            f.write("\n".join(md) + "\n")
    safeio.write_output(os.path.join(outdir, f"{e.id}.md"), fill)
    return res

