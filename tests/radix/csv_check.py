#!/usr/bin/python3
"""--output: two runs (--repeat 2) after a warm-up run (--warmup 1) append a header once and two
rows with the radix columns filled; the warm-up run is verified and reported on one line, not recorded.
   csv_check.py MPI_CHECK MPIRUN RMABENCH"""
import csv, os, subprocess, sys, tempfile

mpi_check, mpirun, rmabench = sys.argv[1:4]
with tempfile.TemporaryDirectory() as d:
    path = os.path.join(d, "sub", "results.csv")
    os.makedirs(os.path.dirname(path))
    rc = subprocess.call([mpi_check, mpirun, "2", "--pass", "2", "--matches", "20000",
                          "--grep", "radix warm-up run 1/1: total .* verification: PASS", "--", rmabench, "join",
                          "--algo", "radix", "--tuples-per-rank", "10K", "--repeat", "2", "--warmup", "1", "--output", path])
    if rc != 0:
        sys.exit("FAIL: the join failed")
    with open(path, newline="") as f:
        lines = f.read().splitlines()
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    fail = []
    if sum(1 for l in lines if l.startswith("timestamp,")) != 1:
        fail.append("header not exactly once")
    if len(rows) != 2:
        fail.append(f"{len(rows)} rows, expected 2")
    for i, r in enumerate(rows):
        for col in ["algo", "radix_bits", "local_fanout_bits", "passes", "assign", "flush", "compress", "window",
                    "buffer_size", "t_histogram_avg", "t_window_alloc_max", "t_network_partition_avg",
                    "t_local_partition_avg", "t_build_probe_max", "t_put_avg", "t_flush_avg", "t_total_max",
                    "throughput", "git_commit", "mpi_library", "seed", "ranks"]:
            if not r.get(col):
                fail.append(f"row {i}: column {col} is empty")
        if r.get("verification") != "PASS" or r.get("matches") != "20000" or r.get("repeat_index") != str(i):
            fail.append(f"row {i}: verification {r.get('verification')}, matches {r.get('matches')}, "
                        f"repeat_index {r.get('repeat_index')}")
        if r.get("warmups") != "1" or r.get("repeats") != "2":
            fail.append(f"row {i}: warmups/repeats = {r.get('warmups')}/{r.get('repeats')}, expected 1/2")
        if r.get("algo") != "radix" or r.get("radix_bits") != "4" or r.get("ranks") != "2":
            fail.append(f"row {i}: algo/radix_bits/ranks = {r.get('algo')}/{r.get('radix_bits')}/{r.get('ranks')}")
    for f in fail:
        print("FAIL:", f)
    sys.exit(1 if fail else 0)
