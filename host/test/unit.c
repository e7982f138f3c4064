// SPDX-License-Identifier: GPL-2.0
/*
 * Host unit tests: topology parser, KTAP parser, config-fragment check,
 * series reading, patch-failure parsing, layer grammar, cpio writer.
 * Run from the repository root; prints one line per check and ends with
 * "unit: N passed, N failed".
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../coverage.h"
#include "../cpio.h"
#include "../kbuild.h"
#include "../hang.h"
#include "../ktap.h"
#include "../run.h"
#include "../topo.h"

#include "check.h"

#define DIR "host/test/topologies/"

static void topo_error(const char *file, const char *want)
{
	struct topology t;
	char err[512] = "", path[256];
	int rc;

	snprintf(path, sizeof(path), DIR "%s", file);
	rc = topo_load(path, &t, err, sizeof(err));

	CHECK(rc == -1 && strstr(err, want), "topology %s: error '%s' (got '%s')",
	      file, want, err);
	topo_free(&t);
}

static void test_topology(void)
{
	struct topology t;
	char err[512] = "";
	int rc = topo_load("topologies/raid10.ini", &t, err, sizeof(err));

	CHECK(rc == 0, "raid10.ini parses (%s)", err);
	CHECK(t.ndisks == 4 && t.disk_size == 192LL << 20,
	      "raid10: 4 disks of 192M");
	CHECK(t.memory == 192LL << 20, "raid10: 192M of memory");
	CHECK(t.nlayers == 3 && !strcmp(t.layers[0].kind, "md") &&
	      !strcmp(layer_get(&t.layers[0], "level", ""), "raid10"),
	      "raid10: md raid10 at the bottom");
	CHECK(t.ntests == 2 && !strcmp(t.tests[1], "swapfile-integrity"),
	      "raid10: two tests in order");
	CHECK(!strcmp(t.name, "raid10"), "raid10: name from the file name");
	topo_free(&t);

	topo_error("unknown-key.ini", "unknown-key.ini:5: unknown key 'colour' in [disks]");
	topo_error("bad-size.ini", "bad-size.ini:4: memory = 12Q");
	topo_error("missing-field.ini", "missing field [disks] size");
	topo_error("bad-layer.ini", "bad-layer.ini:10: layer = md level=raid7");
	topo_error("unknown-test.ini", "unknown-test.ini:5: test = no-such-test: no such guest test");
	topo_error("duplicate.ini", "duplicate.ini:5: unknown key 'memory' in [disks]");
	topo_error("no-such-file.ini", "cannot open");
	topo_error("drbd-one-node.ini", "a drbd layer needs [topology] nodes = 2");
	topo_error("drbd-no-peer-test.ini", "missing field [tests] peer-test");
	topo_error("bad-swap-pressure.ini", "bad-swap-pressure.ini:6: swap-pressure = gentle: want reclaim, memcg or pageout");
	topo_error("three-nodes.ini", "three-nodes.ini:4: nodes = 3: want 1, or 2");

	rc = topo_load("topologies/drbd-raid1.ini", &t, err, sizeof(err));
	CHECK(rc == 0 && t.nodes == 2 && t.drbd_layer == 1 && t.npeer == 1 &&
	      !strcmp(t.peer_tests[0], "drbd-peer-check"),
	      "drbd-raid1: 2 nodes, drbd above md, one peer test (%s)", err);
	topo_free(&t);
}

static void test_splats(void)
{
	CHECK(is_splat("[   12.345678] WARNING: CPU: 0 PID: 1 at fs/ext4/x.c:1"),
	      "splat: a kernel WARNING");
	CHECK(is_splat("+ mkswap /dev/md0[    3.100000] BUG: kernel NULL pointer dereference"),
	      "splat: a kernel BUG after a tool's unfinished line");
	CHECK(!is_splat("  WARNING: New raid1 won't be synchronised."),
	      "splat: lvm's own WARNING is not the kernel's");
	CHECK(!is_splat("[    1.000000] md: raid1 personality registered"),
	      "splat: a routine kernel line");
}

static void test_layers(void)
{
	struct layer l;
	char err[200];

	CHECK(!layer_parse("md level=raid5 devices=3 chunk=64K", &l, err,
			   sizeof(err)) && l.nopts == 3,
	      "layer: md with three options");
	CHECK(layer_parse("md level=raid7", &l, err, sizeof(err)) &&
	      strstr(err, "expected one of"), "layer: bad enum named (%s)", err);
	CHECK(layer_parse("md colour=red", &l, err, sizeof(err)) &&
	      strstr(err, "unknown option 'colour'"), "layer: unknown option");
	CHECK(layer_parse("zfs", &l, err, sizeof(err)) &&
	      strstr(err, "unknown layer kind 'zfs'"), "layer: unknown kind");
	CHECK(layer_parse("swapfile size=lots", &l, err, sizeof(err)) &&
	      strstr(err, "not a size"), "layer: bad size");
	CHECK(parse_size("160M") == 160LL << 20 && parse_size("4096") == 4096 &&
	      parse_size("1G") == 1LL << 30 && parse_size("12Q") == -1 &&
	      parse_size("-1M") == -1 && parse_size("") == -1,
	      "parse_size");
}

static struct ktap feed(const char *doc)
{
	struct ktap k;
	char *copy = strdup(doc), *line, *save;

	ktap_init(&k);
	for (line = strtok_r(copy, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save))
		ktap_feed(&k, line);
	free(copy);
	return k;
}

static void test_ktap(void)
{
	struct ktap k = feed(
		"KTAP version 1\n# topology: x uptime_at_init: 1.50\n1..3\n"
		"    KTAP version 1\n    1..1\n    ok 1 md\n"
		"# duration_ms: 1500\nok 1 stack-build\n"
		"    not ok 1 pattern\n    # first mismatch at offset 4096\n"
		"not ok 2 data-integrity\n"
		"ok 3 teardown # SKIP not built\n");

	CHECK(ktap_finish(&k) == 0, "ktap: complete document has no errors (%s)",
	      k.errors.buf ? k.errors.buf : "");
	CHECK(k.ntests == 3, "ktap: three results");
	CHECK(k.tests[0].result == KTAP_PASS && k.tests[0].duration == 1.5,
	      "ktap: pass with duration");
	CHECK(strstr(k.tests[0].detail, "uptime_at_init: 1.50") != NULL,
	      "ktap: diagnostics kept with the next result");
	CHECK(k.tests[1].result == KTAP_FAIL &&
	      strstr(k.tests[1].detail, "offset 4096"),
	      "ktap: failure keeps its nested detail");
	CHECK(k.tests[2].result == KTAP_SKIP && !strcmp(k.tests[2].name, "teardown"),
	      "ktap: SKIP directive");
	ktap_free(&k);

	k = feed("KTAP version 1\n1..4\nok 1 a\nok 2 b\n");
	CHECK(ktap_finish(&k) == 1 && strstr(k.errors.buf, "plan says 4 tests, 2 reported"),
	      "ktap: guest stopped early");
	ktap_free(&k);
	k = feed("KTAP version 1\nok 1 a\n");
	CHECK(ktap_finish(&k) == 1 && strstr(k.errors.buf, "no plan line"),
	      "ktap: missing plan");
	ktap_free(&k);
	k = feed("1..1\nok 1 a\n");
	CHECK(ktap_finish(&k) == 1 && strstr(k.errors.buf, "no 'KTAP version 1'"),
	      "ktap: missing version line");
	ktap_free(&k);
	k = feed("KTAP version 1\n1..2\nok 1 a\nok 3 c\n");
	CHECK(ktap_finish(&k) >= 1 && strstr(k.errors.buf, "out of sequence"),
	      "ktap: numbering gap");
	ktap_free(&k);
}

static void test_kconfig(void)
{
	const char *frag = "# comment\nCONFIG_A=y\nCONFIG_B=y\n"
			   "# CONFIG_C is not set\nCONFIG_D=\"x\"\nCONFIG_E=y\n";
	const char *config = "CONFIG_A=y\n# CONFIG_B is not set\nCONFIG_C=y\n"
			     "CONFIG_D=\"x\"\nCONFIG_EE=y\n";
	struct strbuf rep = { 0 };
	int bad = kconfig_check("frag.config", frag, config, &rep);

	CHECK(bad == 3, "kconfig: three options did not take (%d)", bad);
	CHECK(strstr(rep.buf, "frag.config:3: CONFIG_B=y did not take: .config has # CONFIG_B is not set") != NULL,
	      "kconfig: names file:line and what .config has");
	CHECK(strstr(rep.buf, "frag.config:4: # CONFIG_C is not set") != NULL,
	      "kconfig: an option meant off but on");
	CHECK(strstr(rep.buf, "frag.config:6: CONFIG_E=y did not take: .config has no such option") != NULL,
	      "kconfig: a prefix (CONFIG_EE) is not the option");
	sb_free(&rep);
}

static void test_series(void)
{
	struct strbuf kd = { 0 };
	char err[512] = "", **names;
	int n;

	CHECK(series_read("patches/base", -1, &names, &n, &kd, err, sizeof(err)) == 0 &&
	      n == 0, "series: base is empty");
	CHECK(series_read("host/test/series-missing", -1, &names, &n, &kd, err,
			  sizeof(err)) == -1 &&
	      strstr(err, "series-missing/series:3: patch") &&
	      strstr(err, "0002-nope.patch"),
	      "series: a missing patch names series:line (%s)", err);
	sb_free(&kd);
}

static void test_patch_output(void)
{
	struct strbuf files = { 0 };

	patch_failed_files("patching file mm/page_io.c\n"
			   "Hunk #1 FAILED at 250.\n"
			   "1 out of 1 hunk FAILED -- saving rejects to file mm/page_io.c.rej\n"
			   "patching file mm/swapfile.c\n", &files);
	CHECK(files.buf && !strcmp(files.buf, "mm/page_io.c\n"),
	      "patch: the failed file is named once");
	sb_free(&files);
	patch_failed_files("1 out of 1 hunk FAILED -- saving rejects to file mm/swapfile.c.rej\n",
			   &files);
	CHECK(files.buf && !strcmp(files.buf, "mm/swapfile.c\n"),
	      "patch: named from patch -s output too");
	sb_free(&files);
}

static void test_cpio(void)
{
	struct strbuf sb = { 0 };

	cpio_add_file(&sb, "plan", "abc", 3, 0644);
	cpio_finish(&sb);
	CHECK(sb.len % 4 == 0 && !memcmp(sb.buf, "070701", 6) &&
	      !memcmp(sb.buf + 110, "plan", 5) &&
	      !memcmp(sb.buf + 116, "abc", 3) &&
	      memmem(sb.buf, sb.len, "TRAILER!!!", 10),
	      "cpio: newc entry, padded, with trailer");
	sb_free(&sb);
}

static void test_coverage(void)
{
	char *patch = read_file("host/test/cov/0001-fixture.patch", NULL);
	struct cov c = { 0 };
	struct cov_fn *f;

	cov_from_patch(&c, patch ? patch : "", "host/test/cov/src");
	f = cov_find(&c, "foo_compute");
	CHECK(f && !f->removed && !strcmp(f->file, "lib/foo.c"),
	      "coverage: a changed body names its function");
	f = cov_find(&c, "old_alloc");
	CHECK(f && f->removed, "coverage: a deleted function is marked removed");
	CHECK(!cov_find(&c, "helper") && !cov_find(&c, "table") &&
	      !cov_find(&c, "foo_tail"),
	      "coverage: neighbours and a file-scope table are not counted");
	CHECK(c.n == 2, "coverage: exactly two functions (%d)", c.n);
	cov_free(&c);
	free(patch);
	memset(&c, 0, sizeof(c));
	CHECK(!cov_from_list(&c, "patches/base/coverage.list", NULL, 0) &&
	      cov_find(&c, "swap_page_sector") &&
	      cov_find(&c, "bio_alloc_mddev") &&
	      cov_find(&c, "bio_alloc_mddev")->absent,
	      "coverage: the base list parses, absent names kept");
	cov_free(&c);
}

/* What QEMU's monitor and the guest's console say at a deadline. */
static void test_hang(void)
{
	const char *map = "0000000001000000 A phys_startup_64\n"
		"ffffffff814ba5e0 T native_safe_halt\n"
		"ffffffff814ba5f4 t native_halt\n"
		"ffffffff81c24a40 D init_task\n";
	const char *state = "(qemu) info status\nVM status: paused (io-error)\n"
		"(qemu) info registers\n\nCPU#0\n"
		"RIP=ffffffff814ba5f3 RFL=00000046 [---Z-P-] CPL=0 HLT=0\n"
		"(qemu) info virtio-queue-status /machine/peripheral-anon/device[2]/virtio-backend 0\n"
		"  inuse:                2\n  used_idx:             9\n"
		"(qemu) info virtio-queue-status /machine/peripheral-anon/device[2]/virtio-backend 1\n"
		"  inuse:                0\n";
	char console[] = "[ 1.0] before\n"
		"[ 9.0] Uhhuh. NMI received for unknown reason 21 on CPU 0.\n"
		"[ 9.0] Kernel panic - not syncing: NMI: Not continuing\n"
		"[ 9.0]  <TASK>\n[ 9.0]  ? do_idle+0x48/0x72\n[ 9.0]  </TASK>\n"
		"[ 9.0] task:init state:S\n";
	char *s = ksym(map, 0xffffffff814ba5f3ULL), *nmi;

	CHECK(s && !strcmp(s, "native_safe_halt+0x13"),
	      "hang: an address names the text symbol at or below it (%s)", s);
	free(s);
	s = ksym(map, 0x1000);
	CHECK(!s, "hang: an address below every text symbol names none");
	free(s);
	s = vcpu_summary(state, map);
	CHECK(s && strstr(s, "VM status paused (io-error)") &&
	      strstr(s, "ffffffff814ba5f3 (native_safe_halt+0x13)") &&
	      strstr(s, "interrupts off") && !strstr(s, "halted") &&
	      strstr(s, "virtio device[2] queue 0: 2 requests in QEMU") &&
	      !strstr(s, "queue 1"),
	      "hang: the monitor's state in one line (%s)", s);
	free(s);
	s = vcpu_summary("nothing here", NULL);
	CHECK(!s, "hang: no state, no summary");
	nmi = nmi_split(console);
	CHECK(nmi && !strcmp(console, "[ 1.0] before\n") &&
	      strstr(nmi, "Kernel panic") && strstr(nmi, "</TASK>") &&
	      !strstr(nmi, "task:init"),
	      "hang: the console is cut at the NMI, its stack kept apart");
	free(nmi);
	CHECK(!nmi_split(console), "hang: no NMI, nothing cut");
}

int main(void)
{
	test_topology();
	test_splats();
	test_layers();
	test_ktap();
	test_kconfig();
	test_series();
	test_patch_output();
	test_cpio();
	test_coverage();
	test_hang();
	printf("unit: %d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
