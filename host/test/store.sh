#!/bin/bash
# The kernel store: a kernel built in one build folder is kept, hard-linked,
# and a build folder without it (a fresh clone's) takes it from there in
# seconds instead of building it again.  Uses a store of its own and the
# base kernel the raid10 step built.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
out=build/check
. host/test/lib.sh

export STACKTEST_KERNEL_STORE=$root/$out/kstore
store=$STACKTEST_KERNEL_STORE
aside=$out/kstore-aside
# A kernel folder moved aside and not brought back by the store returns.
restore() {
	[ -n "${key:-}" ] && [ -d $aside ] && [ ! -e build/kernels/$key/ok ] &&
		rm -rf build/kernels/$key && mv $aside build/kernels/$key
	rm -rf $aside "$store"
}
trap restore EXIT
rm -rf "$store"
./runner --build-only >$out/store-put.log 2>&1
key=$(sed -n 's/^kernel: \([0-9a-f]*\) kept in the kernel store .*/\1/p' \
	$out/store-put.log)
[ -n "$key" ] && [ build/kernels/$key/bzImage -ef "$store/$key/bzImage" ] &&
	[ build/kernels/$key/src/Makefile -ef "$store/$key/src/Makefile" ]
ok $? "a built kernel is kept in the store, hard-linked (${key:-none})" \
	$out/store-put.log
grep -qx "$(gcc -dumpfullversion)" "$store/$key/toolchain" 2>/dev/null &&
	grep -q '^GNU ld' "$store/$key/toolchain"
ok $? "the entry names the toolchain that built it"
if [ -z "$key" ]; then
	echo "store: $pass passed, $((fail + 3)) failed (no kernel kept: the rest not run)"
	exit 1
fi

# As in a fresh clone: no kernel folder for the key, the store has it.
rm -rf $aside
mv build/kernels/$key $aside
t0=$SECONDS
./runner --build-only >$out/store-get.log 2>&1
rc=$?
t=$((SECONDS - t0))
[ $rc = 0 ] && grep -q "^kernel: $key taken from the kernel store " \
	$out/store-get.log && ! grep -q '^kernel: building' $out/store-get.log
ok $? "a build folder without the kernel takes it from the store (${t} s)" \
	$out/store-get.log
cmp -s $aside/bzImage build/kernels/$key/bzImage &&
	[ -s build/kernels/$key/src/out/System.map ] &&
	[ "$(cat build/kernels/$key/tree)" = "$(cat $aside/tree)" ]
ok $? "it is the same image, with its objects and where they were built"

STACKTEST_KERNEL_STORE= ./runner --build-only >$out/store-none.log 2>&1
[ $? = 0 ] && ! grep -q 'kernel store' $out/store-none.log
ok $? "STACKTEST_KERNEL_STORE= (empty) uses no store" $out/store-none.log

echo "store: $pass passed, $fail failed"
[ "$fail" = 0 ]
