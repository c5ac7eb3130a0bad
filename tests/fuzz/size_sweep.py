#!/usr/bin/env python3
"""Size flags across their documented ranges, under the sanitizer build.

    size_sweep.py [--mpirun M --np N] --seed S --runs K [--cap|--limit FLAG=HI]... [--skip FLAG]...
                  [--ok-exit N]...
                  [--top FLAG=V,...] [--prefix CMD...] -- PROGRAM ARGS... [;; --flag=LO:HI ...]

The swept flags are the command's own: every count and byte-size flag that `PROGRAM ARGS --help`
lists with its range ("(count 1..1T)", "(bytes 64K..1G)": bench/options.c's opt_usage), so that a
new size flag is swept without editing a test; flags in ARGS keep their values, --skip leaves a flag
out (one that needs another mode, as --plan's), and flags given after ';;' as --flag=LO:HI are swept
as given instead of the --help ranges. Without --mpirun the program runs as a plain process.

Each run gives every swept flag a value drawn from [LO, HI]: run 0 takes every LO, run 1 every
LO + 1, the others LO, LO + 1 or a log-uniform value (seeded, so a failure reproduces from the
printed command). A run must end within the timeout with exit 0, or with exit 2 and one line that
names a flag or the command (besides warnings), or with a status --ok-exit documents (rmabench join
--algo both: 4, one join refused and the other verified); any sanitizer report, any other exit or a timeout fails the sweep.
--cap FLAG=HI keeps a flag's random values below HI where a run at the top of its range would only
take long; its documented maximum is then checked once (and --top FLAG=V once more), expecting exit
0 or 2 within the timeout: refused before anything is allocated. --limit FLAG=HI caps without that
check, for a flag whose large values only take time (the bytes a bandwidth measurement moves).
"""
import math
import os
import random
import re
import subprocess
import sys

SANITIZER = re.compile(r"ERROR: (AddressSanitizer|LeakSanitizer)|runtime error:|SUMMARY: UndefinedBehaviorSanitizer")
# "  --NAME   help [default] (count LO..HI)": the range opt_usage prints for a count or a byte size
RANGE = re.compile(r"^  --([a-z0-9-]+)\s.*\((count|bytes) ([0-9]+[KMGT]?)\.\.([0-9]+[KMGT]?)\)\s*$")


ok_exits = set()  # documented statuses besides 0 and 2 (--ok-exit)


def number(text, kind):
    """A range end as --help prints it (1T, 64K) in units: counts by 1000, bytes by 1024."""
    base = 1000 if kind == "count" else 1024
    mult = {"": 1, "K": base, "M": base ** 2, "G": base ** 3, "T": base ** 4}[text[-1] if text[-1].isalpha() else ""]
    return int(text.rstrip("KMGT")) * mult


def parse(argv):
    opts = {"--mpirun": "", "--np": "2", "--seed": "1", "--runs": "8", "--timeout": "120", "--top": ""}
    ok_exits.clear()
    prefix, caps, skips = [], {}, set()
    limits = set()
    i = 0
    while i < len(argv) and argv[i] != "--":
        if argv[i] == "--prefix":
            i += 1
            while i < len(argv) and not argv[i].startswith("--"):
                prefix.append(argv[i])
                i += 1
            continue
        if i + 1 >= len(argv):
            sys.exit("size_sweep.py: %s: needs a value" % argv[i])
        if argv[i] in ("--cap", "--limit"):
            name, _, hi = argv[i + 1].partition("=")
            caps[name.lstrip("-")] = int(hi)
            if argv[i] == "--limit":
                limits.add(name.lstrip("-"))
        elif argv[i] == "--ok-exit":
            ok_exits.add(int(argv[i + 1]))
        elif argv[i] == "--skip":
            skips.add(argv[i + 1].lstrip("-"))
        elif argv[i] in opts:
            opts[argv[i]] = argv[i + 1]
        else:
            sys.exit("size_sweep.py: bad argument %r" % argv[i])
        i += 2
    rest = argv[i + 1:]
    cut = rest.index(";;") if ";;" in rest else len(rest)
    program, swept = rest[:cut], []
    for s in rest[cut + 1:]:
        m = re.fullmatch(r"(--[a-z0-9-]+)=(\d+):(\d+)", s)
        if not m:
            sys.exit("size_sweep.py: %r is not --flag=LO:HI" % s)
        swept.append((m.group(1), int(m.group(2)), int(m.group(3)), None))
    return opts, prefix, program, swept, caps, skips, limits


def from_help(program, caps, skips, limits):
    """(--flag, lo, hi, documented hi) of every size flag PROGRAM's --help lists, less those the
    program's arguments give and the skipped ones."""
    words = [w for w in program if not w.startswith("--")]
    words = words[:next((k for k, w in enumerate(program) if w.startswith("--")), len(program))]
    p = subprocess.run(words + ["--help"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=60,
                       stdin=subprocess.DEVNULL)
    if p.returncode != 0:
        sys.exit("size_sweep.py: %s --help: exit %d" % (" ".join(words), p.returncode))
    given = {w.split("=")[0].lstrip("-") for w in program if w.startswith("--")}
    swept = []
    for line in p.stdout.decode(errors="replace").splitlines():
        m = RANGE.match(line)
        if not m or m.group(1) in given or m.group(1) in skips:
            continue
        lo, hi = number(m.group(3), m.group(2)), number(m.group(4), m.group(2))
        cap = caps.get(m.group(1))
        top = hi if cap and cap < hi and m.group(1) not in limits else None
        swept.append(("--" + m.group(1), lo, min(hi, cap) if cap else hi, top))
    if not swept:
        sys.exit("size_sweep.py: %s --help lists no count or byte flag with a range" % " ".join(words))
    return swept


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
    if p.returncode == 0 or p.returncode in ok_exits:
        return None
    if p.returncode == 2:
        err = [l for l in p.stderr.decode(errors="replace").splitlines()
               if re.match(r"(rmabench|rmamodel): ", l) and not re.search(r": (warning|note): ", l)]
        if len(err) == 1:
            return None
        return "exit 2 without one line naming the flag:\n" + out[-2000:]
    return "exit %d:\n%s" % (p.returncode, "\n".join(out.splitlines()[-40:]))


def main():
    opts, prefix, program, swept, caps, skips, limits = parse(sys.argv[1:])
    if not swept:
        swept = from_help(program, caps, skips, limits)
    print("swept: " + ", ".join("%s %d..%d%s" % (f, lo, hi, " (documented %d)" % top if top else "")
                                for f, lo, hi, top in swept), flush=True)
    rng = random.Random(int(opts["--seed"]))
    timeout = int(opts["--timeout"])
    launch = ([opts["--mpirun"], "-n", opts["--np"]] if opts["--mpirun"] else []) + prefix
    runs = []
    for run in range(int(opts["--runs"])):
        runs.append([a for f, lo, hi, _ in swept for a in (f, str(value(rng, run, lo, hi)))])
    # a capped flag's documented maximum, and --top's values, once each (the others at their minimum)
    tops = [(f, top) for f, _, _, top in swept if top] + \
           [(t.split("=")[0], t.split("=")[1]) for t in filter(None, opts["--top"].split(","))]
    for flag, top in tops:
        runs.append([a for f, lo, _, _ in swept for a in (f, str(top if f == flag else lo))] +
                    ([] if any(f == flag for f, _, _, _ in swept) else [flag, str(top)]))
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
