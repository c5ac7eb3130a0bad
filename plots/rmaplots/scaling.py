"""Join throughput against MPI ranks: scale-out (thesis Fig 4.2) and ranks per node (Fig 4.6), one
line per configuration (rmaplots.config); a point is the median over the runs of one configuration."""
from . import config, data, regimes, style


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
    return _throughput(rows, drawn, notes, hidden, f"Join scale-out, {key[0]} tuples/rank, 1:{key[1]}")


def _throughput(rows, drawn, notes, hidden, title):
    """The throughput lines of drawn against ranks, each point marked by what it measured (regimes:
    the states every join among rows met)."""
    machine = regimes.Machine(data.joins(rows))
    # the legend below names the lines in one row each: the figure as wide as the longest name
    width = max(6.5, style.text_inches(max((len(s.label) for s in drawn), default=0), 7) + 1.2)
    fig, (ax,) = style.figure(width=width, height=3.6)
    pts = style.lines(ax, drawn, "throughput", 1e-6, machine=machine)
    flags = style.flag_handles(machine, pts)
    fig.set_figheight(3.6 + style.legend_height(style.entries(len(drawn), flags)))
    style.ranks_axis(ax, [x for s in drawn for x in s.points])
    ax.set_ylabel("throughput [M input tuples/s]")
    ax.set_title(f"{title}\n{data.RUNS_TEXT}; {style.runs_text(pts)}", fontsize=8)
    ax.grid(alpha=0.3)
    style.legend(ax, below=True, extra=flags)
    style.note(fig, notes)
    shared = config.shared([s.config for s in drawn])
    return style.Drawn(fig, shown=[s.label for s in drawn], shared=config.describe(shared),
                       notes=notes + style.flag_notes(machine, drawn, pts), hidden=hidden)


def fig_scaleup(rows):
    """Fig 4.6: throughput against ranks, one line per ranks per node (and per any other difference)."""
    key, rs = data.main_workload(data.joins(rows))
    if len({r["ranks_per_host"] for r in rs}) < 2:
        return style.Drawn(skipped="join runs with a single ranks-per-host value: scale-up figure (Fig 4.6) skipped")
    ss, legend = config.series(rs, config.SCALEUP)
    drawn, notes, hidden = sweeps(ss, "scale-up")
    return _throughput(rows, drawn, notes, hidden, f"Join scale-out and scale-up (ranks per node), {key[0]} tuples/rank")
