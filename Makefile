# stacktest: build the host runner, the guest programs and the guest's
# base initramfs.  The kernel itself is built (and cached) by the runner.
# Nothing here lists layer kinds or tests: a layer kind is a file in
# stacks/, a test a file in guest-tests/tests/ (self-tests of the harness
# in guest-tests/selftests/).
B := build
CC := gcc
CFLAGS := -std=gnu11 -O2 -g -Wall -Wextra -Wno-unused-parameter
INCLUDES := -Ilib -Istacks
HOST_LIBS := -linih -lcrypto -ljson-c -lxml2
HOST_CFLAGS := -I/usr/include/json-c -I/usr/include/libxml2

obj = $(patsubst %.c,$(B)/obj/%.o,$(1))

# The guest library and the layer kinds: linked into the guest's programs
# and into the host's (which read the same layer entries).
LIB_OBJS := $(call obj,$(filter-out lib/test-main.c,$(wildcard lib/*.c)))
STACK_OBJS := $(call obj,$(wildcard stacks/*.c))
HOST_OBJS := $(call obj,$(filter-out host/main.c,$(wildcard host/*.c))) \
	$(STACK_OBJS) $(LIB_OBJS)
TESTS := $(patsubst guest-tests/tests/%.c,%,$(wildcard guest-tests/tests/*.c))
SELFTESTS := $(patsubst guest-tests/%.c,%,$(wildcard guest-tests/selftests/*.c))
GUEST_BINS := $(B)/guest/bin/init $(addprefix $(B)/guest/bin/,$(TESTS) $(SELFTESTS))
INITRAMFS := $(B)/guest/initramfs.cpio.gz
# drbd-utils is unpacked, never installed on the host (guest-tests/fetch-deb.sh).
DRBD_UTILS := $(B)/guest/drbd-utils
HEADERS := $(wildcard host/*.h host/test/*.h stacks/*.h lib/*.h)

# Keep the objects make would call intermediate: its "rm" of them after
# the last recipe would follow check's closing "N passed, N failed".
.SECONDARY:

all: $(B)/bin/runner $(B)/bin/unit-tests $(B)/bin/dmz-tests $(INITRAMFS)

$(B)/obj/%.o: %.c $(HEADERS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(INCLUDES) $(HOST_CFLAGS) -c -o $@ $<

$(B)/bin/runner: $(HOST_OBJS) $(B)/obj/host/main.o
	@mkdir -p $(dir $@)
	$(CC) -o $@ $^ $(HOST_LIBS)

$(B)/bin/unit-tests: $(HOST_OBJS) $(B)/obj/host/test/unit.o
	@mkdir -p $(dir $@)
	$(CC) -o $@ $^ $(HOST_LIBS)

# The dm-zoned formatter, tested on image files (host/test/dmz.c).
$(B)/bin/dmz-tests: $(B)/obj/host/test/dmz.o $(HOST_OBJS)
	@mkdir -p $(dir $@)
	$(CC) -o $@ $^ $(HOST_LIBS)

$(B)/guest/bin/init: $(B)/obj/guest-tests/init.o $(STACK_OBJS) $(LIB_OBJS)
	@mkdir -p $(dir $@)
	$(CC) -static -s -o $@ $^

# explore runs the layer kinds' own operations (their entries' ops).
$(B)/guest/bin/explore: $(STACK_OBJS)

# dm-recreate checks dm-zoned's super blocks with the formatter's crc.
$(B)/guest/bin/dm-recreate: $(call obj,stacks/dmz-format.c)

$(B)/guest/bin/%: $(B)/obj/guest-tests/tests/%.o $(B)/obj/lib/test-main.o $(LIB_OBJS)
	@mkdir -p $(dir $@)
	$(CC) -static -s -o $@ $^

$(B)/guest/bin/selftests/%: $(B)/obj/guest-tests/selftests/%.o $(B)/obj/lib/test-main.o $(LIB_OBJS)
	@mkdir -p $(dir $@)
	$(CC) -static -s -o $@ $^

$(DRBD_UTILS)/ok: guest-tests/fetch-deb.sh
	guest-tests/fetch-deb.sh drbd-utils $(DRBD_UTILS)

$(INITRAMFS): $(GUEST_BINS) guest-tests/mkinitramfs.sh guest-tests/lvm.conf Makefile \
		$(DRBD_UTILS)/ok
	TOOL_ROOTS=$(abspath $(DRBD_UTILS)/root) guest-tests/mkinitramfs.sh $(abspath $@) \
		$(abspath $(B)/guest/root) $(abspath $(B)/guest/bin) $(TESTS) $(SELFTESTS)

# The test command: host unit tests, then the walking skeleton end to end.
check: all
	@bash host/check.sh

# The detection matrices: the swap topologies on base and both swap
# replays; the durability topologies on base and the md flush replay;
# discards on base and the raid10 discard replay.
PROVE_TOPOLOGIES := raid1,raid10,raid5,dm-linear,dm-crypt,lvm,brd,zram,raid1-swapdev,drbd-swapfile,dm-zoned,raid1-delay
# The newer stacks (RAID6; swap files on xfs and btrfs; dm-writecache;
# dm-zoned on a zoned null_blk), on both kernels (make history keeps the
# first twelve).
PROVE_TOPOLOGIES_NEW := raid6,raid1-xfs-swapfile,btrfs-swapfile,dm-writecache,dm-zoned-nullb
comma := ,
PROVE_SERIES := patches/base,patches/replay-5.12-rc1-swapfile,patches/replay-2014-rw-page
DURABLE_TOPOLOGIES := durable-raid1,durable-raid1-ext4,durable-raid5,durable-crypt-raid1,durable-lvm
DURABLE_SERIES := patches/base,patches/replay-md-flush-first-member
LIVE_TOPOLOGIES := discard-raid10,raid1-fsync,topologies/known-issues/raid10-reshape-frozen.ini
LIVE_SERIES := patches/base,patches/replay-raid10-discard-past-end,patches/fix-raid10-frozen-reshape-offset
# The swap matrix on each kernel (the swap replays carry a series-6.12
# file with their port to 6.12; prove.expect has [SERIES@6.12] sections
# where a verdict differs there), the durability and live-stack matrices
# on 6.1 (their 6.12 ports exist, their 6.12 verdicts are not checked
# yet: make prove-durability KERNEL=linux-source-6.12 runs them).
KERNEL := linux-source-6.1
PROVE_KERNELS := linux-source-6.1 linux-source-6.12
prove: all
	@st=0; for k in $(PROVE_KERNELS); do \
		$(MAKE) -k -s prove-swap prove-findings prove-findings-debug KERNEL=$$k || st=1; done; \
	$(MAKE) -k -s prove-durability prove-live prove-faults prove-explore prove-explore-restart prove-hang || st=1; \
	exit $$st

prove-swap: all
	./runner --kernel $(KERNEL) --topology $(PROVE_TOPOLOGIES)$(if $(PROVE_TOPOLOGIES_NEW),$(comma)$(PROVE_TOPOLOGIES_NEW)) \
		--series $(PROVE_SERIES) --expect patches/prove.expect

prove-durability: all
	./runner --kernel $(KERNEL) --topology $(DURABLE_TOPOLOGIES) \
		--series $(DURABLE_SERIES) --expect patches/prove.expect

# What users do to live stacks: discards on md RAID10.
prove-live: all
	./runner --kernel $(KERNEL) --topology $(LIVE_TOPOLOGIES) \
		--series $(LIVE_SERIES) --expect patches/prove.expect

# Error paths, reached by failing a disk's bios (fail_make_request): md
# fails a member and rebuilds, DRBD detaches, freezes and resubmits; each
# with a replay of a wrong error path that the fault test must notice.
FAULT_TOPOLOGIES := fault-raid1,fault-raid10,fault-raid5,fault-raid6,raid6-rebuild,fault-drbd
FAULT_SERIES := patches/base,patches/replay-md-super-written-ignores-error,patches/replay-drbd-frozen-write-lost,patches/replay-raid6-rebuild-check-result
prove-faults: all
	./runner --kernel $(KERNEL) --topology $(FAULT_TOPOLOGIES) \
		--series $(FAULT_SERIES) --expect patches/prove.expect

# Walks (--explore): a seeded walk passes on base and catches a replay,
# on the raw array and under ext4 (where punch-hole sends md nothing).
EXPLORE_TOPOLOGIES := discard-raid10,raid10,raid5
EXPLORE_SERIES := patches/base,patches/replay-raid10-discard-past-end
prove-explore: all
	./runner --kernel $(KERNEL) --topology $(EXPLORE_TOPOLOGIES) \
		--series $(EXPLORE_SERIES) --explore 1 --steps 300 \
		--shrink-runs 0 --expect patches/explore.expect

# A replay only a walk catches: a partially recovered md member taken
# as one the bitmap can bring up to date.  The walk must stop and
# assemble the array while a new member recovers (md restart); a fixed
# test never does.  Base's raid10 walk at seed 1 is prove-explore's.
prove-explore-restart: all
	./runner --kernel $(KERNEL) --topology raid10 \
		--series patches/replay-md-readd-partial-recovery --explore 1 \
		--steps 300 --shrink-runs 0 --expect patches/explore.expect

# A hang, answered in about a minute: md's flush active_io leak put back
# hangs reconfig's bitmap change on write-through disks; the kernel's
# hung-task report ends the run (make bench-hang times such answers).
HANG_TOPOLOGIES := reconfig-raid1-writethrough
HANG_SERIES := patches/base,patches/replay-md-flush-active-io-leak
prove-hang: all
	./runner --kernel $(KERNEL) --topology $(HANG_TOPOLOGIES) \
		--series $(HANG_SERIES) --expect patches/prove.expect

# Findings of its own: dm-zoned's bad primary super block on base, with
# our fix, and with half of it (which only the 2-zone topology notices).
FINDINGS_TOPOLOGIES := topologies/known-issues/dm-zoned-bad-primary.ini,topologies/known-issues/dm-zoned-bad-primary-2zones.ini
FINDINGS_SERIES := patches/base,patches/fix-dmz-secondary-sb,patches/replay-dmz-fix-bound-only
prove-findings: all
	./runner --kernel $(KERNEL) --topology $(FINDINGS_TOPOLOGIES) \
		--series $(FINDINGS_SERIES) --expect patches/prove.expect

# md's bio reserve, deterministically: on the debug kernel (failslab),
# writes whose every slab allocation fails deadlock a 3-way RAID1 on
# mddev->bio_set unfixed, and move with the rescuer fix.
FINDINGS_DEBUG_SERIES := patches/base,patches/fix-md-bioset-rescuer
prove-findings-debug: all
	./runner --debug --kernel $(KERNEL) \
		--topology topologies/known-issues/raid1-bioset-reserve.ini \
		--series $(FINDINGS_DEBUG_SERIES) --expect patches/prove.expect

# The seed series' rescuer path, judged: its mutants in bio_alloc_bioset()
# that only a drained bio_set reaches, and the rescuer fix's own, on the
# debug kernel with md's reserve drained (and write-behind, which takes
# mddev->bio_set's bio_vecs).  Ends "1 failed": 211f5a74 survives (see
# the README).  Not in make check.
RESCUER_MUTANTS := 211f5a74,2fb5e406,b4970c1a,f685a78a,bffd8bcb,1158663c,3e59e0c3,3a86a558
mutate-rescuer: all
	./runner --debug --series patches/bio-alloc-cleanups-rescuer --mutate \
		--mutate-only $(RESCUER_MUTANTS) \
		--topology topologies/known-issues/raid1-bioset-reserve.ini,raid1-writebehind

# Swap over DRBD under global pressure: the unfixed kernel stalls in most
# runs, not in all, so only the fix is held to a verdict, in each of
# FINDINGS_RUNS runs (the unfixed rate: the same with --series patches/base).
FINDINGS_RUNS := 4
prove-findings-drbd: all
	./runner --kernel $(KERNEL) --topology topologies/known-issues/drbd-reclaim.ini \
		--series patches/fix-drbd-memalloc --repeat $(FINDINGS_RUNS)

# Swap on dm-zoned under global pressure: likewise, the fix in each of
# FINDINGS_RUNS runs; then the fix with a metadata cache capped at 8
# blocks (a test-only patch), so that its recycle, flush and retry
# fallback carries every new metadata block, under dm-zoned's tests.
prove-findings-dmz: all
	./runner --kernel $(KERNEL) --topology topologies/known-issues/dm-zoned-reclaim.ini \
		--series patches/fix-dmz-reclaim --repeat $(FINDINGS_RUNS)
	./runner --kernel $(KERNEL) --topology dm-zoned,topologies/known-issues/dm-zoned-reclaim.ini \
		--series patches/fix-dmz-reclaim-tight-cache

# Every finding on each kernel, unfixed and fixed, as one table
# (host/findings.sh says which unfixed runs must show the bug).
findings: all
	PROVE_KERNELS="$(PROVE_KERNELS)" FINDINGS_RUNS=$(FINDINGS_RUNS) host/findings.sh

# The history matrix: the seed series ported to 6.1, before, after, fixed.
HISTORY_SERIES := patches/bio-alloc-pre,patches/bio-alloc-cleanups,patches/bio-alloc-cleanups-fixed
history: all
	./runner --topology $(PROVE_TOPOLOGIES) --series $(HISTORY_SERIES) \
		--expect patches/history.expect

# Speed and memory goals, measured (not part of make check).
bench: all
	bench/bench.sh

# Time to verdict for hangs and oopses, this runner against an older one
# (OLD_REV) side by side: bench/HANG.md.
OLD_REV := b04fca6
bench-hang: all
	bench/hang.sh $(OLD_REV)

clean:
	rm -rf $(B)/obj $(B)/bin $(B)/guest

.PHONY: all check prove prove-swap prove-durability prove-live prove-faults prove-explore prove-explore-restart prove-hang prove-findings prove-findings-debug mutate-rescuer prove-findings-drbd prove-findings-dmz findings history bench bench-hang clean
