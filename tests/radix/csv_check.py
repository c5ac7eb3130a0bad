#!/usr/bin/python3
"""--output: two runs (--repeat 2) after a warm-up run (--warmup 1) append a header once and two
rows with the radix columns filled; the warm-up run is verified and reported on one line, not recorded.
The environment columns (bench/context.h) say what a run was given, and the run header says the same:
a plain 1-rank run records host_cores = the online cores, oversubscribed and poll_yield no and an
empty mpi_env; 4 ranks with OMPI_MCA_mpi_yield_when_idle=1 (and a value with ',', ';' and '"')
record them, sorted, and oversubscribed/poll_yield yes when 4 ranks outnumber the cores;
`rmabench record` fills them the same way for a failed run.
   csv_check.py MPI_CHECK MPIRUN RMABENCH"""
import csv, os, re, subprocess, sys, tempfile

mpi_check, mpirun, rmabench = sys.argv[1:4]
CORES = os.sysconf("SC_NPROCESSORS_ONLN")
ENV_COLS = ("host_cores", "oversubscribed", "poll_yield", "mpi_env")
MPI_PREFIXES = ("OMPI_MCA_", "MPIR_CVAR_", "MPICH_", "UCX_", "FI_", "PSM2_", "I_MPI_")


def plain_env(**extra):
    """This environment without any MPI tuning (whatever the test runner exported), plus extra;
    Open MPI as root and oversubscription (both recorded as nothing) stay allowed."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(MPI_PREFIXES)}
    env.update(OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1", OMPI_MCA_rmaps_base_oversubscribe="1")
    env.update(extra)
    return env


def env_run(d, np, env):
    """One join at np ranks into its own file: (its row, its '# environment:' header line)."""
    path = os.path.join(d, f"env-{np}.csv")
    p = subprocess.run([mpirun, "-n", str(np), rmabench, "join", "--algo", "radix", "--tuples-per-rank", "1K",
                        "--output", path], env=env, capture_output=True, text=True, timeout=120)
    if p.returncode != 0:
        sys.exit(f"FAIL: the join at {np} rank(s) failed:\n{p.stdout}{p.stderr}")
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    header = [l for l in p.stdout.splitlines() if l.startswith("# environment: ")]
    return (rows[0] if len(rows) == 1 else {}), (header[0] if len(header) == 1 else "")


def check_env(fail, what, row, header, want):
    got = {c: row.get(c) for c in ENV_COLS}
    if got != want:
        fail.append(f"{what}: {got}, expected {want}")
    said = f"# environment: {want['host_cores']} cores/host, oversubscribed: {want['oversubscribed']}, " \
           f"polling yields: {want['poll_yield']}, MPI env: {want['mpi_env'] or 'none'}"
    if header != said:
        fail.append(f"{what}: run header {header!r}, expected {said!r}")


def environment_checks(d):
    fail = []
    row, header = env_run(d, 1, plain_env())
    check_env(fail, "plain run at 1 rank", row, header,
              {"host_cores": str(CORES), "oversubscribed": "no", "poll_yield": "no", "mpi_env": ""})
    # ';' escaped with a backslash (it separates entries); the CSV quotes ',' and '"'
    tuned = plain_env(OMPI_MCA_mpi_yield_when_idle="1", FI_RMB_CSV_CHECK='a,b;c"d')
    shared = "yes" if 4 > CORES else "no"
    want = {"host_cores": str(CORES), "oversubscribed": shared, "poll_yield": shared,
            "mpi_env": 'FI_RMB_CSV_CHECK=a,b\\;c"d;OMPI_MCA_mpi_yield_when_idle=1'}
    row, header = env_run(d, 4, tuned)
    check_env(fail, "4 ranks with OMPI_MCA_mpi_yield_when_idle=1", row, header, want)
    # a failed run's row, written by the job scripts in the environment they launched it with
    path = os.path.join(d, "record.csv")
    subprocess.run([rmabench, "record", "--output", path, "--set", "bench=join", "--set", "exit_code=1",
                    "--set", "ranks_per_host=4"], env=tuned, check=True, timeout=30)
    with open(path, newline="") as f:
        rec = next(csv.DictReader(f))
    if {c: rec.get(c) for c in ENV_COLS} != want:
        fail.append(f"rmabench record: {({c: rec.get(c) for c in ENV_COLS})}, expected {want}")
    return fail


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
        for col in ["algo", "radix_bits", "local_fanout_bits", "passes", "scatter", "assign", "flush", "compress", "window",
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
        for col in ENV_COLS[:3]:
            if not r.get(col):
                fail.append(f"row {i}: column {col} is empty")
        # mpi_check.sh exports it for every test
        if not re.search(r"(^|;)OMPI_MCA_mpi_yield_when_idle=1(;|$)", r.get("mpi_env", "")):
            fail.append(f"row {i}: mpi_env {r.get('mpi_env')!r} without OMPI_MCA_mpi_yield_when_idle=1")
    fail += environment_checks(d)
    for f in fail:
        print("FAIL:", f)
    if not fail:
        print(f"csv_check: all passed ({CORES} cores)")
    sys.exit(1 if fail else 0)
