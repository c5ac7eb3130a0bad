"""Every figure rmaplot draws can be read. The figures are drawn through rmaplots.report.write (the
path rmaplot report saves by) from the committed fixture and from variants of it, and each one is
checked once it is laid out, before it is written (rmaplots.style.BEFORE_SAVE), by
rmaplots.layout.layout_problems:
- every text (titles, axis and tick labels, legend entries and titles, notes) lies wholly on the
  canvas (1 px slack);
- no legend covers the data of any axes (the points of its lines and samples along them, bars,
  error bars and caps, collections) or a text outside the legend; no two texts overlap;
- every hatching of bars has a legend entry that shows it (join_model: 'model (hatched)');
and no figure text or report line puts a count of one with a plural ('1 ranks', '1 ranks/host').
The variants: the lock rows alone (as test_rmaplot's lock-only file), the joins at one rank (every
count is 1), and the fixture with its rows again under another MPI library and commit on hosts of 4
cores (long configuration names, twice the configurations, oversubscribed points).
A deliberately bad figure (a legend at 'center' over bars and a line, a y label moved off the
canvas, hatched bars outside the legend) must be reported for all three, and the same figure laid out as rmaplots lays it out must not.
   test_figure_layout.py RMAPLOT FIXTURE.csv"""
import itertools
import os
import re
import sys
import tempfile
import time

rmaplot, fixture = sys.argv[1], sys.argv[2]
sys.path.insert(0, os.path.dirname(os.path.realpath(rmaplot)))
from rmaplots import data, layout, report, style  # noqa: E402

started = time.monotonic()
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


# a count of one with a plural noun; a digit or point before the 1 makes it another number
PLURAL_ONE = re.compile(r"(?<![\d.,])1 (ranks|hosts|servers|agents|rows|configurations|runs|nodes)\b")

# --- the checker finds what it is for ----------------------------------------------------------------
def sample(bad):
    """Bars across the whole axes and a line over them, one bar hatched; bad: the legend at the centre
    (over both) and the y label moved far left of the canvas after the layout, the hatched bar
    without a legend entry."""
    fig, (ax,) = style.figure()
    ax.bar([0, 1, 2], [3, 3, 3], 0.9, label="bars")
    ax.bar([3], [3], 0.9, hatch="//", label="_hidden" if bad else "hatched")
    ax.errorbar([0, 1, 2], [1, 2, 1], yerr=0.2, capsize=3, label="line")
    ax.set_ylabel("time [s]")
    if bad:
        ax.legend(loc="center")
    else:
        style.legend(ax)
    style.finish(fig)
    if bad:
        ax.yaxis.set_label_coords(-3, 0.5)
    problems = layout.layout_problems(fig)
    style.plt.close(fig)
    return problems


bad = sample(True)
check(any(p.startswith("a legend covers a") for p in bad),
      f"a legend at the centre over the data is not reported: {bad}")
check(any(p.startswith("text 'time [s]'") and "off the canvas" in p for p in bad),
      f"a y label off the canvas is not reported: {bad}")
check("bars hatched '//' that no legend explains" in bad, f"hatching without a legend entry is not reported: {bad}")
good = sample(False)
check(good == [], f"the same figure with the legend beside the axes is reported: {good}")


def wrong(kind, bad):
    """A figure made wrong on purpose for one check, or (bad False) the same figure made right:
    colour: the phases histogram and partition stacked in one colour (join_model's legend once did);
    clipped: a bar and a line's point above the axis' top, an error bar below its bottom (a model bar
    once ran off its axis)."""
    fig, (ax,) = style.figure()
    if kind == "colour":
        for i, p in enumerate(("histogram", "partition", "sort")):
            c = style.PHASE_COLORS["histogram" if bad and p == "partition" else p]
            ax.bar([0, 1], [1, 1], 0.6, bottom=[i, i], color=c, label=p)
    else:
        ax.bar([0, 1], [1, 3], 0.6, label="bars")
        ax.errorbar([0.5, 1.5], [1, 2.5], yerr=[[0.5, 1.5], [0.2, 0.2]], capsize=3, label="line")
        ax.set_ylim(0, 2 if bad else 3.2)
        if not bad:
            ax.set_ylim(-0.7, 3.2)
    style.legend(ax)
    style.finish(fig)
    problems = layout.layout_problems(fig)
    style.plt.close(fig)
    return problems


