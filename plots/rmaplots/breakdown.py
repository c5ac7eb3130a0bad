"""Per-phase execution time as stacked bars per rank count, imbalance on top (Figs 4.3a, 4.4a; the
reference join's exchange and build_probe), one panel per configuration (rmaplots.config)."""
import math

import numpy as np

from . import config, data, regimes, style

FIG = {"radix": "Fig 4.3a", "sortmerge": "Fig 4.4a", "reference": "no thesis figure"}


def phase_medians(rows, phases):
    """{phase: median over runs of the phase's average over ranks}; imbalance from t_imbalance_avg."""
    return {p: data.median(data.values(rows, f"t_{p}_avg")) or 0.0 for p in phases}


def panels(series, what):
    """Refusal text when there are more configurations than a figure can show side by side."""
    if len(series) <= style.MAX_PANELS:
        return ""
    cols = config.differing([s.config for s in series])
    return (f"{what}: {len(series)} configurations differing in {', '.join(cols)} (more than {style.MAX_PANELS} "
            "panels): skipped; plot fewer results files at a time")


def fig_breakdown(rows, algo):
    key, rs = data.main_workload(data.joins(rows))
    rs = [r for r in rs if r["algo"] == algo]
    if not rs:
        return style.Drawn(skipped=f"no verified {algo} join runs: phase breakdown skipped")
    ss, legend = config.series(rs, config.RANKS)
    refuse = panels(ss, f"{algo} join phases")
    if refuse:
        return style.Drawn(skipped=refuse)
    phases = data.phases_of(rs)
    machine = regimes.Machine(data.joins(rows))  # the states every join of the report met
    shaded, marks = False, []
    ncols = min(len(ss), 3)
    fig, axes = style.figure(ncols=ncols, nrows=math.ceil(len(ss) / ncols), width=4.2 if len(ss) > 1 else 6.0,
                             height=3.6, sharey=True)
    for ax, s in zip(axes, ss):
        x = np.arange(len(s.points))
        bottom = np.zeros(len(s.points))
        for p in phases:
            h = np.array([phase_medians(g, [p])[p] for g in s.points.values()])
            ax.bar(x, h, 0.6, bottom=bottom, label=p, color=style.PHASE_COLORS.get(p),
                   hatch={"imbalance": "//", "wait": ".."}.get(p))
            bottom += h
        suffix, shaded_here, notes = style.mark_bars([ax], s.points, machine, 0.4)
        shaded, marks = shaded or shaded_here, marks + [f"{s.label}: {n}" if s.label else n for n in notes]
        ax.set_xticks(x, [f"{int(k)}{o}" for k, o in zip(s.points, suffix)])
        ax.set_xlabel("MPI ranks")
        style.panel_title(ax, s.label)  # '' for the only configuration: the figure's title says it all
        ax.grid(axis="y", alpha=0.3)
    for ax in axes[len(ss):]:
        ax.set_visible(False)
    # one label beside every row of panels: a two-line label on the first axes alone outgrew its
    # height and left the second row without one
    fig.supylabel("time [s]: median of runs, average over ranks", fontsize=9)
    style.legend(axes[min(len(ss), ncols) - 1], axes=axes[:len(ss)], extra=[style.shade_entry(machine)] if shaded else [])
    style.title(fig, f"{algo} join phases ({FIG[algo]}), {key[0]} tuples/rank; hatched: imbalance (max - avg)")
    shared = config.shared([s.config for s in ss])
    return style.Drawn(fig, shown=[s.label for s in ss], shared=config.describe(shared), notes=marks)
