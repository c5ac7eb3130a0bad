"""Markdown report: environment of the data, run summary, figures, and the model-versus-measured
tables. Numbers are medians over runs: throughput in M tuples/s (3 decimals), times in s (4 decimals)."""
import os

from . import breakdown, data, inputsize, locks, model, safeio, scaling, style


def f3(x):
    return "—" if x is None else f"{x:.3f}"


def f4(x):
    return "—" if x is None else f"{x:.4f}"


def mega(x):
    return None if x is None else x / 1e6


# Every figure: file name (NAME.png and NAME.pdf), title, the bench whose rows it draws, and the
# function that draws it (a matplotlib figure, or None and a note why it is skipped).
FIGURES = (
    ("join_throughput", "Join throughput against cores (cf. thesis Fig 4.2)", "join", scaling.fig_throughput),
    ("join_scaleup", "Join scale-out and scale-up (cf. Fig 4.6)", "join", scaling.fig_scaleup),
    ("join_phases_radix", "Radix hash join phases (cf. Fig 4.3a)", "join", lambda r: breakdown.fig_breakdown(r, "radix")),
    ("join_phases_sortmerge", "Sort-merge join phases (cf. Fig 4.4a)", "join",
     lambda r: breakdown.fig_breakdown(r, "sortmerge")),
    ("join_model", "Measured against predicted (cf. Fig 3.15)", "join", model.fig_model),
    ("lock_throughput", "Lock throughput per isolation level (cf. Fig 5.5)", "lock", locks.fig_scaling),
    ("lock_latency", "Lock latency breakdown (cf. Fig 5.6)", "lock", locks.fig_latency),
    ("lock_remote", "Remote lock probability (cf. Fig 5.7)", "lock", locks.fig_remote),
)


def output_files():
    """Every file name rmaplot report may write into --out."""
    return [f"{name}.{ext}" for name, _, _, _ in FIGURES for ext in ("png", "pdf")] + ["report.md"]


def dropped_note(rows, bench):
    """'dropped N failed BENCH rows' for the figures and tables of one bench ('' when none)."""
    n = data.dropped(rows, bench)
    return f"dropped {n} failed {bench} row{'s' if n != 1 else ''} (not ok/0/PASS, or a warm-up)" if n else ""


def render_figures(rows, outdir):
    """Every figure family; returns ([(file, title, dropped note)], [notes on skipped figures])."""
    figs, notes = [], []
    for name, title, bench, fn in FIGURES:
        fig, note = fn(rows)
        if fig:
            figs.append((style.save(fig, outdir, name), title, dropped_note(rows, bench)))
        if note:
            notes.append(note)
    return figs, notes


def _distinct(rows, col):
    return sorted({r[col] for r in rows if r.get(col)})


def environment(rows, files):
    hosts = sorted({h for r in rows for h in r.get("hostnames", "").split(";") if h} |
                   {h for r in rows for h in r.get("hostnames", "").split(" ") if False})
    libs = sorted({f"{r['mpi_library']} ({r['mpi_version']})" if r.get("mpi_version") else r["mpi_library"]
                   for r in rows if r["mpi_library"]})
    ts = _distinct(rows, "timestamp")
    ranks = sorted({int(data.num(r, "ranks")) for r in rows if data.num(r, "ranks")})
    out = ["## Environment", "",
           f"- results: {', '.join(files)}",
           f"- hosts: {', '.join(_distinct(rows, 'hostnames')) or '—'} (host counts {', '.join(_distinct(rows, 'hosts')) or '—'})",
           f"- MPI library: {'; '.join(libs) or '—'}",
           f"- commit: {', '.join(_distinct(rows, 'git_commit')) or '—'}",
           f"- Slurm jobs: {', '.join(_distinct(rows, 'job_id')) or 'none (local run)'}",
           f"- ranks: {', '.join(map(str, ranks)) or '—'}",
           f"- time: {ts[0] if ts else '—'} to {ts[-1] if ts else '—'}", ""]
    del hosts
    return out


def run_summary(rows):
    out = ["## Runs", "", "| bench | status | rows | verification PASS | verification FAIL |", "|---|---|---|---|---|"]
    for (b, s), g in data.group(rows, lambda r: (r["bench"], r["status"])).items():
        out.append(f"| {b} | {s} | {len(g)} | {sum(r['verification'] == 'PASS' for r in g)} | "
                   f"{sum(r['verification'] == 'FAIL' for r in g)} |")
    bad = [r for r in rows if data.failure(r)]
    if bad:
        counts = ", ".join(f"{data.dropped(rows, b)} {b}" for b in sorted({r["bench"] for r in bad}))
        out += ["", f"Failed runs: {len(bad)} rows dropped from every figure and table ({counts}):", "",
                "| time | bench | algo | ranks | repeat | status | exit code | verification | why | command |",
                "|---|---|---|---|---|---|---|---|---|---|"]
        for r in bad[:50]:
            cmd = r["command"].replace("|", "\\|")
            out.append(f"| {r['timestamp']} | {r['bench']} | {r['algo']} | {r['ranks']} | {r['repeat_index']} | "
                       f"{r['status']} | {r['exit_code']} | {r['verification'] or '—'} | {data.failure(r)} | `{cmd}` |")
        if len(bad) > 50:
            out.append(f"| ... {len(bad) - 50} more | | | | | | | | | |")
    return out + [""]


