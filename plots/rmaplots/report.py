"""Markdown report: environment of the data, run summary, figures, and the model-versus-measured
tables. Numbers are medians over runs: throughput in M tuples/s (3 decimals), times in s (4
decimals). Every table row and every figure's point is one configuration (rmaplots.config): rows of
different MPI libraries, placements, windows, workloads, ... are never pooled."""
import os

from . import breakdown, config, data, inputsize, locks, model, regimes, safeio, scaling, style


def f3(x):
    return "—" if x is None else f"{x:.3f}"


def f4(x):
    return "—" if x is None else f"{x:.4f}"


def mega(x):
    return None if x is None else x / 1e6


def model_err(meas, pred):
    """(model - measured) / measured in percent, signed as the diff column (model - measured): negative
    where the model predicts less than was measured; '—' without both."""
    return "—" if meas is None or pred is None or meas <= 0 else f"{100 * (pred - meas) / meas:+.1f}%"


# Every figure: file name (NAME.png and NAME.pdf), title, the bench whose rows it draws, and the
# function that draws it (a style.Drawn: the figure, or None and a note why it is skipped).
FIGURES = (
    ("join_throughput", "Join throughput against ranks (cf. thesis Fig 4.2)", "join", scaling.fig_throughput),
    ("join_scaleup", "Join scale-out and scale-up (cf. Fig 4.6)", "join", scaling.fig_scaleup),
    ("join_phases_radix", "Radix hash join phases (cf. Fig 4.3a)", "join", lambda r: breakdown.fig_breakdown(r, "radix")),
    ("join_phases_sortmerge", "Sort-merge join phases (cf. Fig 4.4a)", "join",
     lambda r: breakdown.fig_breakdown(r, "sortmerge")),
    ("join_phases_reference", "Reference join phases (exchange, build_probe)", "join",
     lambda r: breakdown.fig_breakdown(r, "reference")),
    ("join_model", "Measured against predicted (cf. Fig 3.15)", "join", model.fig_model),
    ("lock_throughput", "Lock throughput against ranks (cf. Fig 5.5)", "lock", locks.fig_scaling),
    ("lock_latency", "Lock latency breakdown (cf. Fig 5.6)", "lock", locks.fig_latency),
    ("lock_remote", "Remote lock probability (cf. Fig 5.7)", "lock", locks.fig_remote),
)


def output_files():
    """Every file name rmaplot report may write into --out."""
    return [f"{name}.{ext}" for name, _, _, _ in FIGURES for ext in ("png", "pdf")] + ["report.md"]


def dropped_note(rows, bench):
    """'dropped N BENCH rows (k failed, k refused, k warm-up)' for the figures and tables of one bench
    ('' when none)."""
    kinds = data.dropped(rows, bench)
    n = sum(kinds.values())
    if not n:
        return ""
    return (f"dropped {style.count(n, bench + ' row')} ("
            + ", ".join(f"{kinds[k]} {k}" for k in ("failed", "refused", "warm-up") if k in kinds) + ")")


def render_figures(rows, outdir):
    """Every figure family; returns ([(file, title, dropped note, style.Drawn)], [notes on skipped
    figures])."""
    figs, notes = [], []
    for name, title, bench, fn in FIGURES:
        d = fn(rows)
        if d.fig:
            figs.append((style.save(d.fig, outdir, name), title, dropped_note(rows, bench), d))
        if d.skipped:
            notes.append(d.skipped)
    return figs, notes


def _distinct(rows, col):
    return sorted({r[col] for r in rows if r.get(col)})


def libraries(rows):
    """One line per MPI library (short name and version; a build hash where two builds share a
    name) with its row count."""
    vals = [config.configuration(r)["mpi"] for r in rows if r.get("mpi_library") or r.get("mpi_version")]
    counts = {}
    for v in vals:
        counts[v] = counts.get(v, 0) + 1
    return [f"{config.fmt('mpi', v, vals)}: {style.count(n, 'row')}" for v, n in sorted(counts.items())]


