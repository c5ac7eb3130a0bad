#!/bin/sh
# `rmabench calibrate` at 2 ranks writes a parameter file that rmamodel reads back.
#   calibrate_check.sh MPI_CHECK MPIRUN RMABENCH RMAMODEL
set -u
mpi_check=$1; mpirun=$2; rmabench=$3; rmamodel=$4
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail=0
# window allocation and first touch measured at 2M tuples per rank (at the joins' 16M: 10 s more)
"$mpi_check" "$mpirun" 2 --timeout 150 --grep '^wrote ' --grep '^host steal: [0-9]+\.[0-9]% of the CPU time' -- "$rmabench" calibrate --output "$tmp/params.txt" \
    --tuples-per-rank 2M --tuples 256K --membw-bytes 32M >"$tmp/cal.out" 2>&1 ||
    { cat "$tmp/cal.out"; exit 1; }
cat "$tmp/cal.out" "$tmp/params.txt"
# each rate's spread over its rounds is in the file; every warning on stderr (spread above 10%) is a
# comment in the file too, and only a parameter whose recorded spread is above 10% has one
for key in P_scan P_merge t_local_comm t_vote; do
    grep -Eq "^$key = [0-9.e+-]+  # [^ ]+  spread [0-9.]+% over [0-9]+ rounds \(min " "$tmp/params.txt" ||
        { echo "FAIL: no spread recorded for $key"; fail=1; }
done
grep '^rmabench: calibrate: warning: ' "$tmp/cal.out" | sed 's/^rmabench: calibrate: warning: //' | while read -r line; do
    grep -Fqx "# warning: $line" "$tmp/params.txt" || { echo "FAIL: warning not in the file: $line"; exit 1; }
done || fail=1
awk '/^[A-Za-z_]+ = .*spread [0-9.]+%/ { match($0, /spread [0-9.]+%/); v = substr($0, RSTART + 7, RLENGTH - 8) + 0
         name = $1; warned = 0; while ((getline l < FILENAME) > 0) if (index(l, "# warning: " name " ") == 1) warned = 1
         close(FILENAME); if ((v > 10) != warned) { print "FAIL: " name " spread " v "%, warned " warned; bad = 1 } }
     END { exit bad }' "$tmp/params.txt" || fail=1
for key in mpi_library hosts ranks_per_host P_scan P_partition P_build P_probe P_sort_run P_merge P_match bw_put_intra \
           t_win_alloc_per_byte t_local_comm t_vote t_clean_up bw_mem_read bw_mem_write bw_mem_copy; do
    grep -Eq "^$key = " "$tmp/params.txt" || { echo "FAIL: $key missing"; fail=1; }
done
grep -q '^ranks = 2$' "$tmp/params.txt" || { echo "FAIL: ranks = 2 missing"; fail=1; }
# every parameter measured by a primitive names its micro-benchmark and size in the file
for key in P_scan P_partition P_partition_incache P_partition_local P_build P_probe P_partition_range P_pack P_sort_run P_sort_radix P_merge \
           P_match P_match_r P_match_s P_match_r_many P_match_s_many P_count_range P_scan_alone P_partition_alone P_partition_local_alone P_build_alone P_probe_alone P_partition_range_alone \
           P_pack_alone P_sort_run_alone P_sort_radix_alone P_merge_alone P_match_alone P_count_range_alone t_touch_per_byte t_server t_ack t_agent bw_put_64 bw_put_1048576; do
    grep -Eq "^$key = [0-9.e+-]+  # [^ ]+  .*bench: [^;]*[0-9]" "$tmp/params.txt" || { echo "FAIL: $key names no benchmark and size"; fail=1; }
done
# thesis Fig. 3.7: the put bandwidth at every message size, within the host (one host: no host curve)
for b in 64 256 1024 4096 16384 65536 262144 1048576; do
    grep -Eq "^bw_put_$b = [0-9.e+-]+  # GB/s" "$tmp/params.txt" || { echo "FAIL: bw_put_$b missing"; fail=1; }
    grep -q "^bw_put_host_$b = " "$tmp/params.txt" && { echo "FAIL: bw_put_host_$b measured on one host"; fail=1; }
