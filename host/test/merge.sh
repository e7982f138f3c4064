#!/bin/bash
# Shards and their merge, as a CI matrix runs them: two shards of one
# build (--shard 1/2 and 2/2 of brd,zram), then ./runner --merge of their
# results into one report and one verdict, in JSON, JUnit and KCIDB
# (validated by kcidb-io).  Shards that are not of one run are refused,
# naming the report at fault.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
out=build/check/merge
rm -rf "$out"
mkdir -p "$out"
. host/test/lib.sh

results_of() {	# the results folder a run printed
	sed -n 's/^runner: results in //p' "$1" | tail -n 1
}

for k in 1 2; do
	./runner --topology brd,zram --shard $k/2 >"$out/shard$k.log" 2>&1
	ok $? "shard $k/2 of brd,zram passes" "$out/shard$k.log"
done
s1=$(results_of "$out/shard1.log") s2=$(results_of "$out/shard2.log")
./runner --merge "$s1" "$s2" --json "$out/merged.json" \
	--junit "$out/merged.xml" --kcidb "$out/merged.kcidb.json" \
	>"$out/merge.log" 2>&1
ok $? "./runner --merge of the two shards' results passes" "$out/merge.log"
grep -qE '^base +brd +PASS' "$out/merge.log" &&
	grep -qE '^base +zram +PASS' "$out/merge.log" &&
	grep -q '^runner: merged 2 reports: 1 series, 2 topologies each' "$out/merge.log"
ok $? "the merged verdict has both shards' topologies, once each" "$out/merge.log"
python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
s = d["series"]
assert len(s) == 1 and sorted(t["topology"] for t in s[0]["topologies"]) == ["brd", "zram"], s
assert d["complete"] and d["failed"] == 0' "$out/merged.json" 2>&1
ok $? "merged.json: one series, brd and zram, complete"
xmllint --noout "$out/merged.xml" &&
	[ "$(xmllint --xpath 'count(//testsuite)' "$out/merged.xml")" -ge 2 ]
ok $? "merged.xml is well-formed JUnit with a suite per topology"
PYTHONPATH=host/vendor/kcidb-io python3 -c '
import json, sys, kcidb_io
d = json.load(open(sys.argv[1]))
kcidb_io.schema.LATEST.validate_exactly(d)
paths = {t["path"] for t in d["tests"]}
assert {"stacktest.brd", "stacktest.zram"} <= paths, paths
assert len(d["builds"]) == 1 and len(d["checkouts"]) == 1
ids = [t["id"] for t in d["tests"]]
assert len(ids) == len(set(ids)), "duplicate test ids"' \
	"$out/merged.kcidb.json" 2>&1
ok $? "merged.kcidb.json validates with kcidb-io: both topologies, one build, unique ids"
# Expectations of the kernel's own series ([SERIES@X.Y]) apply to a merge:
# the reports name the kernel.
printf '[base]\n* = fail\n[base@6.1]\n* = pass\n' >"$out/kernel.expect"
./runner --merge "$s1" "$s2" --expect "$out/kernel.expect" >"$out/merge-expect.log" 2>&1 &&
	grep -q '^runner: 2 of 2 expected verdicts held' "$out/merge-expect.log"
ok $? "--merge --expect: the [base@6.1] section holds for a 6.1 merge" "$out/merge-expect.log"

# Shards that are not of one run.
bad overlap 'topology brd of series base is in .*report.json and in .*report.json: shards overlap' \
	--merge "$s1" "$s1"
sed 's/"kernel_build_key":"[0-9a-f]*"/"kernel_build_key":"0123456789abcdef"/' \
	"$s2/report.json" >"$out/other-key.json"
bad other-build "other-key.json built series base as kernel 0123456789abcdef" \
	--merge "$s1" "$out/other-key.json"
sed 's/"version":"linux-source-6.1 [^"]*"/"version":"linux-source-6.12 6.12.118"/' \
	"$s2/report.json" >"$out/other-kernel.json"
bad other-kernel "other-kernel.json ran kernel 'linux-source-6.12 6.12.118'" \
	--merge "$s1" "$out/other-kernel.json"
echo '{"run": "x"}' >"$out/not-a-report.json"
bad not-a-report 'not-a-report.json: not a runner report' \
	--merge "$out/not-a-report.json"
bad merge-runs-nothing '--merge reads reports and runs nothing' \
	--merge "$s1" --topology raid10

echo "merge: $pass passed, $fail failed"
[ "$fail" = 0 ]
