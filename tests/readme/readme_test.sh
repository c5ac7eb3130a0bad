#!/bin/bash
# The documentation is tested: every command of the code blocks of README.md and of every
# docs/*.md runs, at a small size, and exits as the file says; every relative link between them
# names a file and a heading that exist.
#
#   tests/readme/readme_test.sh ROOT BUILD_DIR       run the commands, check the links, then the self-check
#   tests/readme/readme_test.sh --list [FILE...]     print the extracted commands (after the size table)
#   RMB_README=FILE     test FILE alone instead of ROOT/README.md and ROOT/docs/*.md (the self-check uses it)
#   RMB_README_FULL=1   run the commands as written (no size table: minutes to hours)
#
# Marking: a comment line directly before a fenced block says what the block is.
#   <!-- readme-test -->                 every command in the ```sh block below must exit 0
#   <!-- readme-test: exit N -->         every command in it must exit N (an expected failure)
#   <!-- readme-test: skip (REASON) -->  listed in the table as skipped, with the reason
# A command is one line (a trailing backslash continues it); lines starting with # are comments.
# Every other fenced block must be ```text, and no file may hold a 4-space indented code block:
# an unmarked command fails the test rather than going untested. Inline `code` is prose, not run.
# A file without code blocks passes. Skipped: the README's second "Two commands" line (install,
# build, scripts/test.sh): it is the command that runs this test. The first one (install, build,
# main job) runs reduced to the main job's --dry-run (building is what put BUILD_DIR here;
# installing packages is not a test's job).
#
# Where: a scratch copy of the source tree (no build*, results/ or .git), with build/ a link to
# BUILD_DIR and build-mpich/ a link to ROOT/build-mpich when that exists (MPICH commands are
# skipped, and say so, when it does not). The files run in order (README.md, then docs/*.md by
# name), their commands in order, in that one directory with bash -c, so a later block can use
# what an earlier block of its own file wrote (results/results.csv, results/params.txt); a command
# that is the same after the size table as one already run, in any file, is listed, not run again.
# The environment is a root user's after the README's export line (OMPI_ALLOW_RUN_AS_ROOT...);
# OMPI_MCA_rmaps_base_oversubscribe is removed, so that a command needing --oversubscribe must
# say so itself.
#
# Failures: a command whose exit status is not the one its block expects, that prints a line
# "verification: FAIL", or that runs over 120 s; a size rule below that matches no command (a file
# changed under it: the command would run at full size); a file written into the scratch root
# outside results/ (examples write under results/, never into the repository root); a relative
# link [text](path#heading) whose file does not exist or whose heading is not one of that file's
# (headings as GitHub makes anchors of them).
#
# Size table: sed -E expressions applied in order to every command (the same commands at small
# sizes; --plan commands allocate nothing and keep their sizes):
SIZE_RULES=(
    's/--tuples-per-rank 16M/--tuples-per-rank 2K/'               # joins: 2K tuples of R per rank
    's/--repeat 5/--repeat 2/'
    's/rmabench membw$/rmabench membw --bytes 16M --repeats 2/'  # memory bandwidth: 16 MiB buffers
    's/--duration (5|10)s/--duration 200ms/'                      # lock runs
    's/smj-sortbench 32000000/smj-sortbench 100000/'
    's/(rmabench calibrate) /\1 --tuples 20K --tuples-per-rank 20K --put-bytes 1M --rounds 1 --repeats 1 /'
    's|model/accuracy\.sh build 2 16M 5|RMB_CALIBRATE_ARGS="--tuples 20K --put-bytes 1M --rounds 1 --repeats 1" RMB_DURATION=200ms model/accuracy.sh build 2 2K 1 1|'
    # soak: both joins twice at 2K, then the lock phase cut to 300 ms (the last --duration wins)
    's|jobs/soak\.sh --minutes 10 --repeats 50|RMB_SOAK_LOCK_ARGS="--workload bank --accounts 16 --remote-prob 0.5 --vote-no-prob 0.05 --lock-timeout 10ms --duration 300ms" jobs/soak.sh --minutes 1 --repeats 2 --tuples 2K|'
    's|^scripts/install-deps\.sh && scripts/build\.sh && jobs/local\.sh$|jobs/local.sh --dry-run|'
    # a cluster: the --dry-run form (already given in some commands: the rule then matches nothing
    # new, so it is checked on the command without it)
    's|^(RMB_[A-Z_]+=[^ ]+ )?jobs/submit\.sh --campaign all -- |\1jobs/submit.sh --campaign all --dry-run -- |'
)
set -u
export LC_ALL=C
self=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/$(basename "${BASH_SOURCE[0]}")

