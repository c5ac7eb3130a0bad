#!/bin/bash
# Every design of the radix network pass that `rmabench join --list-exchanges` names, with every
# --schedule it takes, joins correctly at 3 ranks with 256-byte messages and one buffer per
# partition (pieces split into many messages, one credit per pair); a design that takes no
# schedule refuses one, exit 2. So a new design (joins/radix/exchange.h) is run and checked here
# without a line of its own.
#   every_exchange.sh MPI_CHECK MPIRUN RMABENCH
set -u
mpi_check=$1 mpirun=$2 rmabench=$3
mapfile -t designs < <("$rmabench" join --list-exchanges)
fail=0 runs=0
[[ ${#designs[@]} -ge 4 && ${designs[0]} == "put as-is" ]] || { echo "FAIL: --list-exchanges: ${designs[*]}"; exit 1; }
for line in "${designs[@]}"; do
    ex=${line%% *} schedules=(${line#* })
    for sc in "${schedules[@]}"; do
        runs=$((runs + 1))
        "$mpi_check" "$mpirun" 3 --pass 1 --matches 30000 --timeout 120 -- "$rmabench" join --algo radix \
            --tuples-per-rank 10K --exchange "$ex" --schedule "$sc" --buffer-size 256 --buffers-per-partition 1 ||
            { echo "FAIL: --exchange $ex --schedule $sc"; fail=1; }
    done
    if [[ ${#schedules[@]} == 1 ]]; then
        err=$("$rmabench" join --exchange "$ex" --schedule random 2>&1 >/dev/null)
        rc=$?
        if [[ $rc == 2 && $err == "rmabench: --schedule: random orders the peers of --exchange "*"; $ex has no peer order" ]]; then
            echo "ok: --exchange $ex refuses --schedule random: $err"
        else
            echo "FAIL: --exchange $ex --schedule random: exit $rc, '$err'"
            fail=1
        fi
    fi
done
echo "$runs runs of ${#designs[@]} designs"
exit $fail
