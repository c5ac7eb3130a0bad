"""Composite remote operations (rmabench rdmo, docs/rdmo.md): the paper's claims beside what was
measured. rdmo.png/.pdf: per operation, the verbs design's messages, median latency (one host and
across hosts) and conflict window over the rdmo design's, each beside the factor the paper claims
(SIGMOD Record 49(4): 4x messages, 2x latency and a 10x smaller conflict window for SlottedAppend;
its Table 2's message savings for the others); and the throughput of every design against the
origins on one target. rdmo.md: the numbers, one row per operation, design, placement and origin
count (medians over the runs of a configuration), then the ratios."""
import os
import sys

from . import data, safeio, style

OPS = ("slotted-append", "conditional-gather", "signaled-read", "write-and-seal", "scatter-accumulate")
DESIGNS = ("verbs", "rdmo", "rpc")
COLORS = {"verbs": "#d62728", "rdmo": "#1f77b4", "rpc": "#7f7f7f"}
# The paper's claims, verbs (RDMA) over RDMO: messages, latency, conflict window; None where it claims none.
CLAIMS = {"slotted-append": (4, 2, 10), "conditional-gather": (30, None, None), "signaled-read": (3, None, None),
          "write-and-seal": (2, None, None), "scatter-accumulate": (30, None, None)}
COLS = ("lat_op_median_us", "lat_op_p99_us", "ops_per_s", "msgs_per_op", "rts_per_op", "lat_window_us")


def where(r):
    return "one host" if (data.num(r, "hosts") or 1) <= 1 else "across hosts"


def points(rows):
    """{(op, design, where, origins): {col: median, 'runs': n}} from the verified rdmo rows."""
    out = {}
    keyf = lambda r: (r.get("rdmo_op"), r.get("rdmo_design"), where(r), int(data.num(r, "origins") or 0))
    for key, g in data.group(data.verified(rows, "rdmo"), keyf).items():
        p = {c: data.median([v for v in data.values(g, c) if v is not None]) for c in COLS}
        p["runs"] = len(g)
        out[key] = p
    return out


def ratio(pts, op, place, col):
    """verbs over rdmo of col at one origin, or None."""
    v, r = pts.get((op, "verbs", place, 1), {}).get(col), pts.get((op, "rdmo", place, 1), {}).get(col)
    return v / r if v and r else None


def draw(rows, outdir):
    pts = points(rows)
    if not pts:
        return None
    places = [p for p in ("one host", "across hosts") if any(k[2] == p for k in pts)]
    fig, axes = style.figure(ncols=2, width=5.6, height=4.2)
    ax_r, ax_t = axes
    bars = [("messages", "msgs_per_op", 0, None)] + [(f"latency {p}", "lat_op_median_us", 1, p) for p in places] + \
           [("conflict window", "lat_window_us", 2, None)]
    width = 0.8 / (2 * len(bars))
    for i, op in enumerate(OPS):
        for j, (label, col, claim_i, place) in enumerate(bars):
            measured = ratio(pts, op, place or places[0], col)
            claim = CLAIMS[op][claim_i]
            x = i + (2 * j - len(bars)) * width
            if claim:
                ax_r.bar(x, claim, width, color="#cccccc", edgecolor="black", hatch="//",
                         label="paper's claim" if i == 0 and j == 0 else None)
            if measured:
                ax_r.bar(x + width, measured, width, color=f"C{j}", label=f"measured: {label}" if i == 0 else None)
    ax_r.axhline(1, color="black", linewidth=0.8)
    ax_r.set_yscale("log")
    ax_r.set_xticks(range(len(OPS)))
    ax_r.set_xticklabels([o.replace("-", "\n") for o in OPS], fontsize=7)
    ax_r.set_ylabel("verbs / rdmo (one origin; above 1: rdmo better)")
    style.legend(ax_r)
    for place, dash in zip(places, ("-", "--")):
        for d in DESIGNS:
            xs = sorted(k[3] for k in pts if k[0] == "slotted-append" and k[1] == d and k[2] == place)
            if xs:
                ax_t.plot(xs, [pts[("slotted-append", d, place, x)]["ops_per_s"] for x in xs], color=COLORS[d],
                          linestyle=dash, marker="o", label=f"{d}, {place}")
    ax_t.set_xlabel("origins on one target")
    ax_t.set_ylabel("SlottedAppend throughput [ops/s]")
    ax_t.set_yscale("log")
    ax_t.grid(True, alpha=0.3)
    style.legend(ax_t)
    r0 = data.verified(rows, "rdmo")[0]
    style.title(fig, f"Composite remote operations: the paper's claims beside the measured ratios; {r0.get('mpi_library', '')}")
    return style.save(fig, outdir, "rdmo")


