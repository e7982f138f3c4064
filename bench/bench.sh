#!/bin/bash
# make bench: measure the pre-merge check on this machine and write
# bench/RESULTS.md.  Not part of make check (it takes a cold kernel build).
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
w=build/bench
rm -rf $w
mkdir -p $w
t() { local s=$(date +%s.%N); "$@" > $w/last.log 2>&1; echo "$(date +%s.%N) - $s" | bc; }

echo "bench: cold kernel build (ccache off, a fragment with a fresh key)"
{ cat guest-tests/kernel.config; echo "# bench $(date +%s)"; } > $w/cold.config
cold=$(CCACHE_DISABLE=1 t ./runner --build-only --config-fragment $w/cold.config)
rm -rf "build/kernels/$(sed -n 's/.*kernel \([0-9a-f]*\) built.*/\1/p' $w/last.log)"

echo "bench: a second series changing one file (ccache warm)"
mkdir -p $w/one-file
sed "s/^Subject: .*/Subject: [PATCH] bench $(date +%s)/" \
	patches/replay-2014-rw-page/0001-*.patch > $w/one-file/0001-bench.patch
echo 0001-bench.patch > $w/one-file/series
second=$(t ./runner --build-only --series $w/one-file)
rm -rf "build/kernels/$(sed -n 's/.*kernel \([0-9a-f]*\) built.*/\1/p' $w/last.log)"

echo "bench: every topology, one guest at a time"
./runner --build-only >/dev/null
all=$(t ./runner --all --accel tcg)
cp $w/last.log $w/all.log
peak=$(sed -n 's/^runner: peak memory of one child process: //p' $w/all.log)

{
	echo "# Benchmark, $(date -u +%Y-%m-%d), $(nproc) cores, $(free -g | awk '/Mem:/{print $2}') GiB, TCG"
	echo
	echo "| measurement | result | goal |"
	echo "|---|---|---|"
	printf '| cold kernel build (tinyconfig + fragment, -j%s, no ccache) | %.0f s | - |\n' "$(nproc)" "$cold"
	printf '| rebuild for a second series changing one file | %.0f s | 90 s |\n' "$second"
	printf '| whole --all matrix, one guest at a time | %.0f s | 300 s |\n' "$all"
	echo "| --all with --jobs 2 | not measured: --jobs is not implemented yet | 300 s |"
	echo "| peak memory of one child (QEMU) | $peak | - |"
	echo
	echo "Per topology (wall from QEMU start; PID 1's uptime when it started; wall to its first KTAP line; goal for boot to first test: 3 s):"
	echo
	echo "| topology | verdict | wall | init at (guest uptime) | first KTAP (wall) |"
	echo "|---|---|---|---|---|"
	sed -nE 's/^[^ ]+ +([^ ]+) +([A-Z]+) .* ([0-9.]+)s wall, init at ([0-9.-]+)s uptime, first KTAP at ([0-9.-]+)s wall/| \1 | \2 | \3 s | \4 s | \5 s |/p' $w/all.log
} > bench/RESULTS.md
cat bench/RESULTS.md
