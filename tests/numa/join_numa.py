#!/usr/bin/env python3
"""Run `rmabench join` through tests/mpi_check.sh with --output, then assert the numa CSV columns.

  join_numa.py MPI_CHECK MPIRUN NP [expectations] -- [mpi_check options] -- [launcher options] RMABENCH join ARGS

expectations:
  --numa available|unavailable   value of the numa column
  --policy local|interleave|off|auto
                                 numa_policy; auto: local if the header reports more than one node, else off
  --worst one|empty              one: numa_placement_worst is 1.0000 on a one-node host (a fraction in
                                 [0, 1] otherwise); empty: not measured
  --warning RE                   binding_warning matches RE (default: the column exists)
  --once RE                      exactly one output line matches RE (a warning printed by rank 0 only)
Every row must also have one core and one node per rank in rank_cores / rank_numa_nodes."""
import csv, os, re, subprocess, sys, tempfile

def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)

args = sys.argv[1:]
mpi_check, mpirun, np = args[0], args[1], int(args[2])
rest = args[3:]
sep = rest.index("--")
opts, run = rest[:sep], rest[sep + 1:]
exp = {}
for i in range(0, len(opts), 2):
    exp[opts[i].lstrip("-")] = opts[i + 1]

fd, out_csv = tempfile.mkstemp(suffix=".csv")
os.close(fd)
os.unlink(out_csv)
try:
    p = subprocess.run([mpi_check, mpirun, str(np)] + run + ["--output", out_csv],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    print(p.stdout)
    if p.returncode != 0:
        fail("mpi_check.sh failed (exit %d)" % p.returncode)
    if not os.path.exists(out_csv):
        fail("no CSV written")
    with open(out_csv, newline="") as f:
        rows = list(csv.DictReader(f))
finally:
    if os.path.exists(out_csv):
        os.unlink(out_csv)

if not rows:
    fail("CSV has no rows")
m = re.search(r"^# numa: available, (\d+) node", p.stdout, re.M)
nodes = int(m.group(1)) if m else 0
if "once" in exp:
    n = len([l for l in p.stdout.splitlines() if re.search(exp["once"], l)])
    if n != 1:
        fail("%d output lines match /%s/, expected exactly 1" % (n, exp["once"]))
if exp.get("numa") == "unavailable" and not re.search(r"^# numa: unavailable", p.stdout, re.M):
    fail("header does not say '# numa: unavailable'")
for k, row in enumerate(rows):
    where = "row %d: " % k
    for col in ("numa", "numa_policy", "numa_placement_worst", "rank_cores", "rank_numa_nodes", "binding_warning"):
        if col not in row:
            fail(where + "no column " + col)
    if "numa" in exp and row["numa"] != exp["numa"]:
        fail(where + "numa = %r, expected %r" % (row["numa"], exp["numa"]))
    policy = exp.get("policy")
    if policy == "auto":
        policy = "local" if nodes > 1 else "off"
    if policy and row["numa_policy"] != policy:
        fail(where + "numa_policy = %r, expected %r" % (row["numa_policy"], policy))
    worst = row["numa_placement_worst"]
    if exp.get("worst") == "empty" and worst != "":
        fail(where + "numa_placement_worst = %r, expected empty" % worst)
    if exp.get("worst") == "one":
        if worst == "":
            fail(where + "numa_placement_worst is empty")
        if nodes == 1 and worst != "1.0000":
            fail(where + "numa_placement_worst = %r on a one-node host, expected 1.0000" % worst)
        if not 0 <= float(worst) <= 1:
            fail(where + "numa_placement_worst = %r is not a fraction" % worst)
    cores = row["rank_cores"].split(";")
    if len(cores) != np or not all(c.isdigit() for c in cores):
        fail(where + "rank_cores = %r, expected %d cores" % (row["rank_cores"], np))
    rn = row["rank_numa_nodes"].split(";")
    if len(rn) != np or not all(n.isdigit() or n == "?" for n in rn):
        fail(where + "rank_numa_nodes = %r, expected %d nodes" % (row["rank_numa_nodes"], np))
    if exp.get("numa") == "available" and not all(n.isdigit() for n in rn):
        fail(where + "rank_numa_nodes = %r: unknown node with libnuma" % row["rank_numa_nodes"])
    if "warning" in exp and not re.search(exp["warning"], row["binding_warning"]):
        fail(where + "binding_warning = %r does not match /%s/" % (row["binding_warning"], exp["warning"]))
print("numa columns ok in %d row(s): %s" % (len(rows), ", ".join(
    "%s=%s" % (c, rows[0][c]) for c in ("numa", "numa_policy", "numa_placement_worst", "rank_cores", "rank_numa_nodes"))))
