#!/bin/bash
# The machine-readable side: JUnit XML from a real run validates with a
# real XML parser, the JSON parses, and --shard splits cover --all once.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
out=build/check
. host/test/lib.sh

xml=$out/raid10.xml json=$out/raid10.json
xmllint --noout "$xml" 2>&1
ok $? "junit.xml is well-formed XML (xmllint)"
[ "$(xmllint --xpath 'count(//testsuite)' "$xml")" -ge 1 ] &&
	[ "$(xmllint --xpath 'count(//testcase)' "$xml")" -ge 4 ]
ok $? "junit.xml has a testsuite per topology and a testcase per test"
if command -v python3 >/dev/null; then
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["complete"] and d["series"][0]["topologies"][0]["tests"]' "$json"
	ok $? "report.json parses and holds the tests"
else
	grep -q '"complete":true' "$json"
	ok $? "report.json says complete (no python3 to parse it)"
fi

# KCIDB: the submission validates with the schema's own validator
# (kcidb-io, vendored and pinned in host/vendor/kcidb-io), holds the
# topology and its tests under stacktest.*, and the validator is live:
# it rejects a status the schema does not have.
kcidb_valid() {
	PYTHONPATH=host/vendor/kcidb-io python3 -c '
import json, sys, kcidb_io
kcidb_io.schema.LATEST.validate_exactly(json.load(open(sys.argv[1])))' "$1" 2>&1
}
kc=$out/raid10.kcidb.json
kcidb_valid "$kc"
ok $? "raid10's --kcidb submission validates with kcidb-io (schema v5.3)" "$kc"
python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
t = {x["path"]: x for x in d["tests"]}
b = d["builds"][0]
assert t["stacktest.raid10"]["status"] == "PASS", t.keys()
assert t["stacktest.raid10.swapfile-integrity"]["status"] == "PASS"
assert all(x["build_id"] == b["id"] for x in d["tests"])
assert b["checkout_id"] == d["checkouts"][0]["id"]
assert d["checkouts"][0]["tree_name"] == "linux-source-6.1"
ids = [x["id"] for x in d["tests"]]
assert len(ids) == len(set(ids)), "duplicate test ids"' "$kc" 2>&1
ok $? "it holds stacktest.raid10 and stacktest.raid10.swapfile-integrity, PASS, on one build and checkout, ids unique" "$kc"
kcidb_valid $out/unit.kcidb.json
ok $? "the unit tests' submission (a hang, a skip, a failure's excerpt) validates too" $out/unit.kcidb.json
sed 's/"status": *"PASS"/"status":"GREEN"/' "$kc" >$out/bad.kcidb.json
! kcidb_valid $out/bad.kcidb.json >/dev/null
ok $? "kcidb-io rejects a status the schema lacks (the validator is live)"

# The kernel is named in every format: console, JSON, JUnit, KTAP.
rel=$(dpkg-query -W -f='${Version}' linux-source-6.1)
grep -q "^runner: kernel linux-source-6.1 $rel\$" $out/raid10.log
ok $? "the console names the kernel (linux-source-6.1 $rel)" $out/raid10.log
python3 -c 'import json,sys; k=json.load(open(sys.argv[1]))["kernel"]; assert k["source"] == "linux-source-6.1" and k["kind"] == "debian-package" and k["release"] == sys.argv[2].split("-")[0], k' "$json" "$rel"
ok $? "report.json names the kernel: source, kind, release"
[ "$(xmllint --xpath 'string(//testsuite[1]/properties/property[@name="kernel.version"]/@value)' "$xml")" = "linux-source-6.1 $rel" ]
ok $? "junit.xml names the kernel in each suite's properties"
grep -q "^# kernel: linux-source-6.1 $rel\$" $out/raid10.log
ok $? "the KTAP document (--tap) names the kernel" $out/raid10.log
all=$(./runner --list | awk '{print $1}' | sort)
shards=$( (./runner --list --shard 1/3; ./runner --list --shard 2/3;
	   ./runner --list --shard 3/3) | awk '{print $1}' | sort)
[ -n "$all" ] && [ "$all" = "$shards" ]
ok $? "--shard 1/3, 2/3, 3/3 together list --all exactly once"
./runner --list --shard 4/3 >/dev/null 2>&1
[ $? = 2 ]
ok $? "--shard 4/3 is refused"

echo "reports: $pass passed, $fail failed"
[ "$fail" = 0 ]
