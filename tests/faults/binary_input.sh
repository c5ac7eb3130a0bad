#!/bin/bash
# Every reader of outside files refuses what is not a regular file before reading it (a FIFO would
# block it for ever, a device never end: bench/text_input.h's text_open, safeio.open_input), and
# ends on binary data and endless lines within a second, with exit 2 and one line "FILE: reason" or
# "FILE:LINE: reason": /dev/zero and a FIFO (not regular files), 1 MiB of seeded random bytes (binary data:
# fixed, because /dev/urandom's first line is sometimes all high bytes, which a reader may call an
# unknown keyword instead)
# and a 4 MiB line without a newline, given as
#   a parameter file  rmamodel join|lock|cores-per-host --params, rmabench join|lock --model,
#                     rmaplot figure --params, model/params_merge.py
#   a lock trace      the trace reader alone (tests/tpcc/trace_check, exit 1), and rmabench lock
#                     --workload trace --trace under the launcher (2 ranks)
#   a results CSV     plots/rmaplot report, jobs/csvrows.py (the job scripts' row count)
# Each reader must be done in under a second. The lock command reads the trace after MPI_Init,
# whose launch alone takes 0.5-3 s on a shared machine: there the test asserts exit 2 with
# FILE:LINE before the 30 s timeout and prints the time beside a trace refused on its first line
# (a timing of the launcher never fails a test; the reader's own second is asserted through
# trace_check).
#   binary_input.sh ROOT BUILD MPIRUN TRACE_CHECK
set -u
root=$1 build=$2 mpirun=$3 trace_check=$4
source "$(dirname "$0")/faultlib.sh"
bin=$build/rmabench
model=$build/rmamodel
py=/usr/bin/python3
[[ -x $py ]] || py=python3
work=$(mktemp -d /tmp/rmb-binary-input.XXXXXX)
trap 'rm -rf "$work"' EXIT
head -c $((4 << 20)) /dev/zero | tr '\0' 'a' >"$work/endless"
printf 'X\n' >"$work/bad.trace"
mkfifo "$work/fifo"
"$py" -c 'import random, sys; sys.stdout.buffer.write(random.Random(12).randbytes(1 << 20))' >"$work/random"

now_ms() { date +%s%3N; }

# within MS NAME REGEX CMD...: exit 2 (WANT_EXIT), one line on stderr matching REGEX, in under MS
# milliseconds (0: only before the timeout); under the launcher one line of ours, beside the banner
# Open MPI adds about the exit status
within() {
    local limit=$1 name=$2 re=$3 want=${WANT_EXIT:-2}; shift 3
    local t0 t1 rc lines
    t0=$(now_ms)
    timeout -k 5 30 "$@" >"$work/out" 2>"$work/err" </dev/null
    rc=$?
    t1=$(now_ms)
    if [[ $1 == "$mpirun" ]]; then lines=$(grep -cE '^rmabench: ' "$work/err")
    else lines=$(wc -l <"$work/err"); fi
    if [[ $rc == "$want" && $lines == 1 ]] && grep -Eq -- "$re" "$work/err" && (( limit == 0 || t1 - t0 < limit )); then
        ok "$name: exit $rc in $((t1 - t0)) ms: $(grep -E -- "$re" "$work/err" | cut -c1-120)"
    else
        fail "$name: exit $rc (want $want) after $((t1 - t0)) ms (limit ${limit/#0/none}), $lines lines: $(head -c 300 "$work/err")"
    fi
}

export OMPI_MCA_rmaps_base_oversubscribe=1
t0=$(now_ms)
timeout -k 5 60 "$mpirun" -n 2 "$bin" lock --workload trace --trace "$work/bad.trace" >/dev/null 2>&1
ref=$(( $(now_ms) - t0 ))
ok "reference: a trace refused on its first line takes $ref ms under the launcher"

for f in /dev/zero "$work/fifo" "$work/random" "$work/endless"; do
    case $f in
    /dev/zero) at="zero: not a regular file \\(a character device\\)" ;;
    */fifo) at="fifo: not a regular file \\(a FIFO\\)" ;;
    *) at="$(basename "$f"):[0-9]+: (NUL byte|binary data|line longer than)" ;;
    esac
    within 10000 "rmamodel join --params $f" "^rmamodel: --params: .*$at" \
        "$model" join --algo radix --params "$f" --ranks 2 --ranks-per-host 2 --tuples-per-rank 1K
    within 10000 "rmamodel lock --params $f" "^rmamodel: --params: .*$at" \
        "$model" lock --params "$f" --agents 1 --locks-per-txn 1 --remote-prob 0
    within 10000 "rmamodel cores-per-host --params $f" "^rmamodel: --params: .*$at" "$model" cores-per-host --params "$f"
    within 10000 "rmabench join --model $f" "^rmabench: --model: .*$at" "$bin" join --tuples-per-rank 1K --model "$f"
    within 10000 "rmabench lock --model $f" "^rmabench: --model: .*$at" "$bin" lock --model "$f"
    WANT_EXIT=1 within 10000 "trace reader $f" "^trace_check: .*$at" "$trace_check" "$f" 1 0 0 1 1
    within 0 "rmabench lock --trace $f (reference $ref ms)" "^rmabench: .*$at" \
        "$mpirun" -n 2 "$bin" lock --workload trace --trace "$f" --wait-bound 20
    within 10000 "rmaplot report $f" "^rmaplot: .*$at" "$py" "$root/plots/rmaplot" report "$f" --out "$work/plots"
    within 10000 "csvrows.py count $f" "^csvrows.py: .*$at" "$py" "$root/jobs/csvrows.py" count "$f"
    within 10000 "rmaplot figure --params $f" "^rmaplot: --params: .*$at" \
        "$py" "$root/plots/rmaplot" figure fig3.7 "$build/tests/fixtures/results-small.csv" --out "$work/plots" --params "$f"
    within 10000 "params_merge.py $f" "^params_merge.py: .*$at" "$py" "$root/model/params_merge.py" "$f" "$f" 'bw_.*'
done
[[ ! -e $work/plots ]] || fail "rmaplot created its --out for an unreadable CSV"
[[ $fails == 0 ]] && echo "binary input: all checks passed"
exit $((fails > 0))
