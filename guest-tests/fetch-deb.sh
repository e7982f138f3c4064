#!/bin/sh
# Fetch a Debian package and unpack it (dpkg -x) without installing it on
# the host: drbd-utils would add a modules-load.d entry that loads drbd
# into the host's own kernel at boot, and nothing of ours may do that.
# usage: fetch-deb.sh PACKAGE DIR   (DIR/root gets the files)
set -eu
pkg=$1 dir=$2
rm -rf "$dir.tmp"
mkdir -p "$dir.tmp"
trap 'rm -rf "$dir.tmp"' EXIT
# (apt-get warns that _apt cannot write here; the download is fine.)
if ! (cd "$dir.tmp" && apt-get download -q "$pkg" 2>&1 >/dev/null |
	grep -v 'unsandboxed as root' >&2; exit "$(cat /dev/null)0"); then
	echo "fetch-deb: cannot download Debian package '$pkg' (apt-get download $pkg)" >&2
	exit 1
fi
dpkg -x "$dir.tmp"/"$pkg"_*.deb "$dir.tmp/root"
touch "$dir.tmp/ok"	# make's stamp: fetched and unpacked
rm -rf "$dir"
mv "$dir.tmp" "$dir"
trap - EXIT
