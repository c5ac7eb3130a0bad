"""rmaplot on the committed fixture, which mixes configurations on purpose (2x4 and 1x8 hosts x ranks
per host at 8 ranks, two MPI libraries, two window flavours, flush and buffer variants, server
splits, checked and --no-check lock runs, synthetic without and TPC-C with isolation levels):
- every figure is a real PNG/PDF (test_figure_layout.py checks how each is laid out);
- every drawn point, bar and table row equals the median of the fixture rows of exactly one
  configuration (all columns that are not measurements, chosen here independently of rmaplots), no
  configuration is drawn twice, a line changes only what follows its axis, and legends and panel
  titles name the columns that differ;
- the model tables give diff and model err with one sign, model - measured, and every row of every
  table of the report has as many cells as its header;
- a remote-probability sweep that measured remote share 0 is not drawn and the figure says so;
  confidence intervals stop at 0; MPI libraries are named in one short line each;
- failed, refused and warm-up rows are dropped and counted; bad input gives one line and exit 2.
   test_rmaplot.py RMAPLOT FIXTURE.csv"""
import csv
import math
import os
import re
import stat
import statistics
import subprocess
import sys
import tempfile

rmaplot, fixture = sys.argv[1], sys.argv[2]
sys.path.insert(0, os.path.dirname(os.path.realpath(rmaplot)))
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


def run(*args):
    p = subprocess.run([rmaplot, *args], capture_output=True, text=True, timeout=120)
    return p.returncode, p.stdout, p.stderr


# --- the fixture, read here, and what a configuration is (independently of rmaplots) --------------
with open(fixture, newline="") as f:
    reader = csv.DictReader(f)
    header = reader.fieldnames
    rows = list(reader)

# what a run measured or when, where and as which repetition it ran; every other column says how
MEASURED = {"timestamp", "status", "exit_code", "job_id", "hostnames", "seed", "repeat_index", "repeats", "command",
            "verification", "throughput", "matches", "checksum", "expected_matches", "expected_checksum", "committed",
            "aborted", "commits_per_s", "aborts_per_s", "lock_requests_per_s", "locks_per_txn_measured",
            "remote_share", "twopc_txns", "timeouts", "numa", "numa_placement_worst", "rank_cores",
            "rank_numa_nodes", "binding_warning", "host_steal", "floor_rtt_us"}


def how(r):
    return tuple((c, r[c]) for c in header if c not in MEASURED and not c.startswith(("t_", "lat_", "model_")))


def plottable(r):
    """The rule of the README: ok/0/PASS all three, and not a warm-up (negative repeat_index)."""
    return (r["status"], r["exit_code"], r["verification"]) == ("ok", "0", "PASS") and \
        not r["repeat_index"].startswith("-")


def med(rs, col):
    return statistics.median(float(r[col]) for r in rs)


def med0(rs, col):
    """Median of the values there are; 0 without (a phase a bar stack does not have)."""
    xs = [float(r[col]) for r in rs if r[col]]
    return statistics.median(xs) if xs else 0.0


def ci(rs, col):
    """95% CI of the mean for 3 runs (t = 4.303), clipped at 0."""
    xs = [float(r[col]) for r in rs]
    assert len(xs) == 3
    m, h = statistics.fmean(xs), 4.303 * statistics.stdev(xs) / math.sqrt(3)
    return max(0.0, m - h), m + h


def close(a, b):
    return abs(a - b) <= 1e-9 * max(1.0, abs(a), abs(b))


def groups(rs):
    out = {}
    for r in rs:
        out.setdefault(how(r), []).append(r)
    return out


good = [r for r in rows if plottable(r)]
joins = [r for r in good if r["bench"] == "join"]
main = [r for r in joins if (r["tuples_per_rank"], r["ratio"], r["selectivity"]) == ("1000000", "1", "1")]
locks = [r for r in good if r["bench"] == "lock"]
G_MAIN, G_LOCK = groups(main), groups(locks)

# the fixture holds the mixtures the plots must keep apart
layouts8 = {(r["hosts"], r["ranks_per_host"]) for r in main if r["ranks"] == "8"}
check(layouts8 == {("1", "8"), ("2", "4")}, f"fixture: 8 ranks as {layouts8}")
check({r["mpi_library"] for r in main} == {"Open MPI 4.1.4", "MPICH 4.0.2"}, "fixture: two MPI libraries")
check({r["window"] for r in main} >= {"allocate", "create"}, "fixture: two window flavours")
check({r["servers"] for r in locks if r["ranks"] == "8" and r["remote_prob"] == "0.1"} == {"2", "4"}, "fixture: server splits")
check({r["checked"] for r in locks} == {"yes", "no"}, "fixture: checked yes and no")
check({r["isolation"] for r in locks if r["workload"] == "synthetic"} == {""} and
      {r["isolation"] for r in locks if r["workload"] == "tpcc"} == {"serializable", "read-committed"},
      "fixture: synthetic without isolation, tpcc with both levels")
check(any(r["status"] == "refused" for r in rows), "fixture: a refused row")

# --- the report through the command line ---------------------------------------------------------
tmp = tempfile.mkdtemp(prefix="rmaplot-test-")
out = os.path.join(tmp, "out")
rc, so, se = run("report", fixture, "--out", out)
check(rc == 0, f"report exit {rc}: {se}")
NAMES = ("join_throughput", "join_scaleup", "join_phases_radix", "join_phases_sortmerge", "join_phases_reference",
         "join_model", "lock_throughput", "lock_latency", "lock_remote")
