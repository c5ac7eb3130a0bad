"""Drawing and saving figures in one style: every figure as PNG and PDF, lines with medians and
clipped confidence intervals, legends beside the data, notes on the figure, rank axes with the rank
counts that were run (layout.py checks that a laid-out figure reads)."""
import os
import textwrap

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.patches import Patch  # noqa: E402
from matplotlib.ticker import NullLocator  # noqa: E402
from matplotlib.transforms import offset_copy  # noqa: E402

from . import data, safeio  # noqa: E402

COLORS = {"radix": "#1f77b4", "sortmerge": "#d62728", "reference": "#7f7f7f", "serializable": "#2ca02c",
          "read-committed": "#9467bd"}
CYCLE = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2", "#17becf", "#bcbd22", "#7f7f7f"]
MARKERS = "os^vDP*Xph"
LINES = ["-", "--", ":", "-."]
# One colour per phase in every figure, both joins and the lock table's parts: no two names share
# one (layout.colour_problems checks the figures against it)
PHASE_COLORS = {"histogram": "#4e79a7", "window_alloc": "#f28e2b", "network_partition": "#e15759",
                "local_partition": "#76b7b2", "build_probe": "#59a14f",
                "partition": "#9c755f", "sort": "#b07aa1", "merge": "#edc948", "match": "#ff9da7",
                "exchange": "#17becf", "put": "#bcbd22", "flush": "#93003a", "imbalance": "#bab0ac",
                "wait": "#6b6b6b", "lock": "#1f3b73", "data": "#2ca02c", "vote": "#d62728", "end": "#ffbb78",
                "rtt": "#9467bd", "queue": "#c5b0d5", "server": "#98df8a"}
MAX_PANELS = 6  # configurations a per-configuration figure draws side by side before it refuses
DPI = 120  # figures are drawn at the resolution they are saved at: the layout checked is the one written
# callables (fig, name) given every figure once it is laid out, before it is written: the layout test
# collects layout.layout_problems(fig) of each figure rmaplot saves
BEFORE_SAVE = []


def count(n, one, many=None):
    """'1 rank', '2 ranks': n with the noun in the number it needs (many: an irregular plural)."""
    return f"{n} {one if n == 1 else many or one + 's'}"


class Drawn:
    """What a figure function returns: fig (None when skipped) and skipped (why), the labels of the
    configurations it shows, the configuration they all share (text), and notes it wrote on the
    figure (configurations not drawn, and why), and the labels of those."""

    def __init__(self, fig=None, skipped="", shown=(), shared="", notes=(), hidden=()):
        self.fig, self.skipped, self.shown, self.shared, self.notes = fig, skipped, list(shown), shared, list(notes)
        self.hidden = list(hidden)  # labels of the configurations left out (the notes say why)


def figure(ncols=1, width=6.0, height=4.0, nrows=1, sharey=False):
    fig, axes = plt.subplots(nrows, ncols, figsize=(width * ncols, height * nrows), squeeze=False, sharey=sharey,
                             dpi=DPI)
    return fig, [a for row in axes for a in row]


