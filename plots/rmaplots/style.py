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
PHASE_COLORS = {"histogram": "#4e79a7", "window_alloc": "#f28e2b", "network_partition": "#e15759",
                "local_partition": "#76b7b2", "build_probe": "#59a14f", "partition": "#4e79a7", "sort": "#e15759",
                "merge": "#76b7b2", "match": "#59a14f", "imbalance": "#bab0ac", "wait": "#d4cbc6", "put": "#edc948", "flush": "#b07aa1",
                "exchange": "#e15759", "lock": "#4e79a7", "data": "#59a14f", "vote": "#f28e2b", "end": "#e15759",
                "rtt": "#4e79a7", "queue": "#f28e2b", "server": "#59a14f"}
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


def lines(ax, series, col, scale=1.0, by="algo"):
    """One errorbar line per series: the median over runs at each x, the bar data.interval()'s clipped
    95% confidence interval of the mean. Returns the number of lines drawn."""
    n = 0
    for i, s in enumerate(series):
        pts = [(x, data.interval(data.values(rs, col))) for x, rs in s.points.items()]
        pts = [(x, med, lo, hi) for x, (med, lo, hi, _) in pts if med is not None]
        if not pts:
            continue
        ys = [p[1] * scale for p in pts]
        # the median can lie outside the mean's interval with few skewed runs: no negative bar
        err = [[max(0.0, (p[1] - p[2]) * scale) for p in pts], [max(0.0, (p[3] - p[1]) * scale) for p in pts]]
        ax.errorbar([p[0] for p in pts], ys, yerr=err, capsize=3, label=s.label or None, **line_style(i, s, by))
        n += 1
    ax.set_ylim(bottom=0)
    return n


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
    for lab, props in extra:
        handles.append(Patch(**props))
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

