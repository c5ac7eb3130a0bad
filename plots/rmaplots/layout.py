"""Whether a laid-out figure can be read (the figure layout test runs it on every figure rmaplot
saves, through style.BEFORE_SAVE): texts on the canvas, legends off the data, no texts over each
other, every hatching explained, no bar, point or error bar cut off by its axes, every phase in its
one colour (style.PHASE_COLORS) and no two legend entries that look alike."""
import itertools
import math

import numpy as np
from matplotlib.collections import PathCollection
from matplotlib.colors import to_hex, to_rgb
from matplotlib.lines import Line2D
from matplotlib.patches import Patch
from matplotlib.text import Text
from matplotlib.transforms import Bbox

from .style import DPI, PHASE_COLORS

# two colours closer than this (CIE76 Delta E) read as one colour in a legend
MIN_DELTA_E = 15.0


def drawn_texts(fig):
    """The non-empty text artists the figure draws: its own texts (title, notes) and legends, and per
    visible axes its titles, axis labels, texts, legend and the tick labels inside the view (an axis
    keeps labels for ticks beyond its limits that it does not draw)."""
    texts = list(fig.texts) + [t for leg in fig.legends for t in leg.findobj(Text)]
    for ax in [a for a in fig.axes if a.get_visible()]:
        ticks, shown = set(), []
        for axis in (ax.xaxis, ax.yaxis):
            # compared where the axis draws them: on a log axis 1e-9 is far below a view from 1e-7
            scale = axis.get_transform()
            lo, hi = sorted(scale.transform(np.array(axis.get_view_interval(), dtype=float)))
            slack = 1e-9 * (hi - lo)
            for t in axis.get_major_ticks() + axis.get_minor_ticks():
                ticks.update((t.label1, t.label2))
                loc = t.get_loc()
                at = scale.transform(np.array([loc], dtype=float))[0] if loc is not None else np.nan
                if t.get_visible() and np.isfinite(at) and lo - slack <= at <= hi + slack:
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
    keyed = {h.get_hatch() for leg in legends for h in handles(leg) if isinstance(h, Patch)}
    hatches = {p.get_hatch() for a in axes for p in a.patches if p.get_visible()} - {None, ""}
    out += [f"bars hatched '{h}' that no legend explains" for h in sorted(hatches - keyed)]
    return out + clipped(fig, renderer) + colour_problems(fig)


def handles(leg):
    """A legend's handles (legend_handles from matplotlib 3.7 on, legendHandles before)."""
    return getattr(leg, "legend_handles", None) or leg.legendHandles


def delta_e(a, b):
    """CIE76 colour difference of two matplotlib colours (sRGB, D65): about 2.3 is the least a
    reader sees side by side; legend swatches need far more."""
    def lab(c):
        lin = [((u + 0.055) / 1.055) ** 2.4 if u > 0.04045 else u / 12.92 for u in to_rgb(c)]
        xyz = [sum(k * u for k, u in zip(row, lin)) / w for row, w in
               (((0.4124, 0.3576, 0.1805), 0.95047), ((0.2126, 0.7152, 0.0722), 1.0), ((0.0193, 0.1192, 0.9505), 1.08883))]
        f = [t ** (1 / 3) if t > 0.008856 else 7.787 * t + 16 / 116 for t in xyz]
        return 116 * f[1] - 16, 500 * (f[0] - f[1]), 200 * (f[1] - f[2])
    return math.dist(lab(a), lab(b))


def _look(h):
    """(colour, what else tells the entry apart) of a legend handle; None for what has no colour."""
    if isinstance(h, Patch):
        face = h.get_facecolor()
        return (to_hex(face) if face[3] > 0 else to_hex(h.get_edgecolor())), ("patch", h.get_hatch() or "")
    if isinstance(h, Line2D):
        return to_hex(h.get_color()), ("line", str(h.get_marker()), h.get_linestyle(), to_hex(h.get_markerfacecolor()))
    return None


def colour_problems(fig):
    """A phase's legend swatch in another colour than its style.PHASE_COLORS; two entries of one legend
    with different names that look alike (the same kind of mark, hatch or marker and colours within
    MIN_DELTA_E). [] when every entry reads apart."""
    out = []
    legends = list(fig.legends) + [a.get_legend() for a in fig.axes if a.get_visible() and a.get_legend()]
    for leg in legends:
        seen = []
        for h, t in zip(handles(leg), leg.get_texts()):
            look, name = _look(h), t.get_text()
            if look is None:
                continue
            if name in PHASE_COLORS and isinstance(h, Patch) and look[0] != to_hex(PHASE_COLORS[name]):
                out.append(f"the phase '{name}' is drawn in {look[0]}, not its colour {PHASE_COLORS[name]}")
            seen.append((name, look))
        for (a, (ca, ka)), (b, (cb, kb)) in itertools.combinations(seen, 2):
            if a != b and ka == kb and delta_e(ca, cb) < MIN_DELTA_E:
                out.append(f"the legend entries '{a}' and '{b}' share a colour ({ca}, {cb})")
    return out


def clipped(fig, renderer):
    """Data its axes cut off: a bar, a point of a line or an error bar or fill reaching beyond the
    axes' box (1 px slack) while clipped to it, so the reader sees a bar end or a point that is not
    the value's."""
    out = []
    for i, ax in enumerate(a for a in fig.axes if a.get_visible()):
        box = ax.bbox.padded(1)

        def beyond(b):
            return b.x0 < box.x0 or b.x1 > box.x1 or b.y0 < box.y0 or b.y1 > box.y1
        artists = [("a bar", p, p.get_window_extent(renderer)) for p in ax.patches if p.get_visible() and p.get_clip_on()]
        for line in [ln for ln in ax.get_lines() if ln.get_visible() and ln.get_clip_on()]:
            xy = line.get_transform().transform(line.get_xydata())
            xy = xy[np.isfinite(xy).all(axis=1)]
            if len(xy):
                name = "a line" if line.get_label().startswith("_") else f"the line '{line.get_label()}'"
                artists.append((name, line, Bbox([xy.min(axis=0), xy.max(axis=0)])))
        for c in [c for c in ax.collections if c.get_visible() and c.get_clip_on() and not isinstance(c, PathCollection)]:
            artists += [("an error bar or fill", c, c.get_transform().transform_path(p).get_extents()) for p in c.get_paths()]
        for what, _, b in artists:
            if beyond(b):
                out.append(f"{what} in axes {i} '{ax.get_title()}' runs past the axes (its extent {tuple(round(v) for v in b.extents)}, "
                           f"the axes {tuple(round(v) for v in ax.bbox.extents)}): raise the axis limit")
    return out