done
# the network pass's puts: through the joins' send buffers to its remote partitions at 2 ranks and
# the calibrated fan-out (round-robin owners: half of them), timed inside the calls
bits=$(sed -n 's/^partition_bits = \([0-9]*\) .*/\1/p' "$tmp/params.txt")
if [ -z "$bits" ]; then
    echo "FAIL: partition_bits missing"; fail=1
else
    dests=$(( (1 << bits) / 2 ))
    grep -Eq "^bw_put_net = [0-9.e+-]+  # GB/s  .*bench: [0-9]+ x \(.* to $dests partitions \(rma/putbuf\).*bytes / time in the calls" \
        "$tmp/params.txt" || { echo "FAIL: bw_put_net not measured to $dests partitions in the calls: $(grep '^bw_put_net' "$tmp/params.txt")"; fail=1; }
fi
# the machine's state at calibration (rma/floor.h), or the reason it is missing
grep -Eq "^t_floor_rtt = [0-9.e+-]+  # us  .*bench: rma_floor_round_trip_us between ranks 0 and 1" "$tmp/params.txt" ||
    grep -q "^rmabench: calibrate: t_floor_rtt not measured: " "$tmp/cal.out" || { echo "FAIL: t_floor_rtt missing, and no reason given"; fail=1; }
for key in t_fao_local t_server t_ack t_agent cores_per_host; do
    grep -Eq "^$key = " "$tmp/params.txt" || { echo "FAIL: $key missing"; fail=1; }
done
# the ranks' spread on equal work: from the least disturbed repetition of each compute primitive both ranks ran,
# a fraction (not a percentage: a phase's wait is this times E[max of 2 normals] = 0.564 of it)
grep -Eq "^rank_spread = [0-9.e+-]+  # fraction  bench: mean \(slowest - mean\) / mean of the 2 ranks' times, the least disturbed repetition of [1-9][0-9]* compute primitives .* / 0\.5642 " "$tmp/params.txt" ||
    { echo "FAIL: rank_spread missing or not from the 2 ranks' repetitions: $(grep '^rank_spread' "$tmp/params.txt")"; fail=1; }
awk '/^rank_spread = / { exit !($3 >= 0 && $3 < 1) }' "$tmp/params.txt" || { echo "FAIL: rank_spread outside [0, 1)"; fail=1; }
# two ranks on one host: the pair pinned to one CPU (Linux) gives t_shared_comm, slower than t_local_comm
if [ "$(uname -s)" = Linux ]; then
    sh=$(sed -n 's/^t_shared_comm = \([0-9.e+-]*\) .*pinned to CPU.*/\1/p' "$tmp/params.txt")
    lc=$(sed -n 's/^t_local_comm = \([0-9.e+-]*\) .*/\1/p' "$tmp/params.txt")
    [ -n "$sh" ] && awk -v s="$sh" -v l="$lc" 'BEGIN { exit !(s > l) }' ||
        { echo "FAIL: t_shared_comm ($sh) missing or not above t_local_comm ($lc)"; fail=1; }
fi
# window_alloc's fixed part with the pair pinned to one CPU: measured where the library's waits are
# a crowded run's (MPICH always; Open MPI only when it yields, as mpirun makes it when oversubscribing)
if [ "$(uname -s)" = Linux ]; then
    ws=$(sed -n 's/^t_win_alloc_shared = \([0-9.e+-]*\) .*pinned to CPU.*/\1/p' "$tmp/params.txt")
    wf=$(sed -n 's/^t_win_alloc_fixed = \([0-9.e+-]*\) .*/\1/p' "$tmp/params.txt")
    if grep -q '^mpi_library = .*MPICH' "$tmp/params.txt"; then
        [ -n "$ws" ] && awk -v s="$ws" -v f="$wf" 'BEGIN { exit !(s > f) }' ||
            { echo "FAIL: t_win_alloc_shared ($ws) missing or not above t_win_alloc_fixed ($wf) under MPICH"; fail=1; }
    elif [ -n "$ws" ] && ! grep -q '^t_win_alloc_shared = .*the library yielding' "$tmp/params.txt"; then
        echo "FAIL: t_win_alloc_shared measured with Open MPI spinning (crowded runs yield)"; fail=1
    fi
