"""Command line of rmaplot: `figures` or `report`, CSV files, --out DIR."""
import os
import sys

from . import data, safeio

USAGE = ("usage: rmaplot figures|report RESULTS.csv... --out DIR [--force] | rmaplot figure ID RESULTS.csv... --out DIR "
         "[--params FILE] [--force] | rmaplot catalogue [ids|runs ID local|slurm|more ID RESULTS.csv] | "
         "rmaplot summary DIR")
HELP = USAGE + """
  figures   draw every figure the rows allow (PNG) into DIR
  report    the figures, plus DIR/report.md: tables per configuration and the model comparison
  figure    one entry of the thesis catalogue (jobs/figure.sh): DIR/ID.png (figures) and DIR/ID.md
            (its table, the thesis' numbers beside ours, one line comparing them); --params: the
            calibrate params file of its sweep (Fig 3.7 draws its bw_put_intra)
  --force   replace the files of an earlier run in DIR (without it a file rmaplot would write that
            exists is refused before anything is drawn)
  catalogue the catalogue (ids: the ids only; runs ID SCALE: the runs of ID's sweep, one a line:
            label, ranks, ranks per host or -, rmabench arguments; tab-separated; more ID CSV: the runs
            to add so that each configuration's 95% CI lies within +-10% of its mean, at most 10 runs)
  summary   DIR of `jobs/figure.sh all`: every entry redrawn from its sweep (DIR/sweeps/NAME/
            results.csv) into DIR/ID/, then DIR/report.md (per entry what was run and how it compares
            with the thesis) and DIR/figures.pdf (every figure, one a page)
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
    if cmd == "catalogue":
        return catalogue_cmd(rest)
    if cmd == "figure":
        return figure_cmd(rest)
    if cmd == "summary":
        return summary_cmd(rest)
    if cmd not in ("figures", "report"):
        print(f"rmaplot: '{cmd}': unknown command ({USAGE})", file=sys.stderr)
        return 2
    files, out, _ = parse_files(rest)
    if files is None:
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
        # what rmaplot writes into --out must be regular files or absent (or replaced: --force)
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


def parse_files(rest, extra=()):
    """(CSV files, --out, {flag: value} of the extra flags) of a command line, --force applied
    (safeio.set_replace); (None, None, None) after printing why it is wrong."""
    files, out, opts = [], None, {}
    i = 0
    while i < len(rest):
        if rest[i] == "--force":
            safeio.set_replace(True)
            i += 1
            continue
        if rest[i] in extra:
            if i + 1 >= len(rest):
                print(f"rmaplot: {rest[i]}: needs a value", file=sys.stderr)
                return None, None, None
            opts[rest[i]] = rest[i + 1]
            i += 2
            continue
        if rest[i] == "--out":
            if i + 1 >= len(rest):
                print("rmaplot: --out: needs a directory", file=sys.stderr)
                return None, None, None
            out = rest[i + 1]
            i += 2
        elif rest[i].startswith("--out="):
            out = rest[i][6:]
            i += 1
        elif rest[i].startswith("-"):
            print(f"rmaplot: {safeio.shown(rest[i])}: unknown flag ({USAGE})", file=sys.stderr)
            return None, None, None
        else:
            files.append(rest[i])
            i += 1
    if not files:
        print(f"rmaplot: no results CSV given ({USAGE})", file=sys.stderr)
        return None, None, None
    if not out:
        print("rmaplot: --out: required (directory for figures and report)", file=sys.stderr)
        return None, None, None
    return files, out, opts


def catalogue_cmd(rest):
    from . import catalogue
    if not rest:
        print("\n".join(catalogue.listing()))
        return 0
    if rest == ["ids"]:
        print(" ".join(e.id for e in catalogue.ENTRIES))
        return 0
    if len(rest) == 3 and rest[0] == "runs" and rest[2] in ("local", "slurm"):
        e = catalogue.BY_ID.get(rest[1])
        if not e:
            print(f"rmaplot: catalogue: '{rest[1]}' is not a catalogue id (rmaplot catalogue ids)", file=sys.stderr)
            return 2
        print(f"# sweep {e.sweep.dir_name(rest[2])}")
        for r in e.sweep.runs(rest[2]):
            print(r.line())
        return 0
    if len(rest) == 3 and rest[0] == "more":
        e = catalogue.BY_ID.get(rest[1])
        if not e:
            print(f"rmaplot: catalogue: '{rest[1]}' is not a catalogue id (rmaplot catalogue ids)", file=sys.stderr)
            return 2
        try:
            rows = data.load([rest[2]]) if os.path.exists(rest[2]) else []
        except data.DataError as ex:
            print(f"rmaplot: {ex}", file=sys.stderr)
            return 2
        print(f"# sweep {e.sweep.dir_name('local')}")
        for r in catalogue.more(e.sweep, rows):
            print(r.line())
        return 0
    print(f"rmaplot: catalogue: {' '.join(rest)}: expected nothing, 'ids', 'runs ID local|slurm' or 'more ID CSV'",
          file=sys.stderr)
    return 2


def check_params(path):
    """Why the calibrate params file at path cannot be read (one line), or None."""
    try:
        safeio.read_text(path).decode("utf-8")
    except safeio.UnsafeFile as e:
        return str(e)
    except OSError as e:
        return f"{safeio.shown(path)}: {e.strerror}"
    except UnicodeDecodeError:
        return f"{safeio.shown(path)}: not UTF-8 text (not a calibrate params file)"
    return None


def figure_cmd(rest):
    from . import catalogue
    if not rest or rest[0] not in catalogue.BY_ID:
        print(f"rmaplot: figure: '{rest[0] if rest else ''}' is not a catalogue id (rmaplot catalogue ids)", file=sys.stderr)
        return 2
    files, out, opts = parse_files(rest[1:], ("--params",))
    if files is None:
        return 2
    try:
        rows = data.load(files)
    except data.DataError as e:
        print(f"rmaplot: {e}", file=sys.stderr)
        return 2
    if "--params" in opts:  # read whole before anything is drawn: a text file, or one line and exit 2
        why = check_params(opts["--params"])
        if why:
            print(f"rmaplot: --params: {why}", file=sys.stderr)
            return 2
    try:
        safeio.check_output_dir(out)
        stem = rest[0].replace(".", "_")
        if os.path.isdir(out):  # the entry's files of an earlier run: its table, its figures
            for name in sorted(os.listdir(out)):
                if name == f"{rest[0]}.md" or (name.startswith(stem) and name.endswith((".png", ".pdf"))):
                    safeio.check_output_file(os.path.join(out, name))
        os.makedirs(out, exist_ok=True)
    except (safeio.UnsafeFile, OSError) as e:
        print(f"rmaplot: --out: {e}", file=sys.stderr)
        return 2
    from . import figures
    res = figures.draw(rest[0], rows, out, opts.get("--params"))
    for f in res.files:
        print(f"rmaplot: wrote {os.path.join(out, f)} (+ .pdf)")
    print(f"rmaplot: wrote {os.path.join(out, rest[0] + '.md')}")
    print(f"rmaplot: {rest[0]}: against the thesis: {res.compare or '-'}")
    return 0


def summary_cmd(rest):
    # DIR is a jobs/figure.sh directory (checked below): its entries, report.md and figures.pdf are
    # that job's own outputs, which the summary redraws, so it replaces them (--force is accepted)
    rest = [a for a in rest if a != "--force"]
    safeio.set_replace(True)
    if len(rest) != 1 or rest[0].startswith("-"):
        print(f"rmaplot: summary: expected the directory of `jobs/figure.sh all` ({USAGE})", file=sys.stderr)
        return 2
    if not os.path.isdir(os.path.join(rest[0], "sweeps")):
        print(f"rmaplot: summary: {rest[0]}: no sweeps/ (not a `jobs/figure.sh all` directory)", file=sys.stderr)
        return 2
    from . import summary
    try:
        path, pdf, failed = summary.write(rest[0])
    except (safeio.UnsafeFile, OSError) as e:
        print(f"rmaplot: summary: {e}", file=sys.stderr)
        return 2
    print(f"rmaplot: wrote {path} and {pdf}" + (f" ({failed} entries without results)" if failed else ""))
    return 0