def join_tables(rows):
    key, rs = data.main_workload(data.joins(rows))
    dropped = dropped_note(rows, "join")
    if not rs:
        return ["## Joins", "", "No verified join runs." + (f" ({dropped.capitalize()}.)" if dropped else ""), ""]
    out = ["## Join throughput", "",
           f"Workload: {key[0]} tuples of R per rank, 1:{key[1]}, selectivity {key[2]}. Medians over runs; "
           "CI: 95% confidence interval of the mean." + (f" {dropped.capitalize()}." if dropped else ""), "",
           "| algo | ranks | hosts | ranks/host | runs | throughput [M tuples/s] | 95% CI [M tuples/s] | total [s] |",
           "|---|---|---|---|---|---|---|---|"]
    for (algo, ranks, hosts, rph), g in data.group(rs, lambda r: (r["algo"], int(data.num(r, "ranks")), r["hosts"],
                                                                 r["ranks_per_host"])).items():
        tp = data.values(g, "throughput")
        _, ci = data.mean_ci95(tp)
        out.append(f"| {algo} | {ranks} | {hosts} | {rph} | {len(g)} | {f3(mega(data.median(tp)))} | ±{f3(mega(ci))} | "
                   f"{f4(data.median(data.values(g, 't_total_max')))} |")
    out.append("")
    for algo in sorted({r["algo"] for r in rs}):
        table, ranks = model.model_table(rows, algo)
        if not table:
            out += [f"No {algo} runs with --model predictions (run `rmabench calibrate`, then `--model`).", ""]
            continue
        out += [f"### Model against measurement: {algo}, {ranks} ranks (cf. Table 4.2)", "",
                "| phase | measured [s] | model [s] | diff [s] |", "|---|---|---|---|"]
        for p, meas, pred in table:
            diff = None if meas is None or pred is None else meas - pred
            out.append(f"| {p} | {f4(meas)} | {f4(pred)} | {'—' if diff is None else f'{diff:+.4f}'} |")
        out.append("")
    sizes = inputsize.size_table(rows)
    if sizes:
        out += [f"### Input size and 1:N ratio at {sizes[0][0]} ranks (cf. Table 4.1)", "",
                "| algo | R/rank | S/rank | output | runs | time [s] | 95% CI [s] |", "|---|---|---|---|---|---|---|"]
        for _, rr, ss, m, algo, med, ci, n in sizes:
            out.append(f"| {algo} | {rr} | {ss} | {m} | {n} | {f4(med)} | ±{f4(ci)} |")
        out.append("")
    return out


def lock_tables(rows):
    ls = data.locks(rows)
    dropped = dropped_note(rows, "lock")
    if not ls:
        return ["## Lock table", "", "No verified lock runs." + (f" ({dropped.capitalize()}.)" if dropped else ""), ""]
    out = ["## Lock table throughput", "", "Medians over runs." + (f" {dropped.capitalize()}." if dropped else ""), "",
           "| workload | isolation | remote prob | ranks | servers | runs | transactions [M/s] | lock requests [M/s] |",
           "|---|---|---|---|---|---|---|---|"]
    for (wl, iso, p, ranks, srv), g in data.group(ls, lambda r: (r["workload"], r["isolation"], data.num(r, "remote_prob") or 0.0,
                                                                int(data.num(r, "ranks")), r["servers"])).items():
        out.append(f"| {wl} | {iso} | {p:g} | {ranks} | {srv} | {len(g)} | {f3(mega(data.median(data.values(g, 'commits_per_s'))))} | "
                   f"{f3(mega(data.median(data.values(g, 'lock_requests_per_s'))))} |")
    out.append("")
    t = locks.model_table(rows)
    if t and any(x[5] is not None or x[6] is not None for x in t):
        out += ["### Model against measurement (cf. Table 5.1)", "",
                "| workload | isolation | ranks | agents | remote prob | predicted time [us] | predicted [M tx/s] | measured [M tx/s] |",
                "|---|---|---|---|---|---|---|---|"]
        for wl, iso, ranks, agents, p, pt, ptp, mtp in t:
            out.append(f"| {wl} | {iso} | {ranks} | {'—' if agents is None else f'{agents:g}'} | {p:g} | {f3(pt)} | "
                       f"{f3(mega(ptp))} | {f3(mega(mtp))} |")
        out.append("")
    else:
        out += ["No lock runs with --model predictions.", ""]
    return out


def write(rows, files, outdir):
    figs, notes = render_figures(rows, outdir)
    lines = ["# rmabench results", ""] + environment(rows, files) + run_summary(rows)
    lines += join_tables(rows) + lock_tables(rows)
    lines += ["## Figures", ""]
    for f, title, dropped in figs:
        lines += [f"### {title}", ""] + ([f"{dropped.capitalize()}.", ""] if dropped else [])
        lines += [f"![{title}]({f})", f"([PDF]({f[:-4]}.pdf))", ""]
    if notes:
        lines += ["Skipped:", ""] + [f"- {n}" for n in notes] + [""]
    path = os.path.join(outdir, "report.md")

    def fill(tmp):
        with open(tmp, "w") as f:
            f.write("\n".join(lines))
    safeio.write_output(path, fill)
    return path, figs, notes