for name in NAMES:
    for ext, magic, minsize in (("png", b"\x89PNG\r\n\x1a\n", 15000), ("pdf", b"%PDF-", 8000)):
        path = os.path.join(out, f"{name}.{ext}")
        if not os.path.exists(path):
            check(False, f"{path} missing")
            continue
        with open(path, "rb") as f:
            head = f.read(8)
        check(head.startswith(magic), f"{path}: not a {ext.upper()} (starts {head!r})")
        check(os.path.getsize(path) >= minsize, f"{path}: only {os.path.getsize(path)} bytes")
        if ext == "pdf":
            with open(path, "rb") as f:
                check(b"%%EOF" in f.read()[-64:], f"{path}: truncated PDF")
report = open(os.path.join(out, "report.md")).read()
lines = report.splitlines()


def section(start, end="\n#"):
    parts = report.split(start)
    check(len(parts) == 2, f"report has {len(parts) - 1} sections '{start}'")
    return parts[1].split(end)[0] if len(parts) == 2 else ""


# join throughput table: one row per configuration and rank count, never two pooled
join_rows = [ln for ln in section("\n## Join throughput\n", "\n### ").splitlines() if ln.startswith("| ") and "---" not in ln]
for (algo, ranks, hosts, rph) in {(r["algo"], r["ranks"], r["hosts"], r["ranks_per_host"]) for r in main}:
    gs = [g for g in G_MAIN.values() if (g[0]["algo"], g[0]["ranks"], g[0]["hosts"], g[0]["ranks_per_host"]) == (algo, ranks, hosts, rph)]
    cand = [ln for ln in join_rows if ln.startswith(f"| {algo} | {ranks} | {hosts} | {rph} | ")]
    check(len(cand) == len(gs), f"join table: {len(cand)} rows for {algo} {ranks} {hosts}x{rph}, {len(gs)} configurations")
    for g in gs:
        lo, hi = ci(g, "throughput")
        # the window's bytes a rank allocates: its R and S tuples, 8 bytes packed (compress 1), else 16
        rate = "—" if algo == "reference" else f"{statistics.median(float(r['t_window_alloc_avg']) / ((float(r['r_tuples']) + float(r['s_tuples'])) / float(r['ranks']) * (8 if r['compress'] == '1' else 16) / 1e9) for r in g):.3g}"
        # the fixture's runs on 2 hosts met the slow page regime: marked so, the others not
        mark = "in the slower regime: window allocation" if hosts == "2" and algo != "reference" else "—"
        cells = f"| {len(g)} | {med(g, 'throughput') / 1e6:.3f} | {lo / 1e6:.3f}–{hi / 1e6:.3f} | {med(g, 't_total_max'):.4f} | {rate} | {mark}"
        check(any(cells in ln for ln in cand), f"join table lacks {algo} {ranks} {hosts}x{rph}: {cells}; {cand}")

# Table 4.2: 8 ranks as 1x8 and as 2x4 are two tables
for algo, phases in (("radix", ["histogram", "network_partition", "local_partition", "build_probe"]),
                     ("sortmerge", ["partition", "sort", "merge", "match"])):
    for hosts in ("1", "2"):
        g = [r for r in main if r["algo"] == algo and r["ranks"] == "8" and r["hosts"] == hosts and r["model_total"]]
        sec = section(f"### Model against measurement: {algo}, 8 ranks, {hosts} host{'s' if hosts != '1' else ''} ", "###")
        check("| diff = model − measured [s] | model err = diff / measured |" in sec, f"Table 4.2 {algo} {hosts}: header")
        for p, mcol, pcol in [(p, f"t_{p}_avg", f"model_{p}") for p in phases] + [("total_without_alloc", None, "model_total")]:
            # like with like: no window allocation modelled, so the measured total less it
            meas = med(g, mcol) if mcol else statistics.median(
                float(r["t_total_max"]) - float(r["t_window_alloc_avg"] or 0) for r in g)
            pred = med(g, pcol)
            check(f"| {p} | {meas:.4f} | {pred:.4f} | {pred - meas:+.4f} | {100 * (pred - meas) / meas:+.1f}% |" in sec,
                  f"Table 4.2 {algo} {hosts} host {p}")
        check("| total |" not in sec and "total_without_imbalance" not in sec,
              f"Table 4.2 {algo} {hosts}: a total with window allocation, which the model did not predict")

# Table 4.1: the configuration run with several workloads at 4 ranks (1x4, defaults), per workload
sec = section("### Input size and 1:N ratio at 4 ranks", "\n#")
t41 = [ln for ln in sec.splitlines() if ln.startswith("| ") and "---" not in ln and "configuration" not in ln]
sweep = groups(r for r in joins if r["ranks"] == "4" and r["hosts"] == "1" and r["mpi_library"].startswith("Open") and
               r["window"] == "allocate" and r["flush"] == "window" and r["buffer_size"] in ("65536", ""))
check(len(t41) == len(sweep) == 10, f"Table 4.1: {len(t41)} rows, {len(sweep)} configurations x workloads")
for g in sweep.values():
    r0, (lo, hi) = g[0], ci(g, "t_total_max")
    want = f"| {int(r0['r_tuples']) // 4} | {int(r0['s_tuples']) // 4} | {r0['expected_matches']} | 3 | " \
           f"{med(g, 't_total_max'):.4f} | {lo:.4f}–{hi:.4f} |"
    check(any(ln.startswith(f"| {r0['algo']}") and ln.endswith(want) for ln in t41), f"Table 4.1 lacks {r0['algo']} {want}")

