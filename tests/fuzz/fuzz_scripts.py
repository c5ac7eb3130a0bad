#!/usr/bin/python3
"""Fuzz target: the scripts' command lines (jobs/, model/, plots/): seeded random arguments drawn
from each script's own flags and from values that are missing, malformed, huge, of the wrong kind
or files that are not regular (a FIFO, a directory, /dev/zero, binary data).

    fuzz_scripts.py ROOT BUILD SEED CASES

Invariants, for every case: the script ends within its timeout; with exit 0 (a dry run, a --help)
every rmabench command it printed is one rmabench's own parser takes (`rmabench SUB ARGS... --help`
exits 0) and nothing was written; otherwise with exit 2 (bad input) and exactly one line on stderr
that starts with the script's name, never a traceback, a shell error ("line N:", "unbound
variable") or a partial file left in the output directory. A failure prints the case, which the
seed reproduces."""
import os
import random
import shlex
import stat
import subprocess
import sys
import tempfile
import time

root, build, seed, cases = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
rmabench = os.path.join(build, "rmabench")
work = tempfile.mkdtemp(prefix="rmb-fuzz-scripts-")
fifo = os.path.join(work, "fifo")
os.mkfifo(fifo)
binary = os.path.join(work, "binary")
with open(binary, "wb") as f:
    f.write(random.Random(seed).randbytes(4096))
fixture = os.path.join(build, "tests/fixtures/results-small.csv")  # built (tests/fixtures/meson.build)

# values a flag may get: good ones, and every kind of bad one
VALUES = ["1M", "20K", "7", "3", "2", "0", "-1", "5Q", "1e999", "300ms", "0s", "1s", "abc", "", "--quick", "[", "(*",
          "x" * 5000, "both", "openmpi", "mpich", "4K 64K", "50mbit", "99999999999999999999", "1.5", fifo,
          binary, "/dev/zero", work, os.path.join(work, "absent"), "\x1b[1m"]
# script: (command words, its flags, prefix of its messages, timeout s)
SCRIPTS = {
    "local": ([f"{root}/jobs/local.sh", "--dry-run"], ["--mpi", "--tuples", "--repeat", "--duration", "--out", "--quick",
              "--oversubscribe", "--force", "--bogus"], "rmabench jobs: ", 60),
    "exchange": ([f"{root}/jobs/exchange.sh", "--dry-run"], ["--hosts", "--rate", "--tuples", "--sizes", "--repeat",
                 "--mpi", "--out", "--quick", "--force", "--bogus"], "rmabench jobs: ", 60),
    "figure": ([f"{root}/jobs/figure.sh", "fig3.7", "--dry-run"], ["--out", "--force", "--bogus"], "rmabench jobs: ", 60),
    "submit": ([f"{root}/jobs/submit.sh", "--dry-run"], ["--campaign", "--figure", "--results", "--mpi", "--bogus"],
               "rmabench jobs: ", 60),
    "soak": ([f"{root}/jobs/soak.sh", "--build", os.path.join(work, "absent")], ["--minutes", "--repeats", "--tuples",
             "--ranks", "--lock-ranks", "--bogus"], "soak.sh: ", 30),
    "rmaplot": (["/usr/bin/python3", f"{root}/plots/rmaplot", "figure", "fig3.7"], ["--out", "--force", "--bogus", fixture,
                fifo, binary, "/dev/zero"], "rmaplot: ", 60),
    "rmaplot-figure": (["/usr/bin/python3", f"{root}/plots/rmaplot", "figure", "fig3.7", fixture],
                       ["--out", "--params", "--force", "--bogus"], "rmaplot: ", 60),
    "params_merge": (["/usr/bin/python3", f"{root}/model/params_merge.py"], ["--require", "--drop", fifo, binary,
                     "/dev/zero"], "params_merge.py: ", 30),
}


def case_args(rng, flags):
    args = []
    for _ in range(rng.randint(0, 4)):
        args.append(rng.choice(flags))
        if rng.random() < 0.8:
            args.append(rng.choice(VALUES))
    return args


def printed_commands(out):
    """The rmabench command lines a dry run printed: (subcommand, arguments)."""
    for line in out.splitlines():
        try:
            words = shlex.split(line)
        except ValueError:
            continue
        for k, w in enumerate(words):
            if w.endswith("/rmabench") and k + 1 < len(words):
                yield words[k + 1:]
                break


def files_under(path):
    if not os.path.isdir(path):
        return []
    return [os.path.join(d, n) for d, _, names in os.walk(path) for n in names]


def check(name, words, prefix, timeout, args):
    outdir = os.path.join(work, "out-%s" % name)
    args = [os.path.join(outdir, "o") if a == work and random.random() < 0.5 else a for a in args]
    before = set(files_under(work))
    env = dict(os.environ, RMB_BUILD=build)
    try:
        p = subprocess.run(words + args, capture_output=True, timeout=timeout, env=env, stdin=subprocess.DEVNULL,
                           cwd=work)
    except subprocess.TimeoutExpired:
        return "no end within %d s" % timeout
    out, err = p.stdout.decode(errors="replace"), p.stderr.decode(errors="replace")
    if "Traceback" in err or "unbound variable" in err or " line " in err.split(":", 2)[0]:
        return "a traceback or shell error:\n" + err[-1500:]
    if p.returncode == 0:
        for cmd in printed_commands(out):
            q = subprocess.run([rmabench] + cmd + ["--help"], capture_output=True, timeout=30)
            if q.returncode != 0:
                return "printed a command rmabench refuses: %s: %s" % (shlex.join(cmd)[:300], q.stderr.decode()[:300])
        written = set(files_under(work)) - before
        if name not in ("rmaplot", "rmaplot-figure") and written:  # dry runs write nothing
            return "a dry run wrote %s" % sorted(written)[:3]
        return None
    lines = err.splitlines()
    if p.returncode != 2 or len(lines) != 1 or not lines[0].startswith(prefix):
        return "exit %d, %d line(s) on stderr (want exit 2 and one line '%s...'):\n%s" % (
            p.returncode, len(lines), prefix, err[-1500:])
    left = [f for f in set(files_under(work)) - before if ".tmp" in os.path.basename(f)]
    return "a temporary file left: %s" % left if left else None


def main():
    rng = random.Random(seed)
    names = sorted(SCRIPTS)
    failed = 0
    for i in range(cases):
        name = names[i % len(names)]
        words, flags, prefix, timeout = SCRIPTS[name]
        args = case_args(rng, flags)
        t0 = time.monotonic()
        why = check(name, words, prefix, timeout, args)
        took = time.monotonic() - t0
        shown = " ".join(shlex.quote(a if len(a) < 60 else a[:20] + "...") for a in words + args)
        if why:
            failed += 1
            print("FAIL: %s\n  %s" % (shown, why.replace("\n", "\n  ")), flush=True)
        else:
            print("ok (%.1f s): %s" % (took, shown), flush=True)
    print("fuzz scripts: %d cases (seed %d), %d failed" % (cases, seed, failed))
    subprocess.run(["rm", "-rf", work])
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