bad = wrong("colour", True)
check("the legend entries 'histogram' and 'partition' share a colour (#4e79a7, #4e79a7)" in bad,
      f"two phases in one colour are not reported: {bad}")
check(any(p.startswith("the phase 'partition' is drawn in #4e79a7, not its colour") for p in bad),
      f"a phase in another phase's colour is not reported: {bad}")
check(wrong("colour", False) == [], f"phases each in its colour are reported: {wrong('colour', False)}")
bad = wrong("clipped", True)
check(any(p.startswith("a bar in axes 0") and "runs past the axes" in p for p in bad), f"a bar above the axis is not reported: {bad}")
check(any(p.startswith("a line in axes 0") and "runs past the axes" in p for p in bad),
      f"a point above the axis is not reported: {bad}")
check(any(p.startswith("an error bar or fill in axes 0") for p in bad), f"an error bar below the axis is not reported: {bad}")
check(wrong("clipped", False) == [], f"the same data inside its axes is reported: {wrong('clipped', False)}")
# the palette itself: every phase's colour apart from every other's
near = [(a, b) for (a, ca), (b, cb) in itertools.combinations(style.PHASE_COLORS.items(), 2)
        if layout.delta_e(ca, cb) < layout.MIN_DELTA_E]
check(not near, f"phases whose colours read alike: {near}")

# --- every figure of every variant -------------------------------------------------------------
found = {}  # (variant, figure) -> (problems, texts)
variant = [""]


def collect(fig, name):
    found[(variant[0], name)] = (layout.layout_problems(fig), [t.get_text() for t in layout.drawn_texts(fig)])


style.BEFORE_SAVE.append(collect)
rows = data.load([fixture])
# the rows again under another MPI library with a long name and another commit: every label longer
# on hosts of 4 cores: its runs of 8 ranks per host are oversubscribed (hollow points, their legend entry)
other = [dict(r, mpi_library="MVAPICH2 2.3.7 (a long build name)", mpi_version="MVAPICH2 2.3.7 (test)",
              git_commit="fedcba9876543210fedcba9876543210fedcba98", host_cores="4",
              oversubscribed="yes" if r["ranks_per_host"] and int(r["ranks_per_host"]) > 4 else "no") for r in rows]
VARIANTS = {"fixture": rows, "lock rows": [r for r in rows if r["bench"] == "lock"],
            "joins at 1 rank": [r for r in rows if r["bench"] == "join" and r["ranks"] == "1"],
            "two libraries": rows + other}
tmp = tempfile.mkdtemp(prefix="rmaplot-layout-")
for v, rs in VARIANTS.items():
    variant[0] = v
    out = os.path.join(tmp, str(len(os.listdir(tmp))))
    os.mkdir(out)
    path, figs, notes = report.write(rs, [fixture], out)
    check(len(figs) == len([k for k in found if k[0] == v]), f"{v}: {len(figs)} figures written, not all checked")
    with open(path) as f:
        for ln in f:
            m = PLURAL_ONE.search(ln)
            check(not m, f"{v}: report.md says '{m and m.group(0)}': {ln.strip()[:100]}")
drawn = sorted(n for v, n in found if v == "fixture")
check(drawn == sorted(n for n, _, _, _ in report.FIGURES), f"the fixture does not draw every figure: {drawn}")
check(any(v == "joins at 1 rank" for v, _ in found), "no figure drawn from the joins at 1 rank")
# the oversubscribed runs are drawn, hollow, and the legend says why
texts = " ".join(found.get(("two libraries", "join_throughput"), ([], []))[1])
check("hollow: more ranks than cores (oversubscribed)" in texts, "two libraries: join_throughput has no hollow points' entry")
for (v, name), (problems, texts) in found.items():
    for p in problems:
        check(False, f"{v}: {name}: {p}")
    for t in texts:
        m = PLURAL_ONE.search(t)
        check(not m, f"{v}: {name}: '{m and m.group(0)}' in '{' '.join(t.split())[:100]}'")

print(f"{len(found)} figures of {len(VARIANTS)} variants checked in {time.monotonic() - started:.1f} s")
print(f"{'FAILED' if failures else 'ok'}: {len(failures)} failures")
sys.exit(1 if failures else 0)