# lock table and Table 5.1
lock_rows = [ln for ln in section("\n## Lock table throughput\n", "\n### ").splitlines() if ln.startswith("| ") and "---" not in ln]
for key in {(r["workload"], r["isolation"], r["remote_prob"], r["ranks"], r["servers"]) for r in locks}:
    gs = [g for g in G_LOCK.values() if (g[0]["workload"], g[0]["isolation"], g[0]["remote_prob"], g[0]["ranks"], g[0]["servers"]) == key]
    wl, iso, p, ranks, servers = key
    shown_p = p if wl in ("synthetic", "bank") else "—"  # TPC-C ignores --remote-prob (records 0)
    cand = [ln for ln in lock_rows if ln.startswith(f"| {wl} | {iso or '—'} | {shown_p} | {ranks} | {servers} | ")]
    check(len(cand) == len(gs), f"lock table: {len(cand)} rows for {key}, {len(gs)} configurations")
    for g in gs:
        cells = f"| {len(g)} | {med(g, 'commits_per_s') / 1e6:.3f} | {med(g, 'lock_requests_per_s') / 1e6:.3f} | " \
                f"{med(g, 'remote_share'):.4f} |"
        check(any(ln.endswith(cells) for ln in cand), f"lock table lacks {key}: {cells}")
# the round trip beside the floor: the 2-rank sweep's runs at 25% and 50% met the slower floor (0.50
# against 0.11 us, their round trips longer by as much): the table says the machine explains them
sec = section("### Round trip against the machine's floor (cf. Fig 5.6b)", "\n#")
fl = [ln for ln in sec.splitlines() if ln.startswith("| synthetic |") or ln.startswith("| tpcc |")]
check(len(fl) == len(G_LOCK), f"floor table: {len(fl)} rows for {len(G_LOCK)} configurations")
for g in G_LOCK.values():
    slow = float(g[0]["floor_rtt_us"]) > 0.3
    rows_ = [ln for ln in fl if ln.startswith(f"| {g[0]['workload']} | {g[0]['isolation'] or '—'} | ")
             and f" | {statistics.median(float(r['lat_req_rtt_median_us']) for r in g):.3f} (" in ln
             and f" | {statistics.median(float(r['floor_rtt_us']) for r in g):.3f} (" in ln]
    check(len(rows_) == 1, f"floor table: no row with the round trip and floor of {how(g[0])[:3]}")
    if rows_:
        explained = "the machine's state explains it" in rows_[0]
        check(explained == slow and (" | slower | " in rows_[0]) == slow,
              f"floor table: a floor of {g[0]['floor_rtt_us']} us read as {'not ' if slow else ''}explaining: {rows_[0]}")
sec = section("(cf. Table 5.1)", "\n#")
modelled = [g for g in G_LOCK.values() if g[0]["model_t_tx_us"]]
check(len([ln for ln in sec.splitlines() if ln.startswith("| ") and "---" not in ln]) == len(modelled) + 1, "Table 5.1 rows")
for g in modelled:
    pred, meas = med(g, 'model_throughput'), med(g, 'commits_per_s')
    want = f"| 8 | 4 | {float(g[0]['remote_prob']):g} | {med(g, 'remote_share'):.4f} | {med(g, 'model_t_tx_us'):.3f} | " \
           f"{pred / 1e6:.3f} | {meas / 1e6:.3f} | {100 * (pred - meas) / meas:+.1f}% |"
    check(want in sec, f"Table 5.1 lacks {want}")

# MPI libraries: one short line each, with its rows; never the configure dump
libs = {}
for r in rows:
    libs[r["mpi_library"]] = libs.get(r["mpi_library"], 0) + 1
check("- MPI libraries (2;" in report, "environment does not say there are two MPI libraries")
for lib, n in libs.items():
    check(f"  - {lib}: {n} rows" in lines, f"environment lacks the line '  - {lib}: {n} rows'")
check("MPICH configure" not in report and "Debian OpenMPI" not in report, "the report quotes mpi_version")

# failed, refused and warm-up rows: listed with why, never plotted, counted for every figure and table
kinds = {}
for r in rows:
    if not plottable(r):
        k = "refused" if r["status"] == "refused" else "warm-up" if \
            (r["status"], r["exit_code"], r["verification"]) == ("ok", "0", "PASS") else "failed"
        kinds.setdefault(r["bench"], {}).setdefault(k, 0)
        kinds[r["bench"]][k] += 1
check(kinds == {"join": {"failed": 5, "warm-up": 1, "refused": 1}, "lock": {"failed": 2}, "calibrate": {"failed": 1}},
      f"fixture's dropped rows changed: {kinds}")
check("Dropped runs: 10 rows left out of every figure and table (1 calibrate, 7 join, 2 lock)" in report,
      "run summary lacks the dropped counts")
check("| timeout | 124 | NONE | timeout, verification NONE |" in report, "timeout row not listed among dropped runs")
check("| ok | 0 | FAIL | status ok, exit code 0 and verification FAIL disagree |" in report, "disagreeing row not listed")
check("| -1 | failed | 1 | FAIL |" in report and "| -2 | ok | 0 | PASS | warm-up |" in report, "warm-up rows not listed")
check("| refused | 0 | NONE | refused |" in report, "refused row not listed")
notes = {"join": "dropped 7 join rows (5 failed, 1 refused, 1 warm-up)", "lock": "dropped 2 lock rows (2 failed)"}
for name in NAMES:
    note = notes[name.split("_")[0]]
    check(any(ln.startswith(f"rmaplot: wrote {os.path.join(out, name)}.png") and note in ln for ln in so.splitlines()),
          f"rmaplot's line for {name} does not say '{note}'")
    sec = [s for s in report.split("\n### ") if f"]({name}.png)" in s]
    check(sec and note.capitalize() in sec[0], f"report section of {name} does not say '{note}'")