def environment(rows, files):
    ts = _distinct(rows, "timestamp")
    ranks = sorted({int(data.num(r, "ranks")) for r in rows if data.num(r, "ranks")})
    libs = libraries(rows)
    out = ["## Environment", "",
           f"- results: {', '.join(files)}",
           f"- hosts: {', '.join(_distinct(rows, 'hostnames')) or '—'} (host counts {', '.join(_distinct(rows, 'hosts')) or '—'})"]
    if len(libs) == 1:  # the short name and version only ("Open MPI 4.1.4")
        out.append(f"- MPI library: {libs[0].rsplit(': ', 1)[0]}")
    else:
        out += [f"- MPI libraries ({len(libs)}; never pooled: each is its own line, bar and table row):"] + \
               [f"  - {x}" for x in libs] if libs else ["- MPI library: —"]
    out.append(run_environment(rows))
    out += [f"- commit: {', '.join(_distinct(rows, 'git_commit')) or '—'}",
            f"- Slurm jobs: {', '.join(_distinct(rows, 'job_id')) or 'none (local run)'}",
            f"- ranks: {', '.join(map(str, ranks)) or '—'}",
            f"- time: {ts[0] if ts else '—'} to {ts[-1] if ts else '—'}"]
    unknown = sorted({c for r in rows for c in config.unknown(r.keys())})
    if unknown:
        out.append(f"- columns rmaplot does not know, treated as configuration: {', '.join(unknown)}")
    return out + [""]


def _fraction(v):
    """A share in [0, 1] from a CSV cell, or None (empty, not a number, out of range)."""
    try:
        x = float(v)
    except (TypeError, ValueError):
        return None
    return x if 0 <= x <= 1 else None


def run_environment(rows):
    """What the runs were given beyond their flags (bench/context.h): the distinct values of each
    column; rows that differ in one are never pooled."""
    cols = ("host_cores", "oversubscribed", "poll_yield", "mpi_env")
    if not any(c in r for r in rows for c in cols):
        return f"- run environment: not recorded (CSV older than the columns {', '.join(cols)})"

    def vals(col, empty, among=rows):
        got = {r.get(col) or empty for r in among if col in r}
        return ", ".join(sorted(got, key=lambda v: (not v.isdigit(), int(v) if v.isdigit() else 0, v)))
    # the variables per MPI library: each launcher sets its own (mpirun --bind-to none: Open MPI's binding policy)
    per_lib = {lib: vals('mpi_env', '(none)', [r for r in rows if config.mpi_name(r) == lib])
               for lib in sorted({config.mpi_name(r) for r in rows})}
    env = "; ".join(f"{lib}: {v}" for lib, v in per_lib.items()) if len(set(per_lib.values())) > 1 \
        else vals('mpi_env', '(none)')
    steal = sorted(x for x in (_fraction(r.get("host_steal")) for r in rows) if x is not None)
    stolen = f", host steal {100 * steal[0]:.1f}-{100 * steal[-1]:.1f}% of the CPU time over {len(steal)} runs" if steal else ""
    return (f"- run environment: {vals('host_cores', '—')} cores/host, oversubscribed: {vals('oversubscribed', '—')}, "
            f"polling yields: {vals('poll_yield', '—')}, MPI env: {env}{stolen}")


def run_summary(rows):
    out = ["## Runs", "", "| bench | status | rows | verification PASS | verification FAIL |", "|---|---|---|---|---|"]
    for (b, s), g in data.group(rows, lambda r: (r["bench"], r["status"])).items():
        out.append(f"| {b} | {s} | {len(g)} | {sum(r['verification'] == 'PASS' for r in g)} | "
                   f"{sum(r['verification'] == 'FAIL' for r in g)} |")
    bad = [r for r in rows if data.failure(r)]
    if bad:
        counts = ", ".join(f"{sum(data.dropped(rows, b).values())} {b}" for b in sorted({r["bench"] for r in bad}))
        out += ["", f"Dropped runs: {len(bad)} rows left out of every figure and table ({counts}):", "",
                "| time | bench | algo | ranks | repeat | status | exit code | verification | why | command |",
                "|---|---|---|---|---|---|---|---|---|---|"]
        for r in bad[:50]:
            cmd = r["command"].replace("|", "\\|")
            out.append(f"| {r['timestamp']} | {r['bench']} | {r['algo']} | {r['ranks']} | {r['repeat_index']} | "
                       f"{r['status']} | {r['exit_code']} | {r['verification'] or '—'} | {data.failure(r)} | `{cmd}` |")
        if len(bad) > 50:
            out.append(f"| ... {len(bad) - 50} more | | | | | | | | | |")
    return out + [""]


