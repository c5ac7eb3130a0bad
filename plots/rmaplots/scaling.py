"""Join throughput against MPI ranks: scale-out (thesis Fig 4.2) and ranks per node (Fig 4.6), one
line per configuration (rmaplots.config); a point is the median over the runs of one configuration."""
from . import config, data, style


def sweeps(series, what):
    """(series run at two or more rank counts, relabelled among themselves; notes; labels of the
    others): a line needs two points. When no configuration has two, all are drawn as points and the
    note says there is no scaling to see."""
    multi = [s for s in series if len(s.points) > 1]
    single = [s for s in series if len(s.points) == 1]
    if not multi:
        return series, [f"every configuration ran at one rank count: no {what} shown"] if series else [], []
    config.relabel(multi)
    if single:
        return multi, [f"{style.count(len(single), 'configuration')} ran at one rank count only: not drawn "
                       "(see the tables)"], [s.label for s in single]
    return multi, [], []


def fig_throughput(rows):
    """Fig 4.2: throughput of the main workload against ranks, one line per configuration."""
    key, rs = data.main_workload(data.joins(rows))
    if not rs:
        return style.Drawn(skipped="no verified join runs: throughput figure (Fig 4.2) skipped")
    ss, legend = config.series(rs, config.RANKS)
    drawn, notes, hidden = sweeps(ss, "scaling")
    fig, (ax,) = style.figure(width=6.5, height=3.6 + style.legend_height(len(drawn)))
    style.lines(ax, drawn, "throughput", 1e-6)
    style.ranks_axis(ax, [x for s in drawn for x in s.points])
    ax.set_ylabel("throughput [M input tuples/s]")
    ax.set_title(f"Join scale-out, {key[0]} tuples/rank, 1:{key[1]}\nmedian of runs, {data.CI_TEXT}", fontsize=9)
    ax.grid(alpha=0.3)
    style.legend(ax, below=True)
    style.note(fig, notes)
    shared = config.shared([s.config for s in drawn])
    return style.Drawn(fig, shown=[s.label for s in drawn], shared=config.describe(shared), notes=notes,
                       hidden=hidden)


def fig_scaleup(rows):
    """Fig 4.6: throughput against ranks, one line per ranks per node (and per any other difference)."""
    key, rs = data.main_workload(data.joins(rows))
    if len({r["ranks_per_host"] for r in rs}) < 2:
        return style.Drawn(skipped="join runs with a single ranks-per-host value: scale-up figure (Fig 4.6) skipped")
    ss, legend = config.series(rs, config.SCALEUP)
    drawn, notes, hidden = sweeps(ss, "scale-up")
    fig, (ax,) = style.figure(width=6.5, height=3.6 + style.legend_height(len(drawn)))
    style.lines(ax, drawn, "throughput", 1e-6)
    style.ranks_axis(ax, [x for s in drawn for x in s.points])
    ax.set_ylabel("throughput [M input tuples/s]")
    ax.set_title(f"Join scale-out and scale-up (ranks per node), {key[0]} tuples/rank\n"
                 f"median of runs, {data.CI_TEXT}", fontsize=9)
    ax.grid(alpha=0.3)
    style.legend(ax, below=True)
    style.note(fig, notes)
    shared = config.shared([s.config for s in drawn])
    return style.Drawn(fig, shown=[s.label for s in drawn], shared=config.describe(shared), notes=notes,
                       hidden=hidden)
