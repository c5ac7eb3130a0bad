#!/bin/sh
# Configure (once) and build rmabench against both MPI libraries, what the benchmarks run:
#   build/        Open MPI (the default `mpirun` on Debian)
#   build-mpich/  MPICH
# scripts/build.sh --tests also builds what only the tests use (scripts/test.sh calls it):
#   build-nonuma/ Open MPI without libnuma (-Dnuma=disabled): only its numa suite is tested
#   build-asan/   Open MPI with AddressSanitizer + UndefinedBehaviorSanitizer (tests/sanitizers/)
#   build-fuzz/   clang, libFuzzer + ASan/UBSan, Open MPI: the fuzz targets (tests/fuzz/); only
#                 when clang and its libFuzzer runtime (libclang-rt-dev) are installed
# The mutation suite needs no build of its own: it copies build/ and build-mpich/ (tests/mutants/).
set -eu
tests=0
case ${1:-} in
-h | --help) sed -n '2,10p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
--tests) tests=1 ;;
?*) echo "$(basename "$0"): $1: unknown argument (only --tests; see --help)" >&2; exit 2 ;;
esac
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
setup build -Dmpi=openmpi
setup build-mpich -Dmpi=mpich
[ "$tests" -eq 1 ] || exit 0
setup build-nonuma -Dmpi=openmpi -Dnuma=disabled
setup build-asan -Dmpi=openmpi -Db_sanitize=address,undefined -Db_lundef=false -Dbuildtype=debugoptimized
if command -v clang >/dev/null 2>&1 &&
   echo 'int LLVMFuzzerTestOneInput(const char *d, long n) { return d && n; }' |
   clang -x c -fsanitize=fuzzer -o /dev/null - >/dev/null 2>&1; then
    CC=clang; export CC   # read by meson at configure time only
    setup build-fuzz -Dmpi=openmpi -Db_sanitize=address,undefined -Db_lundef=false -Dbuildtype=debugoptimized \
        -Dc_args=-fsanitize=fuzzer-no-link
    unset CC
else
    echo "build: build-fuzz skipped (no clang with libFuzzer)"
fi