def line_style(i, s, by="algo"):
    """Colour by the series' algorithm (or isolation level) where it has one, marker and dash by its
    place among the series of that colour."""
    key = s.config.get(by, "")
    return dict(color=COLORS.get(key, CYCLE[i % len(CYCLE)]), marker=MARKERS[i % len(MARKERS)],
                linestyle=LINES[(i // len(MARKERS)) % len(LINES)])


def n_text(ns):
    """'3 runs' or '3-10 runs' for the run counts of a line's points."""
    ns = sorted(set(ns))
    return count(ns[0], "run") if len(ns) == 1 else f"{ns[0]}-{ns[-1]} runs"


# how a point that is not like the others is drawn (runs_line) and named (flag_handles); bars and
# rows whose runs met the machine's slower state stand on SHADE (shade_handle names it)
HALO = dict(color="#bdbdbd", zorder=1.5)
SHADE = "#e0e0e0"


def shade_handle():
    """The legend mark of a shaded background (a square of SHADE, never mistaken for a bar's swatch)."""
    from matplotlib.lines import Line2D
    return Line2D([], [], linestyle="none", marker="s", markersize=9, color=SHADE)


def runs_line(ax, pts, label, color, marker="o", linestyle="-", scale=1.0, machine=None):
    """One line of a figure, its runs shown rather than summarised: at each x (pts: [(x, rows,
    values)]) the median of the values (marker), every run (small dots) and their range (bars from
    the smallest to the largest run). With machine
    (regimes.Machine): a point whose ranks outnumber the cores is hollow, one measured in the
    machine's slower regime sits on a shaded circle, one whose runs met both regimes on a shaded
    square, and a segment is dotted unless both its points' runs met one and the same state (what
    changed along it is not the x parameter alone). Returns [(x, median, regimes.Point or None, runs)]; None without values."""
    pts = [(x, rs, sorted(v)) for x, rs, v in pts if v]
    if not pts:
        return None
    xs = [p[0] for p in pts]
    med = [data.median(v) * scale for _, _, v in pts]
    lo = [max(0.0, m - v[0] * scale) for m, (_, _, v) in zip(med, pts)]
    hi = [max(0.0, v[-1] * scale - m) for m, (_, _, v) in zip(med, pts)]
    kinds = [machine.point(rs) if machine else None for _, rs, _ in pts]
    ax.errorbar(xs, med, yerr=[lo, hi], capsize=3, linestyle="none", color=color, marker=marker, label=label or None,
                zorder=3)
    for i in range(len(pts) - 1):  # solid between two points whose runs met one and the same state
        a, b = kinds[i:i + 2]
        alike = a is None and b is None or a is not None and b is not None and a.state is not None and a.state == b.state
        ax.plot(xs[i:i + 2], med[i:i + 2], color=color, linestyle=linestyle if alike else ":", zorder=2)
    ax.plot([x for x, _, v in pts for _ in v], [y * scale for _, _, v in pts for y in v], linestyle="none",
            marker=".", markersize=3, color=color, alpha=0.6, zorder=2.5)
    for x, m, k in zip(xs, med, kinds):
        if k is None:
            continue
        if k.slow or k.mixed:
            ax.plot([x], [m], linestyle="none", marker="s" if k.mixed else "o", markersize=15, **HALO)
        if k.oversub:
            ax.plot([x], [m], linestyle="none", marker=marker, markerfacecolor="white", markeredgecolor=color,
                    color=color, zorder=3.5)
    return list(zip(xs, med, kinds, [len(v) for _, _, v in pts]))


def runs_text(drawn):
    """'n = 3 runs per point' (or '2-5 runs') over runs_line's points of every line drawn."""
    ns = [n for pts in drawn if pts for *_, n in pts]
    return f"n = {n_text(ns)} per point" if ns else "no runs"


def flag_handles(machine, drawn):
    """Legend entries (label, handle) for the marks runs_line put on the points of drawn (its return
    values), each saying why the point is not compared as scaling."""
    from matplotlib.lines import Line2D
    ks = [k for pts in drawn if pts for _, _, k, _ in pts if k is not None]
    out = []
    if any(k.oversub for k in ks):
        out.append(("hollow: more ranks than cores (oversubscribed): ranks share cores, not scaling",
                    Line2D([], [], linestyle="none", marker="o", markerfacecolor="white", markeredgecolor="black")))
    for kind in sorted({x for k in ks for x in k.slow}):
        reg = machine.regimes[kind]
        out.append((f"shaded circle: runs in the machine's slower state, {reg.text('high')} "
                    f"(others {reg.text('low').split(' ', 2)[-1]}): not the x parameter's effect",
                    Line2D([], [], linestyle="none", marker="o", markersize=11, **HALO)))
    for kind in sorted({x for k in ks for x in k.mixed}):
        out.append((f"shaded square: runs in two machine states, {machine.regimes[kind].text()}",
                    Line2D([], [], linestyle="none", marker="s", markersize=11, **HALO)))
    return [(textwrap.fill(lab, FLAG_CHARS), h) for lab, h in out]


FLAG_CHARS = 75  # a flag's legend entry is wrapped to this many characters a line


def entries(n, extra=()):
    """Lines a legend of n one-line entries and the extra (label, handle) entries takes."""
    return n + sum(lab.count("\n") + 1 for lab, _ in extra)


def mark_bars(axes, groups, machine, half=0.45):
    """Marks bars at 0, 1, ... (groups: {rank count: its runs}) by what their runs measured: a bar
    whose runs met the machine's slower state stands on a SHADE background in every axes of axes.
    Returns (tick suffixes: 'over-subscribed', hyphenated over two lines, under a rank count whose
    runs were oversubscribed; whether any bar is shaded; one note per marked bar)."""
    suffix, shaded, notes = [], False, []
    for i, (x, rs) in enumerate(groups.items()):
        p = machine.point(rs)
        suffix.append("\nover-\nsubscribed" if p.oversub else "")
        if p.slow or p.mixed:
            shaded = True
            for ax in axes:
                ax.axvspan(i - half, i + half, color=SHADE, zorder=0)
        if p.flagged:
            notes.append(f"{count(int(x), 'rank')}: {machine.why(p)}")
    return suffix, shaded, notes


def shade_entry(machine):
    """The legend entry (label, handle) of mark_bars' shading, naming the slower state's values."""
    kinds = machine.kinds() or ["alloc"]
    texts = [machine.regimes[k].text() for k in kinds]
    return ("shaded: runs in the machine's slower state,\n" + "\n".join(t.replace(" against ", "\nagainst ") for t in texts),
            shade_handle())


def flag_notes(machine, series, drawn, xname="ranks"):
    """One line per marked point of the lines (series and runs_line's points of each, in order):
    which line, at which x, and why it is not compared as scaling."""
    out = []
    for s, pts in zip(series, drawn):
        for x, _, k, _ in pts or []:
            if k is not None and k.flagged:
                where = count(int(x), "rank") if xname == "ranks" and float(x).is_integer() else f"{x:g} {xname}"
                out.append(f"{s.label or 'the line'} at {where}: {machine.why(k)}")
    return out


def lines(ax, series, col, scale=1.0, by="algo", machine=None):
    """One line per series (runs_line): the median over runs at each x, every run, their range.
    Returns runs_line's points of each series (None where it drew nothing)."""
    out = []
    for i, s in enumerate(series):
        pts = [(x, rs, data.values(rs, col)) for x, rs in s.points.items()]
        st = line_style(i, s, by)
        out.append(runs_line(ax, pts, s.label, st["color"], st["marker"], st["linestyle"], scale, machine))
    ax.set_ylim(bottom=0)
    return out


def ranks_axis(ax, xs):
    """Log2 rank axis with a tick at each rank count that was run (no 1.9-2.1 ticks for one)."""
    xs = sorted({int(x) for x in xs})
    ax.set_xscale("log", base=2)
    ax.set_xticks(xs, [str(x) for x in xs])
    ax.xaxis.set_minor_locator(NullLocator())
    if len(xs) == 1:
        ax.set_xlim(xs[0] / 1.5, xs[0] * 1.5)
    ax.set_xlabel("MPI ranks")


def legend(ax, title=None, axes=(), extra=(), below=False):
    """The legend beside ax (below it for long configuration names), never over the data; with axes,
    the entries of all of them (once each), plus extra (label, patch properties) entries."""
    handles, labels = [], []
    for a in list(axes) or [ax]:
        for h, lab in zip(*a.get_legend_handles_labels()):
            if lab not in labels:
                handles.append(h)
                labels.append(lab)
    for lab, props in extra:  # (label, Patch properties) or (label, an artist to show)
        handles.append(Patch(**props) if isinstance(props, dict) else props)
        labels.append(lab)
    if not handles:
        return
    # below: under the tick labels and the x label (36 points), whatever the axes' height
    where = dict(loc="upper center", bbox_to_anchor=(0.5, 0.0),
                 bbox_transform=offset_copy(ax.transAxes, fig=ax.figure, y=-36, units="points")) if below else \
        dict(loc="upper left", bbox_to_anchor=(1.01, 1.0))
    ax.legend(handles, labels, fontsize=7, title=title, title_fontsize=7, borderaxespad=0.0, **where)


def legend_height(n):
    """Inches a legend of n entries below the axes needs."""
    return 0.2 + 0.17 * n


def text_inches(chars, fontsize):
    """About how wide a line of chars characters is at fontsize (DejaVu Sans: 0.6 em a character)."""
    return chars * 0.6 * fontsize / 72


def wrapped(text, fig, fontsize):
    """text broken into lines that fit the figure's width at fontsize (matplotlib's own wrap=True
    happens at draw time only, so the extent finish() and layout.layout_problems() measure would be one
    long line)."""
    chars = max(20, int(fig.get_figwidth() / text_inches(1, fontsize)) - 4)
    return "\n".join(textwrap.fill(line, chars) for line in text.split("\n"))


def panel_title(ax, text, fontsize=8):
    """A panel's title, wrapped to the panel's share of the figure's width (panels side by side must
    not run into each other's titles)."""
    cols = ax.get_subplotspec().get_gridspec().get_geometry()[1] if ax.get_subplotspec() else 1
    chars = max(20, int(0.8 * ax.figure.get_figwidth() / cols / text_inches(1, fontsize)))
    ax.set_title("\n".join(textwrap.fill(ln, chars) for ln in text.split("\n")) if text else "", fontsize=fontsize)


def title(fig, text, fontsize=9):
    """The figure's title over all panels, wrapped to the figure's width."""
    fig.suptitle(wrapped(text, fig, fontsize), fontsize=fontsize)


def note(fig, lines_):
    """Notes under the axes, on the figure itself (what is not drawn, and why)."""
    if lines_:
        fig.text(0.01, 0.0, "\n".join(wrapped(f"Note: {n}", fig, 7) for n in lines_), fontsize=7, color="#a00000",
                 ha="left", va="bottom")


def save(fig, outdir, name):
    """Writes NAME.png and NAME.pdf, each whole or not at all and only over a regular file
    (safeio.write_output); returns the PNG's file name (relative to outdir)."""
    try:
        finish(fig)
        for check in BEFORE_SAVE:
            check(fig, name)
        for ext in ("png", "pdf"):
            safeio.write_output(os.path.join(outdir, f"{name}.{ext}"),
                                lambda tmp, ext=ext: fig.savefig(tmp, format=ext, dpi=DPI))
    finally:
        plt.close(fig)
    return f"{name}.png"


def finish(fig):
    """Lays the figure out so that labels, legends beside the axes and the notes below them stay
    inside the canvas."""
    notes = [t for t in fig.texts if t.get_text().startswith("Note: ")]
    fig.tight_layout()
    if notes:  # room below the axes for the notes: their height in figure fractions
        fig.canvas.draw()
        h = max(t.get_window_extent().height for t in notes) / fig.bbox.height
        fig.tight_layout(rect=(0, min(0.5, h + 0.02), 1, 1))

