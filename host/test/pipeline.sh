#!/bin/bash
# The CI pipeline (.gitlab-ci.yml), checked against GitLab's own schema
# and run here as GitLab would run it (host/test/pipeline.py): a build
# job writes the kernel artifact (--build-only --artifact), two shard
# jobs run brd,zram from it (--kernel-artifact, --shard 1/2 and 2/2)
# each in a clone of its own that builds no kernel and no initramfs, and
# the merge job joins their reports (./runner --merge) into one verdict,
# in JSON, JUnit and KCIDB (validated by kcidb-io).  Shards that are not
# of one run, a missing shard and damaged artifacts are refused, naming
# the file at fault.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
out=build/check/pipeline-test
work=build/check/pipeline
rm -rf "$out"
mkdir -p "$out"
. host/test/lib.sh

# The file against GitLab's schema, and what the schema would catch.
python3 host/test/pipeline.py --lint-only >"$out/lint.log" 2>&1
ok $? ".gitlab-ci.yml is valid against GitLab's CI schema" "$out/lint.log"
lint_bad() {	# NAME PATTERN SED: the file changed so, refused with PATTERN
	sed "$3" .gitlab-ci.yml >"$out/$1.yml"
	! python3 host/test/pipeline.py --lint-only --file "$out/$1.yml" \
		>"$out/$1.log" 2>&1 && grep -qE -- "$2" "$out/$1.log"
	ok $? "lint refuses $1: /$2/" "$out/$1.log"
}
lint_bad unknown-key "'bogus' was unexpected" 's/^  timeout: 2h/  timeout: 2h\n  bogus: 1/'
lint_bad bad-when "'sometimes' is not one of" 's/^  when: always/  when: sometimes/'
lint_bad shard-missing 'SHARD is .*want 1/N .. N/N' 's|SHARD: \["1/4", "2/4", "3/4", "4/4"\]|SHARD: ["1/4", "2/4", "4/4"]|'

# The pipeline itself, on two shards of brd,zram.
python3 host/test/pipeline.py --shards 2 --var "TOPOLOGIES=--topology brd,zram" \
	"$work" >"$out/pipeline.log" 2>&1
ok $? "the pipeline's build, 2 shard and merge jobs pass" "$out/pipeline.log"
art=$work/build/artifact
python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["series"] == "base" and d["profile"] == "default", d
assert d["kernel"]["series"] == "6.1" and len(d["key"]) == 16, d
assert sorted(d["files"]) == sorted(["bzImage", "config", "System.map",
	"initramfs.cpio.gz", "unavailable", "coverage.list"]), d["files"]' \
	"$art/artifact.json" >"$out/artifact.log" 2>&1
ok $? "the build job's artifact: base on 6.1, its key and six files" "$out/artifact.log"
for k in 1 2; do
	[ ! -e "$work/shard-$k/build/kernels" ] && [ ! -e "$work/shard-$k/build/guest" ] &&
		grep -q "^runner: kernel artifact .*kernel $(python3 -c 'import json,sys;print(json.load(open(sys.argv[1]))["key"])' "$art/artifact.json")" "$work/shard-$k.log"
	ok $? "shard $k ran the artifact's kernel and built no kernel or initramfs" "$work/shard-$k.log"
done
s1=$work/shard-1/report-1.json s2=$work/shard-2/report-2.json
grep -qE '^base +brd +PASS' "$work/merge.log" &&
	grep -qE '^base +zram +PASS' "$work/merge.log" &&
	grep -q '^runner: merged 2 reports: 1 series, 2 topologies each' "$work/merge.log"
ok $? "the merged verdict has both shards' topologies, once each" "$work/merge.log"
cp "$work/merge/report.json" "$out/merged.json"
cp "$work/merge/junit.xml" "$out/merged.xml"
cp "$work/merge/kcidb.json" "$out/merged.kcidb.json"
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
bad overlap 'topology brd of series base is in .*report-1.json and in .*report-1.json: shards overlap' \
	--merge "$s1" "$s1"
