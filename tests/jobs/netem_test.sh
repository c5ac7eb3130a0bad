#!/bin/bash
# jobs/netem.sh: bad input exits 2 with one line naming the flag; two hosts with links shaped to
# 16 Mbit/s move 2 MB between them at that rate (not faster, but for htb's 128 KiB burst and the
# clock starting at the first byte: at most 15% over; not much slower: the link bounds it), both directions of a link are shaped and counted by status,
# and down leaves no namespace behind. Exit 77 where namespaces are not allowed.
#   netem_test.sh SOURCE_ROOT
set -u
netem=$1/jobs/netem.sh
D=$(mktemp -d /tmp/rmb-netem-test.XXXXXX)
export RMB_NETEM_STATE=$D/state
name=nt$$ fail=0
cleanup() { "$netem" down --name "$name"; rm -rf "$D"; }
trap cleanup EXIT
bad() { # WANT ARGS...: exit 2, one line on stderr matching WANT
    "$netem" "${@:2}" >"$D/out" 2>"$D/err"
    local rc=$?
    if [[ $rc != 2 || $(wc -l <"$D/err") != 1 ]] || ! grep -q -- "$1" "$D/err"; then
        echo "FAIL: netem.sh ${*:2}: exit $rc, stderr: $(cat "$D/err")"; fail=1
    else echo "ok: netem.sh ${*:2}: $(cat "$D/err")"; fi
}
bad '--hosts: ' up --name "$name" --hosts 1
bad '--rate: ' up --name "$name" --hosts 2 --rate fast
bad '--name: ' up --name "Bad-Name" --hosts 2
bad 'no emulated network is up' status --name "$name"
bad 'unknown flag' up --name "$name" --hosts 2 --bogus 1
"$netem" up --name "$name" --hosts 2 --rate 16mbit >"$D/up" 2>&1
case $? in 0) ;; 77) echo "SKIP: $(tail -1 "$D/up")"; exit 77 ;; *) echo "FAIL: up: $(cat "$D/up")"; exit 1 ;; esac
bad 'already up' up --name "$name" --hosts 2
# 2 MB from host 1 to host 2 over TCP: at 16 Mbit/s on the wire (~15.2 of payload) about 1.1 s
cat >"$D/bw.py" <<'PY'
import socket, sys, time
if sys.argv[1] == "recv":
    s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1); s.bind(("0.0.0.0", 5077)); s.listen(1)
    c, _ = s.accept(); n = 0; t = None
    while True:
        b = c.recv(1 << 16)
        if not b: break
        t = t or time.time(); n += len(b)
    print(f"{n} {time.time() - t:.3f}")
else:
    for _ in range(50):
        try: c = socket.create_connection(("10.78.0.2", 5077)); break
        except OSError: time.sleep(0.05)
    c.sendall(b"x" * 2000000); c.close()
PY
"$netem" exec --name "$name" 2 /usr/bin/python3 "$D/bw.py" recv >"$D/recv" &
rpid=$!
"$netem" exec --name "$name" 1 /usr/bin/python3 "$D/bw.py" send
wait $rpid
read -r bytes secs <"$D/recv"
mbit=$(awk -v b="$bytes" -v s="$secs" 'BEGIN { printf "%.1f", b * 8 / s / 1e6 }')
echo "2 MB host1 -> host2: $bytes B in $secs s = $mbit Mbit/s (links 16mbit)"
awk -v m="$mbit" 'BEGIN { exit !(m <= 18.4 && m >= 10) }' || { echo "FAIL: $mbit Mbit/s is not the shaped 16 Mbit/s"; fail=1; }
"$netem" status --name "$name" | tee "$D/status"
# host 1 sent the 2 MB through its shaped egress, host 2 received them through its shaped port
awk '/^host1 /{ s = $4 } /^host2 /{ r = $7 } END { exit !(s >= 2000000 && r >= 2000000) }' "$D/status" ||
    { echo "FAIL: status does not count the 2 MB out of host1 and into host2"; fail=1; }
"$netem" down --name "$name"
left=$(ip netns list | awk '{print $1}' | grep -c "^$name" || true)
[[ $left == 0 && ! -e $D/state/$name ]] || { echo "FAIL: down left $left namespace(s) or the state directory"; fail=1; }
[[ $fail == 0 ]] && echo "netem test: ok"
exit $fail