check("Dropped 7 join rows (5 failed, 1 refused, 1 warm-up)." in section("\n## Join throughput\n", "|"), "join table: dropped")
check("Dropped 2 lock rows (2 failed)." in section("\n## Lock table throughput\n", "|"), "lock table: dropped")
check("Slurm jobs: 4242" in report and "0123456789abcdef" in report, "environment (job, commit) missing")
check(any(ln.startswith("- run environment: 8 cores/host, oversubscribed: no, polling yields: no, MPI env: (none)")
          for ln in lines), "environment lacks the run environment line (host_cores, oversubscribed, poll_yield, mpi_env)")
# the fixture's steal runs 0-6% (host_steal); rows with a value, failed ones too, are counted
nsteal = sum(1 for r in rows if r.get("host_steal"))
check(any(ln.endswith(f", host steal 0.0-6.0% of the CPU time over {nsteal} runs") for ln in lines),
      f"the run environment line lacks the steal range over {nsteal} runs")


def cells(line):
    """The cells of a markdown table row ('\\|' inside a cell is text)."""
    return len(re.split(r"(?<!\\)\|", line.strip())) - 2


def tables_aligned(text, what):
    """Every row of every markdown table in text has its header's number of cells."""
    head = None
    for ln in text.splitlines():
        if not ln.startswith("|"):
            head = None
        elif head is None:
            head = cells(ln)
        else:
            check(cells(ln) == head, f"{what}: a row of {cells(ln)} cells under a header of {head}: {ln}")


tables_aligned(report, "report.md")

# --- the figures, drawn here: what each point and bar is ----------------------------------------
from matplotlib.container import BarContainer, ErrorbarContainer  # noqa: E402
from rmaplots import config, data, report as rreport, style  # noqa: E402

check(config.unknown(header) == [], f"columns rmaplots does not classify: {config.unknown(header)}")
# what a run was given is configuration: rows that differ in it are never pooled; CSVs older than
# these columns load, the columns empty, and the report says they were not recorded
for col, val in (("host_cores", "2"), ("oversubscribed", "yes"), ("poll_yield", "yes"),
                 ("mpi_env", "OMPI_MCA_mpi_yield_when_idle=1")):
    check(config.configuration(dict(rows[0], **{col: val})) != config.configuration(rows[0]), f"{col} pooled")
# the hypervisor's steal is measured: runs that differ in it pool
check(config.configuration(dict(rows[0], host_steal="0.2500")) == config.configuration(rows[0]), "host_steal not pooled")
ENV_COLS = ("host_cores", "oversubscribed", "poll_yield", "mpi_env")
older = os.path.join(tmp, "older.csv")
with open(older, "w", newline="") as g:
    w = csv.DictWriter(g, fieldnames=[c for c in header if c not in ENV_COLS], lineterminator="\n", extrasaction="ignore")
    w.writeheader()
    w.writerows(rows)
old_rows = data.load([older])
check(len(old_rows) == len(rows) and all(config.configuration(r)[c] == "" for r in old_rows for c in ENV_COLS),
      "a CSV without the environment columns: not loaded, or the columns not empty")
check(rreport.run_environment(old_rows).startswith("- run environment: not recorded"),
      f"a CSV without the environment columns: {rreport.run_environment(old_rows)}")
# each library's launcher sets its own variables: the line says which library ran with which
ompi = next(r for r in rows if config.mpi_name(r).startswith("Open MPI"))
mpich = next(r for r in rows if config.mpi_name(r).startswith("MPICH"))
env_line = rreport.run_environment([dict(ompi, mpi_env="OMPI_MCA_mpi_yield_when_idle=1", host_steal=""), dict(mpich, mpi_env="", host_steal="")])
check(env_line.endswith(f"MPI env: {config.mpi_name(mpich)}: (none); {config.mpi_name(ompi)}: OMPI_MCA_mpi_yield_when_idle=1"),
      f"MPI environment per library: {env_line}")
syn = dict(next(r for r in locks if r["workload"] == "synthetic"))
check(config.configuration(syn) == config.configuration(dict(syn, isolation="serializable")),
      "an isolation level recorded for synthetic (older CSVs) splits its runs")
tpc = next(r for r in locks if r["workload"] == "tpcc")
other = "serializable" if tpc["isolation"] != "serializable" else "read-committed"
check(config.configuration(tpc) != config.configuration(dict(tpc, isolation=other)), "tpcc isolation levels pooled")
check("remote" not in config.label(config.configuration(tpc), ["workload", "remote_prob"]),
      "a TPC-C run labelled by the remote probability it ignores")
mpich = next(r for r in rows if r["mpi_library"].startswith("MPICH"))
check(len(mpich["mpi_version"]) > 2000 and config.mpi_name(dict(mpich, mpi_library="MPICH")) == "MPICH 4.0.2",
      "the MPICH short name is not recovered from the configure dump")
check(data.ci_cell([1.0, 1.0, 10.0]).startswith("±") and data.ci_cell([1.0, 1.1, 0.9]) == "0.752–1.248",
      "a confidence interval wider than its mean is drawn as an interval")

# the machine's states (regimes.py), derived from the columns every row has or read from explicit
# columns where a CSV has them, old and new columns present or absent: the same runs read slow (the
# fixture's 2-host joins), and the explicit columns never split a configuration
from rmaplots import regimes  # noqa: E402
js = [r for r in data.joins(data.load([fixture])) if r["algo"] in ("radix", "sortmerge")]
want = [r["hosts"] == "2" for r in js]
variants = {"derived": js,
            "explicit rate too": [dict(r, alloc_s_per_gb=f"{regimes.alloc_s_per_gb(r):.6f}") for r in js],
            "explicit rate only": [dict(r, alloc_s_per_gb=f"{regimes.alloc_s_per_gb(r):.6f}", t_window_alloc_avg="")
                                   for r in js],
            "explicit regime only": [dict(r, alloc_regime="returned" if r["hosts"] == "2" else "reused", t_window_alloc_avg="", alloc_s_per_gb="")
                                     for r in js]}
