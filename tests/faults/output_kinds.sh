#!/bin/bash
# Every output of every command refuses a path that exists and is not a regular file, with exit 2
# and one line, and leaves it as it was (same kind, same inode, nothing written into or beside it):
# a character device (mknod, as root), a symbolic link to it, a FIFO, a directory, a socket and a
# dangling link, given to rmabench join|lock|calibrate|lock-trace|record --output, to plots/rmaplot
# (as --out, and as report.md inside --out) and to the job scripts' results.csv (jobs/lib.sh).
# A symbolic link to a regular file is written through (lock-trace, record) and stays a link.
#   output_kinds.sh ROOT BUILD
# Needs root for mknod: skips (77) with a message otherwise. The refusals come before MPI_Init, so
# the MPI commands run as singletons here.
set -u
root=$1 build=$2
source "$(dirname "$0")/faultlib.sh"
bin=$build/rmabench
py=/usr/bin/python3
[[ -x $py ]] || py=python3
if [[ $(id -u) != 0 ]]; then echo "SKIP: mknod of a character device needs root (uid $(id -u))"; exit 77; fi
work=$(mktemp -d /tmp/rmb-output-kinds.XXXXXX)
trap 'rm -rf "$work"' EXIT

# make KIND PATH: one kind of non-regular file at PATH
make() {
    case $1 in
    chardev) mknod "$2" c 1 7 ;; # as /dev/full: a write into it would fail, a rename would replace it
    link-to-chardev) mknod "$2.dev" c 1 7 && ln -s "$2.dev" "$2" ;;
    fifo) mkfifo "$2" ;;
    directory) mkdir "$2" ;;
    socket) "$py" -c 'import socket, sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])' "$2" ;;
    dangling-link) ln -s "$2.nowhere" "$2" ;;
    esac
}
# What must not change: kind, device numbers, inode, of the path and of what a link names; the
# directory holds nothing else afterwards.
state() { # PATH
    stat -c '%F %t:%T %i %N' "$1" 2>&1
    [[ -L $1 ]] && stat -L -c '%F %t:%T %i' "$1" 2>&1
    ls -A "$(dirname "$1")"
    [[ -d $1 && ! -L $1 ]] && ls -A "$1"
}

# refuse NAME KIND REGEX VICTIM CMD...: VICTIM (a path below a fresh directory D, which CMD names
# as @D@) is made a KIND; CMD must exit 2 with one line matching REGEX and leave VICTIM unchanged
refuse() {
    local name=$1 kind=$2 re=$3 victim=$4; shift 4
    local d=$work/$name-$kind
    local p=$d/$victim
    mkdir -p "$(dirname "$p")"
    make "$kind" "$p" || { fail "$name $kind: could not make a $kind"; return; }
    local before after rc lines
    before=$(state "$p")
    local -a cmd=("${@//@D@/$d}")
    timeout -k 5 30 "${cmd[@]}" >"$work/out" 2>"$work/err" </dev/null
    rc=$?
    after=$(state "$p")
    lines=$(wc -l <"$work/err")
    if [[ $rc == 2 && $lines == 1 ]] && grep -Eq -- "$re" "$work/err" && [[ $before == "$after" ]]; then
        ok "$name $kind: exit 2, $(cat "$work/err")"
    else
        fail "$name $kind: exit $rc (want 2), $lines lines: $(head -3 "$work/err")"
        [[ $before == "$after" ]] || { fail "$name $kind: changed"; diff <(echo "$before") <(echo "$after"); }
    fi
}

fixture=$build/tests/fixtures/results-small.csv # built (tests/fixtures/meson.build)
for kind in chardev link-to-chardev fifo directory socket dangling-link; do
    case $kind in
    dangling-link) why='does not resolve' ;;
    chardev|link-to-chardev) why='not a regular file \(a character device\)' ;;
    fifo) why='not a regular file \(a FIFO\)' ;;
    *) why="not a regular file \\(a $kind\\)" ;;
    esac
    refuse join "$kind" "^rmabench: --output: .*/target: .*$why" target "$bin" join --tuples-per-rank 1K --output @D@/target
    refuse lock "$kind" "^rmabench: --output: .*/target: .*$why" target "$bin" lock --duration 1s --output @D@/target
    refuse calibrate "$kind" "^rmabench: --output: .*/target: .*$why" target "$bin" calibrate --output @D@/target
    refuse lock-trace "$kind" "^rmabench: --output: .*/target: .*$why" target \
        "$bin" lock-trace tpcc --transactions 10 --output @D@/target
    refuse record "$kind" "^rmabench: --output: .*/target: .*$why" target "$bin" record --output @D@/target --set exit_code=1
    # the job scripts: results.csv of a results directory
    refuse jobs "$kind" "^rmabench jobs: .*/results\\.csv: not a regular file" results.csv \
        bash -c 'source "$1/jobs/lib.sh"; rmb_init t; rmb_results_dir "$2"' _ "$root" @D@
    # rmaplot: report.md inside --out, and --out itself (a directory is what --out takes)
    refuse rmaplot-report.md "$kind" "^rmaplot: --out: .*/report\\.md: " out/report.md \
        "$py" "$root/plots/rmaplot" report "$fixture" --out @D@/out
    [[ $kind == directory ]] ||
        refuse rmaplot-out "$kind" "^rmaplot: --out: .*/target: " target "$py" "$root/plots/rmaplot" report "$fixture" --out @D@/target
