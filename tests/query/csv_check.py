#!/usr/bin/python3
"""rmabench query --output: a run of both designs (--warmup 1 --repeat 2) appends four rows (the
warm-ups are verified, not recorded), a --micro prefetch run one row per point, all under one
header, with the schema (per-dimension lists), the design's columns (the split and load for pull,
none of them for shuffle), the data moved, and the verification as the run printed it; the first
run's --model (a parameter file) puts each design's prediction beside its time, in the report and
in model_total.
   csv_check.py MPIRUN RMABENCH"""
import csv, os, subprocess, sys, tempfile

mpirun, rmabench = sys.argv[1:3]
env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
           OMPI_MCA_rmaps_base_oversubscribe="1", OMPI_MCA_mpi_yield_when_idle="1")
fails = []


def check(cond, what):
    if not cond:
        fails.append(what)


with tempfile.TemporaryDirectory() as d:
    out = os.path.join(d, "r.csv")
    params = os.path.join(d, "params.txt")
    with open(params, "w") as f:
        f.write("P_scan = 400\nP_partition = 150\nP_build = 60\nP_probe = 100\nbw_put_intra = 4 # GB/s\n"
                "t_get_block = 3 # us\nbw_get = 2 # GB/s\n")
    runs = [["query", "--fact-rows", "20K", "--tables", "3", "--dim2-selectivity", "0.5", "--warmup", "1",
             "--repeat", "2", "--output", out, "--model", params],
            ["query", "--micro", "prefetch", "--micro-blocks", "256", "--micro-prefetch", "1,8", "--output", out]]
    for args in runs:
        p = subprocess.run([mpirun, "-n", "3", rmabench] + args, env=env, capture_output=True, text=True, timeout=80)
        print(p.stdout[-3000:], p.stderr[-2000:])
        check(p.returncode == 0, f"exit {p.returncode} of {args}")
        if "--model" in args:
            check(p.stdout.count("s predicted, ") == 4, "the model's line in each run's report")
    text = open(out).read()
    check(text.count("timestamp,") == 1, "one header")
    rows = list(csv.DictReader(open(out)))
q = [r for r in rows if not r["micro"]]
m = [r for r in rows if r["micro"]]
check([r["design"] for r in q] == ["pull", "pull", "shuffle", "shuffle"], f"designs {[r['design'] for r in q]}")
check(len(m) == 2, f"{len(m)} micro rows")
for r in q:
    d = r["design"]
    check(r["bench"] == "query" and r["status"] == "ok" and r["verification"] == "PASS", f"{d}: outcome")
    check(r["matches"] == r["expected_matches"] and r["checksum"] == r["expected_checksum"], f"{d}: result")
    check(r["tables"] == "3" and r["fact_rows"] == "20000" and r["fact_width"] == "88", f"{d}: schema")
    check(r["dim_rows"] == "100;666" and r["dim_width"] == "120;104" and r["dim_selectivity"] == "1;0.5",
          f"{d}: dimension lists {r['dim_rows']} {r['dim_width']} {r['dim_selectivity']}")
    check(len(r["partitions"].split(";")) == 2, f"{d}: partitions {r['partitions']}")
    check(float(r["t_total_max"]) > 0 and int(r["moved_bytes"]) > 0, f"{d}: time and bytes")
    check(r["repeat_index"] in ("0", "1") and r["repeats"] == "2" and r["warmups"] == "1", f"{d}: repetition")
    check(float(r["model_total"]) > 0 and r["model_params"].endswith("params.txt") and r["model_err_total"] != "",
          f"{d}: the model's columns")
    if d == "pull":
        check(r["memory_ranks"] == "1" and r["compute_ranks"] == "2" and r["prefetch"] == "8", "pull: split")
        check(int(r["load_bytes"]) >= 20000 * 88 and float(r["t_load_max"]) > 0, "pull: load")
        check(int(r["blocks"]) > 0 and r["replicate"] == "read" and r["t_probe_max"] != "", "pull: blocks")
    else:
        check(r["memory_ranks"] == "" and r["prefetch"] == "" and r["blocks"] == "", "shuffle: no pull columns")
        check(r["radix_bits"] != "" and r["t_exchange_max"] != "", "shuffle: its columns")
for r in m:
    check(r["micro"] == "prefetch" and r["verification"] == "PASS" and float(r["blocks_per_s"]) > 0, "micro row")
    check(r["blocks"] == "256" and r["block_size"] == "2048" and r["readers"] == "1", "micro shape")
check(sorted(r["prefetch"] for r in m) == ["1", "8"], "micro depths")
for f in fails:
    print("FAIL:", f)
sys.exit(1 if fails else 0)
