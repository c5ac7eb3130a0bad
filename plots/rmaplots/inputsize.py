"""Execution time for relation sizes and 1:N ratios at one rank count (thesis Table 4.1), one row
per workload and configuration (rmaplots.config)."""
from . import config, data


def size_table(rows):
    """(ranks, [(configuration label, r_per_rank, s_per_rank, matches, median total s, the 95% CI as a
    cell (data.ci_cell), n)]) at the largest rank count where a configuration ran more than one workload; (None, []) when
    there is no such sweep."""
    js = data.joins(rows)
    for ranks in sorted({int(data.num(r, "ranks")) for r in js}, reverse=True):
        ss, _ = config.series([r for r in js if int(data.num(r, "ranks")) == ranks], config.SIZE)
        ss = [s for s in ss if len(s.points) > 1]
        if not ss:
            continue
        labels = config.legend_columns([s.config for s in ss])
        out = []
        for s in ss:
            for g in s.points.values():
                xs = data.values(g, "t_total_max")
                r0 = g[0]
                out.append((config.label(s.config, labels, [t.config for t in ss]) if labels else "",
                            int(data.num(r0, "r_tuples") // ranks), int(data.num(r0, "s_tuples") // ranks),
                            int(data.num(r0, "expected_matches") or 0), data.median(xs), data.ci_cell(xs, 1.0, 4),
                            len(xs)))
        return ranks, sorted(out, key=lambda t: (t[0], -t[1], -t[2], -t[3]))
    return None, []
