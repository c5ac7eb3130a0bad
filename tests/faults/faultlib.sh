# Helpers of the fault tests (bash, sourced).
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export OMPI_MCA_mpi_yield_when_idle=1 HWLOC_HIDE_ERRORS=1
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
ok() { echo "ok: $*"; }

# pid of world rank RANK among the processes whose command line contains MARK (empty if none yet)
rank_pid() { # MARK RANK
    local p
    for p in $(pgrep -f -- "$1"); do
        [[ -r /proc/$p/environ ]] || continue
        if tr '\0' '\n' <"/proc/$p/environ" 2>/dev/null | grep -qxE "(OMPI_COMM_WORLD_RANK|PMI_RANK)=$2"; then
            # the rank itself, not a wrapper: its executable is rmabench
            [[ $(readlink "/proc/$p/exe" 2>/dev/null) == */rmabench ]] && { echo "$p"; return; }
        fi
    done
}

# A rank a test stops (SIGSTOP; its pid in `stopped`) must never outlive the test: its EXIT trap
# calls release_stopped. check_stopped_gone WHAT fails unless the stopped rank is gone (or a zombie)
# within 10 s: the launcher that ended the run must take it down.
stopped=""
release_stopped() { [[ -n $stopped ]] && { kill -CONT "$stopped"; kill -KILL "$stopped"; } 2>/dev/null; return 0; }
check_stopped_gone() { # WHAT
    local i
    for ((i = 0; i < 100; i++)); do
        [[ -n $stopped ]] && kill -0 "$stopped" 2>/dev/null || return 0
        [[ $(awk '{print $3}' "/proc/$stopped/stat" 2>/dev/null) == Z ]] && return 0
        sleep 0.1
    done
    fail "the stopped $1 (pid $stopped) outlived the launcher"
}

# wait until FILE has more than N data rows (up to S seconds); 0 when it did
wait_rows() { # FILE N S
    local i
    for ((i = 0; i < $3 * 20; i++)); do
        [[ -f $1 ]] && (( $(csv_rows "$1") > $2 )) && return 0
        sleep 0.05
    done
    return 1
}
csv_rows() { /usr/bin/python3 -c 'import csv,sys; print(sum(1 for _ in csv.reader(open(sys.argv[1], newline="", errors="replace"))) - 1)' "$1" 2>/dev/null || echo 0; }

# Every line of FILE is a whole row: the file ends with a newline and every record has as many
# fields as the header (RFC 4180).
check_whole_rows() { # FILE
    /usr/bin/python3 - "$1" <<'PY'
import csv, sys
data = open(sys.argv[1], "rb").read()
if data and not data.endswith(b"\n"):
    print(f"{sys.argv[1]}: last line is not whole: {data[-80:]!r}"); sys.exit(1)
rows = list(csv.reader(open(sys.argv[1], newline="")))
n = len(rows[0])
bad = [i + 1 for i, r in enumerate(rows) if len(r) != n]
if bad:
    print(f"{sys.argv[1]}: records {bad[:5]} do not have {n} fields"); sys.exit(1)
print(f"{sys.argv[1]}: {len(rows) - 1} whole rows of {n} fields")
PY
}