def _f(v, fmt):
    return fmt.format(v) if v is not None else "-"


def table(rows):
    pts = points(rows)
    lines = ["| operation | design | placement | origins | median us | p99 us | ops/s | msgs/op | rts/op | window us | runs |",
             "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    order = lambda k: (OPS.index(k[0]) if k[0] in OPS else 9, k[2], k[3], DESIGNS.index(k[1]) if k[1] in DESIGNS else 9)
    for k in sorted(pts, key=order):
        p = pts[k]
        lines.append(f"| {k[0]} | {k[1]} | {k[2]} | {k[3]} | {_f(p['lat_op_median_us'], '{:.2f}')} | "
                     f"{_f(p['lat_op_p99_us'], '{:.1f}')} | {_f(p['ops_per_s'], '{:.0f}')} | {_f(p['msgs_per_op'], '{:.2f}')} | "
                     f"{_f(p['rts_per_op'], '{:.2f}')} | {_f(p['lat_window_us'], '{:.3f}')} | {p['runs']} |")
    lines += ["", "verbs over rdmo at one origin, beside the paper's claim:", "",
              "| operation | messages (claim) | latency one host | latency across hosts (claim) | window (claim) |",
              "|---|---:|---:|---:|---:|"]
    for op in OPS:
        c = CLAIMS[op]
        lines.append(f"| {op} | {_f(ratio(pts, op, 'one host', 'msgs_per_op') or ratio(pts, op, 'across hosts', 'msgs_per_op'), '{:.1f}x')} "
                     f"({_f(c[0], 'up to {}x')}) | {_f(ratio(pts, op, 'one host', 'lat_op_median_us'), '{:.2f}x')} | "
                     f"{_f(ratio(pts, op, 'across hosts', 'lat_op_median_us'), '{:.2f}x')} ({_f(c[1], '{}x')}) | "
                     f"{_f(ratio(pts, op, 'one host', 'lat_window_us') or ratio(pts, op, 'across hosts', 'lat_window_us'), '{:.0f}x')} "
                     f"({_f(c[2], '{}x')}) |")
    return "\n".join(lines) + "\n"


USAGE = "usage: rdmo_figure RESULTS.csv... --out DIR [--force]"


def main(argv):
    if "-h" in argv or "--help" in argv:
        print(USAGE + "\n" + __doc__)
        return 0
    if argv[-1:] == ["--force"]:  # replace the files of an earlier run in DIR
        safeio.set_replace(True)
        argv = argv[:-1]
    if len(argv) < 3 or argv[-2] != "--out":
        print(USAGE, file=sys.stderr)
        return 2
    files, outdir = argv[:-2], argv[-1]
    try:
        rows = data.load(files)
        safeio.check_output_dir(outdir)
        for name in ("rdmo.md", "rdmo.png", "rdmo.pdf"):  # refused before anything is drawn
            safeio.check_output_file(os.path.join(outdir, name))
    except (data.DataError, safeio.UnsafeFile) as e:
        print(f"rdmo_figure: {e}", file=sys.stderr)
        return 2
    os.makedirs(outdir, exist_ok=True)
    png = draw(rows, outdir)
    if not png:
        print(f"rdmo_figure: {', '.join(files)}: no verified rmabench rdmo rows", file=sys.stderr)
        return 2
    md = os.path.join(outdir, "rdmo.md")
    text = table(rows)

    def write(tmp):
        with open(tmp, "w") as f:
            f.write(text)
    safeio.write_output(md, write)
    print(f"rdmo_figure: wrote {os.path.join(outdir, png)} (+ .pdf) and {md}")
    print(text, end="")
    return 0