def _config_cells(ss, shown):
    """{series: text of the columns that differ between the table's rows and are not shown in
    columns of their own}, and the line naming what all rows share."""
    cfgs = [s.config for s in ss]
    cols = [c for c in config.legend_columns(cfgs) if c not in shown]
    cells = {id(s): config.label(s.config, cols, cfgs) if cols else "—" for s in ss}
    common = config.describe(config.shared(cfgs), skip=shown)
    return cells, (f"All rows: {common}." if common else "")


def join_tables(rows):
    key, rs = data.main_workload(data.joins(rows))
    dropped = dropped_note(rows, "join")
    if not rs:
        return ["## Joins", "", "No verified join runs." + (f" ({dropped.capitalize()}.)" if dropped else ""), ""]
    # the lines of Fig 4.2: a row per point, named by its line (radix bits follow the rank count)
    ss, _ = config.series(rs, config.RANKS)
    cells, common = _config_cells(ss, ("algo", "ranks", "hosts", "ranks_per_host"))
    machine = regimes.Machine(data.joins(rows))
    alloc = machine.regimes["alloc"]
    out = ["## Join throughput", "",
           f"Workload: {key[0]} tuples of R per rank, 1:{key[1]}, selectivity {key[2]}. One row per configuration; "
           f"medians over runs; CI: {data.CI_TEXT} (where it would reach below 0, its half-width instead). Window "
           "allocation: the window_alloc phase's seconds per GB of window a rank allocates (median over runs)"
           + (f"; the runs met two regimes of it ({alloc.text()})" if alloc.two else "")
           + ". Marks: what the point measured beyond its configuration." + (f" {dropped.capitalize()}." if dropped else ""), ""]
    out += [common, ""] if common else []
    out += ["| algo | ranks | hosts | ranks/host | configuration | runs | throughput [M tuples/s] | 95% CI [M tuples/s] | "
            "total [s] | window alloc [s/GB] | marks |",
            "|---|---|---|---|---|---|---|---|---|---|---|"]
    for s in sorted(ss, key=lambda s: s.config["algo"]):  # stable: within an algorithm, in key order
        for x, g in s.points.items():
            r0 = g[0]
            xs = data.values(g, "throughput")
            rate = data.median([v for v in (regimes.alloc_s_per_gb(r) for r in g) if v is not None])
            out.append(f"| {r0['algo']} | {int(x)} | {r0['hosts']} | {r0['ranks_per_host']} | {cells[id(s)]} | {len(xs)} | "
                       f"{f3(mega(data.median(xs)))} | {data.ci_cell(xs, 1e-6)} | "
                       f"{f4(data.median(data.values(g, 't_total_max')))} | {'—' if rate is None else f'{rate:.3g}'} | "
                       f"{machine.why(machine.point(g)) or '—'} |")
    out.append("")
    for algo in sorted({r["algo"] for r in rs}):
        tables = model.model_tables(rows, algo)
        if not tables:
            out += [f"No {algo} runs with --model predictions"
                    + (" (the reference join has no model)." if algo == "reference" else
                       " (run `rmabench calibrate`, then `--model`)."), ""]
            continue
        for lab, ranks, table in tables:
            out += [f"### Model against measurement: {algo}, {style.count(ranks, 'rank')}{', ' + lab if lab else ''} "
                    "(cf. Table 4.2)", "",
                    "| phase | measured [s] | model [s] | diff = model − measured [s] | "
                    "model err = diff / measured |",
                    "|---|---:|---:|---:|---:|"]
            for p, meas, pred in table:
                diff = "—" if meas is None or pred is None else f"{pred - meas:+.4f}"
                out.append(f"| {p} | {f4(meas)} | {f4(pred)} | {diff} | {model_err(meas, pred)} |")
            out.append("")
    ranks, sizes = inputsize.size_table(rows)
    if sizes:
        out += [f"### Input size and 1:N ratio at {style.count(ranks, 'rank')} (cf. Table 4.1)", "",
                "| configuration | R/rank | S/rank | output | runs | time [s] | 95% CI [s] |", "|---|---|---|---|---|---|---|"]
        for lab, rr, ss_, m, med, ci, n in sizes:
            out.append(f"| {lab or '—'} | {rr} | {ss_} | {m} | {n} | {f4(med)} | {ci} |")
        out.append("")
    return out


