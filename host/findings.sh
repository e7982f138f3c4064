#!/bin/bash
# make findings: every kernel bug the suite found (topologies/known-issues/,
# the README's Findings table), on each kernel, run unfixed (patches/base)
# and with our fix, and printed as one table.  It fails when a fixed run
# fails, or when the unfixed kernel stops showing a bug it must show:
#   all   a deterministic bug: 1 run each, unfixed must fail it;
#   some  a rare one (a reclaim stall): FINDINGS_RUNS runs each, unfixed
#         must fail at least one of them;
#   rate  too rare, or not reproduced on that kernel, to be held to a
#         verdict in FINDINGS_RUNS runs: unfixed is only measured;
#   fix   a check of the fix alone (no unfixed run);
#   -     no port of the fix to that kernel: not run.
# With the fix every run must pass.
#   FINDINGS_RUNS=N      runs of each rare finding (default 4)
#   FINDINGS_ONLY=NAME   only that finding
#   PROVE_KERNELS="..."  the kernels (default: 6.1 and 6.12)
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root" || exit 2
runs=${FINDINGS_RUNS:-4}
only=${FINDINGS_ONLY:-}
kernels=${PROVE_KERNELS:-linux-source-6.1 linux-source-6.12}
out=build/findings
start=$(date +%s)

# name, topology (in topologies/), fix series, unfixed on 6.1, on 6.12.
# dmz-reclaim-capped: the dm-zoned fix with its cache capped at 8 blocks
# (a test-only patch), so that its flush-and-retry fallback carries the
# tests.
ki=known-issues
findings="
dmz-bad-primary        $ki/dm-zoned-bad-primary        fix-dmz-secondary-sb             all  all
dmz-bad-primary-2zones $ki/dm-zoned-bad-primary-2zones fix-dmz-secondary-sb             all  all
dmz-reclaim            $ki/dm-zoned-reclaim            fix-dmz-reclaim                  some some
dmz-reclaim-capped     dm-zoned                       fix-dmz-reclaim-tight-cache      fix  fix
drbd-reclaim           $ki/drbd-reclaim                fix-drbd-memalloc                some rate
raid10-reshape-frozen  $ki/raid10-reshape-frozen       fix-raid10-frozen-reshape-offset all  -
md-bioset              $ki/raid1-reclaim-6.12          fix-md-bioset-rescuer            -    rate
crypt-raid1-reclaim    $ki/crypt-raid1-reclaim-6.12    fix-dmcrypt-write-noreclaim      fix  some
raid1-delay-reclaim    $ki/raid1-delay-reclaim-6.12    fix-dmdelay-noreclaim            fix  some
"

case $runs in
'' | *[!0-9]* | 0) echo "findings: FINDINGS_RUNS=$runs: want a count" >&2; exit 2 ;;
esac
if [ -n "$only" ] &&
   ! awk -v n="$only" '$1 == n { f = 1 } END { exit !f }' <<<"$findings"; then
	echo "findings: FINDINGS_ONLY=$only: no such finding (want one of: $(awk 'NF {print $1}' <<<"$findings" | xargs))" >&2
	exit 2
fi
mkdir -p "$out"
rows=()
pass=0
fail=0

elapsed() {
	local s=$(($(date +%s) - start))

	printf '%dm%02ds' $((s / 60)) $((s % 60))
}

# run NAME KERNEL SERIES TOPOLOGY N: the runner's report in $out; prints
# "PASSED TOTAL" (topology runs that passed, runs with a verdict).
run() {
	local json=$out/$1-$2-$3.json log=$out/$1-$2-$3.log
	local total passed

	echo "=== findings: $1 on $2, $3, $5 run(s) ($(elapsed) elapsed); log $log" >&2
	rm -f "$json"
	./runner --kernel "$2" --topology "topologies/$4.ini" \
		--series "patches/$3" --repeat "$5" --json "$json" \
		>"$log" 2>&1
	if [ ! -s "$json" ]; then
		echo "=== findings: $1 on $2, $3: no report (the runner failed; see $log):" >&2
		tail -n 5 "$log" >&2
		echo "0 0"
		return
	fi
	total=$(grep -o '"verdict":"[A-Z]*"' "$json" | wc -l)
	passed=$(grep -o '"verdict":"PASS"' "$json" | wc -l)
	echo "$passed $total"
}

# finding NAME TOPOLOGY FIX KERNEL GATE
finding() {
	local n=$runs up=0 ut=0 fp ft uf verdict unfixed

	[ "$5" = all ] && n=1
	[ "$5" = fix ] ||
		read -r up ut <<<"$(run "$1" "$4" base "$2" "$n")"
	read -r fp ft <<<"$(run "$1" "$4" "$3" "$2" "$n")"
	uf=$((ut - up))
	verdict=ok
	if { [ "$5" != fix ] && [ "$ut" != "$n" ]; } || [ "$ft" != "$n" ]; then
		verdict="FAIL (a run had no verdict)"
	elif [ "$fp" != "$n" ]; then
		verdict="FAIL (fixed: $((ft - fp)) run(s) failed)"
	elif [ "$5" = all ] && [ "$uf" != "$n" ]; then
		verdict="FAIL (unfixed no longer shows it)"
	elif [ "$5" = some ] && [ "$uf" = 0 ]; then
		verdict="FAIL (unfixed showed it in none of $n runs)"
	elif [ "$5" = rate ]; then
		verdict="ok (unfixed measured only)"
	fi
	case $verdict in
	ok*) pass=$((pass + 1)) ;;
	*) fail=$((fail + 1)) ;;
	esac
	unfixed="bug in $uf of $ut"
	[ "$5" = fix ] && unfixed=-
	rows+=("$(printf '%-24s %-7s %-5s %-16s %-16s %s' "$1" \
		"${4#linux-source-}" "$5" "$unfixed" "pass $fp of $ft" \
		"$verdict")")
}

for k in $kernels; do
	while read -r name topo fix g1 g2; do
		[ -n "$name" ] || continue
		[ -z "$only" ] || [ "$only" = "$name" ] || continue
		gate=$g1
		[ "$k" = linux-source-6.12 ] && gate=$g2
		[ "$gate" = - ] && continue
		finding "$name" "$topo" "$fix" "$k" "$gate"
	done <<<"$findings"
done

echo
printf '%-24s %-7s %-5s %-16s %-16s %s\n' finding kernel gate unfixed fixed verdict
for r in "${rows[@]}"; do
	echo "$r"
done
echo "findings: $(elapsed) in all; reports in $out"
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
