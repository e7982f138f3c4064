#!/bin/sh
# Make sure every package in host/packages (or each one named as an
# argument: the runner's --kernel linux-source-X.Y) is installed: as root,
# install what is missing with apt-get; otherwise print the exact command
# and fail.
set -eu
here=$(dirname "$0")
# STACKTEST_PACKAGES: another list (./runner's for a run from a kernel
# artifact, host/packages-run; the harness's own tests).
list=${STACKTEST_PACKAGES:-$here/packages}
if [ $# -gt 0 ]; then
	pkgs=$*
else
	pkgs=$(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$list")
fi
missing=
for p in $pkgs; do
	st=$(dpkg-query -W -f='${db:Status-Abbrev}' "$p" 2>/dev/null || true)
	case $st in
	ii*) ;;
	*) missing="$missing $p" ;;
	esac
done
[ -z "$missing" ] && exit 0
if [ "$(id -u)" != 0 ]; then
	echo "runner: missing Debian packages:$missing" >&2
	echo "runner: install them with: sudo apt-get install -y$missing" >&2
	exit 1
fi
echo "runner: installing missing packages:$missing"
export DEBIAN_FRONTEND=noninteractive
apt-get update -q >/dev/null || true
if ! apt-get install -y -q --no-install-recommends $missing; then
	echo "runner: could not install:$missing (see apt-get's message above)" >&2
	exit 1
fi
