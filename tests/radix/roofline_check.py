#!/usr/bin/python3
"""The memory roofline (issue 16): `rmabench membw --bytes 16M --repeats 2` at 2 ranks prints its
table and writes membw_read/write/write_nt/copy > 0; `rmabench join --algo both --roofline` at 2 ranks
prints the roofline header and per phase GB/s, fraction and faults, and its rows have, for every
phase the algorithm counts bytes of, t_<phase>_gbs > 0, t_<phase>_roofline in (0, 1.5] (a fraction
over 1.5 fails only when a second run repeats it), and for
every phase t_<phase>_faults >= 0, with roofline_source "membw ...", and membw_bound_s (the whole join
at the roofline, printed as "at the roofline: ...") the sum of its phases' fractions x average times;
the in-cache phases (build_probe, sort) print their rate per core beside their kernel alone, measured
in the process (a rate > 0 for each).
Fresh memory only where the plan needs it: after one warm-up run (whose first network pass takes the
send buffers' pages), the phases after window_alloc take at most FAULTS_MAX minor faults over both
ranks (a local pass and the sort and merge buffers write into the dead input relations, the send
buffers and the hash table are reused: before, 500-1000 faults each at this size), and so does the
sort-merge partition (its packed copies are kept from run to run; at 1:4 S's does not fit in R's
memory: before, 40 huge-page faults over both ranks in every run). The window
flavour --window auto chose is in the header and the CSV (window, window_choice "auto: ...").
   roofline_check.py MPIRUN RMABENCH"""
import csv, os, re, subprocess, sys, tempfile

mpirun, rmabench = sys.argv[1:3]
ENV = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
           OMPI_MCA_rmaps_base_oversubscribe="1")
COUNTED = {"radix": ("histogram", "network_partition", "local_partition", "build_probe"),
           "sortmerge": ("partition", "sort", "merge", "match")}
# the phases after window_alloc, whose pages are all reused (faults are deterministic enough to count)
AFTER_ALLOC = {"radix": ("network_partition", "local_partition", "build_probe"),
               "sortmerge": ("partition", "sort", "merge", "match")}
# 0 in these phases with both libraries on the Xeon VM; 8 leaves room for a stray stack page or two,
# and fails a buffer that takes fresh pages in every run: the splitters' samples did, 14-16 faults
# over both ranks under MPICH (48 with rank 0's gathered sample), which 16 let through.
FAULTS_MAX = 8
# The phases that put also take the MPI library's own faults. Open MPI 4.1 (vader) takes none after the
# warm-up; MPICH 4.0 (ch4:ucx) faults in its own transport buffers inside uct_sm_ep_put_bcopy (perf
# record -e minor-faults), 4-98 a pass at this size and timing-dependent, so there those phases get
# LIBRARY_ALLOWANCE: a fresh set of send buffers is still caught (500-1000 faults), and the Open MPI
# build of this test keeps the strict bound on the same code.
PUTTING = {"radix": ("network_partition",), "sortmerge": ("sort",)}
LIBRARY_ALLOWANCE = 256
# a phase's rate at most this many times the roofline (a phase partly in cache may pass it a little)
ROOFLINE_MAX = 1.5
ALL = {"radix": COUNTED["radix"] + ("window_alloc",), "sortmerge": COUNTED["sortmerge"] + ("window_alloc",)}
fail = []


def run(args, path):
    p = subprocess.run([mpirun, "-n", "2", rmabench] + args + ["--output", path], env=ENV, capture_output=True,
                       text=True, timeout=240)
    if p.returncode != 0:
        sys.exit(f"FAIL: {' '.join(args)}: exit {p.returncode}\n{p.stdout}{p.stderr}")
    with open(path, newline="") as f:
        return p.stdout, list(csv.DictReader(f))


def num(row, col):
    try:
        return float(row.get(col, ""))
    except ValueError:
        return None


