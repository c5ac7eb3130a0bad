#!/usr/bin/env python3
"""The results columns are declared once (docs/columns.md, read by cmd/results_columns.py), and
everything else agrees with that declaration:
- the built rmabench writes exactly the declared header (`rmabench record --header`: the C schema
  the build generated), and so does the built plot fixture;
- every column name the C sources set or read by a literal (record_set, record_get,
  record_schema_has) is declared, so a misspelt name fails here, not when that code path first runs;
- a broken table stops the generator with FILE:LINE and the reason, and writes no C file: a
  duplicate name, an unknown kind, an unknown command, a row of the wrong shape, a name without
  backquotes, an empty description, a table without columns.

    test_results_columns.py ROOT RMABENCH FIXTURE.csv"""
import os
import re
import subprocess
import sys
import tempfile

root, rmabench, fixture = sys.argv[1:4]
tool = os.path.join(root, "cmd", "results_columns.py")
failures = 0


def check(ok, what):
    global failures
    print(("ok: " if ok else "FAIL: ") + what)
    failures += not ok


sys.path.insert(0, os.path.join(root, "cmd"))
import results_columns  # noqa: E402

cols = results_columns.read(os.path.join(root, "docs", "columns.md"))
names = [c.name for c in cols]
check(len(names) > 200, f"docs/columns.md declares {len(names)} columns")

header = subprocess.run([rmabench, "record", "--header"], capture_output=True, text=True, check=True).stdout.strip()
check(header == ",".join(names), "rmabench record --header is the declared header (the generated C schema)")
with open(fixture, encoding="utf-8") as f:
    check(f.readline().strip() == ",".join(names), f"{fixture}: its header is the declared one")

# literal column names in the C sources
call = re.compile(r'\brecord_(?:set|get|schema_has)\s*\(\s*[^,()]+,\s*"([^"%]*)"')
used = {}
for top in ("bench", "cmd", "joins", "locking", "rma"):
    for dirpath, _, files in os.walk(os.path.join(root, top)):
        for name in sorted(files):
            if name.endswith(".c"):
                path = os.path.join(dirpath, name)
                with open(path, encoding="utf-8") as f:
                    for m in call.finditer(f.read()):
                        used.setdefault(m.group(1), os.path.relpath(path, root))
undeclared = sorted(f"{c} ({where})" for c, where in used.items() if c not in names)
check(len(used) > 100 and not undeclared,
      f"{len(used)} column names set or read by literal in the sources, all declared" +
      (f"; not declared: {', '.join(undeclared)}" if undeclared else ""))

# mistakes in a table: exit 1, one line FILE:LINE: reason, no C file written
GOOD = "| `a_col` | config | join | s | something |"
BAD = [
    ("a duplicate name", [GOOD, GOOD], 5, "declared twice"),
    ("an unknown kind", ["| `a_col` | configuration | join | | x |"], 4, "unknown kind 'configuration'"),
    ("an unknown command", ["| `a_col` | config | jion | | x |"], 4, "written by 'jion'"),
    ("no command", ["| `a_col` | config |  | | x |"], 4, "written by ''"),
    ("four cells", ["| `a_col` | config | join | x |"], 4, "4 cells"),
    ("a | inside a cell", ["| `a_col` | config | join | | a|b |"], 4, "6 cells"),
    ("a name without backquotes", ["| a_col | config | join | | x |"], 4, "not a column name"),
    ("a name in capitals", ["| `A_col` | config | join | | x |"], 4, "not a column name"),
    ("no description", ["| `a_col` | config | join | s |  |"], 4, "no description"),
    ("no column", [], None, "declares no column"),
]
with tempfile.TemporaryDirectory() as tmp:
    for what, rows, line, reason in BAD:
        md = os.path.join(tmp, "columns.md")
        out = os.path.join(tmp, "out.c")
        with open(md, "w", encoding="utf-8") as f:
            f.write("\n".join(["# t", results_columns.HEADER, "|---|---|---|---|---|"] + rows) + "\n")
        p = subprocess.run([sys.executable, tool, "c", md, out], capture_output=True, text=True)
        where = f"{md}:{line}: " if line else f"{md}: "
        msg = p.stderr.strip()
        check(p.returncode == 1 and msg.startswith(f"results_columns: {where}") and reason in msg and
              "\n" not in msg and not os.path.exists(out), f"{what}: exit {p.returncode}, '{msg}'")
    # an escaped | is text, and the good row makes a C file
    with open(md, "w", encoding="utf-8") as f:
        f.write("\n".join([results_columns.HEADER, "|---|---|---|---|---|", GOOD,
                           "| `b_col` | measured | all | | \\|R\\| |"]) + "\n")
    p = subprocess.run([sys.executable, tool, "c", md, out], capture_output=True, text=True)
    with open(out, encoding="utf-8") as f:
        text = f.read()
    check(p.returncode == 0 and '"a_col",' in text and '"b_col",' in text, "a good table makes the C schema")

print(f"{failures} failure(s)")
sys.exit(1 if failures else 0)
