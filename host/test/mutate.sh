#!/bin/bash
# runner --mutate, end to end, on the fixed seed series (patches/bio-alloc-cleanups-fixed)
# on raid10 and durable-raid1, then dm-linear and crypt-swapdev: the
# mutants are listed the same way twice;
# eight pinned mutants end as they must (six killed by a failing test,
# each by the check added for it; one listed equivalent; one that no
# guest reaches) and the reports say so;
# bad input is a clear error before anything boots.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
out=build/check/mutate
rm -rf "$out"
mkdir -p "$out"
. host/test/lib.sh
series=patches/bio-alloc-cleanups-fixed

# swap_page_sector() shifts by PAGE_SHIFT + 9: swap I/O lands far off.
killed=7d1505f2
# md_super_write() asks for 2 bio_vecs, not 1: both fit the inline ones.
equivalent=050da505
# _drbd_md_sync_page_io(): DRBD's code, which neither topology runs.
unreached=5580b593
# md_super_write() sends the super block as a READ: only durability's
# super block oracle (oracle 3) sees it; raid10's tests all pass.
sbread=a3743103
# md_super_write() without REQ_PREFLUSH: durability's clean-state oracle
# (oracle 4) sees writes left volatile when md calls the array clean.
noflush=3eccf049
# md_super_write() without REQ_META: oracle 3 wants md's super block
# writes tagged as metadata (blk-cgroup issues them as the root group's).
nometa=d9287e94
# bio_free() leaks the bio_vec array: large-io's bio memory check.
leak=5643449c
# __swap_writepage() without REQ_SWAP: swap-bios (dm's swap_bios cap).
noswap=63383bee

./runner --series $series --mutate --list >"$out/list1.log" 2>&1
ok $? "--mutate --list lists the mutants" "$out/list1.log"
./runner --series $series --mutate --list >"$out/list2.log" 2>&1
# The mutants alone: the first run may also build the series' kernel.
mutants_of() {
	grep -E '^([0-9a-f]{8} |  [-+])' "$1"
}
cmp -s <(mutants_of "$out/list1.log") <(mutants_of "$out/list2.log") &&
	[ "$(grep -cE '^[0-9a-f]{8} ' "$out/list1.log")" -ge 50 ]
ok $? "the same $(grep -cE '^[0-9a-f]{8} ' "$out/list1.log") mutants twice, in the same order" "$out/list2.log"
for id in $killed $equivalent $unreached $sbread $noflush $nometa $leak $noswap; do
	grep -q "^$id " "$out/list1.log"
	ok $? "mutant $id is listed" "$out/list1.log"
done

log=$out/pinned.log
kernels=$(ls build/kernels | wc -l)
./runner --series $series --mutate --mutate-only $killed,$equivalent,$unreached,$sbread,$noflush,$nometa \
	--topology raid10,durable-raid1 --json "$out/mutate.json" --junit "$out/mutate.xml" \
	>"$log" 2>&1
ok $? "the pinned run passes: no survivor" "$log"
grep -qE "^  $killed killed .*swap_page_sector\(\): raid10 (FAIL|CRASH):" "$log"
ok $? "$killed (swap_page_sector) is killed, the failing test named" "$log"
grep -qE "^  $equivalent equivalent .*md_super_write\(\): " "$log"
ok $? "$equivalent (md_super_write) survived and is listed equivalent" "$log"
grep -qE "^  $unreached not reached " "$log"
ok $? "$unreached (DRBD) is not reached, not built" "$log"
grep -qE "^  $sbread killed .*md_super_write\(\): durable-raid1 FAIL: durability" "$log"
ok $? "$sbread (md_super_write as a READ) is killed by durability" "$log"
grep -qE "^  $noflush killed .*md_super_write\(\): durable-raid1 FAIL: durability" "$log"
ok $? "$noflush (md_super_write without PREFLUSH) is killed by durability" "$log"
grep -qE "^  $nometa killed .*md_super_write\(\): durable-raid1 FAIL: durability" "$log"
ok $? "$nometa (md_super_write without REQ_META) is killed by durability" "$log"
grep -q '^mutation score: 4 of 4 judged mutants killed' "$log"
ok $? "the score counts the kill, not the equivalent nor the unreached" "$log"
python3 - "$out/mutate.json" "$out/mutate.xml" <<'EOF'
import json, sys, xml.etree.ElementTree as ET
j = json.load(open(sys.argv[1]))
st = {m["id"]: m["status"] for m in j["mutants"]}
assert st == {"7d1505f2": "killed", "050da505": "equivalent",
              "5580b593": "not reached", "a3743103": "killed",
              "3eccf049": "killed", "d9287e94": "killed"}, st
cases = ET.parse(sys.argv[2]).getroot().iter("testcase")
kinds = {c.get("name").split()[0]: [e.tag for e in c] for c in cases}
assert kinds["7d1505f2"] == ["system-out"], kinds
assert kinds["050da505"] == ["skipped"], kinds
EOF
ok $? "mutate.json and mutate.xml carry each mutant's outcome" "$out/mutate.json"
# The other two survivors of the seed series, each killed by its check.
log=$out/pinned2.log
./runner --series $series --mutate --mutate-only $leak,$noswap \
	--topology dm-linear,crypt-swapdev >"$log" 2>&1
ok $? "the second pinned run passes: no survivor" "$log"
grep -qE "^  $leak killed .*bio_free\(\): dm-linear FAIL: large-io" "$log"
ok $? "$leak (bio_free leaking the vectors) is killed by large-io" "$log"
grep -qE "^  $noswap killed .*__swap_writepage\(\): crypt-swapdev FAIL: swap-bios" "$log"
ok $? "$noswap (__swap_writepage without REQ_SWAP) is killed by swap-bios" "$log"

! ls build/mutants 2>/dev/null | grep -q . &&
	[ "$(ls build/kernels | wc -l)" = "$kernels" ]
ok $? "no mutant series or kernel is left behind" "$log"

bad no-series '--mutate wants one --series' --mutate --topology raid10
bad two-series '--mutate wants one --series' --mutate --topology raid10 \
	--series $series,patches/base
bad max-without-mutate '--mutate-max and --mutate-only go with --mutate' \
	--mutate-max 3 --topology raid10
bad max-and-only 'not both' --series $series --mutate --mutate-max 3 \
	--mutate-only $killed --topology raid10
bad unknown-mutant "--mutate-only: 0badc0de is not a mutant of series bio-alloc-cleanups-fixed" \
	--series $series --mutate --mutate-only 0badc0de --topology raid10

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