for name, rs in variants.items():
    m = regimes.Machine(rs)
    got = [m.point([r]).slow == ["alloc"] for r in rs]
    check(got == want, f"regimes, {name}: {sum(got)} joins read the slow allocation regime, not the {sum(want)} on 2 hosts")
small = [dict(r, r_tuples="1000", s_tuples="1000", alloc_regime="returned" if r["hosts"] == "2" else "reused") for r in js]
check("alloc" not in regimes.Machine(small).kinds(), "regimes: a state read from windows too small to tell it")
m = regimes.Machine([dict(r, t_window_alloc_avg="", alloc_s_per_gb="", alloc_regime="") for r in js])
check(m.kinds() == [] and not any(m.point([r]).flagged for r in js), "regimes: a state read without any column for it")
check(all(regimes.alloc_s_per_gb(dict(r, window_life=life, query_state="steady")) is None for r in js for life in ("pool", "dynamic"))
      and all(regimes.alloc_s_per_gb(dict(r, window_life="join", query_state="steady")) is not None for r in js),
      "regimes: an allocation rate read from a later run's reused windows")
r0 = js[0]
check(config.configuration(r0) == config.configuration(dict(r0, alloc_regime="returned", alloc_s_per_gb="1.5",
                                                            floor_rtt_us="0.5", run_delay="0.2")),
      "an explicit machine-state column splits a configuration")
lk = [r for r in locks]
check([regimes.floor_us(r) for r in lk] == [float(r["floor_rtt_us"]) for r in lk],
      "regimes: the lock runs' floors are not read from floor_rtt_us")
check(regimes.floor_us(dict(lk[0], floor_rtt_us="9.0")) is None and regimes.floor_disturbed(dict(lk[0], floor_rtt_us="9.0")) == 9.0,
      "regimes: a floor above its run's round trip (disturbed) is read as the floor")

MAY_VARY = {"ranks", "hosts", "ranks_per_host", "radix_bits", "r_tuples", "s_tuples", "servers", "agents"}
LABELLED = {"algo": lambda v: v, "workload": lambda v: v, "isolation": lambda v: v, "mpi_library": lambda v: v,
            "hosts": lambda v: f"{v} host", "ranks_per_host": lambda v: f"{v} rank", "window": lambda v: f"window {v}",
            "flush": lambda v: f"flush {v}", "buffer_size": lambda v: f"buffer {int(v) // 1024} KiB",
            "transport": lambda v: f"transport {v}", "checked": lambda v: "--no-check" if v == "no" else "checked",
            "remote_prob": lambda v: f"remote {100 * float(v):g}%", "servers": lambda v: f"{v} server"}


def match(cands, col, y, scale=1.0):
    """The configurations among cands (key -> rows) whose median of col (times scale) is y."""
    return [k for k, g in cands.items() if close(med(g, col) * scale, y)]


def named(name, series):
    """series: [(label, [configuration dicts])]: labels unique, and each names its value of every
    column that differs between the series (where the column applies)."""
    labels = [lab for lab, _ in series]
    check(len(set(labels)) == len(labels), f"{name}: labels not unique: {labels}")
    def applies(d, col):  # TPC-C ignores --remote-prob (it records 0): nothing to name
        return "" if col == "remote_prob" and d.get("workload") not in ("synthetic", "bank") else d[col]

    for col, f in LABELLED.items():
        vals = [{applies(d, col) for d in ds} for _, ds in series]
        if any(len(v) != 1 for v in vals) or len({next(iter(v)) for v in vals} - {""}) < 2:
            continue
        for (lab, _), v in zip(series, vals):
            val = next(iter(v))
            check(val == "" or f(val) in lab, f"{name}: '{lab}' does not name {col} {val}")


def lines_of(name, ax, rs, xcol, col, scale, xscale=1.0, may_vary=MAY_VARY, legend_ax=None):
    """Each point of each errorbar line is the median of exactly one configuration at its x; a line
    keeps its configuration apart from may_vary; whiskers stay at or above 0; the legend (on
    legend_ax where panels share one) names every line."""
    drawn, series = set(), []
    for c in [c for c in ax.containers if isinstance(c, ErrorbarContainer)]:
        xs, ys = c.lines[0].get_data()
        ds = []
        for x, y in zip(xs, ys):
            at = groups(r for r in rs if close(float(r[xcol]) * xscale, x))
            hit = match(at, col, y, scale)
            check(len(hit) == 1, f"{name}: '{c.get_label()}' at {x:g}: {y:.6g} is the median of {len(hit)} configurations")
            if hit:
                check(hit[0] not in drawn, f"{name}: a configuration drawn twice at {x:g}")
                drawn.add(hit[0])
                ds.append(dict(hit[0]))
        fixed = [{k: v for k, v in d.items() if k not in may_vary and k != xcol} for d in ds]
        check(all(f == fixed[0] for f in fixed), f"{name}: line '{c.get_label()}' mixes configurations")
        for coll in c.lines[2]:
            check(min(seg[:, 1].min() for seg in coll.get_segments()) >= 0, f"{name}: a whisker below 0")
        series.append((c.get_label(), ds))
    leg = (legend_ax or ax).get_legend()
    if len(series) > 1:
        # the entries that explain marked points (hollow, shaded) are not lines
        texts = [t.get_text() for t in leg.get_texts() if not t.get_text().startswith(("hollow:", "shaded"))] if leg else []
        check(sorted(texts) == sorted(lab for lab, _ in series), f"{name}: legend {texts}")
    named(name, series)
    return drawn, series


