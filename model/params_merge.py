#!/usr/bin/env python3
"""One parameter file with some parameters taken from another (model/validate.sh).

usage: params_merge.py [--require NAME] [--drop REGEX] BASE OVER REGEX

Prints BASE with every parameter OVER has whose name matches REGEX replaced by OVER's line (OVER's
lines come last), and BASE's parameters whose names match --drop left out (measurements that do not
hold where the merged file is used). Exit 1 when OVER lacks --require's parameter (its calibration
failed), 2 on a bad command line. Python 3 standard library only."""
import re
import sys


def name(line):
    return line.split("=")[0].strip()


def params(path):
    return [l for l in open(path) if "=" in l and not l.startswith("#")]


def main(argv):
    require, drop, rest = None, None, []
    it = iter(argv)
    for a in it:
        if a == "--require":
            require = next(it, None)
        elif a == "--drop":
            drop = re.compile("^(%s)$" % next(it, ""))
        else:
            rest.append(a)
    if len(rest) != 3:
        sys.stderr.write("usage: params_merge.py [--require NAME] [--drop REGEX] BASE OVER REGEX\n")
        return 2
    base, over, select = rest[0], rest[1], re.compile("^(%s)$" % rest[2])
    taken = [l for l in params(over) if select.match(name(l))]
    have = {name(l) for l in taken}
    if require and require not in have:
        sys.stderr.write("params_merge.py: %s: no %s\n" % (over, require))
        return 1
    out = []
    for l in open(base):
        if "=" in l and not l.startswith("#") and (name(l) in have or (drop and drop.match(name(l)))):
            continue
        out.append(l)
    sys.stdout.write("".join(out) + "".join(taken))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
