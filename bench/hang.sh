#!/bin/bash
# make bench-hang: time to verdict for a hang and for an oops, before and
# after issue 29 (a hang or an oops answers in a minute), side by side in
# one run: the runner at OLD_REV (default b04fca6, the last one that
# waited for the topology's deadline) in a git worktree sharing our
# kernels, then this one, on each case.  Writes bench/HANG.md.
#   usage: bench/hang.sh [OLD_REV]
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
old_rev=${1:-b04fca6}
w=build/bench-hang
old=$w/old
K=topologies/known-issues

cleanup() { git worktree remove --force "$old" 2>/dev/null; git worktree prune; }
trap cleanup EXIT
rm -rf "$w"
git worktree prune
mkdir -p "$w"
git worktree add -q --detach "$old" "$old_rev" || exit 1
mkdir -p "$old/build/guest"
ln -s "$root/build/kernels" "$old/build/kernels"
ln -s "$root/build/src" "$old/build/src"
cp -a build/guest/drbd-utils "$old/build/guest/"
make -s all >/dev/null && make -s -C "$old" all >/dev/null || exit 1

# name | topology | series
cases="oops on base (dm-zoned bad primary sb)|$K/dm-zoned-bad-primary.ini|patches/base
oops replay (half the dm-zoned fix)|$K/dm-zoned-bad-primary-2zones.ini|patches/replay-dmz-fix-bound-only
hang: swap on dm-zoned under reclaim|$K/dm-zoned-reclaim.ini|patches/base
hang: swap on DRBD under reclaim (2 nodes)|$K/drbd-reclaim.ini|patches/base"

# One run: "VERDICT WALL HANG" (HANG: seconds from the first task's
# block, by the kernel's own report, to the verdict; - if none).
one() {
	local dir=$1 topo=$2 series=$3 log=$4 s e res
	s=$(date +%s.%N)
	STACKTEST_ROOT=$dir "$dir/build/bin/runner" --topology "$root/$topo" \
		--series "$root/$series" >"$log" 2>&1
	e=$(date +%s.%N)
	res=$(sed -n 's/^runner: results in //p' "$log")
	awk -v wall="$(echo "$e - $s" | bc)" -v log="$log" '
		/blocked for more than/ && !t {
			gsub(/[][]/, " "); t = $1 - $(NF - 1) }
		END {
			while ((getline l < log) > 0)
				if (l ~ / (PASS|FAIL|TIMEOUT|PANIC) +[0-9]+ passed/) {
					split(l, f, " +"); v = f[3] }
			printf "%s %.0f %s\n", v, wall,
				t ? sprintf("%.0f", wall - t) : "-" }' \
		$(ls "$res"/*/*/console*.log 2>/dev/null | head -1) /dev/null
}

{
	echo "# Time to verdict: hangs and oopses (make bench-hang)"
	echo
	echo "$(date -u +%F), this machine, TCG. Before: the runner at $old_rev;"
	echo "after: $(git rev-parse --short HEAD)$(git diff --quiet || echo ' (with changes)')."
	echo "Seconds of wall time for the whole run; \"after the hang began\": from"
	echo "the blocked task's last switch, by the kernel's own report, to the end."
	echo
	echo "| case | before: verdict, s (after the hang began) | after: verdict, s (after the hang began) |"
	echo "|---|---|---|"
} > $w/HANG.md
n=0
while IFS='|' read -r name topo series; do
	n=$((n + 1))
	echo "bench-hang: $name: before ($old_rev)"
	read -r bv bw bh < <(one "$root/$old" "$topo" "$series" $w/$n-old.log)
	echo "bench-hang: $name: after"
	read -r av aw ah < <(one "$root" "$topo" "$series" $w/$n-new.log)
	echo "| $name | $bv $bw s ($bh) | $av $aw s ($ah) |" >> $w/HANG.md
	tail -1 $w/HANG.md
done <<< "$cases"
cp $w/HANG.md bench/HANG.md
echo "bench-hang: wrote bench/HANG.md"
