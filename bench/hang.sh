#!/bin/bash
# make bench-hang: time to verdict for a hang and for an oops, before and
# after issue 29 (a hang or an oops answers in a minute), side by side in
# one run: the runner at OLD_REV (default b04fca6, the last one that
# waited for the topology's deadline) in a git worktree sharing our
# kernels, then this one, on each case.  Writes bench/HANG.md.
#   usage: bench/hang.sh [OLD_REV]
#          bench/hang.sh --table [OLD_REV]   (the table again from the last
#                                            run's logs, nothing run)
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
table=
[ "${1:-}" = --table ] && table=1 && shift
old_rev=${1:-b04fca6}
w=build/bench-hang
old=$w/old
K=topologies/known-issues

cleanup() { git worktree remove --force "$old" 2>/dev/null; git worktree prune; }
if [ -z "$table" ]; then
	trap cleanup EXIT
	rm -rf "$w"
	git worktree prune
	mkdir -p "$w"
	git worktree add -q --detach "$old" "$old_rev" || exit 1
	mkdir -p "$old/build/guest"
	ln -s "$root/build/kernels" "$old/build/kernels"
	ln -s "$root/build/src" "$old/build/src"
	cp -a build/guest/drbd-utils "$old/build/guest/"
	# The old runner's results outlive its worktree (the table reads them).
	mkdir -p "$w/old-results"
	ln -s "$root/$w/old-results" "$old/build/results"
	make -s all >/dev/null && make -s -C "$old" all >/dev/null || exit 1
fi

# name | topology | series | kernel
cases="oops: dm-zoned's bad primary super block, 6.1|$K/dm-zoned-bad-primary.ini|patches/base|linux-source-6.1
oops: the same on 6.12|$K/dm-zoned-bad-primary.ini|patches/base|linux-source-6.12
hang: swap on dm-zoned under reclaim, 6.1|$K/dm-zoned-reclaim.ini|patches/base|linux-source-6.1
hang: swap on DRBD under reclaim (2 nodes), 6.1|$K/drbd-reclaim.ini|patches/base|linux-source-6.1
hang replay: md's flush active_io leak, 6.1|topologies/reconfig-raid1-writethrough.ini|patches/replay-md-flush-active-io-leak|linux-source-6.1|new"

# One run: "VERDICT WALL AFTER".  WALL: the guest's wall time, from
# QEMU's start to its end (the runner's own figure).  AFTER: WALL less
# the event's stamp in the guest's log (its uptime, a little behind
# QEMU's start): the first oops line, or the blocked task's last switch
# (its report's stamp less the seconds it gives), in either node's log;
# - if neither.
one() {
	local dir=$1 topo=$2 series=$3 kernel=$4 log=$5 res
	[ -n "$table" ] ||
		STACKTEST_ROOT=$dir "$dir/build/bin/runner" --topology "$root/$topo" \
			--series "$root/$series" --kernel "$kernel" \
			</dev/null >"$log" 2>&1
	res=$(sed -n 's/^runner: results in //p' "$log")
	if [ -n "$table" ]; then
		res=$(cat "$log.res")
	else
		res=$(readlink -f "$res")
		echo "$res" > "$log.res"
	fi
	awk -v lf="$log" '
		/blocked for more than/ && !t {
			l = $0; gsub(/[][]/, " ", l); split(l, f, " +")
			n = split(l, g, " +")
			t = f[2] - g[n - 1] }
		/\] (Oops|BUG: |kernel BUG at|general protection fault)/ && !t {
			l = $0; gsub(/[][]/, " ", l); split(l, f, " +"); t = f[2] }
		END {
			while ((getline l < lf) > 0)
				if (l ~ / (PASS|FAIL|TIMEOUT|PANIC|CRASH) +[0-9]+ passed/) {
					split(l, f, " +"); v = f[3]
					sub(/s wall, init.*/, "", l); sub(/.* /, "", l)
					w = l }
			printf "%s %.0f %s\n", v, w,
				t ? sprintf("%.0f s", w - t) : "-" }' \
		$(ls "$res"/*/*/console*.log 2>/dev/null) /dev/null
}

{
	echo "# Time to verdict: hangs and oopses (make bench-hang)"
	echo
	echo "$(date -u +%F), this machine, TCG. Before: the runner at $old_rev;"
	[ -n "$table" ] || echo "$(git rev-parse --short HEAD)$(git diff --quiet || echo ' (with changes)')" > $w/rev
	echo "after: $(cat $w/rev 2>/dev/null || echo '?')."
	echo "Seconds of the guest's wall time, QEMU's start to its end (the"
	echo "runner's own figure; the host's KVM probe and setup come before it)."
	echo "In brackets, from the event to the end: that wall time less the"
	echo "event's stamp in the guest's log, the oops, or the blocked task's last"
	echo "switch (the hung-task report's stamp less the seconds it gives)."
	echo
	echo "| case | before: verdict, s (after the event) | after: verdict, s (after the event) |"
	echo "|---|---|---|"
} > $w/HANG.md
n=0
while IFS='|' read -r name topo series kernel only; do
	n=$((n + 1))
	# A case the old runner cannot read (a key it does not know) would
	# wait for the topology's whole deadline there.
	bv="(not run: the old runner cannot read it; its deadline is" bw="$(sed -n 's/^timeout = //p' "$topo")" bh="s)"
	if [ -z "$only" ]; then
		echo "bench-hang: $name: before ($old_rev)"
		read -r bv bw bh < <(one "$root/$old" "$topo" "$series" "$kernel" $w/$n-old.log)
	fi
	echo "bench-hang: $name: after"
	read -r av aw ah < <(one "$root" "$topo" "$series" "$kernel" $w/$n-new.log)
	if [ -z "$only" ]; then
		echo "| $name | $bv $bw s ($bh) | $av $aw s ($ah) |" >> $w/HANG.md
	else
		echo "| $name | $bv $bw $bh | $av $aw s ($ah) |" >> $w/HANG.md
	fi
	tail -1 $w/HANG.md
done <<< "$cases"
cp $w/HANG.md bench/HANG.md
echo "bench-hang: wrote bench/HANG.md"
