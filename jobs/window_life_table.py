#!/usr/bin/python3
"""The tables of jobs/window_life.sh from its CSV (rows of rmabench join --output).
   window_life_table.py flavours|lifetimes|puts CSV LABEL
flavours: per --window as given (window_choice "given") and for the default (auto), over the runs:
median total [min-max], median window_alloc; the default's median against each forced flavour's.
lifetimes: per algorithm and --window-life, over the invocations: the first query's total and
window_alloc (median of invocations), the steady state (queries 2..Q of every invocation): median
total [min-max] and spread ((max - min) / median) over all its queries and between the
invocations' medians (run to run), median window_alloc and its minor faults, put time, total
without window_alloc and total / that, throughput with and without window_alloc, and
window_alloc's share of the total (the thesis' Table 4.2: 0.21 of 4.34 s, 4.8%).
puts: per algorithm and lifetime (pool, dynamic), the steady state's put and flush times and the
pass that puts them (radix network_partition, sort-merge sort): medians, and dynamic's over pool's."""
import csv
import statistics
import sys

THESIS_SHARE = 0.21 / 4.34


def num(r, k):
    try:
        return float(r[k])
    except (KeyError, ValueError):
        return 0.0


def spread(v):
    return (max(v) - min(v)) / statistics.median(v) if v else 0.0


def flavours(rows, label):
    keyed = {}
    for r in rows:
        keyed.setdefault("default" if r["window_choice"].startswith("auto") else r["window"], []).append(r)
    print(f"\n{label}: --window (one query per invocation), {len(rows)} runs")
    print(f"{'window':<24} {'runs':>4} {'total [s]':>10} {'min-max':>15} {'window_alloc':>12}")
    for k in ("default", "allocate", "create", "create-huge"):
        g = keyed.get(k, [])
        if not g:
            continue
        t = [num(r, "t_total_max") for r in g]
        chose = "" if k != "default" else " (" + ",".join(sorted({r["window"] for r in g})) + ")"
        print(f"{k + chose:<24} {len(g):>4} {statistics.median(t):>10.4f} {min(t):>7.4f}-{max(t):<7.4f} "
              f"{statistics.median(num(r, 't_window_alloc_avg') for r in g):>12.4f}")
    if keyed.get("default"):
        d = statistics.median(num(r, "t_total_max") for r in keyed["default"])
        for k in ("allocate", "create", "create-huge"):
            if keyed.get(k):
                f = statistics.median(num(r, "t_total_max") for r in keyed[k])
                print(f"default / {k}: {d / f:.2f} ({'+' if d > f else ''}{100 * (d / f - 1):.0f}%)")


def lifetimes(rows, label):
    print(f"\n{label}: --window-life, --queries {max(int(r['query_index']) for r in rows) + 1}; "
          f"thesis' window_alloc share (Table 4.2): {100 * THESIS_SHARE:.1f}%")
    print(f"{'algo':<9} {'life':<7} {'inv':>3} {'first [s]':>9} {'alloc':>7} | {'steady [s]':>10} {'min-max':>15} "
          f"{'spread':>6} {'run2run':>7} {'alloc':>7} {'faults':>7} {'put':>7} {'w/o alloc':>9} {'ratio':>5} {'M/s':>6} "
          f"{'M/s w/o':>7} {'share':>6}")
    for algo in ("radix", "sortmerge"):
        for life in ("join", "pool", "dynamic"):
            g = [r for r in rows if r["algo"] == algo and r["window_life"] == life]
            if not g:
                continue
            first = [r for r in g if r["query_state"] == "first"]
            steady = [r for r in g if r["query_state"] == "steady"]
            tuples = num(g[0], "r_tuples") + num(g[0], "s_tuples")
            f_tot = statistics.median(num(r, "t_total_max") for r in first) if first else 0
            f_alloc = statistics.median(num(r, "t_window_alloc_avg") for r in first) if first else 0
            t = [num(r, "t_total_max") for r in steady] or [0]
            alloc = [num(r, "t_window_alloc_avg") for r in steady] or [0]
            less = [num(r, "t_total_max") - num(r, "t_window_alloc_avg") for r in steady] or [0]
            med, med_less = statistics.median(t), statistics.median(less)
            # the invocations' steady medians: an invocation's rows follow each other, query 0 first
            inv, cur = [], []
            for r in g:
                if r["query_index"] == "0" and cur:
                    inv.append(cur)
                    cur = []
                if r["query_state"] == "steady":
                    cur.append(num(r, "t_total_max"))
            inv = [statistics.median(c) for c in inv + [cur] if c]
            print(f"{algo:<9} {life:<7} {len(first):>3} {f_tot:>9.4f} {f_alloc:>7.4f} | {med:>10.4f} {min(t):>7.4f}-{max(t):<7.4f} "
                  f"{100 * spread(t):>5.1f}% {100 * spread(inv):>6.1f}% {statistics.median(alloc):>7.4f} "
                  f"{statistics.median(num(r, 't_window_alloc_faults') for r in steady) if steady else 0:>7.0f} "
                  f"{statistics.median(num(r, 't_put_avg') for r in steady) if steady else 0:>7.4f} {med_less:>9.4f} "
                  f"{med / med_less if med_less else 0:>5.2f} {tuples / med / 1e6 if med else 0:>6.1f} "
                  f"{tuples / med_less / 1e6 if med_less else 0:>7.1f} {100 * statistics.median(alloc) / med if med else 0:>5.1f}%")
    print("first: the first query (window_alloc included); steady: queries 2..Q of every invocation; spread: "
          "(max - min) / median of those queries; run2run: the same of the invocations' steady medians; ratio: the "
          "steady total over the same runs' total without window_alloc; share: window_alloc / total, steady")


def puts(rows, label):
    print(f"\n{label}: the steady state's puts through allocated (pool) and dynamic windows, medians [s]")
    print(f"{'algo':<9} {'life':<7} {'queries':>7} {'put':>8} {'flush':>8} {'pass':>8} {'w/o alloc':>9}")
    for algo, phase in (("radix", "network_partition"), ("sortmerge", "sort")):
        med = {}
        for life in ("pool", "dynamic"):
            g = [r for r in rows if r["algo"] == algo and r["window_life"] == life and r["query_state"] == "steady"]
            if not g:
                continue
            m = [statistics.median(num(r, k) for r in g) for k in ("t_put_avg", "t_flush_avg", f"t_{phase}_avg")]
            m.append(statistics.median(num(r, "t_total_max") - num(r, "t_window_alloc_avg") for r in g))
            med[life] = m
            print(f"{algo:<9} {life:<7} {len(g):>7} {m[0]:>8.4f} {m[1]:>8.4f} {m[2]:>8.4f} {m[3]:>9.4f}")
        if len(med) == 2:
            print(f"{algo:<9} dynamic / pool: put {med['dynamic'][0] / med['pool'][0] if med['pool'][0] else 0:.2f}, "
                  f"{phase} {med['dynamic'][2] / med['pool'][2] if med['pool'][2] else 0:.2f}")


def main():
    what, path, label = sys.argv[1:4]
    with open(path, newline="") as f:
        rows = [r for r in csv.DictReader(f) if r.get("bench") == "join" and r.get("verification") == "PASS"]
    if not rows:
        print(f"{label}: no verified rows in {path}")
        return
    {"flavours": flavours, "lifetimes": lifetimes, "puts": puts}[what](rows, label)


if __name__ == "__main__":
    main()
