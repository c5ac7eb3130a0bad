#!/usr/bin/python3
"""Mutation fuzzer for the Python readers of results CSVs (no libFuzzer/atheris for Python on
Debian 12): plots/rmaplots/data.py (load and the row filters every figure uses) and
jobs/csvrows.py (row counts for the job scripts).

  fuzz_csv.py ROOT fuzz CORPUS SECONDS    mutate the corpus files for SECONDS (seeded, repeatable)
  fuzz_csv.py ROOT replay DIR...          run every file once (the corpus and crash reproducers)

Invariant: a reader either returns rows or raises rmaplots' DataError (a one-line message naming
the file, exit 2 in rmaplot; csvrows: csv.Error or safeio.UnsafeFile, exit 2); any other exception
is a crash. A NUL or other control byte ends both readers with "FILE:LINE: reason". A crashing input is written to /tmp and its path
printed, to be committed under tests/fuzz/regressions/csv/."""
import os
import random
import re
import sys
import tempfile
import time
import traceback


def setup(root):
    sys.path.insert(0, os.path.join(root, "plots"))
    sys.path.insert(0, os.path.join(root, "jobs"))
    import csvrows  # noqa: E402
    from rmaplots import data  # noqa: E402
    return data, csvrows


BINARY = re.compile(rb"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


def one(data, csvrows, path):
    with open(path, "rb") as f:
        binary = BINARY.search(f.read())
    try:
        rows = data.load([path])
        assert not binary, "a file with a NUL or control byte was read as a CSV"
        js, ls = data.joins(rows), data.locks(rows)
        data.main_workload(js)
        data.phases_of(js)
        from rmaplots import config  # noqa: E402  (on the path since setup())
        for r in rows:  # the grouping every figure and table uses, and the library's one-line name
            config.configuration(r)
            config.mpi_name(r)
        for r in ls:
            data.num(r, "commits_per_s")
    except data.DataError as e:
        msg = str(e)
        assert msg.startswith(path) and "\n" not in msg, f"DataError not one line naming the file: {msg!r}"
        assert not binary or re.match(re.escape(path) + r":[0-9]+: ", msg), f"binary input not refused as FILE:LINE: {msg!r}"
    # csvrows: the job scripts' row count must not crash on a file rmaplot accepts or refuses
    try:
        csvrows.rows(path)
    except (csvrows.csv.Error, csvrows.safeio.UnsafeFile):
        pass  # csvrows.py reports it in one line, exit 2


SPECIAL = [b",", b'"', b"\n", b"\r", b"\r\n", b"\x00", b"\xff", b"\xc3", b"nan", b"inf", b"-1", b"1e309",
           b"join", b"lock", b"ok", b"PASS", b'""', b",,,,", b"\xef\xbb\xbf"]


def mutate(rng, buf):
    b = bytearray(buf)
    for _ in range(rng.randint(1, 4)):
        op = rng.randrange(7)
        pos = rng.randint(0, len(b))
        if op == 0 and b:
            b[min(pos, len(b) - 1)] = rng.randrange(256)
        elif op == 1:
            b[pos:pos] = rng.choice(SPECIAL)
        elif op == 2 and b:
            del b[pos:pos + rng.randint(1, 16)]
        elif op == 3:  # truncate (a killed writer)
            del b[pos:]
        elif op == 4:  # duplicate a line
            lines = bytes(b).split(b"\n")
            i = rng.randrange(len(lines))
            lines.insert(i, lines[i])
            b = bytearray(b"\n".join(lines))
        elif op == 5:  # drop a line
            lines = bytes(b).split(b"\n")
            del lines[rng.randrange(len(lines))]
            b = bytearray(b"\n".join(lines))
        else:  # swap two fields of one line
            lines = bytes(b).split(b"\n")
            i = rng.randrange(len(lines))
            f = lines[i].split(b",")
            if len(f) > 1:
                x, y = rng.randrange(len(f)), rng.randrange(len(f))
                f[x], f[y] = f[y], f[x]
                lines[i] = b",".join(f)
            b = bytearray(b"\n".join(lines))
    return bytes(b)


def run_one(data, csvrows, content, path):
    with open(path, "wb") as f:
        f.write(content)
    try:
        one(data, csvrows, path)
        return True
    except Exception:  # noqa: BLE001 - any exception but DataError is the finding
        fd, keep = tempfile.mkstemp(prefix="rmb-csv-crash-", suffix=".csv")
        os.write(fd, content)
        os.close(fd)
        traceback.print_exc()
        print(f"CRASH: input kept in {keep}")
        return False


def main(argv):
    if len(argv) < 4 or argv[2] not in ("fuzz", "replay"):
        print(__doc__, file=sys.stderr)
        return 2
    data, csvrows = setup(argv[1])
    fd, path = tempfile.mkstemp(prefix="rmb-csv-fuzz-", suffix=".csv")
    os.close(fd)
    try:
        if argv[2] == "replay":
            files = sorted(os.path.join(d, n) for d in argv[3:] if os.path.isdir(d) for n in os.listdir(d)
                           if n != "README.md")
            for p in files:
                with open(p, "rb") as f:
                    if not run_one(data, csvrows, f.read(), path):
                        print(f"FAIL: {p}")
                        return 1
            print(f"replayed {len(files)} inputs, no crash")
            return 0 if files else 1
        corpus_dir, secs = argv[3], float(argv[4])
        seeds = []
        for n in sorted(os.listdir(corpus_dir)):
            with open(os.path.join(corpus_dir, n), "rb") as f:
                seeds.append(f.read())
        rng = random.Random(int(os.environ.get("RMB_FUZZ_SEED", "1")))
        end, n = time.monotonic() + secs, 0
        while time.monotonic() < end:
            if not run_one(data, csvrows, mutate(rng, rng.choice(seeds)), path):
                print(f"FAIL after {n} executions")
                return 1
            n += 1
        print(f"fuzz_csv: {n} executions in {secs:g}s, no crash")
        return 0
    finally:
        os.unlink(path)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
