#!/bin/bash
# Faults and bad input, each must end cleanly: a clear error naming what
# is at fault, no QEMU left running, no disk image left behind.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
out=build/check/faults
rm -rf "$out"
mkdir -p "$out"
. host/test/lib.sh

# Our runs put disk images and initrds in a folder of their own, which
# every QEMU of ours names on its command line.  Nothing of ours may
# outlive a run: no such QEMU, nothing in that folder.
export STACKTEST_TMP=$root/$out/tmp
mkdir -p "$STACKTEST_TMP"
clean() {
	! pgrep -f "qemu-system-x86_64.*$STACKTEST_TMP" >/dev/null &&
		[ -z "$(ls -A "$STACKTEST_TMP")" ]
}

expect() {	# expect NAME EXIT-CODE PATTERN -- command...
	local name=$1 code=$2 pat=$3 log=$out/$1.log rc
	shift 4
	"$@" >"$log" 2>&1
	rc=$?
	[ "$rc" = "$code" ] && grep -qE -- "$pat" "$log" && clean
	ok $? "$name (exit $rc, wants $code and /$pat/)" "$log"
}

# A TIMEOUT run's guest wall time, whole seconds: wall_s TOPOLOGY LOG.
wall_s() {
	sed -n "s/.*$1 *TIMEOUT.* \([0-9]*\)[0-9.]*s wall, init .*/\1/p" "$2"
}

T=host/test/topologies
expect topology-unknown-key 2 'unknown-key.ini:5: unknown key .colour. in \[disks\]' -- \
	./runner --topology $T/unknown-key.ini
expect topology-bad-size 2 'bad-size.ini:4: memory = 12Q' -- \
	./runner --topology $T/bad-size.ini
expect topology-missing-field 2 'missing-field.ini: missing field \[disks\] size' -- \
	./runner --topology $T/missing-field.ini
expect series-missing-patch 2 'series-missing/series:3: patch .*0002-nope.patch' -- \
	./runner --topology raid10 --series host/test/series-missing
expect patch-does-not-apply 2 'patch .*0001-does-not-apply.patch does not apply.*failed in:' -- \
	./runner --topology raid10 --series host/test/series-bad
grep -q '^mm/page_io.c$' $out/patch-does-not-apply.log
ok $? "patch-does-not-apply names mm/page_io.c" $out/patch-does-not-apply.log
! ls -d build/kernels/*/src.tmp >/dev/null 2>&1
ok $? "a failed series leaves no half-patched tree"
expect fragment-option-not-taken 2 'bad-fragment.config:[0-9]+: CONFIG_KPROBES=y did not take' -- \
	./runner --topology raid10 --config-fragment host/test/bad-fragment.config

# --kernel: what is no kernel, an unknown package, a tree with an in-tree
# build, a git tree that does not build, a series that does not apply.
expect kernel-not-a-tree 2 'kernel .*/host: not a kernel source tree' -- \
	./runner --topology raid10 --kernel "$root/host"
expect kernel-bad-name 2 'kernel linux-source-6: want linux-source-X.Y' -- \
	./runner --topology raid10 --kernel linux-source-6
expect kernel-no-package 2 'could not install the Debian package linux-source-9.99' -- \
	./runner --topology raid10 --kernel linux-source-9.99
# A fake tree: a kernel's top files, a Makefile whose tinyconfig fails.
fake=$out/tree
mkdir -p $fake/arch/x86 $fake/mm
printf 'VERSION = 6\nPATCHLEVEL = 99\nSUBLEVEL = 0\nEXTRAVERSION = -rc1\n%s\n' \
	'tinyconfig:; @echo "fake tree: no kbuild here" >&2; exit 1' > $fake/Makefile
echo 'mainmenu "fake"' > $fake/Kconfig
echo 'config X86' > $fake/arch/x86/Kconfig
echo 'int swap;' > $fake/mm/swapfile.c
touch $fake/.config
expect kernel-in-tree-build 2 'tree holds an in-tree build \(.config\)' -- \
	./runner --topology raid10 --kernel $fake
printf '.config\n*.o\n' > $fake/.gitignore
git -C $fake init -q && git -C $fake add -A &&
	git -C $fake -c user.name=t -c user.email=t@t commit -qm fake
echo 'junk' > $fake/mm/swapfile.o
echo 'int swap2;' >> $fake/mm/swapfile.c
echo 'new' > $fake/mm/new.c
before=$(git -C $fake status --porcelain; ls -A $fake | tr '\n' ' ')
index=$(stat -c %y $fake/.git/index)
expect kernel-tree-does-not-build 2 'kernel tinyconfig failed' -- \
	./runner --topology raid10 --kernel $fake
grep -qE 'kernel: building [0-9a-f]+ \(.*/tree 6.99.0-rc1 commit [0-9a-f]{12} uncommitted [0-9a-f]{16}' \
	$out/kernel-tree-does-not-build.log
ok $? "a git tree's build names its commit and uncommitted changes" \
	$out/kernel-tree-does-not-build.log