def bars_of(name, ax, rs, parts, horizontal=False, at=None):
    """Each bar position (a tick) stacks the medians of exactly one configuration's rows; returns
    the configurations."""
    conts = [c for c in ax.containers if isinstance(c, BarContainer)][:len(parts)]
    ticks = [t.get_text() for t in (ax.get_yticklabels() if horizontal else ax.get_xticklabels())]
    out = []
    for i, tick in enumerate(ticks):
        cands = groups(r for r in rs if at is None and r["ranks"] == tick.split("\n")[0] or at is not None and r["ranks"] == at)
        size = [(p.get_width() if horizontal else p.get_height()) for p in (c.patches[i] for c in conts)]
        hit = [k for k, g in cands.items() if all(close(med0(g, col), h) for col, h in zip(parts, size))]
        check(len(hit) == 1, f"{name}: bar '{tick}' is the median of {len(hit)} configurations")
        out += hit
    return out


rrows = data.load([fixture])
drawn = {n: fn(rrows) for n, _, _, fn in rreport.FIGURES}

# Fig 4.2: every configuration of the main workload, each point its own median
d = drawn["join_throughput"]
got, series = lines_of("join_throughput", d.fig.axes[0], main, "ranks", "throughput", 1e-6)
check(got == set(G_MAIN), f"join_throughput: {len(set(G_MAIN) - got)} configurations not drawn")
check(f"Shows {len(series)} configurations" in section("### Join throughput against ranks"), "report: join_throughput count")
# Fig 4.6: a line keeps its ranks per host
d = drawn["join_scaleup"]
got, series = lines_of("join_scaleup", d.fig.axes[0], main, "ranks", "throughput", 1e-6, may_vary=MAY_VARY - {"ranks_per_host"})
check(len({s[1][0]["ranks_per_host"] for s in series}) >= 2, "join_scaleup: fewer than two ranks-per-host lines")
# Figs 4.3a, 4.4a and the reference join: a panel per configuration, titled by what differs
for algo in ("radix", "sortmerge", "reference"):
    name = f"join_phases_{algo}"
    fig = drawn[name].fig
    rs = [r for r in main if r["algo"] == algo]
    panels, seen = [], set()
    for ax in [a for a in fig.axes if a.get_visible()]:
        phases = [c.get_label() for c in ax.containers if isinstance(c, BarContainer)]
        got = bars_of(name, ax, rs, [f"t_{p}_avg" for p in phases])
        check(not seen & set(got), f"{name}: a configuration in two panels")
        seen |= set(got)
        panels.append((" ".join(ax.get_title().split()), [dict(k) for k in got]))  # titles wrap
        fixed = [{k: v for k, v in dict(g).items() if k not in MAY_VARY} for g in got]
        check(all(f == fixed[0] for f in fixed), f"{name}: panel '{ax.get_title()}' mixes configurations")
    check(seen == {k for k in G_MAIN if dict(k)["algo"] == algo}, f"{name}: configurations missing")
    if len(panels) > 1:
        named(name, panels)
    if algo == "reference":
        check(phases[:2] == ["exchange", "build_probe"], f"reference phases drawn: {phases}")
# Fig 3.15: measured and predicted bars of one configuration per panel
fig = drawn["join_model"].fig
seen = set()
for ax in [a for a in fig.axes if a.get_visible()]:
    conts = [c for c in ax.containers if isinstance(c, BarContainer)]
    phases = [c.get_label() for c in conts if not c.get_label().startswith("_")]
    got = bars_of("join_model", ax, [r for r in main if r["model_total"]], [f"t_{p}_avg" for p in phases])
    seen |= set(got)
    for i, k in enumerate(got):
        g = G_MAIN[k]
        for c, p in zip(conts[len(phases):], phases):
            want = statistics.median(float(r[f"model_{p}"]) for r in g) if g[0][f"model_{p}"] else 0.0
            check(close(c.patches[i].get_height(), want), f"join_model: model bar {p} of {ax.get_title()}")
check(seen == {k for k, g in G_MAIN.items() if g[0]["model_total"]}, "join_model: configurations missing")
# Fig 5.5: lines per configuration; the runs at one rank count only are named as not drawn
d = drawn["lock_throughput"]
got, series = lines_of("lock_throughput", d.fig.axes[0], locks, "ranks", "commits_per_s", 1e-6)
got2, series2 = lines_of("lock_throughput (b)", d.fig.axes[1], locks, "ranks", "lock_requests_per_s", 1e-6,
                         legend_ax=d.fig.axes[0])  # one legend below (a) names the lines of both panels
check([lab for lab, _ in series2] == [lab for lab, _ in series], "lock_throughput: (a) and (b) draw different lines")
single = {k for k, g in G_LOCK.items() if g[0]["ranks"] == "8" and (g[0]["remote_prob"] in ("0.01", "0.05") or g[0]["servers"] == "2")}
check(got == got2 == set(G_LOCK) - single, f"lock_throughput: drawn {len(got)}, expected {len(G_LOCK) - len(single)}")
check(len(d.hidden) == 3 and any("3 configurations" in t.get_text() for t in d.fig.texts), "lock_throughput: no note")
check(not any(lab.endswith(",") or ", ," in lab for lab, _ in series), "lock_throughput: a label with an empty part")
# Fig 5.6: a bar per configuration at 8 ranks
d = drawn["lock_latency"]
got = bars_of("lock_latency", d.fig.axes[0], [r for r in locks if r["ranks"] == "8"],
              ["lat_txn_lock_us", "lat_txn_data_us", "lat_txn_vote_us", "lat_txn_end_us"], horizontal=True, at="8")
