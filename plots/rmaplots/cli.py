"""Command line of rmaplot: `figures` or `report`, CSV files, --out DIR."""
import os
import sys

from . import data, safeio

USAGE = "usage: rmaplot figures|report RESULTS.csv... --out DIR"
HELP = USAGE + """
  figures   draw every figure the rows allow (PNG) into DIR
  report    the figures, plus DIR/report.md: tables per configuration and the model comparison
Rows are grouped by their full configuration (plots/rmaplots/config.py); failed and refused rows
are left out and counted. Runs with Debian's /usr/bin/python3 (matplotlib from python3-matplotlib)."""


def main(argv):
    if argv and ("-h" in argv or "--help" in argv):
        print(HELP)
        return 0
    if not argv:
        print(USAGE, file=sys.stderr)
        return 2
    cmd, rest = argv[0], argv[1:]
    if cmd not in ("figures", "report"):
        print(f"rmaplot: '{cmd}': unknown command ({USAGE})", file=sys.stderr)
        return 2
    files, out = [], None
    i = 0
    while i < len(rest):
        if rest[i] == "--out":
            if i + 1 >= len(rest):
                print("rmaplot: --out: needs a directory", file=sys.stderr)
                return 2
            out = rest[i + 1]
            i += 2
        elif rest[i].startswith("--out="):
            out = rest[i][6:]
            i += 1
        elif rest[i].startswith("-"):
            print(f"rmaplot: {rest[i]}: unknown flag ({USAGE})", file=sys.stderr)
            return 2
        else:
            files.append(rest[i])
            i += 1
    if not files:
        print(f"rmaplot: no results CSV given ({USAGE})", file=sys.stderr)
        return 2
    if not out:
        print("rmaplot: --out: required (directory for figures and report)", file=sys.stderr)
        return 2
    try:
        rows = data.load(files)
        safeio.check_output_dir(out)  # --out is a directory (or absent: created)
    except data.DataError as e:
        print(f"rmaplot: {e}", file=sys.stderr)
        return 2
    except safeio.UnsafeFile as e:
        print(f"rmaplot: --out: {e}", file=sys.stderr)
        return 2
    from . import report  # matplotlib is imported only once the input is known to be good
    try:
        # what rmaplot writes into --out must be regular files or absent
        for name in report.output_files():
            safeio.check_output_file(os.path.join(out, name))
        os.makedirs(out, exist_ok=True)
        if cmd == "figures":
            figs, notes = report.render_figures(rows, out)
        else:
            path, figs, notes = report.write(rows, files, out)
    except safeio.UnsafeFile as e:
        print(f"rmaplot: --out: {e}", file=sys.stderr)
        return 2
    except OSError as e:
        print(f"rmaplot: --out: {e.filename or out}: {e.strerror}", file=sys.stderr)
        return 2
    for n in notes:
        print(f"rmaplot: note: {n}")
    for f, _, dropped, d in figs:
        n = len(d.shown)
        print(f"rmaplot: wrote {os.path.join(out, f)} (+ .pdf): {n} configuration{'s' if n != 1 else ''}"
              + (f"; {dropped}" if dropped else ""))
        for x in d.notes:
            print(f"rmaplot: note: {f[:-4]}: {x}")
    if cmd == "report":
        print(f"rmaplot: wrote {path}")
    return 0