done

# a symbolic link to a regular file: written through (a whole file only with --force, as any file that
# exists), and still a link
d=$work/links
mkdir -p "$d"
: >"$d/trace.real"
ln -s trace.real "$d/trace"
"$bin" lock-trace tpcc --transactions 10 --output "$d/trace" --force >/dev/null 2>&1 &&
    [[ -L $d/trace && $(grep -c '^B$' "$d/trace.real") == 10 ]] && ok "lock-trace through a link to a regular file" ||
    fail "lock-trace did not write through the link"
ln -s rows.real "$d/rows.csv"
: >"$d/rows.real"
"$bin" record --output "$d/rows.csv" --set exit_code=1 >/dev/null 2>&1 &&
    [[ -L $d/rows.csv && $(wc -l <"$d/rows.real") == 2 ]] && ok "record through a link to a regular file" ||
    fail "record did not write through the link"
left=$(ls -A "$d" | grep -v -x -e trace -e trace.real -e rows.csv -e rows.real)
[[ -z $left ]] || fail "left beside the outputs: $left"

# an output that exists (a regular file the command did not write): every whole-file writer refuses
# it without --force, with one line naming --force, and leaves it byte for byte; a results CSV takes
# rows (the record test above); a job's results directory with an earlier job's files is refused
d=$work/existing
existing() { # NAME REGEX FILE CMD...
    local name=$1 re=$2 file=$3; shift 3
    mkdir -p "$(dirname "$file")"
    printf 'not yours\n' >"$file"
    "$@" >"$work/out" 2>"$work/err" </dev/null
    local rc=$? lines
    lines=$(wc -l <"$work/err")
    if [[ $rc == 2 && $lines == 1 ]] && grep -Eq -- "$re" "$work/err" && [[ $(cat "$file") == "not yours" ]]; then
        ok "$name over an existing file: exit 2, $(cat "$work/err")"
    else
        fail "$name over an existing file: exit $rc, $lines lines: $(head -3 "$work/err"), file: $(head -c 80 "$file")"
    fi
}
existing calibrate "^rmabench: --output: .*/params\.txt: exists; give --force to replace it$" "$d/params.txt" \
    "$bin" calibrate --output "$d/params.txt"
existing lock-trace "^rmabench: --output: .*/t\.trace: exists; give --force to replace it$" "$d/t.trace" \
    "$bin" lock-trace tpcc --transactions 10 --output "$d/t.trace"
existing rmaplot-report "^rmaplot: --out: .*/report\.md: exists; give --force to replace it$" "$d/plots/report.md" \
    "$py" "$root/plots/rmaplot" report "$fixture" --out "$d/plots"
existing rmaplot-figure "^rmaplot: --out: .*/fig3\.7\.md: exists; give --force to replace it$" "$d/fig/fig3.7.md" \
    "$py" "$root/plots/rmaplot" figure fig3.7 "$fixture" --out "$d/fig"
existing rdmo-figure "^rdmo_figure: .*/rdmo\.md: exists; give --force to replace it$" "$d/rdmo/rdmo.md" \
    "$py" "$root/plots/rdmo_figure" "$fixture" --out "$d/rdmo"
existing exchange-figure "^exchange_figure: .*/exchange\.md: exists; give --force to replace it$" "$d/exchange/exchange.md" \
    "$py" "$root/plots/exchange_figure" "$fixture" --out "$d/exchange"
existing jobs "^rmabench jobs: .*/job: holds an earlier job's files \(report\.md, \.\.\.\); give --force" "$d/job/report.md" \
    "$root/jobs/local.sh" --dry-run --out "$d/job"
[[ $(ls -A "$d/plots") == report.md && $(ls -A "$d/fig") == fig3.7.md && $(ls -A "$d/rdmo") == rdmo.md &&
   $(ls -A "$d/exchange") == exchange.md ]] ||
    fail "a figure drawn beside an existing file: $(ls -A "$d/plots" "$d/fig" "$d/rdmo" "$d/exchange")"
[[ $fails == 0 ]] && echo "output kinds: all checks passed"
exit $((fails > 0))
