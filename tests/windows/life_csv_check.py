#!/usr/bin/python3
"""--queries under each --window-life, both joins, 2 ranks, into one CSV: per lifetime 4 rows (2
queries x 2 joins), each verified (PASS, matches = expected), query_index 0 and 1 with seed 42 and
43, query_state first for a join's first query and steady after it, window and window_life filled;
the window memory held (mem_window_held) never above the plan's (mem_window_plan) and no kept
window grown (window_regrown 0); under pool and dynamic the steady queries' window_alloc well below
the first's is a timing, not checked here.
   life_csv_check.py MPI_CHECK MPIRUN RMABENCH"""
import csv, os, subprocess, sys, tempfile

mpi_check, mpirun, rmabench = sys.argv[1:4]
fail = []
with tempfile.TemporaryDirectory() as d:
    path = os.path.join(d, "life.csv")
    for life in ("join", "pool", "dynamic"):
        p = subprocess.run([mpi_check, mpirun, "2", "--pass", "4", "--timeout", "120", "--", rmabench, "join", "--algo",
                            "both", "--tuples-per-rank", "10K", "--queries", "2", "--window-life", life, "--output", path],
                           capture_output=True, text=True, timeout=180)
        if p.returncode != 0:
            sys.exit(f"FAIL: --window-life {life}:\n{p.stdout}{p.stderr}")
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
if len(rows) != 12:
    fail.append(f"{len(rows)} rows, expected 12")
for i, r in enumerate(rows):
    life, algo, q = ("join", "pool", "dynamic")[i // 4], ("radix", "sortmerge")[i % 2], (i % 4) // 2
    what = f"row {i} ({life}, {algo}, query {q})"
    want = {"window_life": life, "algo": algo, "query_index": str(q), "seed": str(42 + q),
            "query_state": "first" if q == 0 else "steady", "verification": "PASS", "window_regrown": "0"}
    got = {k: r.get(k) for k in want}
    if got != want:
        fail.append(f"{what}: {got}, expected {want}")
    if r.get("matches") != r.get("expected_matches") or r.get("checksum") != r.get("expected_checksum"):
        fail.append(f"{what}: matches/checksum differ from the expected ones")
    if r.get("window") not in ("allocate", "create", "create-huge"):
        fail.append(f"{what}: window {r.get('window')!r}")
    held, plan = int(r.get("mem_window_held") or -1), int(r.get("mem_window_plan") or -1)
    # a kept window holds at most its slot's plan, rounded up to 64 bytes (MPICH: 64 more) per slot
    if not 0 < held <= plan + 3 * 128:
        fail.append(f"{what}: window memory held {held} B against the plan's {plan} B")
if fail:
    print("\n".join("FAIL: " + f for f in fail))
    sys.exit(1)
print("verification: PASS")