sed 's/"kernel_build_key":"[0-9a-f]*"/"kernel_build_key":"0123456789abcdef"/' \
	"$s2" >"$out/other-key.json"
bad other-build "other-key.json built series base as kernel 0123456789abcdef" \
	--merge "$s1" "$out/other-key.json"
sed 's/"version":"linux-source-6.1 [^"]*"/"version":"linux-source-6.12 6.12.118"/' \
	"$s2" >"$out/other-kernel.json"
bad other-kernel "other-kernel.json ran kernel 'linux-source-6.12 6.12.118'" \
	--merge "$s1" "$out/other-kernel.json"
echo '{"run": "x"}' >"$out/not-a-report.json"
bad not-a-report 'not-a-report.json: not a runner report' \
	--merge "$out/not-a-report.json"
bad merge-runs-nothing '--merge reads reports and runs nothing' \
	--merge "$s1" --topology raid10
sed 's/"k":2/"k":1/' "$s2" >"$out/same-shard.json"
bad same-shard 'report-1.json and .*same-shard.json are both shard 1/2' \
	--merge "$s1" "$out/same-shard.json"
python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
del d["shard"]
json.dump(d, open(sys.argv[2], "w"))' "$s2" "$out/no-shard.json"
bad not-a-shard 'no-shard.json is no shard \(a whole run\), .*report-1.json is shard 1/2' \
	--merge "$s1" "$out/no-shard.json"
# A shard job that died before it wrote its report: the merge is
# incomplete, so it fails.
./runner --merge "$s1" >"$out/missing.log" 2>&1
rc=$?
[ "$rc" != 0 ] && grep -q '^runner: --merge: shard 2/2 is missing: the merged report is incomplete' "$out/missing.log"
ok $? "a merge without shard 2/2 says so and fails (exit $rc)" "$out/missing.log"

# Kernel artifacts that cannot be run, refused before any guest boots.
bad artifact-none 'nowhere: no such folder' --kernel-artifact "$out/nowhere" --topology brd
cp -r "$art" "$out/damaged"
printf X >>"$out/damaged/bzImage"
bad artifact-damaged 'damaged/bzImage: its SHA-256 is not the one .*artifact.json records' \
	--kernel-artifact "$out/damaged" --topology brd
cp -r "$art" "$out/partial"
rm "$out/partial/coverage.list"
bad artifact-partial 'partial/coverage.list: missing from the kernel artifact' \
	--kernel-artifact "$out/partial" --topology brd
bad artifact-series '--kernel-artifact runs the kernel it holds: not with --series' \
	--kernel-artifact "$art" --series patches/base --topology brd
bad artifact-needs-build-only '--artifact DIR goes with --build-only' \
	--artifact "$out/a" --topology brd
mkdir -p "$out/precious"
echo keep >"$out/precious/notes"
bad artifact-not-replaced 'precious: exists and is not a kernel artifact .*not replaced' \
	--build-only --artifact "$out/precious"
[ "$(cat "$out/precious/notes")" = keep ] && [ "$(ls "$out/precious")" = notes ] &&
	! ls -d "$out"/precious.* >/dev/null 2>&1
ok $? "the folder it refused is as it was, and nothing is left beside it"
# A folder named with a trailing '/', beside what a killed writer left.
sleep 0 &
dead=$!
wait $dead
mkdir -p "$out/slash.tmp.$dead"
./runner --build-only --artifact "$out/slash/" >"$out/slash.log" 2>&1 &&
	[ -f "$out/slash/artifact.json" ] &&
	! ls -d "$out"/slash.tmp.* "$out"/slash.old.* >/dev/null 2>&1
ok $? "--artifact DIR/ writes DIR, and removes what a dead writer left beside it" "$out/slash.log"

echo "pipeline: $pass passed, $fail failed"
[ "$fail" = 0 ]
