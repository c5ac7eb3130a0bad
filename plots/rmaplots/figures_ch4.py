"""Thesis chapter 4 in the catalogue: weak scaling and its phases (Fig 4.2-4.4, 4.6), input sizes
(Fig 4.5, Table 4.1) and the model against measurement (Table 4.2)."""

import numpy as np

from . import data, model, regimes, style, thesis
from .figure_kit import (
    JOIN_PHASES, SYNC_PARTS, fmt_count, fmt_num, groups, join_title, joins, label_and_save, lines, log2_axis, num, log_y,
    save, stacked, title_and_save)


def throughput_axes(res, fig, ax, xs, outdir, title, entries):
    """The join throughput figures' rank axis, labels, legend below for `entries` lines, title; saved."""
    if xs:
        log2_axis(ax, xs)
    ax.set_xlabel("MPI ranks")
    ax.set_ylabel("throughput [M input tuples/s]")
    flags = res.flags(ax)
    style.legend(ax, below=True, extra=flags)
    title_and_save(res, fig, outdir, title, 4.0 + style.legend_height(style.entries(entries, flags)))


def compared(drawn):
    """({(series, x): median} of the points of lines() that compare as scaling (regimes.comparable:
    not oversubscribed, their runs in the state most points share), text naming the others and why,
    and the state's slower kinds when the compared points all met the slower state)."""
    pts = [(s, x, m, k) for s, ps in drawn for x, m, k, _ in ps or []]
    ok, state = regimes.comparable([k for *_, k in pts])
    like = {(s, x): m for (s, x, m, _), o in zip(pts, ok) if o}
    out = {}
    for (s, x, _, k), o in zip(pts, ok):
        if not o:
            why = ", ".join((["oversubscribed"] if k.oversub else []) + [f"runs in two {regimes.WHAT[x_]} states" for x_ in k.mixed] +
                            ([f"another machine state ({', '.join(regimes.WHAT[x_] for x_ in k.slow) or 'the faster'})"] if not k.oversub and not k.mixed
                             else []))
            out.setdefault((x, why), []).append(str(s))
    text = "".join(f"; not compared as scaling: {' and '.join(v)} at {style.count(int(x), 'rank')} ({why})"
                   for (x, why), v in out.items())
    if state:
        text += f"; the compared points all met the machine's slower {' and '.join(regimes.WHAT[k] for k in state)} state"
    return like, text, state