# extract FILE: one line per command, "LINE<TAB>EXPECT<TAB>COMMAND" (EXPECT: a status or skip:REASON);
# a marking error prints "error<TAB>LINE<TAB>message" and extraction goes on.
extract() {
    awk '
    function flush_cmd() { if (cmd != "") { print start "\t" expect "\t" cmd; cmd = "" } }
    {
        line = $0
        if (infence) {
            if (line ~ /^```/) { flush_cmd(); infence = 0; next }
            if (!tested) next
            if (cmd == "" && (line ~ /^[ \t]*#/ || line ~ /^[ \t]*$/)) next
            if (cmd == "") start = NR
            cont = sub(/\\$/, "", line)
            cmd = cmd line
            if (!cont) flush_cmd()
            next
        }
        if (line ~ /^<!-- readme-test(:.*)? -->$/) {
            m = line; sub(/^<!-- readme-test:? */, "", m); sub(/ *-->$/, "", m)
            if (m == "") expect = "0"
            else if (m ~ /^exit [0-9]+$/) { expect = m; sub(/^exit /, "", expect) }
            else if (m ~ /^skip \(.+\)$/) { expect = m; sub(/^skip \(/, "skip:", expect); sub(/\)$/, "", expect) }
            else { print "error\t" NR "\tunknown marker: " line; expect = "0" }
            marked = NR; next
        }
        if (line ~ /^```/) {
            info = line; sub(/^```/, "", info)
            infence = 1
            if (marked && marked == NR - 1) {
                tested = 1
                if (info != "sh") print "error\t" NR "\ta marked block must be ```sh, not ```" info
            } else {
                tested = 0
                if (info != "text") print "error\t" NR "\tcode block without a <!-- readme-test --> line before it (or ```text for a listing that is not run)"
            }
            marked = 0; next
        }
        if (marked && marked == NR - 1) print "error\t" marked "\t<!-- readme-test --> not directly before a ```sh block"
        if (line ~ /^    [^ ]/ && prev ~ /^[ \t]*$/)
            print "error\t" NR "\tindented code block: make it a ```sh block with a <!-- readme-test --> line: " line
        prev = line
    }
    END { if (infence) print "error\t" NR "\tcode block not closed" }' "$1"
}

