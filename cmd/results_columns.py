#!/usr/bin/env python3
"""The columns of the results CSV, declared once in the table of docs/columns.md (the format is at
the top of that file), read here for everything that needs them: the build generates the C schema
from it (cmd/meson.build: results_schema.c, the columns' names in order), the plots classify the
columns by it (plots/rmaplots/config.py), and the plot fixture takes its header from it
(tests/fixtures/meson.build). A mistake in the table stops the build with FILE:LINE and the reason.

    results_columns.py c COLUMNS.md OUT.c     write the C schema
    results_columns.py header COLUMNS.md      print the CSV header line
    results_columns.py check COLUMNS.md       check the table, print how many columns it declares

Standard library only: the build runs it with the Python that runs meson."""
import collections
import re
import sys

# What a column is, in the table's "kind" cell. The plots' rule: configuration (config, resolved)
# keeps runs apart, everything else never does.
KINDS = {
    "provenance": "what ran, where and when, and how it ended",
    "config": "how the run was done: rows that differ in it are different experiments",
    "resolved": "configuration the planner resolves from auto (it may change along a rank or size sweep)",
    "derived": "follows from the configuration (sizes, planned memory, how an auto choice was made)",
    "measured": "what the run measured",
    "model": "the model's prediction, its error, and the parameter file it came from (--model)",
}
CONFIG_KINDS = ("config", "resolved")
# The commands that write rows, in the table's "written by" cell ("all": every one of them).
COMMANDS = ("join", "lock", "membw", "record", "query", "rdmo", "aggregate")
HEADER = "| column | kind | written by | unit | description |"
NAME = re.compile(r"^`([a-z][a-z0-9_]*)`$")
CELL_SPLIT = re.compile(r"(?<!\\)\|")

Column = collections.namedtuple("Column", "name kind writers unit description line")


class DeclarationError(Exception):
    """A mistake in the table: str() is 'FILE:LINE: reason'."""


def _row(path, n, line):
    cells = [c.strip() for c in CELL_SPLIT.split(line.strip())[1:-1]]
    if len(cells) != 5:
        raise DeclarationError(f"{path}:{n}: {len(cells)} cells, a column row has 5 ({HEADER})")
    name, kind, writers, unit, desc = cells
    m = NAME.match(name)
    if not m:
        raise DeclarationError(f"{path}:{n}: '{name}' is not a column name in backquotes (`lower_case_1`)")
    if kind not in KINDS:
        raise DeclarationError(f"{path}:{n}: {m.group(1)}: unknown kind '{kind}' (one of: {', '.join(KINDS)})")
    words = writers.replace(",", " ").split()
    bad = [w for w in words if w not in COMMANDS + ("all",)]
    if not words or bad:
        raise DeclarationError(f"{path}:{n}: {m.group(1)}: written by '{writers}': name commands among "
                               f"{', '.join(COMMANDS)} or all (a new command: COMMANDS in cmd/results_columns.py)")
    if not desc:
        raise DeclarationError(f"{path}:{n}: {m.group(1)}: no description")
    return Column(m.group(1), kind, frozenset(COMMANDS if "all" in words else words), unit, desc, n)


def parse(text, path="docs/columns.md"):
    """The declared columns in CSV order. Every line that starts with '|' is a row of a column
    table: the header, its rule, or a column; anything else in the file is prose."""
    cols, seen = [], {}
    for n, line in enumerate(text.split("\n"), 1):
        if not line.startswith("|"):
            continue
        s = line.strip()
        if s == HEADER or re.fullmatch(r"\|(\s*:?-+:?\s*\|){5}", s):
            continue
        c = _row(path, n, s)
        if c.name in seen:
            raise DeclarationError(f"{path}:{n}: {c.name}: declared twice (first on line {seen[c.name]})")
        seen[c.name] = n
        cols.append(c)
    if not cols:
        raise DeclarationError(f"{path}: declares no column (rows start with '| `name` |')")
    return cols


def read(path):
    with open(path, encoding="utf-8") as f:
        return parse(f.read(), path)


def c_source(cols):
    lines = ["/* Generated from docs/columns.md by cmd/results_columns.py (cmd/meson.build): edit the table there. */",
             '#include "cmd/results_schema.h"', "", "static const char *const columns[] = {"]
    lines += [f'    "{c.name}", /* {c.kind} */' for c in cols]
    lines += ["};", "", "const record_schema results_schema = {(int)(sizeof columns / sizeof columns[0]), columns};", ""]
    return "\n".join(lines)


def main(argv):
    if len(argv) < 3 or argv[1] not in ("c", "header", "check") or len(argv) != (4 if argv[1] == "c" else 3):
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    try:
        cols = read(argv[2])
    except (OSError, DeclarationError) as e:
        print(f"results_columns: {e}", file=sys.stderr)
        return 1
    if argv[1] == "c":
        with open(argv[3], "w", encoding="utf-8") as f:
            f.write(c_source(cols))
    elif argv[1] == "header":
        print(",".join(c.name for c in cols))
    else:
        print(f"{argv[2]}: {len(cols)} columns")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
