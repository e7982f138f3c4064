#!/bin/sh
# Build the guest's base initramfs from our static programs and the host's
# own Debian binaries (with the shared libraries ldd names).  Which tools
# go in is not listed here: each layer kind names the tools it runs (init
# --describe) and each test the tools it requires (TEST --describe).
# usage: mkinitramfs.sh OUT.cpio.gz STAGING_DIR GUEST_BIN_DIR PROGRAM...
# (the test programs, named relative to GUEST_BIN_DIR, besides its init)
# TOOL_ROOTS: folders of unpacked packages (drbd-utils) searched first.
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

# Put a file at its /usr path in the guest (guest path $2), following symlinks.
put() {
	case $2 in
	/usr/*) dst=.$2 ;;
	*) dst=./usr$2 ;;
	esac
	mkdir -p "$(dirname "$dst")"
	[ -e "$dst" ] || cp -L "$1" "$dst"
}

# The shared libraries of a binary: ldd prints "lib => /path (addr)" or
# "/path (addr)".
put_libs() {
	for lib in $(ldd "$1" 2>/dev/null | sed -n 's/.*=> \(\/[^ ]*\).*/\1/p; s/^[[:space:]]*\(\/[^ ]*\) (.*/\1/p'); do
		put "$lib" "$lib"
	done
}

# Where a tool is: an absolute guest path, or a name in PATH; the
# unpacked packages first, then the host.
find_tool() {
	for r in $(echo "${TOOL_ROOTS:-}" | tr ':' ' '); do
		case $1 in
		/*) for p in "$r$1" "$r/usr$1"; do
			[ -f "$p" ] && { echo "$p"; return; }
		    done ;;
		*) for d in usr/sbin usr/bin sbin bin; do
			[ -f "$r/$d/$1" ] && { echo "$r/$d/$1"; return; }
		   done ;;
		esac
	done
	case $1 in
	/*) [ -f "$1" ] && echo "$1" ;;
	*) command -v "$1" || true ;;
	esac
}

cp /bin/busybox usr/bin/busybox
for applet in sh ls cat dmesg ip; do
	ln -s busybox "usr/bin/$applet"
done

for prog in init "$@"; do
	if ! "$bindir/$prog" --describe >>describe; then
		echo "mkinitramfs: $bindir/$prog --describe failed" >&2
		exit 1
	fi
done
tools=$(sed -n 's/^requires tool //p' describe | sort -u)
rm describe
for tool in $tools; do
	case $tool in
	/*) guest=$tool ;;
	*) [ -e "usr/bin/$tool" ] && continue	# a busybox applet
	   guest= ;;
	esac
	path=$(find_tool "$tool")
	if [ -z "$path" ]; then
		echo "mkinitramfs: tool '$tool' (a layer's or a test's) not found on this host" >&2
		exit 1
	fi
	[ -n "$guest" ] || guest=/usr/bin/$tool
	case $path in
	*/sbin/*) guest=/usr/sbin/$tool ;;
	esac
	put "$path" "$guest"
	put_libs "$path"
done

cp /etc/mke2fs.conf etc/
mkdir -p etc/lvm
cp "$here/lvm.conf" etc/lvm/lvm.conf
cp "$bindir/init" init
for prog in "$@"; do
	mkdir -p "usr/bin/$(dirname "$prog")"
	cp "$bindir/$prog" "usr/bin/$prog"
done

find . -mindepth 1 | LC_ALL=C sort | cpio --quiet -o -H newc -R 0:0 --reproducible | gzip -n -6 > "$out.tmp.$$"
mv "$out.tmp.$$" "$out"
