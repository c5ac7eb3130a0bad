#!/bin/sh
# Configure (once) and build rmabench against both MPI libraries, what the benchmarks run:
#   build/        Open MPI (the default `mpirun` on Debian)
#   build-mpich/  MPICH
# scripts/build.sh --tests also builds what only the tests use (scripts/test.sh builds them itself):
#   build-nonuma/ Open MPI without libnuma (-Dnuma=disabled): only its numa suite is tested, so
#                 only what that suite runs is built
#   build-asan/   Open MPI with AddressSanitizer + UndefinedBehaviorSanitizer (tests/sanitizers/):
#                 what its unit and asan suites run
#   build-fuzz/   clang, libFuzzer + ASan/UBSan, Open MPI: the fuzz targets (tests/fuzz/), only
#                 what the fuzz suite runs; only when clang and its libFuzzer runtime
#                 (libclang-rt-dev) are installed
# scripts/build.sh DIR... builds just those of the directories above.
# The mutation suite needs no build of its own: it copies build/ and build-mpich/ (tests/mutants/).
set -eu
case ${1:-} in
-h | --help) sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
--tests) [ $# -eq 1 ] || { echo "$(basename "$0"): --tests takes no directory" >&2; exit 2; }
    set -- build build-mpich build-nonuma build-asan build-fuzz ;;
'') set -- build build-mpich ;;
esac
for dir in "$@"; do
    case $dir in
    build | build-mpich | build-nonuma | build-asan | build-fuzz) ;;
    *) echo "$(basename "$0"): $dir: unknown argument (--tests, or build directories; see --help)" >&2; exit 2 ;;
    esac
done
cd "$(dirname "$0")/.."
configure() { # dir, options...
    dir=$1; shift
    if [ ! -f "$dir/build.ninja" ]; then
        meson setup "$dir" -Dwerror=true "$@" >"/tmp/rmabench-setup-$(basename "$dir").log" 2>&1 ||
            { cat "/tmp/rmabench-setup-$(basename "$dir").log"; exit 1; }
    fi
}
setup() { # dir, options...: configure and build everything
    configure "$@"
    ninja -C "$1" >/dev/null || ninja -C "$1"
    echo "build: $1 ok"
}
# setup_suite suite[,suite] dir, options...: configure, then build only the targets the suites' tests
# depend on (their programs, and what they declare with depends:). A directory tested by one suite
# needs no more: the other programs and tests are built and tested in build/.
setup_suite() {
    suite=$1; shift
    configure "$@"
    targets=$(/usr/bin/python3 -c '
import json, os, sys
build, suites = os.path.abspath(sys.argv[1]), set(sys.argv[2].split(","))
with open(os.path.join(build, "meson-info", "intro-tests.json")) as f:
    tests = [t for t in json.load(f) if any(s.split(":")[-1] in suites for s in t["suite"])]
with open(os.path.join(build, "meson-info", "intro-targets.json")) as f:
    targets = json.load(f)
ids = {d for t in tests for d in t["depends"]}
print(" ".join(os.path.relpath(p, build) for t in targets if t["id"] in ids for p in t["filename"]))
' "$1" "$suite") || exit 1
    # shellcheck disable=SC2086
    ninja -C "$1" $targets >/dev/null || ninja -C "$1" $targets
    echo "build: $1 ok (only what suite(s) $suite run)"
}
for dir in "$@"; do
    case $dir in
    build) setup build -Dmpi=openmpi ;;
    build-mpich) setup build-mpich -Dmpi=mpich ;;
    build-nonuma) setup_suite numa build-nonuma -Dmpi=openmpi -Dnuma=disabled ;;
    build-asan)
        setup_suite unit,asan build-asan -Dmpi=openmpi -Db_sanitize=address,undefined -Db_lundef=false \
            -Dbuildtype=debugoptimized ;;
    build-fuzz)
        if command -v clang >/dev/null 2>&1 &&
           echo 'int LLVMFuzzerTestOneInput(const char *d, long n) { return d && n; }' |
           clang -x c -fsanitize=fuzzer -o /dev/null - >/dev/null 2>&1; then
            CC=clang; export CC   # read by meson at configure time only
            setup_suite fuzz build-fuzz -Dmpi=openmpi -Db_sanitize=address,undefined -Db_lundef=false -Dbuildtype=debugoptimized \
                -Dc_args=-fsanitize=fuzzer-no-link
            unset CC
        else
            echo "build: build-fuzz skipped (no clang with libFuzzer)"
        fi ;;
    esac
done
