#!/usr/bin/python3
"""plots/exchange_figure draws whatever exchange designs the rows name (jobs/exchange.sh runs those
`rmabench join --list-exchanges` gives), in the order they first ran, each in its own colour: a new
design of joins/radix needs nothing in the plots. Rows under the declared header (the fixture's)
for put, get (two schedules), alltoallv and a design the plots have never heard of, two message
sizes each; the table must list every design and schedule in that order, the fastest size of each
against the model, and the figure must be written.

    test_exchange_figure.py EXCHANGE_FIGURE FIXTURE.csv"""
import csv
import os
import subprocess
import sys
import tempfile

figure, fixture = sys.argv[1:3]
with open(fixture, newline="") as f:
    header = next(csv.reader(f))
LINES = [("get", "as-is", 1.0), ("put", "as-is", 0.8), ("brand-new", "as-is", 0.6), ("get", "staggered", 0.9),
         ("alltoallv", "as-is", 1.2)]
rows = []
for design, schedule, secs in LINES:
    for size, scale in ((4096, 1.5), (65536, 1.0)):
        r = {c: "" for c in header}
        r.update(bench="join", status="ok", exit_code="0", verification="PASS", repeat_index="0", algo="radix",
                 hosts="4", ranks="4", ranks_per_host="1", r_tuples="4000000", s_tuples="4000000", t_total_max="9",
                 exchange=design, schedule=schedule, buffer_size=str(size), t_network_partition_max=str(secs * scale),
                 model_network_partition="0.5", link_rate="50mbit", mpi_library="Open MPI 4.1.4")
        rows.append(r)
failures = 0
with tempfile.TemporaryDirectory() as tmp:
    csv_path = os.path.join(tmp, "results.csv")
    with open(csv_path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=header, lineterminator="\n")
        w.writeheader()
        w.writerows(rows)
    p = subprocess.run([sys.executable, figure, csv_path, "--out", tmp], capture_output=True, text=True)
    print(p.stdout + p.stderr, end="")
    md = open(os.path.join(tmp, "exchange.md")).read() if p.returncode == 0 else ""
    table = [line.split("|")[1:3] for line in md.split("\n\n")[0].splitlines()[2:]]
    lines = [(d.strip(), s.strip()) for d, s in table]
    want = [("get", "as-is")] * 2 + [("get", "staggered")] * 2 + [("put", "as-is")] * 2 + \
        [("brand-new", "as-is")] * 2 + [("alltoallv", "as-is")] * 2
    for ok, what in (
            (p.returncode == 0, f"exchange_figure exit {p.returncode}"),
            (lines == want, f"table rows by design in the order they ran, then schedule: {lines}"),
            ("| brand-new | as-is | 64 KiB | 0.600 |" in md, "the new design's fastest size against the model"),
            (os.path.getsize(os.path.join(tmp, "exchange.png")) > 10000 if p.returncode == 0 else False,
             "exchange.png written")):
        print(("ok: " if ok else "FAIL: ") + what)
        failures += not ok
sys.exit(1 if failures else 0)
