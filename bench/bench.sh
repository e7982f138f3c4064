#!/bin/bash
# make bench: measure the pre-merge check on this machine and write
# bench/RESULTS.md.  Not part of make check (it takes a cold kernel build).
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
w=build/bench
# Builds are what it times: none may come from the kernel store.
export STACKTEST_KERNEL_STORE=
rm -rf $w
mkdir -p $w
t() { local s=$(date +%s.%N); "$@" > $w/last.log 2>&1; echo "$(date +%s.%N) - $s" | bc; }

echo "bench: cold kernel build (ccache off, an extra fragment with a fresh key)"
echo "# bench $(date +%s): changes the build key, no option" > $w/cold.config
cold=$(CCACHE_DISABLE=1 t ./runner --build-only --config-fragment $w/cold.config)
rm -rf "build/kernels/$(sed -n 's/.*kernel \([0-9a-f]*\) built.*/\1/p' $w/last.log)"

echo "bench: a second series changing one file (ccache warm)"
mkdir -p $w/one-file
sed "s/^Subject: .*/Subject: [PATCH] bench $(date +%s)/" \
	patches/replay-2014-rw-page/0001-*.patch > $w/one-file/0001-bench.patch
echo 0001-bench.patch > $w/one-file/series
./runner --build-only >/dev/null
second=$(t ./runner --build-only --series $w/one-file)
key=$(sed -n 's/.*kernel \([0-9a-f]*\) built.*/\1/p' $w/last.log)
grep -q 'objects seeded' $w/last.log && seeded=yes || seeded=no
cp "build/kernels/$key/bzImage" $w/bzImage.seeded
rm -rf "build/kernels/$key"
echo "bench: the same series built from scratch (STACKTEST_NO_SEED=1, ccache warm)"
scratch=$(STACKTEST_NO_SEED=1 t ./runner --build-only --series $w/one-file)
cmp -s "build/kernels/$key/bzImage" $w/bzImage.seeded && same=yes || same=no
rm -rf "build/kernels/$key"

echo "bench: the base kernel for a build folder without it: built (ccache warm), then from the kernel store"
key=$(./runner --build-only | sed -n 's/.*kernel \([0-9a-f]*\) \(built\|cached\).*/\1/p')
[ -n "$key" ] || { echo "bench: no base kernel"; exit 1; }
mv "build/kernels/$key" $w/base-aside
fresh=$(t ./runner --build-only)
STACKTEST_KERNEL_STORE=$root/$w/store ./runner --build-only >/dev/null
rm -rf "build/kernels/$key"
stored=$(STACKTEST_KERNEL_STORE=$root/$w/store t ./runner --build-only)
grep -q 'taken from the kernel store' $w/last.log &&
	cmp -s "build/kernels/$key/bzImage" $w/base-aside/bzImage && fromstore=yes || fromstore=no
rm -rf "build/kernels/$key" $w/store
mv $w/base-aside "build/kernels/$key"

echo "bench: every topology, one at a time (--jobs 1)"
all1=$(t ./runner --all --accel tcg --jobs 1)
cp $w/last.log $w/all-jobs1.log
echo "bench: every topology, two at a time (--jobs 2)"
all2=$(t ./runner --all --accel tcg --jobs 2)
cp $w/last.log $w/all-jobs2.log

printf 'cold=%s\nsecond=%s\nscratch=%s\nseeded=%s\nsame=%s\nfresh=%s\nstored=%s\nfromstore=%s\nall1=%s\nall2=%s\n' \
	"$cold" "$second" "$scratch" "$seeded" "$same" "$fresh" "$stored" "$fromstore" "$all1" "$all2" > $w/times
bench/report.sh
