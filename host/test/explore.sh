#!/bin/bash
# runner --explore and --replay, end to end: a walk on base passes and
# keeps its trace; replaying the trace runs the same steps; a committed
# trace (topologies/traces/) replays; bad input is a clear error before
# anything boots.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
out=build/check/explore
rm -rf "$out"
mkdir -p "$out"
. host/test/lib.sh

# The results folder a run printed ("runner: results in DIR").
results_of() {
	sed -n 's/^runner: results in //p' "$1" | tail -n 1
}

steps_of() {	# the step lines of a trace, without their numbers
	grep '^step ' "$1" | sed -E 's/^step [0-9]+ //'
}

walk() {	# walk NAME ARGS...: the run passes, its trace is kept
	local name=$1 log=$out/$1.log
	shift
	./runner "$@" >"$log" 2>&1
	ok $? "$name: ./runner $*" "$log"
}

walk raid10-walk --explore 1 --steps 120 --topology raid10
trace=$(results_of "$out/raid10-walk.log")/base/raid10/explore.trace
[ -f "$trace" ] && [ "$(grep -c '^step ' "$trace")" = 120 ] &&
	grep -qx 'passed' "$trace" && grep -qx 'seed 1' "$trace"
ok $? "the walk's trace holds its 120 steps, its seed and its verdict" "$trace"
# Layer operations were drawn: members failed, faulted, put back.
[ "$(grep -c '+ md ' "$trace")" -ge 10 ]
ok $? "the walk drew md operations ($(grep -c '+ md ' "$trace") of them)" "$trace"

walk raid10-replay --replay "$trace"
again=$(results_of "$out/raid10-replay.log")/base/raid10/explore.trace
cmp -s <(steps_of "$trace") <(steps_of "$again")
ok $? "--replay ran the same 120 steps" "$again"

# Guided: the profiler's first counts steer the draws, and say so.
walk raid10-guided --explore 3 --steps 120 --guided --topology raid10
glog=$(results_of "$out/raid10-guided.log")/base/raid10/ktap.log
first=$(sed -n 's/.*walk coverage: [0-9]* of [0-9]* traced functions counted, \([0-9]*\) of them first by the walk.*/\1/p' "$glog")
[ "${first:-0}" -ge 1 ] && grep -q 'walk coverage: step [0-9]* counted .* first (credit: ' "$glog"
ok $? "the guided walk counted ${first:-no} traced functions first and credited the draws" "$glog"

# dm's operations (suspend, reload under I/O) on dm-crypt over md.
walk crypt-raid1-walk --explore 2 --steps 40 --topology crypt-raid1

# Every committed trace replays on base (a regression test each).
for t in topologies/traces/*.trace; do
	[ -f "$t" ] || continue
	walk "replay-$(basename "$t" .trace)" --replay "$t"
done


bad seed-not-a-number '--explore x: the seed is not a number' \
	--explore x --topology raid10
bad steps-without-explore '--steps and --time bound a walk' \
	--steps 3 --topology raid10
bad guided-without-explore '--guided steers a new walk: it wants --explore SEED' \
	--guided --topology raid10
bad swap-on-top 'raid1-swapdev cannot be walked: its top is swap' \
	--explore 1 --topology raid1-swapdev
bad two-nodes 'drbd cannot be walked: it has two nodes' \
	--explore 1 --topology drbd
sed 's/^topology raid10$/topology raid5/' "$trace" >"$out/other-topology.trace"
bad other-topology 'was recorded on topology raid5, not raid10' \
	--replay "$out/other-topology.trace" --topology raid10
bad replay-all "runs the trace's own topology: not with --all" \
	--replay "$trace" --all
sed 's/^kernel .*/kernel 5.10.0/' "$trace" >"$out/other-kernel.trace"
bad other-kernel 'was recorded on kernel 5.10.0; this one is' \
	--replay "$out/other-kernel.trace"
{ sed '/^step /d' "$trace"; echo 'step 1 + md explode md0'; } >"$out/bad-op.trace"
bad unknown-operation "bad-op.trace:[0-9]+: md has no operation 'explode'" \
	--replay "$out/bad-op.trace"
{ sed '/^step /d' "$trace"; echo 'step 1 + dm-crypt suspend crypt0 10'; } >"$out/bad-kind.trace"
bad kind-not-in-stack "layer kind 'dm-crypt' is not in topology raid10" \
	--replay "$out/bad-kind.trace"
{ sed '/^step /d' "$trace"; echo 'step 1 Q 0 4096'; } >"$out/bad-io.trace"
bad unknown-io "unknown or malformed operation 'Q 0 4096'" \
	--replay "$out/bad-io.trace"
{ sed '/^step /d' "$trace"; echo 'step 1 W 1 4096 x 5'; } >"$out/misaligned.trace"
bad misaligned-io "misaligned.trace:[0-9]+: unknown or malformed operation 'W 1 4096 x 5'" \
	--replay "$out/misaligned.trace"
sed 's/^seed 1$/seed one/' "$trace" >"$out/bad-seed.trace"
bad trace-seed "bad-seed.trace:4: seed 'one' is not a number" \
	--replay "$out/bad-seed.trace"

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
