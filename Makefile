# stacktest: build the host runner, the guest programs and the guest's
# base initramfs.  The kernel itself is built (and cached) by the runner.
B := build
CC := gcc
CFLAGS := -std=gnu11 -O2 -g -Wall -Wextra -Wno-unused-parameter
HOST_LIBS := -linih -lcrypto -ljson-c -lxml2
HOST_CFLAGS := -I/usr/include/json-c -I/usr/include/libxml2

HOST_OBJS := $(addprefix $(B)/obj/host/,util.o topo.o ktap.o kbuild.o cpio.o qemu.o run.o expect.o coverage.o report.o hang.o) \
	     $(B)/obj/stacks/spec.o
GUEST_LIB := guest-tests/guest.c guest-tests/hog.c guest-tests/md-util.c \
	guest-tests/drbd-util.c guest-tests/datafiles.c stacks/spec.c
GUEST_HDRS := $(wildcard guest-tests/*.h stacks/*.h)
STACKS := $(filter-out stacks/spec.c,$(wildcard stacks/*.c))
TESTS := data-integrity swapfile-integrity swapdev-integrity selftest-hang \
	md-writebehind md-rebuild-reshape fsync-storm drbd-replicate \
	drbd-peer-check selftest-drbd-cut dm-clone-hydrate dm-recreate
GUEST_BINS := $(B)/guest/bin/init $(addprefix $(B)/guest/bin/,$(TESTS))
# Host tools copied into the guest, with their libraries.
GUEST_TOOLS := mdadm dmsetup lvm thin_check mkfs.ext4 e2fsck debugfs mkswap mkfs.xfs \
	xfs_repair mkfs.f2fs fsck.f2fs
INITRAMFS := $(B)/guest/initramfs.cpio.gz
# drbd-utils is unpacked, never installed on the host (guest-tests/fetch-deb.sh).
DRBD_UTILS := $(B)/guest/drbd-utils

all: $(B)/bin/runner $(B)/bin/unit-tests $(B)/bin/dmz-tests $(INITRAMFS)

$(B)/obj/%.o: %.c $(wildcard host/*.h host/test/*.h stacks/*.h) stacks/dmz-format.h
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(HOST_CFLAGS) -c -o $@ $<

$(B)/bin/runner: $(HOST_OBJS) $(B)/obj/host/main.o
	@mkdir -p $(dir $@)
	$(CC) -o $@ $^ $(HOST_LIBS)

$(B)/bin/unit-tests: $(HOST_OBJS) $(B)/obj/host/test/unit.o
	@mkdir -p $(dir $@)
	$(CC) -o $@ $^ $(HOST_LIBS)

# The dm-zoned formatter, tested on image files (host/test/dmz.c).
$(B)/bin/dmz-tests: $(B)/obj/host/test/dmz.o $(B)/obj/stacks/dmz-format.o $(HOST_OBJS)
	@mkdir -p $(dir $@)
	$(CC) -o $@ $^ $(HOST_LIBS)

$(B)/guest/bin/init: guest-tests/init.c $(STACKS) $(GUEST_LIB) $(GUEST_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -static -o $@ guest-tests/init.c $(STACKS) $(GUEST_LIB)

$(B)/guest/bin/%: guest-tests/%.c $(GUEST_LIB) $(GUEST_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -static -o $@ $< $(GUEST_LIB)

$(DRBD_UTILS)/ok: guest-tests/fetch-deb.sh
	guest-tests/fetch-deb.sh drbd-utils $(DRBD_UTILS)

$(INITRAMFS): $(GUEST_BINS) guest-tests/mkinitramfs.sh guest-tests/lvm.conf Makefile \
		$(DRBD_UTILS)/ok
	DRBD_ROOT=$(abspath $(DRBD_UTILS)/root) guest-tests/mkinitramfs.sh $(abspath $@) \
		$(abspath $(B)/guest/root) $(abspath $(B)/guest/bin) $(GUEST_TOOLS)

# The test command: host unit tests, then the walking skeleton end to end.
check: all
	@bash host/check.sh

# The detection matrix: the swap topologies on base and both replays.
PROVE_TOPOLOGIES := raid1,raid10,raid5,dm-linear,dm-crypt,lvm,brd,zram,raid1-swapdev,drbd-swapfile,dm-zoned
PROVE_SERIES := patches/base,patches/replay-5.12-rc1-swapfile,patches/replay-2014-rw-page
prove: all
	./runner --topology $(PROVE_TOPOLOGIES) --series $(PROVE_SERIES) \
		--expect patches/prove.expect

# The history matrix: the seed series ported to 6.1, before, after, fixed.
HISTORY_SERIES := patches/bio-alloc-pre,patches/bio-alloc-cleanups,patches/bio-alloc-cleanups-fixed
history: all
	./runner --topology $(PROVE_TOPOLOGIES) --series $(HISTORY_SERIES) \
		--expect patches/history.expect

# Speed and memory goals, measured (not part of make check).
bench: all
	bench/bench.sh

clean:
	rm -rf $(B)/obj $(B)/bin $(B)/guest

.PHONY: all check prove history bench clean