def fig4_2(res, rows, outdir, params):
    """Fig 4.2 with the thesis' points beside ours on shared log axes: (a) throughput against ranks,
    (b) throughput per rank (flat = linear scaling). The thesis' points are its own series, labelled
    with its machine: 1024 cores (from Table 4.1's time) and 4096 (its peak)."""
    rs = joins(rows)
    th = thesis.join_throughput()
    fig, axes = style.figure(ncols=2, width=4.6, height=4.0)
    drawn = []
    for ax, per_rank in ((axes[0], False), (axes[1], True)):
        col = (lambda r: data.num(r, "throughput") / num(r, "ranks") if data.num(r, "throughput") else None) \
            if per_rank else "throughput"
        got = lines(ax, res, rs, lambda r: num(r, "ranks"), lambda r: r["algo"], col, 1e-6,
                    what="throughput per rank" if per_rank else None, label=lambda s: f"ours: {s}",
                    color=lambda s: style.COLORS.get(s, "#7f7f7f"))
        drawn = drawn or got
        for algo, pts in th.items():
            ax.plot([c for c, _ in pts], [t / (c if per_rank else 1) * 1e-6 for c, t in pts], linestyle="--", marker="x",
                    color=style.COLORS[algo], label=f"{thesis.ARIES}: {algo}")
            for c, t in pts:
                res.keep("thesis per rank" if per_rank else "thesis", algo, c, t / (c if per_rank else 1))
        xs = sorted({num(r, "ranks") for r in rs} | {c for pts in th.values() for c, _ in pts})
        log2_axis(ax, xs)
        log_y(ax)
        ax.set_xlabel("MPI ranks (thesis: cores)")
        ax.set_ylabel("M input tuples/s per rank" if per_rank else "M input tuples/s")
        ax.set_title("(b) per rank: flat = linear scaling" if per_rank else "(a) throughput", fontsize=9)
    flags = res.flags(axes[0])
    style.legend(axes[0], below=True, extra=flags)
    title_and_save(res, fig, outdir, f"Join throughput against ranks (cf. Fig 4.2), {join_title(rs)}, 1:1; "
                   f"{data.RUNS_TEXT}; {style.runs_text([p for _, p in drawn])}",
                   4.0 + style.legend_height(style.entries(4, flags)))
    ok, other, _ = compared(drawn)
    best = max(((m / x, s, x) for (s, x), m in ok.items()), default=None)
    if best:
        res.compare = (f"best per rank among points measured alike: {best[1]} {best[0]:.1f} M tuples/s per rank "
                       f"at {style.count(int(best[2]), 'rank')}; thesis ({thesis.ARIES}) "
                       + ", ".join(f"{a} {pts[0][1] / pts[0][0] / 1e6:.1f} at {pts[0][0]} and {pts[1][1] / pts[1][0] / 1e6:.1f} "
                                   f"at {pts[1][0]} cores" for a, pts in th.items()) + other)
    elif drawn:
        res.compare = "no point measured like the others: nothing compared as scaling" + other


def _shares(parts):
    """{name: share of the total} of [(name, seconds)]."""
    tot = sum(v for _, v in parts) or 1.0
    return {n: v / tot for n, v in parts}