check(set(got) == {k for k, g in G_LOCK.items() if g[0]["ranks"] == "8"}, "lock_latency: configurations missing")
named("lock_latency", [(t.get_text(), [dict(k)]) for t, k in zip(d.fig.axes[0].get_yticklabels(), got)])
# Fig 5.7: the sweep with remote locks is drawn; the one on 1 server is not, and the figure says so
d = drawn["lock_remote"]
got, _ = lines_of("lock_remote", d.fig.axes[0], locks, "remote_prob", "commits_per_s", 1e-6, xscale=100.0, may_vary=set())
want = {k for k, g in G_LOCK.items() if (g[0]["workload"], g[0]["ranks"], g[0]["servers"], g[0]["transport"], g[0]["checked"],
                                          g[0]["mpi_library"]) == ("synthetic", "8", "4", "rma", "yes", "Open MPI 4.1.4")}
check(got == want, f"lock_remote: drew {len(got)} of {len(want)} points of the 8-rank sweep")
check(any("remote share 0" in " ".join(t.get_text().split()) and "1 server" in t.get_text() for t in d.fig.texts),
      "lock_remote: no note on the figure about the sweep with remote share 0")
check("remote share 0" in section("### Remote lock probability"), "report: no note about remote share 0")

# a wild run: the figure shows the runs themselves (bars from the smallest to the largest run, a dot
# per run), never a confidence interval cut at 0; the table gives the interval's half-width instead
wild = [dict(r) for r in rrows]
k = next(iter(G_MAIN))
for r in wild:
    if r.get("_file") and how({c: r.get(c, "") for c in header}) == k and r["repeat_index"] == "0":
        r["throughput"] = str(float(r["throughput"]) * 40)
g = [r for r in wild if r.get("_file") and how({c: r.get(c, "") for c in header}) == k]
runs = sorted(float(r["throughput"]) / 1e6 for r in g)
d = style.Drawn()
try:
    from rmaplots import scaling  # noqa: E402
    d = scaling.fig_throughput(wild)
    whiskers = [(seg[:, 1].min(), seg[:, 1].max()) for c in d.fig.axes[0].containers
                if isinstance(c, ErrorbarContainer) for coll in c.lines[2] for seg in coll.get_segments()]
    check(any(close(lo, runs[0]) and close(hi, runs[-1]) for lo, hi in whiskers),
          f"the wild point's bar does not span its runs {runs[0]:.3f}-{runs[-1]:.3f}")
    dots = [y for ln in d.fig.axes[0].get_lines() if ln.get_marker() == "." for y in ln.get_ydata()]
    check(all(any(close(y, v) for y in dots) for v in runs), "the wild point's runs are not drawn as dots")
    check("n = 3 runs per point" in d.fig.axes[0].get_title(), f"the runs per point are not printed: {d.fig.axes[0].get_title()!r}")
finally:
    if d.fig:
        import matplotlib.pyplot as plt  # noqa: E402
        plt.close(d.fig)
md = "\n".join(rreport.join_tables(wild))
check(f"±{(4.303 * statistics.stdev(runs) / math.sqrt(3)):.3f}: wider than the mean (3 runs)" in md,
      "the join table draws a confidence interval wider than its mean as an interval")

# more configurations than panels: refused, naming the columns that differ (here only the buffer size)
many = [dict(r, buffer_size=str(65536 << (int(r["ranks"]) % 7 + i % 7))) for i, r in enumerate(
    r for r in rrows if r["algo"] == "radix" and r["mpi_library"].startswith("Open") and r["hosts"] == "1" and
    r["window"] == "allocate" and r["buffer_size"] == "65536")]
from rmaplots import breakdown  # noqa: E402
d = breakdown.fig_breakdown(many, "radix")
check(d.fig is None and "differing in buffer_size (" in d.skipped, f"join_phases_radix with many buffer sizes: {d.skipped!r}")

check(all(d.fig for d in drawn.values()), f"not drawn: {[d.skipped for d in drawn.values() if not d.fig]}")

# the totals of the model with window allocation, as join_compare prints them: against the slowest
# rank and against the mean over ranks (no imbalance term), in rows of the table's width
alloc = [dict(r, model_window_alloc="0.010000", model_total_with_alloc=f"{float(r['model_total']) + 0.01:.6f}")
         if r.get("model_total") else r for r in rrows]
md = "\n".join(rreport.join_tables(alloc))
tables_aligned(md, "join tables with model_total_with_alloc")
g = [r for r in main if r["algo"] == "radix" and r["ranks"] == "8" and r["hosts"] == "1"]
sec = md.split("### Model against measurement: radix, 8 ranks, 1 host ")[1].split("###")[0]
for name, mcol in (("total", "t_total_max"), ("total_without_imbalance", "t_total_avg")):
    meas, pred = med(g, mcol), med(g, "model_total") + 0.01
    check(f"| {name} | {meas:.4f} | {pred:.4f} | {pred - meas:+.4f} | {100 * (pred - meas) / meas:+.1f}% |" in sec,
          f"Table 4.2 with window allocation: no {name} row of model {pred:.4f}, measured {meas:.4f}: {sec}")

# --- bad input: one line on stderr, exit 2, no traceback ------------------------------------------
bad = os.path.join(tmp, "bad.csv")
with open(bad, "w") as f:
    f.write("bench,status,ranks\njoin,ok,2\n")
