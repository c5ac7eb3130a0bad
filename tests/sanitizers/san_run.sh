#!/bin/sh
# Runs one rank of an MPI test of the sanitizer build:  san_run.sh KEEP_LOADED_SO PROGRAM ARGS...
# The sanitizer options themselves come from the build's default test setup
# (tests/sanitizers/meson.build); here only the dlclose shim is preloaded, into the rank alone, so
# that LeakSanitizer can name MPI's plug-ins (tests/sanitizers/keep_loaded.c).
keep=$1; shift
LD_PRELOAD=$keep${LD_PRELOAD:+ $LD_PRELOAD} exec "$@"
