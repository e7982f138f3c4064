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
rm -rf "$store" $out/kstore-aside
./runner --build-only >$out/store-put.log 2>&1
key=$(sed -n 's/^kernel: \([0-9a-f]*\) kept in the kernel store .*/\1/p' \
	$out/store-put.log)
[ -n "$key" ] && [ build/kernels/$key/bzImage -ef "$store/$key/bzImage" ] &&
	[ build/kernels/$key/src/Makefile -ef "$store/$key/src/Makefile" ]
ok $? "a built kernel is kept in the store, hard-linked (${key:-none})" \
	$out/store-put.log
[ "$(cat "$store/$key/compiler" 2>/dev/null)" = "$(gcc -dumpfullversion)" ]
ok $? "the entry names the compiler that built it"

# As in a fresh clone: no kernel folder for the key, the store has it.
mv build/kernels/$key $out/kstore-aside
t0=$SECONDS
./runner --build-only >$out/store-get.log 2>&1
rc=$?
t=$((SECONDS - t0))
[ $rc = 0 ] && grep -q "^kernel: $key taken from the kernel store " \
	$out/store-get.log && ! grep -q '^kernel: building' $out/store-get.log
ok $? "a build folder without the kernel takes it from the store (${t} s)" \
	$out/store-get.log
cmp -s $out/kstore-aside/bzImage build/kernels/$key/bzImage &&
	[ -s build/kernels/$key/src/out/System.map ] &&
	[ "$(cat build/kernels/$key/tree 2>/dev/null)" = "$(cat $out/kstore-aside/tree 2>/dev/null)" ]
ok $? "it is the same image, with its objects and where they were built"
rm -rf $out/kstore-aside

STACKTEST_KERNEL_STORE= ./runner --build-only >$out/store-none.log 2>&1
[ $? = 0 ] && ! grep -q 'kernel store' $out/store-none.log
ok $? "STACKTEST_KERNEL_STORE= (empty) uses no store" $out/store-none.log
rm -rf "$store"

echo "store: $pass passed, $fail failed"
[ "$fail" = 0 ]