hdr = os.path.join(tmp, "empty.csv")
with open(fixture) as f, open(hdr, "w") as g:
    g.write(f.readline())
for args, want in (((bad,), "missing columns"), ((hdr,), "no rows"), ((os.path.join(tmp, "nope.csv"),), "cannot read"),
                   ((fixture, bad), "missing columns")):
    rc, so, se = run("report", *args, "--out", os.path.join(tmp, "bad-out"))
    check(rc == 2, f"{args}: exit {rc}, expected 2")
    check(want in se and "Traceback" not in se and len(se.strip().splitlines()) == 1, f"{args}: stderr {se!r}")
    check(not os.path.exists(os.path.join(tmp, "bad-out", "report.md")), f"{args}: wrote a report anyway")

# --out refuses what is not a directory, and files in it that are not regular files, before
# drawing anything; a symbolic link to a regular file is written through and kept
plain = os.path.join(tmp, "plain")
with open(plain, "w") as f:
    f.write("mine\n")
for case in ("out-is-file", "fifo-report", "dir-figure", "dangling-link"):
    o = os.path.join(tmp, case)
    if case == "out-is-file":
        o = plain
    else:
        os.mkdir(o)
        victim = os.path.join(o, "report.md" if case != "dir-figure" else "join_model.pdf")
        {"fifo-report": os.mkfifo, "dir-figure": os.mkdir,
         "dangling-link": lambda p: os.symlink(os.path.join(tmp, "nowhere"), p)}[case](victim)
    rc, so, se = run("report", fixture, "--out", o)
    check(rc == 2 and se.startswith("rmaplot: --out: ") and len(se.strip().splitlines()) == 1, f"{case}: exit {rc}, {se!r}")
    if case == "out-is-file":
        check(open(plain).read() == "mine\n", "out-is-file: the file changed")
    else:
        check(sorted(os.listdir(o)) == [os.path.basename(victim)], f"{case}: wrote {sorted(os.listdir(o))}")
        check(case != "fifo-report" or stat.S_ISFIFO(os.lstat(victim).st_mode), "the FIFO was replaced")

# absent data is skipped with a note: a lock-only file still gives lock figures and exit 0 (written
# through a report.md that links to a regular file)
lockonly = os.path.join(tmp, "lock-only.csv")
with open(fixture, newline="") as f, open(lockonly, "w", newline="") as g:
    rd = csv.reader(f)
    w = csv.writer(g, lineterminator="\n")
    w.writerow(next(rd))
    for r in rd:
        if r[1] == "lock":
            w.writerow(r)
linked = os.path.join(tmp, "linked")
os.mkdir(linked)
os.symlink(plain, os.path.join(linked, "report.md"))
# an output that exists is refused (one line naming --force, nothing drawn, the file as it was) ...
before = open(plain).read()
rc, so, se = run("report", lockonly, "--out", linked)
check(rc == 2 and se.strip().endswith("report.md: exists; give --force to replace it") and len(se.splitlines()) == 1
      and open(plain).read() == before and sorted(os.listdir(linked)) == ["report.md"],
      f"an existing report.md without --force: exit {rc}, {se!r}, {sorted(os.listdir(linked))}")
# ... and replaced with --force
rc, so, se = run("report", lockonly, "--out", linked, "--force")
check(rc == 0 and os.path.islink(os.path.join(linked, "report.md")) and open(plain).read().startswith("# rmabench results"),
      f"a report.md linked to a regular file: exit {rc}, {se!r}")
check(not [n for n in os.listdir(linked) + os.listdir(tmp) if ".tmp." in n], "temporary files left behind")
check("no verified join runs" in so, f"lock-only: no skip note: {so}")
check(os.path.exists(os.path.join(linked, "lock_throughput.png")) and not os.path.exists(os.path.join(linked, "join_throughput.png")),
      "lock-only: wrong figure set")

# rmaplot figure's --params: a file that is missing, binary or not a regular file is refused with
# one line, exit 2, before anything is drawn (it was ignored, or a traceback)
fig_out = os.path.join(tmp, "fig")
binp = os.path.join(tmp, "binary-params")
with open(binp, "wb") as f:
    f.write(bytes(range(256)) * 8)
fifo = os.path.join(tmp, "params-fifo")
os.mkfifo(fifo)
for case, path, why in (("missing", os.path.join(tmp, "no-such-params"), "No such file or directory"),
                        ("binary", binp, "not a text file"), ("fifo", fifo, "not a regular file (a FIFO)")):
    rc, so, se = run("figure", "fig3.7", fixture, "--out", fig_out, "--params", path)
    check(rc == 2 and len(se.splitlines()) == 1 and se.startswith("rmaplot: --params: ") and why in se
          and "Traceback" not in se and not os.path.exists(fig_out), f"figure --params {case}: exit {rc}, {se!r}")
# a figure of an earlier run in --out: refused without --force, replaced with it
rc, so, se = run("figure", "fig3.7", fixture, "--out", fig_out)
check(rc == 0, f"figure fig3.7: exit {rc}, {se!r}")
rc, so, se = run("figure", "fig3.7", fixture, "--out", fig_out)
check(rc == 2 and "exists; give --force to replace it" in se and len(se.splitlines()) == 1, f"figure again: exit {rc}, {se!r}")
rc, so, se = run("figure", "fig3.7", fixture, "--out", fig_out, "--force")
check(rc == 0, f"figure --force: exit {rc}, {se!r}")

print(f"{'FAILED' if failures else 'ok'}: {len(failures)} failures")
sys.exit(1 if failures else 0)