[ "$index" = "$(stat -c %y $fake/.git/index)" ] &&
	[ "$before" = "$(git -C $fake status --porcelain; ls -A $fake | tr '\n' ' ')" ]
ok $? "the user's tree is untouched (its git index, no out/, no new files, same status)"
copy=$(sed -n 's/.*kernel tinyconfig failed; see \(.*\)\/build.log/\1/p' \
	$out/kernel-tree-does-not-build.log)/src
[ -f "$copy/mm/new.c" ] && grep -q swap2 "$copy/mm/swapfile.c" &&
	[ ! -e "$copy/mm/swapfile.o" ] && [ ! -e "$copy/.config" ]
ok $? "the build copied tracked and untracked files, not ignored ones ($copy)"
expect kernel-series-does-not-apply 2 'does not apply to linux-source-6.12 ' -- \
	./runner --topology raid10 --kernel linux-source-6.12 \
	--series patches/bio-alloc-cleanups

printf 'stacktest-no-such-package\n' > $out/packages
expect missing-package 1 'apt-get install -y stacktest-no-such-package' -- \
	setpriv --reuid=65534 --regid=65534 --clear-groups \
	env STACKTEST_PACKAGES=$root/$out/packages host/deps.sh

expect guest-hang-times-out 1 'timeout: the guest did not finish in time' -- \
	./runner --topology $T/selftest-hang.ini
grep -q 'last console lines' $out/guest-hang-times-out.log
ok $? "the timeout verdict quotes the console" $out/guest-hang-times-out.log
res=$(sed -n 's/^runner: results in //p' $out/guest-hang-times-out.log)
grep -q 'sysrq: Show Blocked State' "$res/base/selftest-hang/console.log"
ok $? "before the deadline PID 1 dumped the blocked tasks (sysrq-w)" \
	"$res/base/selftest-hang/console.log"
grep -qE 'QEMU at the deadline .*VM status running; vCPU at [0-9a-f]+ \([a-z_]+\+0x' \
	$out/guest-hang-times-out.log
ok $? "at the deadline QEMU's monitor named the vCPU's function" \
	$out/guest-hang-times-out.log
grep -q "the guest's stack at the deadline's NMI" $out/guest-hang-times-out.log &&
	grep -q 'Kernel panic - not syncing: NMI' $out/guest-hang-times-out.log
ok $? "the guest answered the deadline's NMI with its stack" \
	$out/guest-hang-times-out.log

# A task blocked for good: the kernel's hung-task report (30 s) ends the
# run long before its 300 s deadline, with PID 1's forensics out first,
# and the test it came in fails by name.
expect guest-blocked-hang 1 'selftest-blocked +TIMEOUT' -- \
	./runner --topology $T/selftest-blocked.ini
grep -qE "hang: the kernel reported one [0-9]+ s after start, during selftests/blocked \(last KTAP line: +# selftests/blocked: .*frozen" \
	$out/guest-blocked-hang.log
ok $? "the hang verdict names the test, its last step and the report" \
	$out/guest-blocked-hang.log
wall=$(wall_s selftest-blocked $out/guest-blocked-hang.log)
[ -n "$wall" ] && [ "$wall" -lt 150 ]
ok $? "the hang ended the run early (${wall:-?} s, deadline 300 s)" \
	$out/guest-blocked-hang.log
res=$(sed -n 's/^runner: results in //p' $out/guest-blocked-hang.log)
grep -q 'init: hang seen: blocked tasks' "$res/base/selftest-blocked/console.log" &&
	grep -q 'init: end of the hang forensics' "$res/base/selftest-blocked/console.log"
ok $? "PID 1's watcher dumped the blocked tasks and the stacks' state" \
	"$res/base/selftest-blocked/console.log"
grep -q 'did not finish: the kernel reported a hang during it' \
	$out/guest-blocked-hang.log
ok $? "the test the hang came in fails by name" $out/guest-blocked-hang.log

# A CPU held in the kernel with preemption off: the kernel's soft-lockup
# report (20 s) ends the run early, its stack naming the loop.
expect guest-soft-lockup 1 'selftest-softlockup +TIMEOUT' -- \
	./runner --topology $T/selftest-softlockup.ini
grep -qE "hang: the kernel reported one [0-9]+ s after start, during selftests/softlockup" \
	$out/guest-soft-lockup.log
ok $? "the soft lockup is a hang verdict naming the test" $out/guest-soft-lockup.log
res=$(sed -n 's/^runner: results in //p' $out/guest-soft-lockup.log)
grep -q 'BUG: soft lockup' "$res/base/selftest-softlockup/console.log" &&
	grep -q 'lkdtm_SOFTLOCKUP' "$res/base/selftest-softlockup/console.log"
ok $? "the watchdog's report shows the looping stack" \
	"$res/base/selftest-softlockup/console.log"