# links FILE: every relative link [text](path#heading) outside code, as "LINE<TAB>PATH<TAB>HEADING"
# (PATH -: this file; HEADING -: none); anchors FILE: the anchors of its headings, as GitHub makes them (lower
# case, punctuation dropped, spaces to hyphens, -1, -2 ... for repeats).
links() {
    awk '
    /^```/ { fence = !fence; next }
    fence { next }
    {
        line = $0; gsub(/`[^`]*`/, "", line)
        while (match(line, /\]\([^)]+\)/)) {
            t = substr(line, RSTART + 2, RLENGTH - 3); line = substr(line, RSTART + RLENGTH)
            if (t ~ /^[a-z]+:/ || t ~ /^\//) continue
            h = ""; if (index(t, "#")) { h = substr(t, index(t, "#") + 1); t = substr(t, 1, index(t, "#") - 1) }
            print NR "\t" (t == "" ? "-" : t) "\t" (h == "" ? "-" : h)
        }
    }' "$1"
}
anchors() {
    awk '
    /^```/ { fence = !fence; next }
    fence || !/^#+ / { next }
    {
        a = tolower($0); sub(/^#+ /, "", a); gsub(/[^a-z0-9 _-]/, "", a); gsub(/ /, "-", a)
        if (a in seen) { seen[a]++; print a "-" seen[a] } else { seen[a] = 0; print a }
    }' "$1"
}

# check_links FILE: one "FAIL FILE line N: ..." per broken link
check_links() {
    local file=$1 dir l t h target
    dir=$(dirname "$file")
    while IFS=$'\t' read -r l t h; do
        [[ $h == - ]] && h=""
        target=$file; [[ $t != - ]] && target=$dir/$t
        if [[ ! -e $target ]]; then
            echo "FAIL ${file#"$root"/} line $l: link to $t: no such file"; continue
        fi
        [[ -z $h || $target != *.md ]] && continue
        grep -qxF -- "$h" <(anchors "$target") ||
            echo "FAIL ${file#"$root"/} line $l: link to ${t/#-/this file}#$h: no such heading there"
    done < <(links "$file")
}

# apply the size table to one command (into RUN); RULE_HITS[i] counts the commands rule i changed
declare -a RULE_HITS
small() {
    local i n
    RUN=$1
    [[ ${RMB_README_FULL:-0} == 1 ]] && return
    for i in "${!SIZE_RULES[@]}"; do
        n=$(printf '%s' "$RUN" | sed -E "${SIZE_RULES[$i]}")
        [[ $n != "$RUN" ]] && RULE_HITS[i]=$(( ${RULE_HITS[i]:-0} + 1 ))
        RUN=$n
    done
}

if [[ ${1:-} == --list ]]; then
    shift
    top=$(dirname "$self")/../..
    [[ $# -gt 0 ]] || set -- "$top/README.md" "$top"/docs/*.md
    for f in "$@"; do
        extract "$f" | while IFS=$'\t' read -r l e c; do
            if [[ $l == error ]]; then echo "error: $f line $e: $c"; else small "$c"; echo "${f##*/}:$l [$e] $RUN"; fi
        done
    done
    exit 0
fi
if [[ $# -ne 2 ]]; then
    sed -n '2,10p' "$self" | sed 's/^# \{0,1\}//'; [[ ${1:-} == -h || ${1:-} == --help ]]; exit $?
fi
root=$(cd "$1" && pwd); bdir=$(cd "$2" && pwd)
if [[ -n ${RMB_README:-} ]]; then files=("$RMB_README"); else files=("$root/README.md" "$root"/docs/*.md); fi
[[ -x $bdir/rmabench ]] || { echo "readme_test: $bdir/rmabench not built"; exit 1; }

scratch=$(mktemp -d /tmp/rmb-readme.XXXXXX) logs=$(mktemp -d /tmp/rmb-readme-logs.XXXXXX)
trap 'rm -rf "$scratch" "$logs"' EXIT
tar -C "$root" --exclude=./.git --exclude='./build*' --exclude=./results -cf - . | tar -C "$scratch" -xf -
ln -s "$bdir" "$scratch/build"
[[ -x $root/build-mpich/rmabench ]] && ln -s "$root/build-mpich" "$scratch/build-mpich"
before=$(ls -A "$scratch" | sort)
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 HWLOC_HIDE_ERRORS=1
unset OMPI_MCA_rmaps_base_oversubscribe

fail=0 n=0 nrun=0 nsame=0 nskip=0 t_all=$SECONDS
table=()
declare -A seen   # commands already run (the same after the size table): run once
for file in "${files[@]}"; do
    name=${file#"$root"/}
    while read -r bad; do echo "$bad"; fail=1; done < <(check_links "$file")
    mapfile -t cmds < <(extract "$file")
    for row in "${cmds[@]}"; do
        IFS=$'\t' read -r line expect cmd <<<"$row"
        if [[ $line == error ]]; then
            echo "FAIL $name line $expect: $cmd"; fail=1; continue
        fi
        n=$((n + 1)) at=$name:$line
        small "$cmd"; run=$RUN
        if [[ $expect == skip:* ]]; then
            nskip=$((nskip + 1))
            table+=("$(printf '%-24s %-6s %6s  %s   [%s]' "$at" skip - "$cmd" "${expect#skip:}")"); continue
        fi
        if [[ -n ${seen["$expect $run"]:-} ]]; then
            nsame=$((nsame + 1))
            table+=("$(printf '%-24s %-6s %6s  %s   [as %s]' "$at" same - "$run" "${seen["$expect $run"]}")"); continue
        fi
        seen["$expect $run"]=$at
        if [[ $run == *build-mpich/* && ! -e $scratch/build-mpich ]]; then
            nskip=$((nskip + 1))
            table+=("$(printf '%-24s %-6s %6s  %s   [no build-mpich here]' "$at" skip - "$cmd")"); continue
        fi
        log=$logs/cmd.log
        t0=$EPOCHREALTIME
        (cd "$scratch" && timeout -k 5 120 bash -c "$run") >"$log" 2>&1 </dev/null
        rc=$?
        nrun=$((nrun + 1))
        dt=$(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }')
        why=""
        [[ $rc != "$expect" ]] && why="exit $rc, the file expects $expect"
        [[ $rc == 124 || $rc == 137 ]] && why="timed out (120 s)"
        grep -q '^verification: FAIL' "$log" && why="${why:+$why; }printed verification: FAIL"
        table+=("$(printf '%-24s %-6s %6s  %s' "$at" "$rc" "$dt" "$run")")
        if [[ -n $why ]]; then
            fail=1
            echo "FAIL $name line $line: $why: $run"
            tail -15 "$log" | sed 's/^/    | /'
        fi
    done
done
if [[ ${RMB_README_FULL:-0} != 1 ]]; then
    for i in "${!SIZE_RULES[@]}"; do
        [[ ${RULE_HITS[i]:-0} -gt 0 ]] && continue
        echo "FAIL size rule ${SIZE_RULES[$i]} matches no command (a file changed: update the table)"
        fail=1
    done
fi
after=$(ls -A "$scratch" | sort)
if [[ $before != "$after" ]]; then
    stray=$(comm -13 <(echo "$before") <(echo "$after") | grep -v -x results | tr '\n' ' ')
    [[ -n $stray ]] && { echo "FAIL written into the repository root (not under results/): $stray"; fail=1; }
fi
echo "commands of ${#files[@]} file(s): $n ($nrun run, $nsame the same as one run before, $nskip skipped) in $((SECONDS - t_all)) s; file:line, exit status, seconds, command as run:"
printf '%s\n' "${table[@]}"
[[ $n -gt 0 ]] || { echo "FAIL no command found in ${files[*]}"; fail=1; }

# Self-check (not when testing a self-check file): a file with a broken command, one whose
# expected failure does not fail, one with an unmarked command block, one that writes into the
# root and one with a broken link must each fail this test; a correct one (a heading and a link
# to it) must pass.
if [[ -z ${RMB_README:-} ]]; then
    tmp=$(mktemp -d /tmp/rmb-readme-self.XXXXXX)
    ok='# A heading\n\nSee [it](#a-heading).\n\n<!-- readme-test -->\n```sh\nmkdir -p results\nbuild/rmabench join --plan --ranks 4 --tuples-per-rank 1K\n```\n'
    printf '%b' "$ok"'<!-- readme-test -->\n```sh\nbuild/rmabench join --no-such-flag\n```\n' >"$tmp/broken.md"
    printf '%b' "$ok"'<!-- readme-test: exit 2 -->\n```sh\nbuild/rmabench join --plan --ranks 4\n```\n' >"$tmp/no-failure.md"
    printf '%b' "$ok"'\n    build/rmabench join --plan --ranks 4\n' >"$tmp/unmarked.md"
    printf '%b' "$ok"'<!-- readme-test -->\n```sh\nbuild/rmabench join --plan --ranks 4 >plan.txt\n```\n' >"$tmp/root-write.md"
    printf '%b' "$ok"'\nSee [there](good.md#no-such-heading).\n' >"$tmp/bad-link.md"
    printf '%b' "$ok" >"$tmp/good.md"
    for f in broken no-failure unmarked root-write bad-link good; do
        out=$(RMB_README=$tmp/$f.md RMB_README_FULL=1 "$self" "$root" "$bdir" 2>&1); rc=$?
        if [[ $f == good ]]; then
            [[ $rc == 0 ]] && echo "self-check: a correct file passes" ||
                { echo "FAIL self-check: a correct file failed:"; echo "$out" | sed 's/^/    | /'; fail=1; }
        elif [[ $rc != 0 ]] && grep -q '^FAIL .* line [0-9]*: \|^FAIL written into' <<<"$out"; then
            echo "self-check: the $f file fails: $(grep -m1 '^FAIL' <<<"$out")"
        else
            echo "FAIL self-check: a file with a $f command passed (exit $rc)"; fail=1
        fi
    done
    rm -rf "$tmp"
fi
[[ $fail == 0 ]] && echo "readme: PASS" || echo "readme: FAIL"
exit "$fail"
