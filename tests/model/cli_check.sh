#!/bin/sh
# rmamodel without MPI: the thesis' numbers through the CLI, and bad input (exit 2, one line naming
# the flag or FILE:LINE). Also `rmabench calibrate`'s bad flags, which fail before MPI_Init.
# And the thesis' scale-out from its machine's parameter file (rmamodel thesis), calibrations pooled
# (rmamodel pool) and a run predicted again from its model inputs (--shape).
#   cli_check.sh RMAMODEL RMABENCH SOURCE_ROOT
set -u
rmamodel=$1; rmabench=$2; root=$3
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail=0
# expect EXIT REGEX CMD...: exit status and output (stdout+stderr) must match; bad input = one line
expect() {
    want=$1; re=$2; shift 2
    "$@" >"$tmp/out" 2>&1; rc=$?
    if [ "$rc" -ne "$want" ]; then echo "FAIL: exit $rc (want $want): $*"; cat "$tmp/out"; fail=1; return; fi
    if ! grep -Eq -- "$re" "$tmp/out"; then echo "FAIL: output lacks /$re/: $*"; cat "$tmp/out"; fail=1; return; fi
    if [ "$want" -eq 2 ] && [ "$(wc -l <"$tmp/out")" -ne 1 ]; then echo "FAIL: not one line: $*"; cat "$tmp/out"; fail=1; fi
}
T42="--set P_scan=225 --set P_partition=120 --set P_partition_local=120 --set P_build=210 --set P_probe=210 --set bw_host=12.48 --set wire_tuple_bytes=8"
expect 0 '^total +2\.0698 ' $rmamodel join --algo radix --ranks 1024 --ranks-per-host 8 --tuples-per-rank 40M $T42
expect 0 '^bound: compute-bound' $rmamodel join --algo radix --ranks 1024 --ranks-per-host 8 --tuples-per-rank 40M $T42
expect 0 '^bound: network-bound' $rmamodel join --algo radix --ranks 1024 --ranks-per-host 16 --tuples-per-rank 40M $T42
expect 0 '^sort +1\.7778 ' $rmamodel join --algo sortmerge --ranks 1024 --ranks-per-host 8 --tuples-per-rank 40M \
    --set P_scan=370 --set P_partition_range=120 --set P_sort_run=45 --set P_merge=270 --set P_match=370 --set merge_depth=3 \
    --set bw_host=12.48 --set wire_tuple_bytes=8