wall=$(wall_s selftest-softlockup $out/guest-soft-lockup.log)
[ -n "$wall" ] && [ "$wall" -lt 90 ]
ok $? "the soft lockup ended the run early (${wall:-?} s, deadline 300 s)" \
	$out/guest-soft-lockup.log

# Interrupts off too: no detector in the guest (no PMU under TCG), so the
# progress bound the test declared (10 s) ends the run, and the host's
# NMI shows the loop.
expect guest-hard-lockup 1 'selftest-hardlockup +TIMEOUT' -- \
	./runner --topology $T/selftest-hardlockup.ini
grep -qE "no progress: nothing on the KTAP port for 10 s \(the bound of a hard lockup\), during selftests/hardlockup" \
	$out/guest-hard-lockup.log
ok $? "the hard lockup ends at the test's bound, named" $out/guest-hard-lockup.log
grep -q "the guest's stack at the deadline's NMI" $out/guest-hard-lockup.log &&
	grep -q 'lkdtm_HARDLOCKUP' $out/guest-hard-lockup.log
ok $? "the deadline's NMI shows the looping stack" $out/guest-hard-lockup.log
wall=$(wall_s selftest-hardlockup $out/guest-hard-lockup.log)
[ -n "$wall" ] && [ "$wall" -lt 90 ]
ok $? "the hard lockup ended the run early (${wall:-?} s, deadline 300 s)" \
	$out/guest-hard-lockup.log

# A step quiet past the progress bound it declared (10 s), after 20 s
# of notes that kept it alive: the host ends the run then, naming it.
expect guest-no-progress 1 'selftest-quiet +TIMEOUT' -- \
	./runner --topology $T/selftest-quiet.ini
grep -qE "no progress: nothing on the KTAP port for 10 s \(the bound of a silent spin\), during selftests/quiet \(last KTAP line: # selftests/quiet: silent from now\)" \
	$out/guest-no-progress.log
ok $? "the no-progress verdict names the step's bound, the test and its last line" \
	$out/guest-no-progress.log
wall=$(wall_s selftest-quiet $out/guest-no-progress.log)
[ -n "$wall" ] && [ "$wall" -ge 28 ] && [ "$wall" -lt 120 ]
ok $? "notes renewed the bound, silence ended the run (${wall:-?} s, 28-120 s)" \
	$out/guest-no-progress.log
grep -q 'did not finish: it made no progress within its bound' \
	$out/guest-no-progress.log
ok $? "the quiet test fails by name" $out/guest-no-progress.log

expect guest-panic 1 'CRASH' -- ./runner --topology $T/selftest-panic.ini
grep -q 'Kernel panic - not syncing: sysrq triggered crash' $out/guest-panic.log
ok $? "the panic verdict quotes the panic" $out/guest-panic.log
grep -q "crash: the guest's kernel oopsed or panicked" $out/guest-panic.log &&
	grep -q 'did not finish: the kernel crashed during it' $out/guest-panic.log
ok $? "the crash's trace is in the guest's result, its test fails by name" \
	$out/guest-panic.log

# DRBD: node1 cuts its link while node0 is disconnected mid-test.
expect drbd-link-cut 1 'node0/drbd-replicate: FAILED' -- \
	./runner --topology $T/selftest-drbd-cut.ini
grep -qE 'timeout after [0-9]+ s waiting for the reconnect and resync: cs:WFConnection ro:Primary/Unknown' \
	$out/drbd-link-cut.log
ok $? "the cut link times out naming the DRBD state" $out/drbd-link-cut.log

# SIGTERM while a guest runs: QEMU ended, disks removed, report incomplete.
./runner --topology $T/selftest-hang.ini --timeout 120 >$out/sigterm.log 2>&1 &
pid=$!
for _ in $(seq 600); do
	pgrep -f "qemu-system-x86_64.*$STACKTEST_TMP" >/dev/null && break
	sleep 0.1
done
kill -TERM $pid
wait $pid
rc=$?
res=$(sed -n 's/^runner: results in //p' $out/sigterm.log)
[ "$rc" = 1 ] && grep -q 'interrupted' $out/sigterm.log && clean &&
	grep -qE '"complete": ?false' "$res/report.json"
ok $? "SIGTERM mid-run: QEMU ended, disks removed, report marked incomplete" $out/sigterm.log

# The disk-image folder fills up: a clear error, nothing half-written.
full=$out/full
mkdir -p $full
if mount -t tmpfs -o size=1m stacktest-full $full 2>/dev/null; then
	STACKTEST_TMP=$root/$full ./runner --topology raid10 >$out/disk-full.log 2>&1
	rc=$?
	[ "$rc" = 2 ] && grep -q 'No space left on device' $out/disk-full.log &&
		[ -z "$(ls -A $full)" ] && clean
	ok $? "disk full while creating images: clear error, nothing left" $out/disk-full.log
	umount $full
else
	ok 0 "disk full # SKIP cannot mount a tmpfs here"
fi

echo "faults: $pass passed, $fail failed"
[ "$fail" = 0 ]