def fig_phases_weak(res, rows, outdir, algo, fig_id):
    """Fig 4.3a / 4.4a: (a) the phases per rank count in seconds, (b) the same as shares of each bar's
    total beside the thesis' phases at 1024 cores (Table 4.2's measured column, its own bar): the
    machines differ, their shapes compare. A bar whose runs were oversubscribed says so under it; one
    whose window allocation met the slower regime stands on a shaded background."""
    rs = joins(rows, algo)
    a = [r for r in rs if r["algo"] == algo]
    if not a:
        return res.notes.append(f"no verified {algo} runs")
    fig, axes = style.figure(ncols=2, width=4.6, height=3.8)
    parts = [(p, f"t_{p}_avg") for p in JOIN_PHASES[algo]] + SYNC_PARTS
    gs = groups(a, lambda r: int(num(r, "ranks")))
    stacked(axes[0], res, a, lambda r: int(num(r, "ranks")), parts, f"{algo} phases")
    machine = res.machine
    suffix, slow, notes = style.mark_bars(axes, gs, machine, 0.4)
    ticks = [f"{x}{o}" for x, o in zip(gs, suffix)]
    res.notes += notes
    axes[0].set_xticks(range(len(gs)), ticks, fontsize=8)
    axes[0].set_xlabel("MPI ranks")
    axes[0].set_ylabel("time [s], average over ranks (median of runs)")
    axes[0].set_title("(a) seconds", fontsize=9)
    # (b) shares: ours per rank count, then the thesis at 1024 cores
    t = thesis.TABLE_4_2[algo]
    th = _shares([(p, t[p][0]) for p in JOIN_PHASES[algo] + ["imbalance"] if p in t])
    cols = [{n: res.values.get((f"{algo} phases", n, x), 0.0) for n, _ in parts} for x in gs]
    cols = [_shares(list(c.items())) for c in cols] + [th]
    labels = ticks + ["thesis\n1024 cores"]
    bottom = np.zeros(len(cols))
    for n, _ in parts:
        h = np.array([c.get(n, 0.0) for c in cols])
        for i, x in enumerate(list(gs) + ["thesis"]):
            res.keep(f"{algo} shares", n, x, h[i])
        axes[1].bar(range(len(cols)), h, 0.6, bottom=bottom, color=style.PHASE_COLORS.get(n),
                    hatch={"imbalance": "//", "wait": ".."}.get(n), label=n)
        bottom += h
    axes[1].set_xticks(range(len(cols)), labels, fontsize=8)
    axes[1].set_ylim(0, 1.0)
    axes[1].set_ylabel("share of the bar's total")
    axes[1].set_xlabel(f"MPI ranks; {thesis.ARIES}, Table 4.2")
    axes[1].set_title("(b) shares beside the thesis'", fontsize=9)
    extra = [style.shade_entry(machine)] if slow else []
    style.legend(axes[1], extra=extra)
    style.title(fig, f"{algo} join phases per rank count (cf. {fig_id}), {join_title(rs)}; hatched: imbalance, "
                "dotted: wait; median of runs")
    save(res, fig, outdir)
    phase = "network_partition" if algo == "radix" else "sort"
    ok, state = regimes.comparable([machine.point(g) for g in gs.values()])
    like = [x for x, o in zip(gs, ok) if o]
    other = "".join(f"; not compared: {style.count(x, 'rank')} ({machine.why(machine.point(g))})"
                    for x, g in gs.items() if x not in like)
    other += (f"; the compared rank counts all met the machine's slower {' and '.join(regimes.WHAT[k] for k in state)} "
              "state" if state else "")
    if like:
        x = max(like)
        res.compare = (f"{phase} is {100 * cols[list(gs).index(x)].get(phase, 0):.0f}% of the time at "
                       f"{style.count(x, 'rank')} (ours); "
                       f"thesis at 1024 cores ({thesis.ARIES}): {100 * th[phase]:.0f}%{other}")
    else:
        res.compare = f"no rank count measured like the others; thesis at 1024 cores: {phase} {100 * th[phase]:.0f}%{other}"


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
    ok, _ = regimes.comparable([res.machine.point(g) for g in gs.values()])  # oversubscribed ranks are no scaling
    like = [x for x, o in zip(gs, ok) if o]
    if v and like:
        x = max(like)
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
    """Table 4.2: per phase our measured and modelled time beside the thesis' (1024 cores), and a figure
    of the four as stacked bars, each machine's normalised to its own measured total (the machines
    differ; the model's gap to the measurement compares). Totals like with like (model.totals): the
    measured total holds window_alloc, so it meets the model's total that holds it, or the measured
    total less window_alloc meets the thesis' model total."""
    rs = [r for r in joins(rows) if data.num(r, "model_total") is not None]
    out = []
    parts = []
    fig, axes = style.figure(ncols=2, width=4.4, height=3.8)
    for ax, algo in zip(axes, ("radix", "sortmerge")):
        a = [r for r in rs if r["algo"] == algo]
        if not a:
            ax.set_visible(False)
            continue
        rate = data.median([v for v in (regimes.alloc_s_per_gb(r) for r in a) if v is not None])
        out += [f"**{algo}**, {a[0]['ranks']} ranks, {join_title(a)}, {style.count(len(a), 'run')}"
                + (f"; window allocation {rate:.3g} s/GB (median over runs)" if rate else ""), "",
                f"| phase | ours measured [s] | ours model [s] | ours diff [s] | {thesis.ARIES} measured [s] | thesis model [s] | thesis diff [s] |",
                "|---|---|---|---|---|---|---|"]
        phases = JOIN_PHASES[algo] + ["wait", "imbalance"]
        for p in phases:
            m = res.median("measured", algo, p, a, f"t_{p}_avg")
            pr = res.median("model", algo, p, a, f"model_{p}")
            tm, tp = thesis.TABLE_4_2[algo].get(p, (None, None))
            d = None if m is None or pr is None else pr - m
            td = None if tm is None or tp is None else tp - tm
            out.append(f"| {p} | {fmt_num(m, 4)} | {fmt_num(pr, 4)} | {'—' if d is None else f'{-d:+.4f}'} | {fmt_num(tm, 2)} | "
                       f"{fmt_num(tp, 2)} | {'—' if td is None else f'{-td:+.2f}'} |")
        tm, tp = thesis.TABLE_4_2[algo]["total"]
        tot = model.totals(a)
        for i, (name, m, pr) in enumerate(tot):
            th = f"{tm:.2f} | {tp:.2f} | {tm - tp:+.2f}" if i == 0 else "— | — | —"
            out.append(f"| {name} | {fmt_num(m, 4)} | {fmt_num(pr, 4)} | {'—' if m is None or pr is None else f'{m - pr:+.4f}'} "
                       f"| {th} |")
        out.append("")
        name, m, pr = tot[0]
        if m and pr:
            parts.append(f"{algo}: model/measured {pr / m:.2f} ({name}) against the thesis' {tp / tm:.2f} (its total: "
                         "the model holds neither window allocation nor imbalance)")
        # the figure: measured and model, ours and the thesis', each machine's over its measured total
        ours_m = {p: res.values.get(("measured", algo, p)) or 0.0 for p in phases}
        ours_p = {p: res.values.get(("model", algo, p)) or 0.0 for p in phases}
        th_m = {p: (thesis.TABLE_4_2[algo].get(p, (None, None))[0] or 0.0) for p in phases}
        th_p = {p: (thesis.TABLE_4_2[algo].get(p, (None, None))[1] or 0.0) for p in phases}
        bars = [(ours_m, sum(ours_m.values())), (ours_p, sum(ours_m.values())), (th_m, tm), (th_p, tm)]
        bottom = np.zeros(4)
        for p in phases:
            h = np.array([b[p] / (tot_ or 1.0) for b, tot_ in bars])
            for i, h_ in enumerate(h):
                res.keep("table4.2 share", f"{algo} {('ours', 'ours', 'thesis', 'thesis')[i]}", f"{p} {('measured', 'model')[i % 2]}", h_)
            ax.bar(range(4), h, 0.6, bottom=bottom, color=style.PHASE_COLORS.get(p), label=p,
                   hatch=["", "//", "", "//"], edgecolor="black", linewidth=0.3)
            bottom += h
        ax.set_ylim(0, max(1.0, bottom.max()) * 1.08)
        ax.axhline(1.0, color="black", linewidth=0.6, linestyle=":")
        ax.set_xticks(range(4), ["ours\nmeas.", "ours\nmodel", "thesis\nmeas.", "thesis\nmodel"], fontsize=8)
        ax.set_ylabel("time over the measured total of its machine")
        ax.set_title(f"{algo}: ours {a[0]['ranks']} ranks, thesis 1024 cores", fontsize=9)
        ax.grid(axis="y", alpha=0.3)
    shown = [ax for ax in axes if ax.get_visible()]
    if shown:
        style.legend(shown[-1], axes=shown, extra=[("measured (plain)", dict(facecolor="white", edgecolor="black")),
                                                   ("model (hatched)", dict(facecolor="white", edgecolor="black", hatch="//"))])
        style.title(fig, f"Model against measurement per phase (cf. Table 4.2), ours beside the thesis' ({thesis.ARIES}); "
                    "each machine's bars over its measured total (dotted line: 1)")
        save(res, fig, outdir)
    else:
        style.plt.close(fig)
    res.lines = ["Diff: measured − model, as the thesis' Table 4.2 gives it. Totals like with like: the measured total "
                 "holds window_alloc, so it is compared with the model's total that holds it (total, "
                 "total_without_imbalance), or the measured total less window_alloc with the model's without it "
                 "(total_without_alloc); the thesis' own total is its measured total against a model without window "
                 "allocation and imbalance.", ""] + out
    res.compare = "; ".join(parts)