fi
# calibration times primitives, never a join's phase functions
src=$(dirname "$0")/../../cmd/calibrate
if grep -nE '\b(radix_network_partition|smj_sort_phase|smj_range_partition|radix_windows_alloc|radix_histogram_phase)\(' "$src"/*.c; then
    echo "FAIL: calibrate calls a join phase function"; fail=1
fi
# an implausible rate (faster than a memory copy of its bytes) is a warning on stderr and in the file
grep '^rmabench: calibrate: warning: implausible: ' "$tmp/cal.out" | sed 's/^rmabench: calibrate: //' | while read -r line; do
    grep -Fqx "# $line" "$tmp/params.txt" || { echo "FAIL: implausible rate not in the file: $line"; exit 1; }
done || fail=1
# every rate positive
awk -F'[=#]' '/^P_/ { if ($2 + 0 <= 0) { print "FAIL: " $0; bad = 1 } } END { exit bad }' "$tmp/params.txt" || fail=1
for algo in radix sortmerge; do
    "$rmamodel" join --algo $algo --params "$tmp/params.txt" --ranks 2 --ranks-per-host 2 --tuples-per-rank 1M >"$tmp/out" 2>&1 ||
        { echo "FAIL: rmamodel join --algo $algo"; fail=1; }
    cat "$tmp/out"
    grep -Eq '^total_with_alloc +[0-9]' "$tmp/out" || { echo "FAIL: no total_with_alloc ($algo)"; fail=1; }
done
"$rmamodel" lock --params "$tmp/params.txt" --agents 2 --locks-per-txn 4 --remote-prob 0 | tee "$tmp/out" | grep -q '^t_tx: ' ||
    { echo "FAIL: rmamodel lock"; fail=1; }
# the memory roofline from the file (bw_mem_*): the join's phase table compares with it, no measurement
"$mpi_check" "$mpirun" 2 --timeout 60 --pass 1 --grep '^# roofline \(model .*params.txt\): read [0-9.]+, write [0-9.]+, copy ' \
    --grep '^network_partition +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9]+$' -- \
    "$rmabench" join --algo radix --tuples-per-rank 200K --model "$tmp/params.txt" >"$tmp/out" 2>&1 ||
    { cat "$tmp/out"; echo "FAIL: join --model with bw_mem_*"; fail=1; }
# One host measures no inter-host terms: each command still answers, naming the default profile
grep -q '^bw_host = ' "$tmp/params.txt" && { echo "FAIL: bw_host measured on one host"; fail=1; }
grep -q '^net_overlap = ' "$tmp/params.txt" && { echo "FAIL: net_overlap measured on one host"; fail=1; }
for args in "join --algo radix --ranks 16 --ranks-per-host 8 --tuples-per-rank 1M" \
            "lock --agents 4 --locks-per-txn 4 --remote-prob 0.5" "cores-per-host --algo sortmerge"; do
    "$rmamodel" $args --params "$tmp/params.txt" >"$tmp/out" 2>&1 || { echo "FAIL: rmamodel $args"; fail=1; }
    cat "$tmp/out"
    grep -Eq '^# default profile thesis .*(bw_host|t_remote_comm) = ' "$tmp/out" ||
        { echo "FAIL: rmamodel $args does not name the default profile"; fail=1; }
done
# one rank per host (here: one rank): t_local_comm is still measured, to the rank itself, and says so
"$mpi_check" "$mpirun" 1 --timeout 60 --grep '^wrote ' -- "$rmabench" calibrate --tuples 64K --repeats 1 --rounds 2 \
    --tuples-per-rank 1M --output "$tmp/one.txt" >"$tmp/out" 2>&1 || { cat "$tmp/out"; fail=1; }
grep -Eq '^t_local_comm = [0-9.e+-]+  # us  .*measured by rank 0 to itself' "$tmp/one.txt" ||
    { echo "FAIL: t_local_comm not measured at one rank per host"; cat "$tmp/one.txt"; fail=1; }
[ $fail -eq 0 ] && echo "calibrate_check: all passed"
exit $fail
