"""Loading results CSVs and the statistics every figure shares (medians, 95% confidence intervals)."""
import csv
import io
import math
import statistics

from . import safeio

# Columns every rmabench results CSV has (bench/record.c); without them nothing can be plotted.
REQUIRED = ["timestamp", "bench", "status", "exit_code", "job_id", "git_commit", "mpi_library", "mpi_version",
            "hosts", "ranks", "ranks_per_host", "hostnames", "repeat_index", "command", "algo", "tuples_per_rank",
            "r_tuples", "s_tuples", "ratio", "selectivity", "t_total_avg", "t_total_max", "throughput",
            "verification", "model_total", "workload", "servers", "agents", "remote_prob", "isolation",
            "commits_per_s", "lock_requests_per_s"]

# Phase names in the order the joins run them (exchange: the reference join's, before its build_probe);
# put and flush are details of network_partition (radix) and sort (sort-merge); wait: the joins' time
# at barriers for the slowest rank (bench/phases.h rmb_wait_all), summed like a phase.
PHASES = ["histogram", "window_alloc", "network_partition", "local_partition", "exchange", "build_probe",
          "partition", "sort", "merge", "match", "wait", "put", "flush", "imbalance", "total"]
DETAIL_PHASES = {"put", "flush"}


class DataError(Exception):
    """A problem with the input the user can fix; printed as one line, exit 2."""


def load(paths):
    """All rows of all CSVs (dicts of strings), each with '_file'. Raises DataError."""
    rows = []
    for path in paths:
        try:
            text = safeio.read_text(path).decode("utf-8")
        except safeio.UnsafeFile as e:
            raise DataError(str(e))
        except OSError as e:
            raise DataError(f"{path}: cannot read: {e.strerror}")
        except UnicodeDecodeError as e:
            raise DataError(f"{path}: not a readable CSV: {e}")
        try:
            reader = csv.DictReader(io.StringIO(text, newline=""))
            header = reader.fieldnames or []
            missing = [c for c in REQUIRED if c not in header]
            if not header:
                raise DataError(f"{path}: empty file (no header, no rows)")
            if missing:
                more = f" and {len(missing) - 5} more" if len(missing) > 5 else ""
                raise DataError(f"{path}: missing columns {', '.join(missing[:5])}{more} "
                                "(not an rmabench results CSV?)")
            n = 0
            for r in reader:
                if None in r:
                    raise DataError(f"{path}: line {reader.line_num}: more fields than the header")
                if None in r.values():  # rows are appended whole; a short one was cut or edited
                    raise DataError(f"{path}: line {reader.line_num}: fewer fields than the header")
                r["_file"] = path
                rows.append(r)
                n += 1
            if n == 0:
                raise DataError(f"{path}: no rows (header only)")
        except csv.Error as e:
            raise DataError(f"{path}: not a readable CSV: {e}")
    return rows


def num(r, col):
    """Float value of a column, or None when empty or not a number."""
    v = r.get(col, "")
    if v is None or v == "":
        return None
    try:
        x = float(v)
    except ValueError:
        return None
    return x if math.isfinite(x) else None


def failure(r):
    """Why a row must not be plotted ('' when it may): its run was refused (`--algo both` records an
    algorithm it could not run as status refused), failed or was not verified, its status, exit code
    and verification disagree (rows of older versions), or it is a warm-up."""
    status, code, verification = r.get("status", ""), r.get("exit_code", ""), r.get("verification", "")
    if status == "refused":
        return "refused"
    ok = (status == "ok", code == "0", verification == "PASS")
    if any(ok) and not all(ok):
        return f"status {status or '-'}, exit code {code or '-'} and verification {verification or '-'} disagree"
    if not all(ok):
        return f"{status or 'no status'}" + (f", verification {verification}" if verification else "")
    index = num(r, "repeat_index")
    if index is not None and index < 0:
        return "warm-up"
    return ""


