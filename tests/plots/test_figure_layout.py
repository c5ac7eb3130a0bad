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
count is 1), and the fixture with its rows again under another MPI library and commit (long
configuration names, twice the configurations).
A deliberately bad figure (a legend at 'center' over bars and a line, a y label moved off the
canvas, hatched bars outside the legend) must be reported for all three, and the same figure laid out as rmaplots lays it out must not.
   test_figure_layout.py RMAPLOT FIXTURE.csv"""
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

# --- every figure of every variant -------------------------------------------------------------
found = {}  # (variant, figure) -> (problems, texts)
variant = [""]


def collect(fig, name):
    found[(variant[0], name)] = (layout.layout_problems(fig), [t.get_text() for t in layout.drawn_texts(fig)])


style.BEFORE_SAVE.append(collect)
rows = data.load([fixture])
# the rows again under another MPI library with a long name and another commit: every label longer
other = [dict(r, mpi_library="MVAPICH2 2.3.7 (a long build name)", mpi_version="MVAPICH2 2.3.7 (test)",
              git_commit="fedcba9876543210fedcba9876543210fedcba98") for r in rows]
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
for (v, name), (problems, texts) in found.items():
    for p in problems:
        check(False, f"{v}: {name}: {p}")
    for t in texts:
        m = PLURAL_ONE.search(t)
        check(not m, f"{v}: {name}: '{m and m.group(0)}' in '{' '.join(t.split())[:100]}'")

print(f"{len(found)} figures of {len(VARIANTS)} variants checked in {time.monotonic() - started:.1f} s")
print(f"{'FAILED' if failures else 'ok'}: {len(failures)} failures")
sys.exit(1 if failures else 0)