L51="--set t_local_comm=3 --set t_remote_comm=5.6 --set t_queue=0.5 --set t_vote=8.5 --set t_clean_up=2.5"
expect 0 '^t_tx: 73\.511 us' $rmamodel lock --agents 1260 --locks-per-txn 10 --remote-prob 0.05 $L51
expect 0 '^throughput: 17\.14' $rmamodel lock --agents 1260 --locks-per-txn 10 --remote-prob 0.05 $L51
expect 0 '^recommended: 7 ' $rmamodel cores-per-host --set bw_host=6.0 --set wire_tuple_bytes=8 --set P_partition=110
# a parameter file with a units line read back, then a malformed one
printf 'P_scan = 225 # Mtuples/s\nP_partition = 120\nP_partition_local=120\nP_build = 210\nP_probe = 210\n' >"$tmp/p.txt"
expect 0 '^histogram +0\.0005 ' $rmamodel join --params "$tmp/p.txt" --ranks 1 --ranks-per-host 1 --tuples-per-rank 60K
printf 'P_scan = 225\n\nP_partition 120\n' >"$tmp/bad.txt"
expect 2 "^rmamodel: --params: .*bad\.txt:3: expected 'name = value'$" $rmamodel join --params "$tmp/bad.txt" --ranks 1 --ranks-per-host 1 --tuples-per-rank 1M
printf '# x\nP_sacn = 225\n' >"$tmp/bad2.txt"
expect 2 "bad2\.txt:2: unknown parameter 'P_sacn'" $rmamodel lock --params "$tmp/bad2.txt" --agents 1 --locks-per-txn 1 --remote-prob 0
expect 2 'nonexistent\.txt: cannot open' $rmamodel lock --params "$tmp/nonexistent.txt" --agents 1 --locks-per-txn 1 --remote-prob 0
# values the equations divide by: zero or negative is refused, never printed as inf
expect 2 "^rmamodel: --set: P_scan: 0 is not positive" $rmamodel join --algo radix --ranks 1024 --ranks-per-host 8 --tuples-per-rank 40M $T42 --set P_scan=0
expect 2 "^rmamodel: --set: wire_tuple_bytes: 0 is below 1" $rmamodel cores-per-host --set bw_host=6.0 --set wire_tuple_bytes=0 --set P_partition=110
expect 2 "^rmamodel: --set: t_clean_up: -1 is not positive" $rmamodel lock --agents 1260 --locks-per-txn 10 --remote-prob 0.05 $L51 --set t_clean_up=-1
printf 'P_scan = 225\nbw_host = 0  # GB/s\n' >"$tmp/zero.txt"
expect 2 "zero\.txt:2: bw_host: 0 is not positive" $rmamodel cores-per-host --params "$tmp/zero.txt" --set wire_tuple_bytes=8 --set P_partition=110
# bad flags
expect 2 '^rmamodel: --ranks: ' $rmamodel join --ranks 0 --ranks-per-host 1 --tuples-per-rank 1M
expect 2 '^rmamodel: --tuples-per-rank: required' $rmamodel join --ranks 2 --ranks-per-host 1
expect 2 '^rmamodel: --ranks-per-host: does not divide' $rmamodel join --ranks 3 --ranks-per-host 2 --tuples-per-rank 1M
expect 2 '^rmamodel: --merge-bands: must be 0 \(the rule.s count\) or a power of two up to 64$' $rmamodel join --algo sortmerge --ranks 2 --ranks-per-host 2 --tuples-per-rank 1M --merge-bands 3
expect 2 '^rmamodel: --merge-bands: ' $rmamodel join --algo sortmerge --ranks 2 --ranks-per-host 2 --tuples-per-rank 1M --merge-bands 128
# flags of the other algorithm, and questions without an answer, are refused rather than ignored
expect 2 '^rmamodel: --merge-bands: a flag of the sort-merge join; --algo radix does not take it$' $rmamodel join --ranks 2 --ranks-per-host 2 --tuples-per-rank 1M --merge-bands 4
expect 2 '^rmamodel: --hosts: 1 host sends no tuple over the network' $rmamodel cores-per-host --set bw_host=6.0 --set wire_tuple_bytes=8 --set P_partition=110 --hosts 1
# implausible and cut-short parameter files: one line naming the parameter and its range
expect 2 '^rmamodel: --set: rank_spread: 1e\+300 is outside its plausible range \[0, 10\] fraction$' $rmamodel join --algo radix --ranks 1024 --ranks-per-host 8 --tuples-per-rank 40M $T42 --set rank_spread=1e300
expect 2 '^rmamodel: --set: P_build: 1e\+308 is outside its plausible range \[0, 1e\+07\] Mtuples/s$' $rmamodel join --algo radix --ranks 1024 --ranks-per-host 8 --tuples-per-rank 40M $T42 --set P_build=1e308
printf 'P_scan = 225\ncores_per_host = 2.5\n' >"$tmp/frac.txt"
expect 2 'frac\.txt:2: cores_per_host: 2\.5 is not a whole number of cores$' $rmamodel cores-per-host --params "$tmp/frac.txt" --set bw_host=6.0 --set wire_tuple_bytes=8 --set P_partition=110
printf 'P_scan = 225\nP_partition = 12' >"$tmp/cut.txt"
expect 2 'cut\.txt:2: the last line has no newline' $rmamodel cores-per-host --params "$tmp/cut.txt" --set bw_host=6.0 --set wire_tuple_bytes=8
mkfifo "$tmp/fifo.txt"
expect 2 '^rmamodel: --params: .*fifo\.txt: not a regular file \(a FIFO\)$' timeout 10 $rmamodel lock --params "$tmp/fifo.txt" --agents 1 --locks-per-txn 1 --remote-prob 0
expect 2 '^rmamodel: --remote-prob: ' $rmamodel lock --agents 1 --locks-per-txn 1 --remote-prob 1.5
expect 2 '^rmamodel: --algo: ' $rmamodel join --algo hash --ranks 1 --ranks-per-host 1 --tuples-per-rank 1M
expect 2 '^rmamodel: --bogus: unknown flag' $rmamodel lock --bogus
expect 2 '^rmamodel: --set: .*NAME=VALUE' $rmamodel lock --set t_vote --agents 1 --locks-per-txn 1 --remote-prob 0
expect 2 "^rmamodel: --set: unknown parameter 'x'" $rmamodel lock --set x=1 --agents 1 --locks-per-txn 1 --remote-prob 0
expect 2 '^rmamodel: .*t_queue .*is not set' $rmamodel lock --agents 1 --locks-per-txn 1 --remote-prob 0
expect 2 "^rmamodel: 'frob': unknown command" $rmamodel frob
expect 2 '^rmabench: --output: required' $rmabench calibrate
expect 2 '^rmabench: --output: /nonexistent-dir/p\.txt: cannot create: ' $rmabench calibrate --output /nonexistent-dir/p.txt
expect 2 "^rmabench: --output: $tmp: not a regular file \(a directory\)\$" $rmabench calibrate --output "$tmp"
expect 2 '^rmabench: --tuples: ' $rmabench calibrate --output "$tmp/x.txt" --tuples 5
expect 2 "^rmabench: --model: .*bad\.txt:3: expected 'name = value'" $rmabench join --model "$tmp/bad.txt"
printf 'P_scan = 225\n' >"$tmp/partial.txt"
expect 2 '^rmabench: --model: .*P_partition .*is not set' $rmabench join --algo radix --model "$tmp/partial.txt"
# A one-host calibration (no bw_host, no t_remote_comm): every command answers, the default
# profile named once on stdout with each value it supplied, and only for what the file lacks.
cat >"$tmp/onehost.txt" <<'PARAMS'
hosts = 1
P_scan = 900 # Mtuples/s
P_partition = 150
P_partition_local = 200
P_build = 300
P_probe = 250
P_partition_range = 100
P_sort_run = 40
P_merge = 200
P_match = 500
merge_depth = 1
wire_tuple_bytes = 8 # B
bw_put_intra = 4 # GB/s
t_local_comm = 0.4 # us
t_queue = 0
t_vote = 1.5
t_clean_up = 0.6
PARAMS
prof='^# default profile thesis .*'
expect 0 "${prof}bw_host = 6 GB/s \(thesis 3\.5, FDR InfiniBand" $rmamodel join --algo radix --params "$tmp/onehost.txt" --ranks 1024 --ranks-per-host 8 --tuples-per-rank 40M
expect 0 '^# parameters: .*onehost\.txt \+ profile thesis \(bw_host\)' $rmamodel join --algo sortmerge --params "$tmp/onehost.txt" --ranks 16 --ranks-per-host 8 --tuples-per-rank 1M
expect 0 "${prof}t_remote_comm = 3 us \(t_local_comm \+ 2\.6 us" $rmamodel lock --params "$tmp/onehost.txt" --agents 1260 --locks-per-txn 10 --remote-prob 0.05
expect 0 "${prof}bw_host = 6 GB/s" $rmamodel cores-per-host --params "$tmp/onehost.txt" --algo radix
# --set wins over the profile, and one host or 0% remote needs none of it
for args in "join --ranks 8 --ranks-per-host 8 --tuples-per-rank 1M" "lock --agents 4 --locks-per-txn 4 --remote-prob 0" \
            "cores-per-host --set bw_host=10"; do
    $rmamodel $args --params "$tmp/onehost.txt" >"$tmp/out" 2>&1 || { echo "FAIL: rmamodel $args"; cat "$tmp/out"; fail=1; }
    if grep -q 'profile' "$tmp/out"; then echo "FAIL: default profile used by rmamodel $args"; cat "$tmp/out"; fail=1; fi