def lock_tables(rows):
    ls = data.locks(rows)
    dropped = dropped_note(rows, "lock")
    if not ls:
        return ["## Lock table", "", "No verified lock runs." + (f" ({dropped.capitalize()}.)" if dropped else ""), ""]
    ss, _ = config.series(ls, config.POINT)
    shown = ("workload", "isolation", "remote_prob", "ranks", "servers", "agents")
    cells, common = _config_cells(ss, shown)
    out = ["## Lock table throughput", "", "One row per configuration; medians over runs; remote share: the share of "
           "lock requests that went to another host's server, as measured." + (f" {dropped.capitalize()}." if dropped else ""), ""]
    out += [common, ""] if common else []
    out += ["| workload | isolation | remote prob | ranks | servers | configuration | runs | transactions [M/s] | "
            "lock requests [M/s] | remote share |", "|---|---|---|---|---|---|---|---|---|---|"]
    for s in sorted(ss, key=lambda s: (s.config["workload"], s.config["isolation"], cells[id(s)],
                                       data.num(s.rows[0], "remote_prob") or 0, int(data.num(s.rows[0], "ranks")))):
        g, c = s.rows, s.config
        share = data.median(data.values(g, "remote_share"))
        out.append(f"| {c['workload']} | {c['isolation'] or '—'} | {c['remote_prob'] or '—'} | {c['ranks']} | {c['servers']} | "
                   f"{cells[id(s)]} | {len(g)} | {f3(mega(data.median(data.values(g, 'commits_per_s'))))} | "
                   f"{f3(mega(data.median(data.values(g, 'lock_requests_per_s'))))} | {'—' if share is None else f'{share:.4f}'} |")
    out.append("")
    out += floor_table(ls)
    t = locks.model_table(rows)
    if t:
        out += ["### Model against measurement (cf. Table 5.1)", "",
                "| configuration | ranks | agents | remote prob | remote share | predicted time [us] | predicted [M tx/s] | "
                "measured [M tx/s] | throughput model err = (predicted − measured) / measured |",
                "|---|---|---|---|---|---|---|---|---|"]
        for lab, ranks, agents, p, share, pt, ptp, mtp in [(x[0], x[1], x[2], x[3], x[7], x[4], x[5], x[6]) for x in t]:
            out.append(f"| {lab or '—'} | {ranks} | {'—' if agents is None else f'{agents:g}'} | {p:g} | "
                       f"{'—' if share is None else f'{share:.4f}'} | {f3(pt)} | {f3(mega(ptp))} | {f3(mega(mtp))} | "
                       f"{model_err(mtp, ptp)} |")
        out.append("")
    else:
        out += ["No lock runs with --model predictions.", ""]
    return out


def _range(v, lo, hi, nd=3):
    if v is None:
        return "—"
    return f"{v:.{nd}f}" + ("" if lo is None or f"{lo:.{nd}f}" == f"{hi:.{nd}f}" else f" ({lo:.{nd}f}–{hi:.{nd}f})")


def disturbed(t):
    """The floors left out of a configuration's (regimes.floor_us), as a cell's addition."""
    if not t.disturbed:
        return ""
    return f" ({len(t.disturbed)} left out: {', '.join(f'{v:.2f}' for v in t.disturbed)} above the round trip, disturbed)"


