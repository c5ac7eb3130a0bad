"""rmaplot on the committed fixture: every figure is a real PNG/PDF, the report's numbers are the
medians of the fixture's good rows (chosen and computed here independently), the failed rows are
dropped and counted per figure and table, bad input gives one line and exit 2.
   test_rmaplot.py RMAPLOT FIXTURE.csv"""
import csv
import os
import stat
import statistics
import subprocess
import sys
import tempfile

rmaplot, fixture = sys.argv[1], sys.argv[2]
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


def run(*args):
    p = subprocess.run([rmaplot, *args], capture_output=True, text=True, timeout=120)
    return p.returncode, p.stdout, p.stderr


tmp = tempfile.mkdtemp(prefix="rmaplot-test-")
out = os.path.join(tmp, "out")
rc, so, se = run("report", fixture, "--out", out)
check(rc == 0, f"report exit {rc}: {se}")

# every figure family, PNG and PDF, with the right magic bytes and a non-trivial size
for name in ("join_throughput", "join_scaleup", "join_phases_radix", "join_phases_sortmerge", "join_model",
             "lock_throughput", "lock_latency", "lock_remote"):
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

# independent medians from the fixture
with open(fixture, newline="") as f:
    rows = list(csv.DictReader(f))


def med(rs, col):
    return statistics.median(float(r[col]) for r in rs)


def has_row(prefix, *cells):
    """A table line starting with prefix (cells joined by ' | ') that contains all cells."""
    cand = [ln for ln in lines if ln.startswith(prefix)]
    ok = any(all(f"| {c} |" in ln + " |" or f"| {c} |" in ln for c in cells) for ln in cand)
    check(ok, f"report has no row '{prefix}' with {cells}; candidates: {cand}")


def plottable(r):
    """The rule of the README: ok/0/PASS all three, and not a warm-up (negative repeat_index)."""
    return (r["status"], r["exit_code"], r["verification"]) == ("ok", "0", "PASS") and \
        not r["repeat_index"].startswith("-")


good = [r for r in rows if r["bench"] == "join" and plottable(r) and r["tuples_per_rank"] == "1000000" and r["ratio"] == "1"]
groups = {}
for r in good:
    groups.setdefault((r["algo"], r["ranks"], r["hosts"], r["ranks_per_host"]), []).append(r)
check(len(groups) == 10, f"fixture has {len(groups)} join groups, expected 10")
for (algo, ranks, hosts, rph), g in groups.items():
    has_row(f"| {algo} | {ranks} | {hosts} | {rph} | {len(g)} |", f"{med(g, 'throughput') / 1e6:.3f}",
            f"{med(g, 't_total_max'):.4f}")

# Table 4.2: model against measurement at the largest rank count (8), per phase
for algo, phases in (("radix", ["histogram", "network_partition", "local_partition", "build_probe"]),
                     ("sortmerge", ["partition", "sort", "merge", "match"])):
    at8 = [r for r in good if r["algo"] == algo and r["ranks"] == "8"]
    sec = report.split(f"### Model against measurement: {algo}, 8 ranks")[1].split("###")[0]
    for p in phases:
        meas, pred = med(at8, f"t_{p}_avg"), med(at8, f"model_{p}")
        check(f"| {p} | {meas:.4f} | {pred:.4f} | {meas - pred:+.4f} |" in sec, f"Table 4.2 {algo} {p}: {meas:.4f} {pred:.4f}")
    tot, ptot = med(at8, "t_total_max"), med(at8, "model_total")
    check(f"| total | {tot:.4f} | {ptot:.4f} |" in sec, f"Table 4.2 {algo} total {tot:.4f} {ptot:.4f}")

# lock throughput table and Table 5.1
locks = {}
for r in rows:
    if r["bench"] == "lock" and plottable(r):
        locks.setdefault((r["workload"], r["isolation"], float(r["remote_prob"]), r["ranks"]), []).append(r)
for (wl, iso, p, ranks), g in locks.items():
    has_row(f"| {wl} | {iso} | {p:g} | {ranks} |", f"{med(g, 'commits_per_s') / 1e6:.3f}",
            f"{med(g, 'lock_requests_per_s') / 1e6:.3f}")
