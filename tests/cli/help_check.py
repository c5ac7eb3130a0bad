#!/usr/bin/python3
"""Every command and script the README names answers --help with its usage on stdout and exit 0
(without doing anything else: no build, no install, no run), the choice flags of rmabench list their
values, every flag that an error message in the C sources suggests is one that some --help lists, and
smj-sortbench refuses a bad positional argument with exit 2 and one line naming it.
   help_check.py SOURCE_ROOT BUILD_DIR"""
import re
import subprocess
import sys

root, build = sys.argv[1], sys.argv[2]
commands = [
    [f"{build}/rmabench", "--help"], [f"{build}/rmabench", "join", "--help"], [f"{build}/rmabench", "lock", "--help"],
    [f"{build}/rmabench", "query", "--help"], [f"{build}/rmamodel", "query", "--help"],
    [f"{build}/rmabench", "calibrate", "--help"], [f"{build}/rmabench", "lock-trace", "--help"],
    [f"{build}/rmabench", "record", "--help"], [f"{build}/rmabench", "rdmo", "--help"],
    [f"{build}/rmabench", "aggregate", "--help"], [f"{build}/rmamodel", "--help"], [f"{build}/rmamodel", "join", "--help"],
    [f"{build}/rmamodel", "lock", "--help"], [f"{build}/rmamodel", "rdmo", "--help"], [f"{build}/rmamodel", "cores-per-host", "--help"],
    [f"{build}/smj-sortbench", "--help"],
    [f"{root}/jobs/local.sh", "--help"], [f"{root}/jobs/submit.sh", "--help"], [f"{root}/jobs/soak.sh", "--help"],
    [f"{root}/model/accuracy.sh", "--help"], [f"{root}/plots/rmaplot", "--help"], [f"{root}/plots/rmaplot", "report", "--help"],
    [f"{root}/plots/rmaplot", "figures", "--help"], [f"{root}/scripts/install-deps.sh", "--help"],
    [f"{root}/scripts/build.sh", "--help"], [f"{root}/scripts/test.sh", "--help"],
    [f"{root}/jobs/netem.sh", "--help"], [f"{root}/jobs/exchange.sh", "--help"], [f"{root}/plots/exchange_figure", "--help"],
]
fails = 0
helps = ""
for cmd in commands:
    name = " ".join(c.replace(root + "/", "").replace(build + "/", "build/") for c in cmd)
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=20, cwd="/tmp")
    except subprocess.TimeoutExpired:
        print(f"FAIL: {name}: still running after 20 s (it did something besides printing its usage)")
        fails += 1
        continue
    lines = p.stdout.strip().splitlines()
    if p.returncode != 0 or len(lines) < 2:
        print(f"FAIL: {name}: exit {p.returncode}, {len(lines)} line(s) on stdout: {(p.stdout + p.stderr)[:200]!r}")
        fails += 1
    else:
        print(f"ok: {name}: exit 0, {len(lines)} lines")
    helps += p.stdout

# choice flags list their values: (a|b|c) after the default
for flag in ("window", "algo", "assign", "scatter", "flush", "ranges", "simd", "notify-poll", "workload", "transport", "deadlock", "numa",
             "design", "replicate", "micro", "op", "handler"):
    m = re.search(rf"^  --{flag} .*\(([a-z0-9-]+\|[a-z0-9|-]+)\)$", helps, re.M)
    if not m:
        print(f"FAIL: --{flag}: no --help line lists its values")
        fails += 1

# flags that error messages suggest: string literals near an error in the C sources
suggested = set()
for path in subprocess.run(["git", "-C", root, "ls-files", "cmd", "joins", "locking", "aggregate", "rdmo", "rma", "bench", "model"],
                           capture_output=True, text=True).stdout.split():
    if not path.endswith(".c"):
        continue
    for lit in re.findall(r'"((?:[^"\\]|\\.)*)"', open(f"{root}/{path}", encoding="utf-8").read()):
        for f in re.findall(r"(?<![\w-])--([a-z][a-z0-9-]*[a-z0-9])(?![%\w-])", lit):
            suggested.add(f)
listed = set(re.findall(r"--([a-z][a-z0-9-]+)", helps))
# words after -- in literals that are not rmabench flags: mpirun's and meson's options, placeholders
foreign = {"oversubscribe", "mca", "bind-to", "map-by", "host", "np", "prefix"}
missing = sorted(suggested - listed - foreign)
for f in missing:
    print(f"FAIL: --{f}: named in a message of the C sources, listed by no --help")
fails += len(missing)
# smj-sortbench's positional arguments: a bad one exits 2 with one line naming it, before any work
for args, names in ((["16Q"], "tuples"), (["1M", "-3"], "run size"), (["1M", "0", "avx512x"], "simd"),
                    (["1M", "0", "auto", "1"], "fan-in"), (["1M", "0", "auto", "16", "x"], "at most 4")):
    p = subprocess.run([f"{build}/smj-sortbench", *args], capture_output=True, text=True, timeout=20, cwd="/tmp")
    err = p.stderr.strip().splitlines()
    if p.returncode != 2 or len(err) != 1 or names not in err[0] or p.stdout:
        print(f"FAIL: smj-sortbench {' '.join(args)}: exit {p.returncode}, stderr {p.stderr!r}, stdout {p.stdout[:80]!r}")
        fails += 1
    else:
        print(f"ok: smj-sortbench {' '.join(args)}: {err[0]}")

print(f"help: {len(commands)} commands, {len(suggested)} flags named in messages; {fails} problem(s)")
sys.exit(1 if fails else 0)