def verified(rows, bench):
    """Rows of one bench that may be plotted: finished, verified, consistent, not warm-ups."""
    return [r for r in rows if r["bench"] == bench and not failure(r)]


def drop_kind(r):
    """'refused', 'warm-up' or 'failed' for a row failure() leaves out, '' for one it keeps."""
    why = failure(r)
    return why if why in ("refused", "warm-up") else "failed" if why else ""


def dropped(rows, bench):
    """{'failed': n, 'refused': n, 'warm-up': n} of the rows of one bench the figures leave out."""
    out = {}
    for r in rows:
        if r["bench"] == bench and failure(r):
            out[drop_kind(r)] = out.get(drop_kind(r), 0) + 1
    return out


def joins(rows):
    """Join runs that finished and verified: the only ones figures show."""
    return [r for r in verified(rows, "join") if num(r, "t_total_max") and num(r, "ranks")]


def locks(rows):
    """Lock runs that finished and verified (invariants, and the balances of bank)."""
    return [r for r in verified(rows, "lock") if num(r, "ranks")]


def group(rows, keyfn):
    """dict key -> rows, keys in sorted order."""
    out = {}
    for r in rows:
        out.setdefault(keyfn(r), []).append(r)
    return dict(sorted(out.items(), key=lambda kv: tuple(str(k) if k is None else k for k in
                                                         (kv[0] if isinstance(kv[0], tuple) else (kv[0],)))))


def values(rows, col):
    return [v for v in (num(r, col) for r in rows) if v is not None]


def median(xs):
    return statistics.median(xs) if xs else None


# two-sided 97.5% quantiles of Student's t for 1..30 degrees of freedom (no scipy on purpose)
_T975 = [12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160, 2.145,
         2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048,
         2.045, 2.042]


def mean_ci95(xs):
    """(mean, half-width of the 95% confidence interval of the mean); half-width 0 for one value."""
    if not xs:
        return None, None
    m = statistics.fmean(xs)
    if len(xs) < 2:
        return m, 0.0
    t = _T975[len(xs) - 2] if len(xs) - 1 <= len(_T975) else 1.96
    return m, t * statistics.stdev(xs) / math.sqrt(len(xs))


CI_TEXT = "95% CI of the mean (Student's t over runs)"
# how the figures show the runs of a point (style.runs_line)
RUNS_TEXT = "point: median of the runs, bar: smallest to largest run, dots: each run"


def ci_cell(xs, scale=1.0, nd=3):
    """The 95% confidence interval of the mean of xs as a table cell 'lo–hi'; where it would reach
    below 0 (its half-width above the mean: too few or too spread runs to bound anything) its
    half-width and why instead, never an interval cut at 0 that looks like a bound."""
    m, h = mean_ci95(xs)
    if m is None:
        return "—"
    if len(xs) < 2:
        return "— (1 run)"
    if m - h <= 0:
        return f"±{h * scale:.{nd}f}: wider than the mean ({len(xs)} runs)"
    return f"{(m - h) * scale:.{nd}f}–{(m + h) * scale:.{nd}f}"


def workload_key(r):
    """What makes two join rows the same experiment apart from the rank count."""
    return (r["tuples_per_rank"], r["ratio"], r["selectivity"], r.get("skew", ""), r.get("uneven", ""))


def main_workload(rows):
    """The join workload with the most distinct rank counts (the scaling experiment)."""
    by = group(rows, workload_key)
    if not by:
        return None, []
    key = max(by, key=lambda k: (len({r["ranks"] for r in by[k]}), len(by[k])))
    return key, by[key]


def phases_of(rows):
    """Summed phases with a value in these rows, in record.c order, imbalance last, total excluded."""
    ph = [p for p in PHASES if p not in DETAIL_PHASES and p not in ("total", "imbalance")
          and any(num(r, f"t_{p}_avg") is not None for r in rows)]
    return ph + ["imbalance"]
