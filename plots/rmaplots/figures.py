"""The catalogue's figures and tables (rmaplots.catalogue; `rmaplot figure ID`): each draws from the
rows of its sweep the medians over runs of one point (a point groups the rows that agree in the
entry's x and series columns; a sweep's CSV holds nothing else that varies), puts the thesis' numbers
beside ours where the thesis gives them (rmaplots.thesis, labelled with its machine), and says in one
line how ours compares. Every value it draws or tabulates is kept in Result.values
({(what, series, x): median}) so that a test can check them against the rows."""
import os

from . import catalogue, config, data, regimes, safeio, style
from .figure_kit import Result
from .figures_ch3 import buffers, fanout, fig3_7, fig3_9, fig3_10a, fig3_10b, fig3_11, fig3_12, fig3_16, skew
from .figures_ch4 import fig4_2, fig4_5, fig4_6, fig_detail, fig_phases_weak, table4_1, table4_2
from .figures_ch5 import fig5_5, fig5_6, fig5_7, lock_split, table5_1, table5_2
from .query import DRAW as QUERY_DRAW

DRAW = {"fig3.7": fig3_7, "fig3.9": fig3_9, "fig3.10a": fig3_10a, "fig3.10b": fig3_10b, "fig3.11": fig3_11,
        "fig3.12": fig3_12, "fig3.16": fig3_16, "skew3.4.5": skew, "fanout": fanout, "buffers": buffers,
        "fig4.2": fig4_2, "fig4.3a": lambda *a: fig_phases_weak(*a[:3], "radix", "Fig 4.3a"),
        "fig4.3b": lambda *a: fig_detail(*a[:3], "radix", "Fig 4.3b", "network_partition"),
        "fig4.4a": lambda *a: fig_phases_weak(*a[:3], "sortmerge", "Fig 4.4a"),
        "fig4.4b": lambda *a: fig_detail(*a[:3], "sortmerge", "Fig 4.4b", "sort"),
        "fig4.5": fig4_5, "fig4.6": fig4_6, "table4.1": table4_1, "table4.2": table4_2, "fig5.5": fig5_5,
        "fig5.6": fig5_6, "fig5.7": fig5_7, "table5.1": table5_1, "table5.2": table5_2, "lock-split": lock_split,
        **QUERY_DRAW}


def run_text(rows):
    """What the verified runs among rows were, for a reader who puts the figure beside the thesis':
    ranks, hosts and their cores, where ranks outnumbered cores, runs per point (rows of one
    configuration), commit, MPI library, when, and the machine states the runs met."""
    vs = data.joins(rows) + data.locks(rows)
    if not vs:
        return "no verified runs"
    ranks = sorted({int(data.num(r, "ranks")) for r in vs})
    hosts = sorted({r.get("hosts", "") for r in vs} - {""})
    over = sorted({int(data.num(r, "ranks")) for r in vs if regimes.oversubscribed(r)})
    points = {}  # a point: the runs of one command (its flags, not its --repeat or --output) and algorithm
    for r in vs:
        key = (r.get("bench"), r.get("algo", ""), r.get("ranks"), frozenset(catalogue.pairs(r.get("command", ""))))
        points[key] = points.get(key, 0) + 1
    ns = sorted(set(points.values()))
    ts = sorted(r.get("timestamp", "") for r in vs if r.get("timestamp"))
    machine = regimes.Machine(vs)
    cores = regimes.cores_text(vs)
    parts = [f"ranks {', '.join(map(str, ranks))} on {'/'.join(hosts) or '?'} host{'' if hosts == ['1'] else 's'}"
             + (f" ({cores})" if cores else ""),
             f"oversubscribed at {', '.join(map(str, over))} ranks" if over else "not oversubscribed",
             f"{style.n_text(ns)} per point",
             f"commit {', '.join(sorted({r.get('git_commit', '')[:7] for r in vs}) or ['?'])}",
             ", ".join(sorted({config.mpi_name(r) for r in vs})),
             f"{ts[0]} to {ts[-1]}" if ts else "no timestamps"]
    parts += [f"two machine states: {machine.regimes[k].text()}" for k in machine.kinds()]
    return "; ".join(parts)


def draw(entry_id, rows, outdir, params=None):
    """Draws one catalogue entry into outdir (ID.png/.pdf for figures) and writes outdir/ID.md (what it
    shows, the table, the comparison with the thesis); returns the Result."""
    e = catalogue.BY_ID[entry_id]
    res = Result(e)
    res.machine = regimes.Machine(data.joins(rows) + data.locks(rows))
    DRAW[entry_id](res, rows, outdir, params)
    res.notes += res.marks()
    over = sorted({int(data.num(r, "ranks")) for r in data.joins(rows) + data.locks(rows) if regimes.oversubscribed(r)})
    if over and "oversubscribed" not in res.compare:  # said where the entry left them out already
        res.compare += (("; " if res.compare else "") + f"runs at {', '.join(map(str, over))} ranks were oversubscribed "
                        "(ranks beyond the host's cores share them): not scaling")
    if not res.values:
        res.notes.append("no verified rows for this entry")
    res.run = run_text(rows)
    md = [f"## {e.id}: {e.shows} (thesis {e.section})", "", f"- What was run: {res.run}", ""]
    md += [f"![{e.id}]({f})" for f in res.files] + ([""] if res.files else [])
    md += res.lines + ([""] if res.lines else [])
    md += [f"- Note: {n}" for n in res.notes]
    md.append(f"- Against the thesis: {res.compare or 'no comparison (no thesis numbers or no rows)'}")
    res.markdown = md

    def fill(tmp):
        with open(tmp, "w") as f:
            f.write("\n".join(md) + "\n")
    safeio.write_output(os.path.join(outdir, f"{e.id}.md"), fill)
    return res
