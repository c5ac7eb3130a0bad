"""Measured against predicted time per phase (thesis Table 4.2 and Fig 3.15), per configuration
(rmaplots.config; the model parameters file is part of it)."""
import math

import numpy as np

from . import breakdown, config, data, regimes, style

# the totals join_compare prints, like with like: the measured total holds window_alloc, so it is
# compared with the model's total that holds it too, against the slowest rank and against the mean
# over ranks (the model has no imbalance term); (row, measured column, model column)
TOTALS = (("total", "t_total_max", "model_total_with_alloc"),
          ("total_without_imbalance", "t_total_avg", "model_total_with_alloc"))


def totals(rs):
    """The total rows of a table, like with like: with window allocation modelled, TOTALS; without,
    the thesis' total against the measured total less its window_alloc."""
    if data.values(rs, "model_total_with_alloc"):
        return [(name, data.median(data.values(rs, meas)), data.median(data.values(rs, pred))) for name, meas, pred in TOTALS]
    less = [data.num(r, "t_total_max") - (data.num(r, "t_window_alloc_avg") or 0.0) for r in rs
            if data.num(r, "t_total_max") is not None]
    return [("total_without_alloc", data.median(less), data.median(data.values(rs, "model_total")))]


def model_series(rows, algo=None):
    """Series (MODEL_RANKS view) of the main workload's runs with --model predictions."""
    _, rs = data.main_workload(data.joins(rows))
    rs = [r for r in rs if data.num(r, "model_total") is not None and (algo is None or r["algo"] == algo)]
    return config.series(rs, config.MODEL_RANKS)[0] if rs else []


def model_tables(rows, algo):
    """[(label, ranks, [(phase, measured median, model median or None)])]: per configuration with
    model predictions, at its largest rank count, the phases then TOTALS (those the model predicts);
    [] without predictions."""
    ss = model_series(rows, algo)
    out = []
    for s in ss:
        ranks = max(s.points)
        rs = s.points[ranks]
        table = [(p, data.median(data.values(rs, f"t_{p}_avg")), data.median(data.values(rs, f"model_{p}")))
                 for p in data.phases_of(rs)]
        table += totals(rs)
        out.append((s.label if len(ss) > 1 else "", int(ranks), table))
    return out


def fig_model(rows):
    """Fig 3.15: per configuration and rank count, a measured and a predicted bar, stacked by phase."""
    ss = model_series(rows)
    if not ss:
        return style.Drawn(skipped="no join runs with --model predictions: model figure (Fig 3.15) skipped")
    refuse = breakdown.panels(ss, "measured against predicted")
    if refuse:
        return style.Drawn(skipped=refuse)
    ncols = min(len(ss), 3)
    fig, axes = style.figure(ncols=ncols, nrows=math.ceil(len(ss) / ncols), width=4.5, height=3.8)
    machine = regimes.Machine(data.joins(rows))  # the states every join of the report met
    marks, shaded = [], False
    for ax, s in zip(axes, ss):
        g = s.points
        phases = data.phases_of(s.rows)
        x = np.arange(len(g))
        top = 0.0
        for off, kind in ((-0.2, "measured"), (0.2, "model")):
            bottom = np.zeros(len(g))
            for p in phases:
                col = f"t_{p}_avg" if kind == "measured" else f"model_{p}"
                h = np.array([data.median(data.values(v, col)) or 0.0 for v in g.values()])
                ax.bar(x + off, h, 0.38, bottom=bottom, color=style.PHASE_COLORS.get(p),
                       hatch="//" if kind == "model" else None, edgecolor="black", linewidth=0.3,
                       label=p if kind == "measured" else None)
                bottom += h
            top = max(top, bottom.max(initial=0.0))
        ax.set_ylim(0, top * 1.08 or 1.0)  # the tallest stack inside the axes, whatever the autoscale did
        suffix, shaded_here, notes = style.mark_bars([ax], g, machine)
        shaded = shaded or shaded_here
        marks += [f"{s.label}: {n}" if s.label else n for n in notes]
        ax.set_xticks(x, [f"{int(k)}\nmeas | model{o}" for k, o in zip(g, suffix)], fontsize=7)
        ax.set_xlabel("MPI ranks")
        ax.set_ylabel("time [s] (median of runs)")
        style.panel_title(ax, s.label)
        ax.grid(axis="y", alpha=0.3)
    for ax in axes[len(ss):]:
        ax.set_visible(False)
    # the phases' colours say which phase; two plain patches say which bar is which
    extra = [("measured (plain)", dict(facecolor="white", edgecolor="black")),
             ("model (hatched)", dict(facecolor="white", edgecolor="black", hatch="//"))]
    if shaded:
        extra.append(style.shade_entry(machine))
    style.legend(axes[min(len(ss), ncols) - 1], axes=axes[:len(ss)], extra=extra)
    style.title(fig, "Measured (plain) against predicted (hatched) time per phase (cf. Fig 3.15)")
    shared = config.shared([s.config for s in ss])
    return style.Drawn(fig, shown=[s.label for s in ss], shared=config.describe(shared), notes=marks)