done
# rmabench lock --model takes --set as rmamodel does (the run itself: mpi/lock-model); bad ones exit 2 before MPI
expect 2 "^rmabench: --set: unknown parameter 'x'\$" $rmabench lock --model "$tmp/onehost.txt" --set x=1
expect 2 '^rmabench: --set: t_queue: -1 is negative$' $rmabench lock --model "$tmp/onehost.txt" --set t_queue=-1
expect 2 '^rmabench: --set: needs NAME=VALUE$' $rmabench lock --model "$tmp/onehost.txt" --set
expect 2 '^rmabench: --set: only with --model' $rmabench lock --set t_queue=1
expect 0 '^  --set +NAME=VALUE: override a --model parameter' $rmabench lock --help
# the thesis' runs from its machine's parameters (Table 4.2): radix compute-bound at 8 ranks a node,
# 2 x 40M x 1024 / 2.0698 s = 39.6 G tuples/s at 1024 cores, beside Table 4.2's measured 4.34 s
expect 0 '^  1024 +39\.6 +18\.9\* +21\.8 +14\.4\* +compute$' $rmamodel thesis --params "$root/model/thesis_xc30.txt"
expect 0 '^  4096 +158\.3 +48\.7 +87\.0 +43\.5 +compute$' $rmamodel thesis --params "$root/model/thesis_xc30.txt"
expect 0 '^network_partition +2\.08 +0\.67 +0\.67 +-1\.41$' $rmamodel thesis --params "$root/model/thesis_xc30.txt"
expect 0 '^merge +1\.81 +1\.78 +0\.89 +-0\.92$' $rmamodel thesis --params "$root/model/thesis_xc30.txt"
expect 2 '^rmamodel: --params: required' $rmamodel thesis
# pool: the fastest of a rate (P_scan 420) and of a time (t_local_comm 0.2), the median of a derived
# one (P_probe 120 of 90, 120, 150), the first of a shape; calibrations of other runs refused
printf 'mpi_library = Open MPI\nranks_per_host = 2\nP_scan = 300\nt_local_comm = 0.5\nP_probe = 150\npartition_bits = 4\n' >"$tmp/c1.txt"
printf 'mpi_library = Open MPI\nranks_per_host = 2\nP_scan = 420\nt_local_comm = 0.2\nP_probe = 90\npartition_bits = 4\n' >"$tmp/c2.txt"
printf 'mpi_library = Open MPI\nranks_per_host = 2\nP_scan = 390\nt_local_comm = 0.3\nP_probe = 120\npartition_bits = 4\n' >"$tmp/c3.txt"
expect 0 '^pooled 3 calibration' $rmamodel pool --output "$tmp/pool.txt" "$tmp/c1.txt" "$tmp/c2.txt" "$tmp/c3.txt"
for want in '^P_scan = 420 ' '^t_local_comm = 0\.2 ' '^P_probe = 120 ' '^partition_bits = 4 '; do
    grep -Eq "$want" "$tmp/pool.txt" || { echo "FAIL: the pool lacks /$want/"; cat "$tmp/pool.txt"; fail=1; }
