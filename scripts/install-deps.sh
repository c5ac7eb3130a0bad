#!/bin/sh
# Install the Debian/Ubuntu packages rmabench needs, skipping those already present.
# Non-interactive; uses sudo when not root.
set -eu
case ${1:-} in
-h | --help) sed -n '2,3p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
?*) echo "$(basename "$0"): $1: unknown argument (none taken; see --help)" >&2; exit 2 ;;
esac
pkgs="build-essential pkg-config git meson ninja-build
openmpi-bin libopenmpi-dev mpich libmpich-dev
libnuma-dev numactl hwloc
python3 python3-matplotlib python3-numpy
clang libclang-rt-14-dev valgrind
slurm-wlm munge iproute2 util-linux procps"
missing=""
for p in $pkgs; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
        missing="$missing $p"
    fi
done
if [ -z "$missing" ]; then
    echo "install-deps: all packages present"
    exit 0
fi
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
echo "install-deps: installing$missing"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
# shellcheck disable=SC2086
$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $missing >/dev/null
echo "install-deps: done"