sec = report.split("(cf. Table 5.1)")[1]
for (wl, iso, p, ranks), g in locks.items():
    if ranks == "8" and iso == "serializable":
        check(f"| {p:g} | {med(g, 'model_t_tx_us'):.3f} | {med(g, 'model_throughput') / 1e6:.3f} | "
              f"{med(g, 'commits_per_s') / 1e6:.3f} |" in sec, f"Table 5.1 p={p}")

# the failed rows are listed with why, not plotted, and counted for every figure and table
drops = {b: sum(1 for r in rows if r["bench"] == b and not plottable(r)) for b in ("join", "lock", "calibrate")}
check(drops == {"join": 6, "lock": 2, "calibrate": 1}, f"fixture's failed rows changed: {drops}")
check(f"Failed runs: {sum(drops.values())} rows dropped from every figure and table "
      f"(1 calibrate, {drops['join']} join, {drops['lock']} lock)" in report, "run summary lacks the dropped counts")
check("| timeout | 124 | NONE | timeout, verification NONE |" in report, "timeout row not listed among failed runs")
check("| ok | 0 | FAIL | status ok, exit code 0 and verification FAIL disagree |" in report, "disagreeing row not listed")
check("| -1 | failed | 1 | FAIL |" in report and "| -2 | ok | 0 | PASS | warm-up |" in report, "warm-up rows not listed")
for bench, names in (("join", ("join_throughput", "join_scaleup", "join_phases_radix", "join_phases_sortmerge", "join_model")),
                     ("lock", ("lock_throughput", "lock_latency", "lock_remote"))):
    note = f"dropped {drops[bench]} failed {bench} rows"
    for name in names:
        check(any(ln.startswith(f"rmaplot: wrote {os.path.join(out, name)}.png") and note in ln for ln in so.splitlines()),
              f"rmaplot's line for {name} does not say '{note}'")
    sections = report.split("\n### ")
    titled = [sec for sec in sections if f"]({names[0]}.png)" in sec]
    check(titled and note.capitalize() in titled[0], f"report section of {names[0]} does not say '{note}'")
check(f"mean. Dropped {drops['join']} failed join rows" in report, "join table does not say how many rows it dropped")
check(f"Medians over runs. Dropped {drops['lock']} failed lock rows" in report, "lock table does not say how many rows it dropped")
check("Slurm jobs: 4242" in report and "0123456789abcdef" in report, "environment (job, commit) missing")
for f in ("join_throughput.png", "lock_remote.png"):
    check(f"]({f})" in report, f"report does not embed {f}")

# bad input: one line on stderr, exit 2, no traceback
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
linked = os.path.join(tmp, "linked")
os.mkdir(linked)
os.symlink(plain, os.path.join(linked, "report.md"))
rc, so, se = run("report", fixture, "--out", linked)
check(rc == 0 and os.path.islink(os.path.join(linked, "report.md")) and open(plain).read().startswith("# rmabench results"),
      f"a report.md linked to a regular file: exit {rc}, {se!r}")
check(not [n for n in os.listdir(linked) + os.listdir(tmp) if ".tmp." in n], "temporary files left behind")

# absent data is skipped with a note: a lock-only file still gives lock figures and exit 0
lockonly = os.path.join(tmp, "lock-only.csv")
with open(fixture, newline="") as f, open(lockonly, "w", newline="") as g:
    rd = csv.reader(f)
    w = csv.writer(g, lineterminator="\n")
    w.writerow(next(rd))
    for r in rd:
        if r[1] == "lock":
            w.writerow(r)
out2 = os.path.join(tmp, "out2")
rc, so, se = run("figures", lockonly, "--out", out2)
check(rc == 0, f"lock-only: exit {rc}: {se}")
check("no verified join runs" in so, f"lock-only: no skip note: {so}")
check(os.path.exists(os.path.join(out2, "lock_throughput.png")) and not os.path.exists(os.path.join(out2, "join_throughput.png")),
      "lock-only: wrong figure set")

print(f"{'FAILED' if failures else 'ok'}: {len(failures)} failures")
sys.exit(1 if failures else 0)
