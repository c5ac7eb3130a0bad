"""Row counts and the `ranks` column of a results CSV, for jobs/lib.sh (quoted fields need a CSV parser).
   csvrows.py count FILE        number of data rows (0 if FILE does not exist)
   csvrows.py ranks FILE SKIP   the `ranks` value of every row after the first SKIP rows"""
import csv
import os
import sys


def rows(path):
    if not os.path.exists(path):
        return []
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def main(argv):
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
