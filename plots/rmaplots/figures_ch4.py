"""Thesis chapter 4 in the catalogue: weak scaling and its phases (Fig 4.2-4.4, 4.6), input sizes
(Fig 4.5, Table 4.1) and the model against measurement (Table 4.2)."""

from . import data, style, thesis
from .figure_kit import (
    JOIN_PHASES, SYNC_PARTS, fmt_count, fmt_num, phase_share, groups, join_title, joins, label_and_save, lines, log2_axis, num,
    phases_by, save, stacked, thesis_line, title_and_save)


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
    ours = phase_share(res, f"{algo} phases", phase, phase)
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
        parts = [(p, f"t_{p}_avg") for p in JOIN_PHASES[algo]] + SYNC_PARTS
        stacked(ax, res, a, lambda r: (-num(r, "tuples_per_rank"), num(r, "ratio")), parts, f"{algo} phases",
                xfmt=lambda k: f"{fmt_count(-k[0])}/{fmt_count(-k[0] * k[1])}")
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
            f"| {fmt_count(th[0])}/{fmt_count(th[1])} | {th[3]:.2f} ± {th[4]:.2f} | {th[5]:.2f} ± {th[6]:.2f} | "
            f"{th[3] / thesis.TABLE_4_1[0][3]:.2f} | {th[5] / thesis.TABLE_4_1[0][5]:.2f} |")
        out.append(f"| {fmt_count(-nt)}/{fmt_count(-nt * q)} | {fmt_count(-nt * q * -ns)} | {fmt_num(t['radix'])} | {fmt_num(t['sortmerge'])} "
                   f"| {fmt_num(rel['radix'], 2)} | {fmt_num(rel['sortmerge'], 2)} {tcell}")
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
        for p in JOIN_PHASES[algo] + ["wait", "imbalance", "total"]:
            m = res.median("measured", algo, p, a, "t_total_max" if p == "total" else f"t_{p}_avg")
            pr = res.median("model", algo, p, a, f"model_{p}")
            tm, tp = thesis.TABLE_4_2[algo].get(p, (None, None))
            d = None if m is None or pr is None else pr - m
            td = None if tm is None or tp is None else tp - tm
            out.append(f"| {p} | {fmt_num(m, 4)} | {fmt_num(pr, 4)} | {'—' if d is None else f'{-d:+.4f}'} | {fmt_num(tm, 2)} | "
                       f"{fmt_num(tp, 2)} | {'—' if td is None else f'{-td:+.2f}'} |")
        out.append("")
        m, pr = res.values.get(("measured", algo, "total")), res.values.get(("model", algo, "total"))
        tm, tp = thesis.TABLE_4_2[algo]["total"]
        if m and pr:
            parts.append(f"{algo}: model/measured total {pr / m:.2f} (thesis {tp / tm:.2f})")
    res.lines = ["Diff: measured − model, as the thesis' Table 4.2 gives it.", ""] + out
    res.compare = "; ".join(parts)


# --- chapter 5 --------------------------------------------------------------------------------------
