#!/usr/bin/python3
"""The star query model's block-read parameters (model/query_model.h) from rmabench query --micro
prefetch and --micro readers rows, as lines of a parameter file (model/params.h units):
   bw_get       the best blocks/s at any depth times the block size, in GB/s
   t_get_block  a block read's round trip beyond its bytes, one in flight: 1 / (blocks/s at
                prefetch 1) - block size / bw_get, in us
   bw_serve     (readers rows, by reads) the most bytes/s one memory rank served, all readers
                together: readers x blocks/s per reader x block size, in GB/s
   bw_alltoallv (alltoallv rows) the bytes a rank sent to the others a second in MPI_Alltoallv
for the block size given (default 2 KiB, rmabench query's --block-size), medians over the verified
rows.
   query_params.py READS.csv [BLOCK_BYTES]"""
import csv
import statistics
import sys

if len(sys.argv) < 2 or sys.argv[1] in ("-h", "--help"):
    print(__doc__)
    sys.exit(0 if len(sys.argv) > 1 else 2)
block = int(sys.argv[2]) if len(sys.argv) > 2 else 2048
rates, served, a2a = {}, {}, []
for r in csv.DictReader(open(sys.argv[1])):
    if r.get("verification") == "PASS" and r.get("micro") == "alltoallv":
        a2a.append(float(r["moved_bytes"]) / float(r["t_total_max"]))
    if r.get("verification") != "PASS" or int(r["block_size"] or 0) != block:
        continue
    if r.get("micro") == "prefetch":
        rates.setdefault(int(r["prefetch"]), []).append(float(r["blocks_per_s"]))
    if r.get("micro") == "readers" and r.get("replicate") == "read":
        served.setdefault(int(r["readers"]), []).append(float(r["blocks_per_s"]) * int(r["readers"]))
if 1 not in rates:
    sys.exit(f"query_params.py: {sys.argv[1]}: no verified --micro prefetch row at prefetch 1 and {block}-byte blocks")
med = {d: statistics.median(v) for d, v in rates.items()}
bw = max(med.values()) * block
print(f"bw_get = {bw / 1e9:.4f}  # GB/s  (rmabench query --micro prefetch, {block}-byte blocks, the best depth: "
      f"{max(med, key=med.get)})")
print(f"t_get_block = {max(0.0, 1e6 / med[1] - 1e6 * block / bw):.4f}  # us  (the same, one block in flight, less its bytes)")
if served:
    most = max(served, key=lambda n: statistics.median(served[n]))
    print(f"bw_serve = {statistics.median(served[most]) * block / 1e9:.4f}  # GB/s  (rmabench query --micro readers, "
          f"{most} reader(s) together)")
if a2a:
    print(f"bw_alltoallv = {statistics.median(a2a) / 1e9:.4f}  # GB/s  (rmabench query --micro alltoallv, bytes to the others)")
