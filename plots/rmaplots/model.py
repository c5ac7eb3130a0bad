"""Measured against predicted time per phase (thesis Table 4.2 and Fig 3.15)."""
import numpy as np

from . import data, style


def model_table(rows, algo):
    """Rows (phase, measured median, model median or None) for the largest rank count of the main
    workload with model predictions, plus that rank count; ([], None) without predictions."""
    _, rs = data.main_workload(data.joins(rows))
    rs = [r for r in rs if r["algo"] == algo and data.num(r, "model_total") is not None]
    if not rs:
        return [], None
    ranks = max(int(data.num(r, "ranks")) for r in rs)
    rs = [r for r in rs if int(data.num(r, "ranks")) == ranks]
    table = []
    for p in data.phases_of(rs) + ["total"]:
        meas = data.median(data.values(rs, "t_total_max" if p == "total" else f"t_{p}_avg"))
        pred = data.median(data.values(rs, f"model_{p}"))
        table.append((p, meas, pred))
    return table, ranks


def fig_model(rows):
    """Fig 3.15: per algorithm and rank count, a measured and a predicted bar, stacked by phase."""
    _, rs = data.main_workload(data.joins(rows))
    rs = [r for r in rs if data.num(r, "model_total") is not None]
    algos = sorted({r["algo"] for r in rs})
    if not algos:
        return None, "no join runs with --model predictions: model figure (Fig 3.15) skipped"
    fig, axes = style.figure(ncols=len(algos))
    for ax, algo in zip(axes, algos):
        g = data.group([r for r in rs if r["algo"] == algo], lambda r: int(data.num(r, "ranks")))
        phases = [p for p in data.phases_of(sum(g.values(), []))]
        x = np.arange(len(g))
        for off, kind in ((-0.2, "measured"), (0.2, "model")):
            bottom = np.zeros(len(g))
            for p in phases:
                col = f"t_{p}_avg" if kind == "measured" else f"model_{p}"
                h = np.array([data.median(data.values(v, col)) or 0.0 for v in g.values()])
                ax.bar(x + off, h, 0.38, bottom=bottom, color=style.PHASE_COLORS.get(p),
                       hatch="//" if kind == "model" else None, edgecolor="black", linewidth=0.3,
                       label=p if kind == "measured" else None)
                bottom += h
        ax.set_xticks(x, [f"{k}\nmeas | model" for k in g])
        ax.set_xlabel("cores (MPI ranks)")
        ax.set_ylabel("time [s]")
        ax.set_title(f"{algo}: measured vs model (hatched)")
        ax.legend(fontsize=7)
        ax.grid(axis="y", alpha=0.3)
    return fig, None