def floor_table(ls):
    """Every lock configuration's request round trip beside the cache-line floor its runs measured,
    the floor's state, and what explains its difference from the first configuration of its
    workload, isolation and rank count (locks.readings)."""
    if not any(regimes.floor_us(r) is not None or regimes.floor_disturbed(r) is not None for r in ls):
        return ["No lock run measured the cache-line floor (floor_rtt_us: not measured where the first server and "
                "agent share no host, share cores, or did not run at once): round trips are shown without it.", ""]
    ss, _ = config.series(ls, config.POINT)
    machine = regimes.Machine(ls)
    reg = machine.regimes["floor"]
    cells, common = _config_cells(ss, ("workload", "isolation", "remote_prob", "ranks"))
    col = locks.rtt_col(ls)
    out = ["### Round trip against the machine's floor (cf. Fig 5.6b)", "",
           f"Round trip: the {'median' if col.endswith('median_us') else 'mean'} over a run's requests; floor: a "
           "bare cache-line round trip between the first server and agent before the run (rma/floor.h); both the median "
           "over runs (their range); a floor above its run's round trip was measured while the pair did not run at once "
           "and is left out. " + (f"The runs met two states of the machine: {reg.text()}. " if reg.two else "")
           + "Reading: against the first row of the same workload, isolation and ranks whose floor was in the faster "
           "state.", ""]
    out += [common, ""] if common else []
    out += ["| workload | isolation | remote prob | ranks | configuration | runs | round trip [us] | floor [us] | "
            "floor state | reading |", "|---|---|---|---|---|---|---|---|---|---|"]
    for s, t, text in sorted(locks.readings(ss, machine), key=lambda x: (x[0].config["workload"], x[0].config["isolation"],
                                                                       int(x[0].config["ranks"]), cells[id(x[0])],
                                                                       data.num(x[0].rows[0], "remote_prob") or 0)):
        c = s.config
        state = "slower" if t.point.slow else "both" if t.point.mixed else "faster" if reg.two and t.floor else "—"
        out.append(f"| {c['workload']} | {c['isolation'] or '—'} | {c['remote_prob'] or '—'} | {c['ranks']} | {cells[id(s)]} | "
                   f"{t.n} | {_range(t.rtt, t.rtt_lo, t.rtt_hi)} | {_range(t.floor, t.floor_lo, t.floor_hi)}{disturbed(t)} | {state} | "
                   f"{text.replace('|', '/') or '—'} |")
    return out + [""]


def figure_section(f, title, dropped, d):
    n = len(d.shown)
    out = [f"### {title}", ""] + ([f"{dropped.capitalize()}.", ""] if dropped else [])
    out += [f"Shows {style.count(n, 'configuration')}" + (": " + "; ".join(x or "—" for x in d.shown) if n > 1 else "")
            + "." + (f" Shared by all: {d.shared}." if d.shared else ""), ""]
    out += [f"- Note: {x}" for x in d.notes] + ([""] if d.notes else [])
    out += [f"Not drawn: {'; '.join(d.hidden)}.", ""] if d.hidden else []
    return out + [f"![{title}]({f})", f"([PDF]({f[:-4]}.pdf))", ""]


def write(rows, files, outdir):
    figs, notes = render_figures(rows, outdir)
    lines = ["# rmabench results", ""] + environment(rows, files) + run_summary(rows)
    lines += join_tables(rows) + lock_tables(rows)
    lines += ["## Figures", "", f"Lines: {data.RUNS_TEXT}; hollow, shaded and dotted marks: see docs/figures.md and "
              "each figure's legend.", ""]
    for f, title, dropped, d in figs:
        lines += figure_section(f, title, dropped, d)
    if notes:
        lines += ["Skipped:", ""] + [f"- {n}" for n in notes] + [""]
    path = os.path.join(outdir, "report.md")

    def fill(tmp):
        with open(tmp, "w") as f:
            f.write("\n".join(lines))
    safeio.write_output(path, fill)
    return path, figs, notes
