"""Per-phase execution time as stacked bars per core count, imbalance on top (Figs 4.3a, 4.4a)."""
import numpy as np

from . import data, style


def phase_medians(rows, phases):
    """{phase: median over runs of the phase's average over ranks}; imbalance from t_imbalance_avg."""
    return {p: data.median(data.values(rows, f"t_{p}_avg")) or 0.0 for p in phases}


def fig_breakdown(rows, algo):
    key, rs = data.main_workload(data.joins(rows))
    rs = [r for r in rs if r["algo"] == algo]
    if not rs:
        return None, f"no verified {algo} join runs: phase breakdown skipped"
    phases = data.phases_of(rs)
    by = data.group(rs, lambda r: int(data.num(r, "ranks")))
    fig, (ax,) = style.figure()
    x = np.arange(len(by))
    bottom = np.zeros(len(by))
    for p in phases:
        h = np.array([phase_medians(g, [p])[p] for g in by.values()])
        ax.bar(x, h, 0.6, bottom=bottom, label=p, color=style.PHASE_COLORS.get(p),
               hatch="//" if p == "imbalance" else None)
        bottom += h
    ax.set_xticks(x, [str(k) for k in by])
    ax.set_xlabel("cores (MPI ranks)")
    ax.set_ylabel("execution time [s] (median of runs, average over ranks)")
    fig_no = "4.3a" if algo == "radix" else "4.4a"
    ax.set_title(f"{algo} join: phases, {key[0]} tuples/rank (cf. Fig {fig_no})")
    ax.legend(fontsize=8, loc="upper left")
    ax.grid(axis="y", alpha=0.3)
    return fig, None
