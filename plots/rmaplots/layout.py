"""Whether a laid-out figure can be read (the figure layout test runs it on every figure rmaplot
saves, through style.BEFORE_SAVE): texts on the canvas, legends off the data, no texts over each
other, every hatching explained."""
import numpy as np
from matplotlib.collections import PathCollection
from matplotlib.patches import Patch
from matplotlib.text import Text
from matplotlib.transforms import Bbox

from .style import DPI


def drawn_texts(fig):
    """The non-empty text artists the figure draws: its own texts (title, notes) and legends, and per
    visible axes its titles, axis labels, texts, legend and the tick labels inside the view (an axis
    keeps labels for ticks beyond its limits that it does not draw)."""
    texts = list(fig.texts) + [t for leg in fig.legends for t in leg.findobj(Text)]
    for ax in [a for a in fig.axes if a.get_visible()]:
        ticks, shown = set(), []
        for axis in (ax.xaxis, ax.yaxis):
            lo, hi = sorted(axis.get_view_interval())
            slack = 1e-9 * (hi - lo)
            for t in axis.get_major_ticks() + axis.get_minor_ticks():
                ticks.update((t.label1, t.label2))
                if t.get_visible() and lo - slack <= t.get_loc() <= hi + slack:
                    shown += [t.label1, t.label2]
        texts += [t for t in ax.findobj(Text) if t not in ticks] + shown
    unique = {id(t): t for t in texts}
    return [t for t in unique.values() if t.get_visible() and t.get_text().strip()]


def data_extents(ax, renderer):
    """[(what, display Bbox)]: where ax draws data: each point of its lines (as big as its marker) and
    samples along their segments, each bar, each error bar and cap, each path of its collections."""
    out = []
    for line in [ln for ln in ax.get_lines() if ln.get_visible()]:
        xy = line.get_transform().transform(line.get_xydata())
        xy = xy[np.isfinite(xy).all(axis=1)]
        r = line.get_markersize() * DPI / 72 / 2 if line.get_marker() not in (None, "None", "", " ") else 0.0
        name = "a line" if line.get_label().startswith("_") else f"the line '{line.get_label()}'"
        out += [(f"a point of {name}", Bbox([p - r, p + r])) for p in xy]
        if line.get_linestyle() not in ("None", "", " "):
            for a, b in zip(xy[:-1], xy[1:]):
                out += [(name, Bbox([p, p])) for p in np.linspace(a, b, 12)[1:-1]]
    out += [("a bar", p.get_window_extent(renderer)) for p in ax.patches if p.get_visible()]
    for c in [c for c in ax.collections if c.get_visible()]:
        if isinstance(c, PathCollection):  # markers at offsets (scatter)
            out += [("a marker", Bbox([p, p])) for p in c.get_offset_transform().transform(c.get_offsets())]
        else:  # paths in data coordinates (error bars, fills)
            out += [("an error bar or fill", c.get_transform().transform_path(p).get_extents()) for p in c.get_paths()]
    return out


def _overlap(a, b):
    """Whether the display boxes share area, or a point or segment b lies inside a."""
    return b.x0 < a.x1 and b.x1 > a.x0 and b.y0 < a.y1 and b.y1 > a.y0


def _name(t):
    return " ".join(t.get_text().split())[:60]


def layout_problems(fig):
    """What a reader could not read on a laid-out figure (finish()), one line each: a text (title,
    label, tick label, legend entry, note) or a legend not wholly on the canvas (1 px slack), a
    legend over the data of any axes (data_extents) or over a text outside it, two texts over each
    other, a hatching of bars no legend shows. [] when the figure reads."""
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    canvas = fig.bbox.padded(1)

    def off(box):
        return not (canvas.x0 <= box.x0 and box.x1 <= canvas.x1 and canvas.y0 <= box.y0 and box.y1 <= canvas.y1)

    boxes = [(t, t.get_window_extent(renderer)) for t in drawn_texts(fig)]
    out = [f"text '{_name(t)}' at {box.bounds} is off the canvas {fig.bbox.bounds}" for t, box in boxes if off(box)]
    for i, (t, box) in enumerate(boxes):  # shrunk by 1 px: neighbouring tick labels may touch
        out += [f"the texts '{_name(t)}' and '{_name(u)}' overlap" for u, other in boxes[i + 1:]
                if _overlap(box.padded(-1), other.padded(-1))]
    axes = [a for a in fig.axes if a.get_visible()]
    legends = list(fig.legends) + [a.get_legend() for a in axes if a.get_legend()]
    for leg in legends:
        lbox = leg.get_window_extent(renderer)
        if off(lbox):
            out.append(f"a legend at {lbox.bounds} is off the canvas {fig.bbox.bounds}")
        for i, ax in enumerate(axes):
            hit = next((what for what, box in data_extents(ax, renderer) if _overlap(lbox, box)), None)
            if hit:
                out.append(f"a legend covers {hit} in axes {i} '{ax.get_title()}'")
        own = {id(t) for t in leg.findobj(Text)}
        out += [f"a legend covers the text '{_name(t)}'" for t, box in boxes
                if id(t) not in own and _overlap(lbox, box)]
    # legend_handles from matplotlib 3.7 on, legendHandles before
    keyed = {h.get_hatch() for leg in legends for h in getattr(leg, "legend_handles", None) or leg.legendHandles
             if isinstance(h, Patch)}
    hatches = {p.get_hatch() for a in axes for p in a.patches if p.get_visible()} - {None, ""}
    out += [f"bars hatched '{h}' that no legend explains" for h in sorted(hatches - keyed)]
    return out
