#!/usr/bin/env python3
"""Size flags across their documented ranges, under the sanitizer build.

    size_sweep.py --mpirun M --np N --seed S --runs K [--prefix CMD...] -- PROGRAM ARGS... \\
                  ;; --flag=LO:HI [--flag=LO:HI ...]

Each run gives every swept flag a value drawn from [LO, HI]: run 0 takes every LO, run 1 every
LO + 1, the others LO, LO + 1 or a log-uniform value (seeded, so a failure reproduces from the
printed command). A run must end within the timeout with exit 0, or with exit 2 and one line that
names a flag or the command; any sanitizer report, any other exit or a timeout fails the sweep.
The documented range is the flag's own (its option table); a sweep may cap HI below it where a
run at the top would only take long, and then checks the top once, expecting exit 0 or 2.
"""
import math
import os
import random
import re
import subprocess
import sys

SANITIZER = re.compile(r"ERROR: (AddressSanitizer|LeakSanitizer)|runtime error:|SUMMARY: UndefinedBehaviorSanitizer")


def parse(argv):
    opts = {"--mpirun": None, "--np": "2", "--seed": "1", "--runs": "8", "--timeout": "120", "--top": ""}
    prefix = []
    i = 0
    while i < len(argv) and argv[i] != "--":
        if argv[i] == "--prefix":
            i += 1
            while i < len(argv) and not argv[i].startswith("--"):
                prefix.append(argv[i])
                i += 1
            continue
        if argv[i] not in opts or i + 1 >= len(argv):
            sys.exit("size_sweep.py: bad argument %r" % argv[i])
        opts[argv[i]] = argv[i + 1]
        i += 2
    rest = argv[i + 1:]
    if ";;" not in rest:
        sys.exit("size_sweep.py: the swept flags follow ';;'")
    cut = rest.index(";;")
    program, swept = rest[:cut], []
    for s in rest[cut + 1:]:
        m = re.fullmatch(r"(--[a-z0-9-]+)=(\d+):(\d+)", s)
        if not m:
            sys.exit("size_sweep.py: %r is not --flag=LO:HI" % s)
        swept.append((m.group(1), int(m.group(2)), int(m.group(3))))
    return opts, prefix, program, swept


def value(rng, run, lo, hi):
    if run == 0:
        return lo
    if run == 1:
        return min(lo + 1, hi)
    pick = rng.random()
    if pick < 0.2:
        return lo
    if pick < 0.3:
        return min(lo + 1, hi)
    return int(round(math.exp(rng.uniform(math.log(max(lo, 1)), math.log(hi)))))


def check(cmd, timeout):
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=timeout,
                           stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        return "no end within %d s" % timeout
    out = p.stdout.decode(errors="replace") + p.stderr.decode(errors="replace")
    if SANITIZER.search(out):
        return "sanitizer report:\n" + "\n".join(out.splitlines()[-40:])
    if p.returncode == 0:
        return None
    if p.returncode == 2:
        err = [l for l in p.stderr.decode(errors="replace").splitlines() if l.startswith("rmabench")]
        if err:
            return None
        return "exit 2 without a line naming the flag:\n" + out[-2000:]
    return "exit %d:\n%s" % (p.returncode, "\n".join(out.splitlines()[-40:]))


def main():
    opts, prefix, program, swept = parse(sys.argv[1:])
    rng = random.Random(int(opts["--seed"]))
    timeout = int(opts["--timeout"])
    launch = [opts["--mpirun"], "-n", opts["--np"]] + prefix
    runs = []
    for run in range(int(opts["--runs"])):
        runs.append([a for f, lo, hi in swept for a in (f, str(value(rng, run, lo, hi)))])
    for top in filter(None, opts["--top"].split(",")):  # a flag's documented maximum, once
        runs.append([top.split("=")[0], top.split("=")[1]])
    failed = 0
    for args in runs:
        cmd = launch + program + args
        print("+ " + " ".join(cmd), flush=True)
        why = check(cmd, timeout)
        if why:
            failed += 1
            print("FAIL: " + why, flush=True)
    print("size sweep: %d runs, %d failed" % (len(runs), failed))
    return 1 if failed else 0


if __name__ == "__main__":
    os.environ.setdefault("OMPI_ALLOW_RUN_AS_ROOT", "1")
    os.environ.setdefault("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
    os.environ.setdefault("OMPI_MCA_rmaps_base_oversubscribe", "1")
    os.environ.setdefault("OMPI_MCA_mpi_yield_when_idle", "1")
    os.environ.setdefault("HWLOC_HIDE_ERRORS", "1")
    sys.exit(main())
