"""model/params_merge.py on made-up parameter files: the selected parameters of OVER replace BASE's
(and come last), --drop leaves BASE's out, the rest of BASE (comments too) stays in order; exit 1
when OVER lacks --require's parameter, 2 on a bad command line.
    test_params_merge.py PARAMS_MERGE_PY"""
import os
import subprocess
import sys
import tempfile

script = sys.argv[1]
fails = []
with tempfile.TemporaryDirectory() as d:
    base, over = os.path.join(d, "base.txt"), os.path.join(d, "over.txt")
    open(base, "w").write("# head\nhosts = 1\nt_local_comm = 0.25  # us\nt_clean_up_local = 0.16\nP_scan = 900\nt_vote = 0.2\n")
    open(over, "w").write("hosts = 2\nt_local_comm = 14.7  # us\nt_vote = 31\nbw_host = 0.9\n")

    def run(*args):
        return subprocess.run([sys.executable, script, *args], capture_output=True, text=True)

    r = run("--require", "bw_host", "--drop", "t_clean_up_local", base, over, r"t_local_comm|t_vote|bw_\w+")
    want = "# head\nhosts = 1\nP_scan = 900\nt_local_comm = 14.7  # us\nt_vote = 31\nbw_host = 0.9\n"
    if r.returncode != 0 or r.stdout != want:
        fails.append(f"merge: exit {r.returncode}, output {r.stdout!r}, want {want!r}")
    r = run("--require", "t_ack", base, over, "t_vote")
    if r.returncode != 1 or "no t_ack" not in r.stderr:
        fails.append(f"--require of a missing parameter: exit {r.returncode}, {r.stderr!r}")
    r = run(base, over)
    if r.returncode != 2 or not r.stderr.startswith("params_merge.py: usage:") or len(r.stderr.splitlines()) != 1:
        fails.append(f"two arguments: exit {r.returncode}, {r.stderr!r}")
    # a value missing after a flag, a FIFO as a file, a bad REGEX: one line each, exit 2
    fifo = os.path.join(os.path.dirname(base), "fifo")
    os.mkfifo(fifo)
    for args, why in ((["--require"], "--require: needs a value"), ([fifo, over, "bw_.*"], "not a regular file (a FIFO)"),
                      ([base, over, "("], "REGEX: (:")):
        r = run(*args)
        if r.returncode != 2 or len(r.stderr.splitlines()) != 1 or why not in r.stderr or "Traceback" in r.stderr:
            fails.append(f"{args}: exit {r.returncode}, {r.stderr!r}")
for f in fails:
    print("FAIL:", f)
sys.exit(1 if fails else 0)
