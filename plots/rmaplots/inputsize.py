"""Execution time for relation sizes and 1:N ratios at one rank count (thesis Table 4.1)."""
from . import data


def size_table(rows):
    """[(ranks, r_per_rank, s_per_rank, matches, algo, median total s, ci95 s, n)] at the largest
    rank count that has more than one workload; [] when there is no such sweep."""
    js = data.joins(rows)
    by_ranks = data.group(js, lambda r: int(data.num(r, "ranks")))
    cand = [k for k, v in by_ranks.items() if len({data.workload_key(r) for r in v}) > 1]
    if not cand:
        return []
    ranks = max(cand)
    out = []
    for (rr, ss, m, algo), g in data.group(by_ranks[ranks], lambda r: (
            int(data.num(r, "r_tuples") // ranks), int(data.num(r, "s_tuples") // ranks),
            int(data.num(r, "expected_matches") or 0), r["algo"])).items():
        xs = data.values(g, "t_total_max")
        _, ci = data.mean_ci95(xs)
        out.append((ranks, rr, ss, m, algo, data.median(xs), ci, len(xs)))
    return sorted(out, key=lambda t: (t[4], -t[1], -t[2], -t[3]))
