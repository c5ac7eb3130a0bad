"""The exchange sweep (jobs/exchange.sh): the radix join's network pass per design and
schedule against the message size, with the model's network-bound prediction (eq. 3.3-3.6, bw_host
calibrated on the same links) beside it. exchange.png/.pdf: throughput and network-pass time;
exchange.md: the numbers, one row per point, and each design's best size against the model."""
import os
import sys

from . import data, safeio, style

SCHEDULES = ("as-is", "staggered", "random")
# The designs are those the rows name, in the order they first ran (jobs/exchange.sh runs them in
# the order `rmabench join --list-exchanges` gives): a new design needs nothing here. Their colours
# in that order.
COLORS = ("#1f77b4", "#2ca02c", "#d62728", "#7f7f7f", "#9467bd", "#8c564b", "#e377c2", "#bcbd22", "#17becf")
DASHES = {"as-is": "-", "staggered": "--", "random": ":"}
MARKS = {"as-is": "o", "staggered": "s", "random": "^"}


def _size(b):
    b = int(b)
    return f"{b >> 20} MiB" if b >= 1 << 20 and b % (1 << 20) == 0 else f"{b >> 10} KiB" if b >= 1024 else f"{b} B"


def points(rows):
    """{(exchange, schedule): {buffer_size: (median pass s, median M tuples/s, median model s, runs)}}
    from the verified join rows that carry an exchange column."""
    js = [r for r in data.joins(rows) if r.get("exchange") and data.num(r, "t_network_partition_max")]
    out = {}
    for key, g in data.group(js, lambda r: (r["exchange"], r["schedule"], int(data.num(r, "buffer_size") or 0))).items():
        t = data.median(data.values(g, "t_network_partition_max"))
        tput = data.median([(data.num(r, "r_tuples") + data.num(r, "s_tuples")) / data.num(r, "t_network_partition_max")
                            / 1e6 for r in g])
        model = data.median(data.values(g, "model_network_partition"))
        out.setdefault(key[:2], {})[key[2]] = (t, tput, model, len(g))
    return out


def designs(rows):
    """The exchange designs of the rows, in the order of their first row."""
    return list(dict.fromkeys(r["exchange"] for r in rows if r.get("exchange")))


def _order(designs):
    return lambda key: (designs.index(key[0]), SCHEDULES.index(key[1]) if key[1] in SCHEDULES else len(SCHEDULES))


def draw(rows, outdir):
    pts = points(rows)
    if not pts:
        return None
    js = [r for r in data.joins(rows) if r.get("exchange")]
    r0 = js[0]
    tuples = data.num(r0, "r_tuples") + data.num(r0, "s_tuples")
    fig, (ax_t, ax_p) = style.figure(ncols=2, width=5.2, height=4.0)
    models = []
    order = designs(js)
    for key in sorted(pts, key=_order(order)):
        xs = sorted(pts[key])
        kw = dict(color=COLORS[order.index(key[0]) % len(COLORS)], linestyle=DASHES.get(key[1], "-."), marker=MARKS.get(key[1], "x"),
                  label=f"{key[0]} {key[1]}")
        ax_t.plot(xs, [pts[key][x][1] for x in xs], **kw)
        ax_p.plot(xs, [pts[key][x][0] for x in xs], **kw)
        models += [pts[key][x][2] for x in xs if pts[key][x][2]]
    if models:
        m = data.median(models)
        for ax, y in ((ax_t, tuples / m / 1e6), (ax_p, m)):
            ax.axhline(y, color="black", linewidth=2.5, alpha=0.35, label="model, network-bound (eq. 3.3-3.6)")
    sizes = sorted({x for p in pts.values() for x in p})
    for ax, ylabel in ((ax_t, "network pass [M tuples/s]"), (ax_p, "network pass [s] (slowest rank)")):
        ax.set_xscale("log", base=2)
        ax.set_xticks(sizes)
        ax.set_xticklabels([_size(x) for x in sizes], rotation=45, fontsize=7)
        ax.set_xlabel("message size (--buffer-size as planned)")
        ax.set_ylabel(ylabel)
        ax.set_ylim(bottom=0)
        ax.grid(True, alpha=0.3)
    style.legend(ax_p)
    style.title(fig, f"Radix network pass by exchange design and schedule: {style.count(int(data.num(r0, 'hosts')), 'host')}, "
                     f"links {r0.get('link_rate') or 'unshaped'}, {int(tuples):,} tuples, {r0.get('mpi_library', '')}")
    return style.save(fig, outdir, "exchange")


def table(rows):
    """Markdown: one row per design, schedule and size; then each line's best point against the model."""
    pts = points(rows)
    lines = ["| design | schedule | message | network pass [s] | M tuples/s | model [s] | measured / model | runs |",
             "|---|---|---|---:|---:|---:|---:|---:|"]
    best = []
    for key in sorted(pts, key=_order(designs(data.joins(rows)))):
        for x in sorted(pts[key]):
            t, tput, model, n = pts[key][x]
            ratio = f"{t / model:.2f}" if model else "-"
            lines.append(f"| {key[0]} | {key[1]} | {_size(x)} | {t:.3f} | {tput:.2f} | "
                         f"{model:.3f} | {ratio} | {n} |" if model else
                         f"| {key[0]} | {key[1]} | {_size(x)} | {t:.3f} | {tput:.2f} | - | - | {n} |")
        x = min(pts[key], key=lambda s: pts[key][s][0])
        best.append((pts[key][x][0], key, x))
    lines += ["", "Fastest message size per design and schedule, fastest first:", "",
              "| design | schedule | message | network pass [s] | measured / model |", "|---|---|---|---:|---:|"]
    for t, key, x in sorted(best):
        model = pts[key][x][2]
        lines.append(f"| {key[0]} | {key[1]} | {_size(x)} | {t:.3f} | {t / model:.2f} |" if model else
                     f"| {key[0]} | {key[1]} | {_size(x)} | {t:.3f} | - |")
    return "\n".join(lines) + "\n"


USAGE = "usage: exchange_figure RESULTS.csv --out DIR [--force]"


def main(argv):
    if "-h" in argv or "--help" in argv:
        print(USAGE + "\n" + __doc__)
        return 0
    if argv[3:] == ["--force"]:  # replace the files of an earlier run in DIR
        safeio.set_replace(True)
        argv = argv[:3]
    if len(argv) != 3 or argv[1] != "--out":
        print(USAGE, file=sys.stderr)
        return 2
    try:
        rows = data.load([argv[0]])
        safeio.check_output_dir(argv[2])
        for name in ("exchange.md", "exchange.png", "exchange.pdf"):
            safeio.check_output_file(os.path.join(argv[2], name))
    except (data.DataError, safeio.UnsafeFile) as e:
        print(f"exchange_figure: {e}", file=sys.stderr)
        return 2
    os.makedirs(argv[2], exist_ok=True)
    png = draw(rows, argv[2])
    if not png:
        print(f"exchange_figure: {argv[0]}: no verified join rows with an exchange column", file=sys.stderr)
        return 2
    md = os.path.join(argv[2], "exchange.md")
    text = table(rows)

    def write(tmp):
        with open(tmp, "w") as f:
            f.write(text)
    safeio.write_output(md, write)
    print(f"exchange_figure: wrote {os.path.join(argv[2], png)} (+ .pdf) and {md}")
    print(text, end="")
    return 0
