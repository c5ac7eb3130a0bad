"""Row counts and the `ranks` column of a results CSV, for jobs/lib.sh (quoted fields need a CSV parser).
   csvrows.py count FILE        number of data rows (0 if FILE does not exist)
   csvrows.py ranks FILE SKIP   the `ranks` value of every row after the first SKIP rows"""
import csv
import os
import sys


def rows(path):
    if not os.path.exists(path):
        return []
    # rows hold command lines and host names verbatim: a byte that is not UTF-8 must not stop the count
    with open(path, newline="", encoding="utf-8", errors="replace") as f:
        return list(csv.DictReader(f))


def main(argv):
    try:
        return run(argv)
    except csv.Error as e:
        print(f"csvrows.py: {argv[2]}: not a readable CSV: {e}", file=sys.stderr)
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
