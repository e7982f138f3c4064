#!/bin/sh
# Build the guest's base initramfs from the host's own Debian binaries
# (with the shared libraries ldd names) and our static programs.
# usage: mkinitramfs.sh OUT.cpio.gz STAGING_DIR GUEST_BIN_DIR TOOL...
set -eu
# A staging folder of this invocation's own: two makes at once (two
# runners started together) must not build into each other's tree.
out=$1 stage=$2.$$ bindir=$3
here=$(cd "$(dirname "$0")" && pwd)
shift 3

trap 'rm -rf "$stage" "$out.tmp.$$"' EXIT
rm -rf "$stage"
mkdir -p "$stage"
cd "$stage"
mkdir -p dev proc sys tmp run mnt etc usr/bin usr/sbin usr/lib usr/lib64
# Debian 12 is merged-/usr: keep the same shape in the guest.
ln -s usr/bin bin
ln -s usr/sbin sbin
ln -s usr/lib lib
ln -s usr/lib64 lib64

# Put a host file at its /usr path in the guest, following symlinks.
put() {
	case $1 in
	/usr/*) dst=.$1 ;;
	*) dst=./usr$1 ;;
	esac
	mkdir -p "$(dirname "$dst")"
	[ -e "$dst" ] || cp -L "$1" "$dst"
}

# The shared libraries of a binary: ldd prints "lib => /path (addr)" or
# "/path (addr)".
put_libs() {
	for lib in $(ldd "$1" 2>/dev/null | sed -n 's/.*=> \(\/[^ ]*\).*/\1/p; s/^[[:space:]]*\(\/[^ ]*\) (.*/\1/p'); do
		put "$lib"
	done
}

for tool in "$@"; do
	path=$(command -v "$tool" || true)
	if [ -z "$path" ]; then
		echo "mkinitramfs: '$tool' not found on this host" >&2
		exit 1
	fi
	put "$path"
	put_libs "$path"
done

# drbd-utils, unpacked (not installed) by fetch-deb.sh: drbdadm switches
# to /lib/drbd/drbdadm-84 for the in-tree DRBD 8.4 by itself.
for f in sbin/drbdadm sbin/drbdsetup sbin/drbdmeta lib/drbd/drbdadm-84 \
	lib/drbd/drbdsetup-84; do
	mkdir -p "usr/$(dirname "$f")"
	cp "$DRBD_ROOT/$f" "usr/$f"
	put_libs "$DRBD_ROOT/$f"
done

cp /bin/busybox usr/bin/busybox
for applet in sh ls cat dmesg ip; do
	ln -s busybox "usr/bin/$applet"
done
cp /etc/mke2fs.conf etc/
mkdir -p etc/lvm
cp "$here/lvm.conf" etc/lvm/lvm.conf
cp "$bindir/init" init
for prog in "$bindir"/*; do
	[ "$(basename "$prog")" = init ] || cp "$prog" usr/bin/
done

find . -mindepth 1 | LC_ALL=C sort | cpio --quiet -o -H newc -R 0:0 --reproducible | gzip -n -6 > "$out.tmp.$$"
mv "$out.tmp.$$" "$out"
