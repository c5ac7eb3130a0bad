"""Join throughput against cores: scale-out (thesis Fig 4.2) and cores per node (Fig 4.6)."""
from . import data, style


def throughput_series(rows):
    """{(algo, label suffix): [(ranks, mean, ci95, median, n)]} over repetitions, tuples/s."""
    suffix = data.label_lib(rows)
    out = {}
    for (algo, suf, ranks), rs in data.group(rows, lambda r: (r["algo"], suffix(r), int(data.num(r, "ranks")))).items():
        xs = data.values(rs, "throughput")
        m, ci = data.mean_ci95(xs)
        out.setdefault((algo, suf), []).append((ranks, m, ci, data.median(xs), len(xs)))
    return out


def fig_throughput(rows):
    """Fig 4.2: throughput of both joins against cores, 95% CI over repetitions."""
    key, rs = data.main_workload(data.joins(rows))
    if not rs:
        return None, "no verified join runs: throughput figure (Fig 4.2) skipped"
    fig, (ax,) = style.figure()
    for (algo, suf), pts in throughput_series(rs).items():
        pts.sort()
        ax.errorbar([p[0] for p in pts], [p[1] / 1e6 for p in pts], yerr=[p[2] / 1e6 for p in pts], marker="o",
                    capsize=3, color=style.COLORS.get(algo), label=algo + suf)
    ax.set_xscale("log", base=2)
    ax.set_xlabel("cores (MPI ranks)")
    ax.set_ylabel("throughput [M input tuples/s]")
    ax.set_title(f"Join scale-out, {key[0]} tuples/rank, 1:{key[1]} (mean, 95% CI)")
    ax.grid(alpha=0.3)
    ax.legend()
    return fig, None


def fig_scaleup(rows):
    """Fig 4.6: throughput against cores, one line per (algorithm, ranks per node)."""
    key, rs = data.main_workload(data.joins(rows))
    if len({r["ranks_per_host"] for r in rs}) < 2:
        return None, "join runs with a single ranks-per-host value: scale-up figure (Fig 4.6) skipped"
    fig, (ax,) = style.figure()
    for (algo, ppn), g in data.group(rs, lambda r: (r["algo"], int(data.num(r, "ranks_per_host") or 0))).items():
        by = data.group(g, lambda r: int(data.num(r, "ranks")))
        xs = list(by)
        ms = [data.mean_ci95(data.values(v, "throughput")) for v in by.values()]
        ax.errorbar(xs, [m / 1e6 for m, _ in ms], yerr=[c / 1e6 for _, c in ms], marker="os^vD"[ppn % 5], capsize=3,
                    color=style.COLORS.get(algo), alpha=0.5 + 0.5 * (ppn % 2), label=f"{algo}, {ppn} ranks/node")
    ax.set_xscale("log", base=2)
    ax.set_xlabel("cores (MPI ranks)")
    ax.set_ylabel("throughput [M input tuples/s]")
    ax.set_title("Join scale-out and scale-up (ranks per node)")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    return fig, None