done
printf 'mpi_library = MPICH\nranks_per_host = 2\nP_scan = 300\n' >"$tmp/c4.txt"
expect 2 'calibrations of different runs do not pool' $rmamodel pool --output "$tmp/pool2.txt" "$tmp/c1.txt" "$tmp/c4.txt"
expect 2 '^rmamodel: --output: required' $rmamodel pool "$tmp/c1.txt"
expect 2 '^rmamodel: pool: no calibration given' $rmamodel pool --output "$tmp/pool2.txt"
# --shape: a run's inputs; bad text refused naming the key
expect 0 '^total,' $rmamodel join --algo radix --params "$tmp/pool.txt" --set P_partition=400 --set P_partition_local=700 --set P_build=600 \
    --shape "ranks=2 ranks_per_host=2 r_tuples=2e6 s_tuples=2e6 local_passes=1 tuple_bytes=8" --csv
expect 2 "^rmamodel: --shape: 'bogus': an unknown key" $rmamodel join --algo radix --params "$tmp/pool.txt" --shape "ranks=2 bogus=1"
expect 2 '^rmamodel: --shape: gives the ranks' $rmamodel join --algo radix --params "$tmp/pool.txt" --shape "ranks=2" --ranks 2
expect 0 '^throughput,' $rmamodel lock --params "$tmp/onehost.txt" --shape "agents=1 servers=1 locks_per_txn=10 one_host=1" --csv
expect 2 '^rmamodel: --csv: with --shape only' $rmamodel lock --params "$tmp/onehost.txt" --agents 1 --locks-per-txn 1 --remote-prob 0 --csv
[ $fail -eq 0 ] && echo "cli_check: all passed"
exit $fail
