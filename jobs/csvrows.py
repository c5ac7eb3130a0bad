"""Row counts and the `ranks` column of a results CSV, for jobs/lib.sh (quoted fields need a CSV parser).
   csvrows.py count FILE        number of data rows (0 if FILE does not exist)
   csvrows.py ranks FILE SKIP   the `ranks` value of every row after the first SKIP rows
A file that is not a text CSV (NUL bytes, binary data, an endless line: /dev/zero, /dev/urandom)
ends the reader at once: one line "FILE:LINE: reason", exit status 2."""
import csv
import io
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.realpath(__file__)), "..", "plots"))
from rmaplots import safeio  # noqa: E402  (the plots' reader rules; no matplotlib)


def rows(path):
    if not os.path.exists(path):
        return []
    # rows hold command lines and host names verbatim: a byte that is not UTF-8 must not stop the count
    text = safeio.read_text(path).decode("utf-8", errors="replace")
    return list(csv.DictReader(io.StringIO(text, newline="")))


def main(argv):
    try:
        return run(argv)
    except csv.Error as e:
        print(f"csvrows.py: {argv[2]}: not a readable CSV: {e}", file=sys.stderr)
    except safeio.UnsafeFile as e:
        print(f"csvrows.py: {e}", file=sys.stderr)
    except OSError as e:
        print(f"csvrows.py: {argv[2]}: cannot read: {e.strerror}", file=sys.stderr)
    return 2


def run(argv):
    if len(argv) >= 3 and argv[1] == "count":
        print(len(rows(argv[2])))
    elif len(argv) >= 4 and argv[1] == "ranks":
        for r in rows(argv[2])[int(argv[3]):]:
            print(r.get("ranks", ""))
    else:
        print("usage: csvrows.py count FILE | ranks FILE SKIP", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