with tempfile.TemporaryDirectory() as d:
    out, rows = run(["membw", "--bytes", "16M", "--repeats", "2"], os.path.join(d, "membw.csv"))
    for k in ("read", "write", "write_nt", "copy"):
        if not re.search(rf"^{k} +[0-9.]+ +[0-9.]+ +[0-9.]+$", out, re.M):
            fail.append(f"membw: no table line for {k}")
        v = num(rows[0], f"membw_{k}") if len(rows) == 1 else None
        if v is None or v <= 0:
            fail.append(f"membw: membw_{k} = {v}")
    # the hypervisor's steal over the measurement: the line and the column say the same
    said = re.search(r"^host steal: (unknown \(|([0-9.]+)% of the CPU time)", out, re.M)
    col = rows[0].get("host_steal", "") if len(rows) == 1 else None
    if not said:
        fail.append("membw: no 'host steal:' line")
    elif said.group(2) is None and col != "":
        fail.append(f"membw: host steal unknown but host_steal = {col!r}")
    elif said.group(2) is not None and (num(rows[0], "host_steal") is None or
                                        abs(100 * num(rows[0], "host_steal") - float(said.group(2))) > 0.051):
        fail.append(f"membw: host steal {said.group(2)}% but host_steal = {col!r}")
    join_args = ["join", "--algo", "both", "--tuples-per-rank", "1M", "--ratio", "4", "--roofline", "--passes", "1",
                 "--warmup", "1"]
    out, rows = run(join_args, os.path.join(d, "join.csv"))
    if not re.search(r"^# roofline \(membw .*last-level cache.*\): read [0-9.]+, write [0-9.]+, copy [0-9.]+ GB/s", out, re.M):
        fail.append("join: no roofline header line")
    if not re.search(r"^# window auto: (allocate|create|create-huge) \(", out, re.M):
        fail.append("join: no '# window auto:' header line")
    if len(re.findall(r"^at the roofline: the phases' bytes stream in [0-9.]+ s, [0-9.]+ M input tuples/s; this run "
                      r"without window_alloc [0-9.]+ M/s, [0-9.]+ of it$", out, re.M)) != 2:
        fail.append("join: not one 'at the roofline:' line per algorithm's run")
    # the in-cache phases beside their kernel alone, measured in the process (no --model here)
    alone = re.findall(r"^in cache, per core: (build_probe|sort) ([0-9.]+) M tuples/s \(the kernel alone on one core: "
                       r"([0-9.]+), (build \+ probe of 4 L2-sized leaves|LSD radix sort of runs|network sort of runs)\)$",
                       out, re.M)
    if sorted(a[0] for a in alone) != ["build_probe", "sort"] or any(float(a[1]) <= 0 or float(a[2]) <= 0 for a in alone):
        fail.append(f"join: the in-cache lines with the kernel alone: {alone}")
    if len(re.findall(r"GB/s/rank +roofline +minor faults$", out, re.M)) != 2:
        fail.append("join: the phase tables lack the GB/s, roofline and faults columns")
    if sorted(r["algo"] for r in rows) != ["radix", "sortmerge"]:
        fail.append(f"join: rows {[r.get('algo') for r in rows]}")
    over = []  # (algo, phase, fraction) over ROOFLINE_MAX: judged after a second run (below)
    for r in rows:
        a = r["algo"]
        if not r.get("roofline_source", "").startswith("membw "):
            fail.append(f"{a}: roofline_source {r.get('roofline_source')!r}")
        for k in ("read", "write", "write_nt", "copy"):
            if (num(r, f"membw_{k}") or 0) <= 0:
                fail.append(f"{a}: membw_{k} = {r.get('membw_' + k)!r}")
        for ph in COUNTED.get(a, ()):
            g, fr = num(r, f"t_{ph}_gbs"), num(r, f"t_{ph}_roofline")
            if g is None or g <= 0:
                fail.append(f"{a}: t_{ph}_gbs = {r.get(f't_{ph}_gbs')!r}")
            if fr is None or fr <= 0:
                fail.append(f"{a}: t_{ph}_roofline = {r.get(f't_{ph}_roofline')!r}, not in (0, {ROOFLINE_MAX}]")
            elif fr > ROOFLINE_MAX:
                over.append((a, ph, fr))
        for ph in ALL.get(a, ()):
            f = num(r, f"t_{ph}_faults")
            if f is None or f < 0 or f != int(f):
                fail.append(f"{a}: t_{ph}_faults = {r.get(f't_{ph}_faults')!r}")
        for ph in AFTER_ALLOC.get(a, ()):
            f = num(r, f"t_{ph}_faults")
            most = FAULTS_MAX
            if ph in PUTTING[a] and not r.get("mpi_library", "").startswith("Open MPI"):
                most = LIBRARY_ALLOWANCE
            if f is None or f > most:
                fail.append(f"{a}: {ph} took {r.get(f't_{ph}_faults')!r} minor faults in a warm run (at most {most}, "
                            f"{r.get('mpi_library')})")
        if r.get("window") not in ("allocate", "create", "create-huge") or not r.get("window_choice", "").startswith("auto: "):
            fail.append(f"{a}: window {r.get('window')!r}, window_choice {r.get('window_choice')!r} (--window auto)")
        # the whole join at the roofline: the phases' roofline times (fraction x average time) summed
        parts = [num(r, c) * num(r, c[:-len("_roofline")] + "_avg") for c in r
                 if re.fullmatch(r"t_.+_roofline", c) and num(r, c) is not None and num(r, c[:-len("_roofline")] + "_avg") is not None]
        bound = num(r, "membw_bound_s")
        if bound is None or not parts or abs(bound - sum(parts)) > 0.01 * sum(parts) + 1e-6:
            fail.append(f"{a}: membw_bound_s = {r.get('membw_bound_s')!r}, the phases' roofline times sum to {sum(parts):.6f}")
        if num(r, "t_window_alloc_gbs") is not None:
            fail.append(f"{a}: window_alloc has GB/s but no bytes are counted for it")
    # A phase's rate over ROOFLINE_MAX times the roofline: bytes counted wrongly do so in every run, while a
    # roofline that the join's own membw measured low in a passing state of the machine's memory
    # (seen only after other tests had run) does not repeat. A second run decides; only a phase
    # over the bound in both fails.
    if over:
        _, again = run(join_args, os.path.join(d, "join-again.csv"))
        second = {(r["algo"], ph): num(r, f"t_{ph}_roofline") for r in again for ph in COUNTED.get(r["algo"], ())}
        for a, ph, fr in over:
            fr2 = second.get((a, ph))
            if fr2 is None or fr2 > ROOFLINE_MAX:
                fail.append(f"{a}: t_{ph}_roofline = {fr:.4g}, then {fr2}: not in (0, {ROOFLINE_MAX}] in two runs")
            else:
                print(f"roofline: {a} {ph} at {fr:.4g} of the roofline, {fr2:.4g} in a second run (within the bound)")
if fail:
    sys.exit("FAIL: " + "\n".join(fail))
print("roofline: membw and the joins' per-phase GB/s, roofline fractions and faults present")
