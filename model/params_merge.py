#!/usr/bin/env python3
"""One parameter file with some parameters taken from another (model/validate.sh).

usage: params_merge.py [--require NAME] [--drop REGEX] BASE OVER REGEX

Prints BASE with every parameter OVER has whose name matches REGEX replaced by OVER's line (OVER's
lines come last), and BASE's parameters whose names match --drop left out (measurements that do not
hold where the merged file is used). Exit 1 when OVER lacks --require's parameter (its calibration
failed), 2 on a bad command line or an unreadable file (one line). Python 3 standard library and
plots/rmaplots/safeio.py (only regular text files are read)."""
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.realpath(__file__)), "..", "plots"))
from rmaplots import safeio  # noqa: E402


def name(line):
    return line.split("=")[0].strip()


def lines(path):
    return safeio.read_text(path).decode("utf-8", errors="replace").splitlines(keepends=True)


def params(path):
    return [l for l in lines(path) if "=" in l and not l.startswith("#")]


def main(argv):
    require, drop, rest = None, None, []
    it = iter(argv)
    for a in it:
        if a in ("--require", "--drop"):
            v = next(it, None)
            if not v:
                sys.stderr.write("params_merge.py: %s: needs a value\n" % a)
                return 2
            if a == "--require":
                require = v
            else:
                try:
                    drop = re.compile("^(%s)$" % v)
                except re.error as e:
                    sys.stderr.write("params_merge.py: --drop: %s: %s\n" % (safeio.shown(v), e))
                    return 2
        else:
            rest.append(a)
    if len(rest) != 3:
        sys.stderr.write("params_merge.py: usage: params_merge.py [--require NAME] [--drop REGEX] BASE OVER REGEX\n")
        return 2
    try:
        select = re.compile("^(%s)$" % rest[2])
    except re.error as e:
        sys.stderr.write("params_merge.py: REGEX: %s: %s\n" % (safeio.shown(rest[2]), e))
        return 2
    base, over = rest[0], rest[1]
    taken = [l for l in params(over) if select.match(name(l))]
    have = {name(l) for l in taken}
    if require and require not in have:
        sys.stderr.write("params_merge.py: %s: no %s\n" % (over, require))
        return 1
    out = []
    for l in lines(base):
        if "=" in l and not l.startswith("#") and (name(l) in have or (drop and drop.match(name(l)))):
            continue
        out.append(l)
    sys.stdout.write("".join(out) + "".join(taken))
    return 0


if __name__ == "__main__":
    sys.exit(safeio.run_main("params_merge.py", main, sys.argv[1:]))
