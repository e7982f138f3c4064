#!/bin/bash
# Write bench/RESULTS.md from what bench/bench.sh measured (build/bench/):
# the times, the two --all logs.  Runs again on the same logs if wanted.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
w=build/bench
. $w/times
peak1=$(sed -n 's/^runner: peak memory of one child process: //p' $w/all-jobs1.log)
peak2=$(sed -n 's/^runner: peak memory of one child process: //p' $w/all-jobs2.log)

# "base  NAME  VERDICT ... 12.3s wall, init at 1.9s uptime, first KTAP at 2.9s wall"
rows() {
	sed -nE 's/^[^ ]+ +([^ ]+) +([A-Z]+) .* ([0-9.]+)s wall, init at ([0-9.-]+)s uptime, first KTAP at ([0-9.-]+)s wall/\1 \2 \3 \4 \5/p' "$1"
}
# "[raid10] ok   swapfile-integrity   6.40s  (12s elapsed)"
steps() {
	sed -nE 's/^\[([^]]+)\] (ok|FAIL|skip) +([^ ]+) +([0-9.]+)s .*/\1 \3 \4/p' "$1"
}
goal() {	# goal VALUE LIMIT: "met" or "missed by N s"
	awk -v v="$1" -v l="$2" 'BEGIN { if (v <= l) print "met"; else printf "missed by %.0f s\n", v - l }'
}
slowest=$(rows $w/all-jobs1.log | sort -k3 -n -r | head -3 |
	awk '{ printf "%s%s %.0f s", n++ ? ", " : "", $1, $3 }')
sum=$(rows $w/all-jobs1.log | awk '{ s += $3 } END { printf "%.0f", s }')
firstmax=$(rows $w/all-jobs1.log | sort -k5 -n -r | head -1 | awk '{ print $1, $5 }')

{
	echo "# Benchmark, $(date -u +%Y-%m-%d), $(nproc) cores, $(free -g | awk '/Mem:/{print $2}') GiB, TCG"
	echo
	echo "Written by \`make bench\` (bench/bench.sh); logs in build/bench/."
	echo
	echo "| measurement | result | goal | |"
	echo "|---|---|---|---|"
	printf '| cold kernel build (tinyconfig + fragment, -j%s, no ccache) | %.0f s | - | |\n' "$(nproc)" "$cold"
	printf '| build for a second series changing one file (seeded from the unpatched build: %s) | %.0f s | 90 s | %s |\n' "$seeded" "$second" "$(goal "$second" 90)"
	printf '| the same from scratch (ccache warm; same bzImage, byte for byte: %s) | %.0f s | - | |\n' "$same" "$scratch"
	printf '| the base kernel for a fresh build folder, built (ccache warm) | %.0f s | - | |\n' "$fresh"
	printf '| the same taken from the kernel store (that image: %s) | %.0f s | - | |\n' "$fromstore" "$stored"
	printf '| whole --all matrix, --jobs 1 | %.0f s | 300 s | %s |\n' "$all1" "$(goal "$all1" 300)"
	printf '| whole --all matrix, --jobs 2 | %.0f s | 300 s | %s |\n' "$all2" "$(goal "$all2" 300)"
	echo "| peak memory of one child (a QEMU), --jobs 1 / 2 | $peak1 / $peak2 | - | |"
	echo
	echo "The matrix is $(rows $w/all-jobs1.log | wc -l) topologies; their guest wall times add up to $sum s."
	echo "What dominates: the slowest are $slowest."
	echo "Slowest boot to first KTAP line (--jobs 1): $firstmax s."
	echo
	echo "Per topology, --jobs 1 (wall from QEMU start; PID 1's uptime when it started; wall to its first KTAP line; goal for boot to first test: 3 s):"
	echo
	echo "| topology | verdict | wall | init at (guest uptime) | first KTAP (wall) |"
	echo "|---|---|---|---|---|"
	rows $w/all-jobs1.log | awk '{ printf "| %s | %s | %s s | %s s | %s s |\n", $1, $2, $3, $4, $5 }'
	echo
	echo "The slowest steps (--jobs 1; a step is a layer build, a test, a teardown):"
	echo
	echo "| topology | step | seconds |"
	echo "|---|---|---|"
	steps $w/all-jobs1.log | sort -k3 -n -r | head -12 |
		awk '{ printf "| %s | %s | %s |\n", $1, $2, $3 }'
} > bench/RESULTS.md
cat bench/RESULTS.md
