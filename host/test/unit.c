// SPDX-License-Identifier: GPL-2.0
/*
 * Host unit tests: topology parser, KTAP parser, config-fragment check,
 * series reading, patch-failure parsing, layer grammar, cpio writer.
 * Run from the repository root; prints one line per check and ends with
 * "unit: N passed, N failed".
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <endian.h>
#include <fcntl.h>
#include <stdint.h>
#include <unistd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../coverage.h"
#include "../cpio.h"
#include "../expect.h"
#include "../kbuild.h"
#include "../ksource.h"
#include "../hang.h"
#include "../kcidb.h"
#include "../kconfig.h"
#include "../ktap.h"
#include "../mutant.h"
#include "../qemu.h"
#include "../run.h"
#include "../topo.h"
#include "../verdict.h"

#include <json.h>

#include "stacktest.h"
#include "check.h"

#define TOPO_DIR "host/test/topologies/"

/*
 * --debug: profiles/debug.config comes last and changes the build key;
 * it turns off the allocators that KASAN and failslab cannot use.
 */
static void debug_profile_checks(const struct fragments *plain)
{
	struct strbuf a = { 0 }, b = { 0 };
	struct fragments f;
	char *text;

	kconfig_fragments("config", "6.1", "debug", NULL, &f);
	text = read_file(f.path[f.n - 1], NULL);
	kconfig_key(plain, &a);
	kconfig_key(&f, &b);
	CHECK(f.n == plain->n + 1 &&
	      strstr(f.path[f.n - 1], "profiles/debug.config") && text &&
	      strstr(text, "\nCONFIG_KASAN=y") &&
	      strstr(text, "# CONFIG_SLOB is not set") &&
	      strstr(text, "# CONFIG_SLUB_TINY is not set") &&
	      strcmp(a.buf, b.buf),
	      "--debug: profiles/debug.config merged last, KASAN, SLUB, its own build key");
	free(text);
	sb_free(&a);
	sb_free(&b);
}

static void topo_error(const char *file, const char *want)
{
	struct topology t;
	char err[512] = "", path[256];
	int rc;

	snprintf(path, sizeof(path), TOPO_DIR "%s", file);
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
	CHECK(t.ntests == 3 && !strcmp(t.tests[1], "swapfile-integrity") &&
	      !strcmp(t.tests[2], "large-io"), "raid10: three tests in order");
	CHECK(!strcmp(t.name, "raid10"), "raid10: name from the file name");
	topo_free(&t);

	rc = topo_load("topologies/raid10-interrupt.ini", &t, err, sizeof(err));
	CHECK(rc == 0 && t.noptions == 1 &&
	      !strcmp(t.options[0], "frozen-reshape-io=none"),
	      "raid10-interrupt: one option, frozen-reshape-io=none (%s)", err);
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
	topo_error("bad-option.ini", "bad-option.ini:6: option = Frozen io=none: want NAME=VALUE");
	topo_error("bad-known-issue.ini",
		   "bad-known-issue.ini:6: known-issue = 6.12 swap-shared: want 'X.Y TEST why'");
	topo_error("bad-trace.ini",
		   "bad-trace.ini:6: trace = async_gen_syndrome raid5-make-request: 'raid5-make-request' is not a function name");
	topo_error("empty-trace.ini", "empty-trace.ini:6: trace = : name at least one function");
	topo_error("long-line.ini",
		   "long-line.ini:7: line 6 has 234 characters; the INI reader (inih) takes at most 198");
	topo_error("three-nodes.ini", "three-nodes.ini:4: nodes = 3: want 1, or 2");
	topo_error("md-on-crypt.ini", "layer 2 (md level=raid1): md goes on free disks, not on the layer below");
	topo_error("swapfile-no-fs.ini", "layer 2 (swapfile size=64M) needs a filesystem below it");
	topo_error("clone-two-disks.ini", "layer 1 (dm-clone): dm-clone wants 3 free disks");
	topo_error("test-path.ini", "test = ../tests/data-integrity: no such guest test");
	topo_error("selftest-missing.ini", "test = selftests/nope: no such guest test");

	rc = topo_load("topologies/fault-raid6.ini", &t, err, sizeof(err));
	CHECK(rc == 0 && t.ntrace == 4 &&
	      !strcmp(t.trace[0], "async_raid6_2data_recov") &&
	      !strcmp(t.trace[3], "async_syndrome_val"),
	      "fault-raid6: four trace names in order (%s)", err);
	topo_free(&t);

	rc = topo_load("topologies/drbd-raid1.ini", &t, err, sizeof(err));
	CHECK(rc == 0 && t.nodes == 2 && t.join_layer == 1 && t.npeer == 1 &&
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
	CHECK(is_splat("[    9.100000] ODEBUG: Out of memory. ODEBUG disabled"),
	      "kernel log: debugobjects turning itself off is a splat");
	CHECK(!is_splat("  WARNING: New raid1 won't be synchronised."),
	      "splat: lvm's own WARNING is not the kernel's");
	CHECK(!is_splat("[    1.000000] md: raid1 personality registered"),
	      "splat: a routine kernel line");
	CHECK(is_hang_report("[   41.250000] INFO: task jbd2/dm-0-8:46 blocked for more than 30 seconds."),
	      "hang: khungtaskd's report");
	CHECK(is_hang_report("+ mdadm --wait /dev/md0[   70.1] rcu: INFO: rcu_sched self-detected stall on CPU"),
	      "hang: an RCU stall after a tool's unfinished line");
	CHECK(!is_hang_report("mdadm: blocked for more than a while"),
	      "hang: a tool's words are not the kernel's");
	CHECK(!is_hang_report("[   41.3] \"echo 0 > /proc/sys/kernel/hung_task_timeout_secs\" disables this message."),
	      "hang: the report's own follow-up line is not a second one");
}

static void test_progress(void)
{
	char what[96] = "";

	CHECK(progress_bound("    # progress: waiting for md0 to go idle: quiet up to 90 s",
			     what, sizeof(what)) == 90 &&
	      !strcmp(what, "waiting for md0 to go idle"),
	      "progress: a nested step's bound and its name");
	CHECK(progress_bound("# progress: mdadm --grow: x: quiet up to 135 s",
			     what, sizeof(what)) == 135 &&
	      !strcmp(what, "mdadm --grow: x"),
	      "progress: a step name with a colon");
	CHECK(progress_bound("    ok 3 swapoff", what, sizeof(what)) == -1 &&
	      progress_bound("not ok 2 data-integrity", what, sizeof(what)) == -1 &&
	      progress_bound("# progress: default bound", what, sizeof(what)) == -1,
	      "progress: a result or the default line ends a declared bound");
	CHECK(!progress_bound("# progress: x: quiet up to nan s", what, sizeof(what)) &&
	      !progress_bound("# progress: x: quiet up to 0 s", what, sizeof(what)) &&
	      !progress_bound("# progress: x: quiet up to 9 s later", what, sizeof(what)) &&
	      !progress_bound("# hog: x: quiet up to 9 s", what, sizeof(what)),
	      "progress: no bound from a malformed or foreign line");
	CHECK(!progress_bound("    # progress: hog: page 256 of 4096 written",
			      what, sizeof(what)),
	      "progress: a note renews, declares nothing");
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

	CHECK(series_read("patches/base", "6.1", -1, &names, &n, &kd, err, sizeof(err)) == 0 &&
	      n == 0, "series: base is empty");
	CHECK(series_read("host/test/series-missing", "6.1", -1, &names, &n, &kd, err,
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

/* The paths a seeded build looks for (tools/, scripts/, Kconfig). */
static void test_patch_path(void)
{
	char b[256];
	const char *p;

	p = patch_path("+++ b/tools/objtool/check.c", b, sizeof(b));
	CHECK(p && !strcmp(p, "tools/objtool/check.c"), "patch path: git +++ b/");
	p = patch_path("--- linux-6.1.orig/arch/x86/Kconfig\t2021-01-01 00:00:00",
		       b, sizeof(b));
	CHECK(p && !strcmp(p, "arch/x86/Kconfig"),
	      "patch path: quilt prefix dropped, timestamp cut at the tab");
	CHECK(!patch_path("--- /dev/null", b, sizeof(b)),
	      "patch path: /dev/null names no file");
	p = patch_path("rename to scripts/kallsyms.c", b, sizeof(b));
	CHECK(p && !strcmp(p, "scripts/kallsyms.c"),
	      "patch path: git rename, no prefix");
	CHECK(!patch_path("---", b, sizeof(b)) &&
	      !patch_path("-- ", b, sizeof(b)) &&
	      !patch_path("+\tbio = bio_alloc();", b, sizeof(b)),
	      "patch path: the message's --- line, the signature, a hunk line");
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
	CHECK(cov_find(&c, "punt_bios_to_rescuer")->unreachable &&
	      cov_uncounted(cov_find(&c, "punt_bios_to_rescuer")) &&
	      !cov_uncounted(cov_find(&c, "swap_page_sector")),
	      "coverage: an unreachable name with 0 calls is not counted, others are");
	cov_free(&c);
}

/* The variant of line v whose op is op and text is want. */
static bool has_variant(struct variant *v, int n, const char *op,
			const char *want)
{
	int i;

	for (i = 0; i < n; i++)
		if (!strcmp(v[i].op, op) && !strcmp(v[i].text, want))
			return true;
	return false;
}

static int variants_of(const char *line, struct variant **v)
{
	return mutate_line(line, v);
}

/* --mutate's operators, one line at a time; a fixture patch's mutant. */
static void test_mutant_ops(void)
{
	struct variant *v;
	int n;

	n = variants_of("\tif (bio->bi_iter.bi_size == 0)", &v);
	CHECK(n == 2 && has_variant(v, n, "cmp", "\tif (bio->bi_iter.bi_size != 0)") &&
	      has_variant(v, n, "const", "\tif (bio->bi_iter.bi_size == 1)"),
	      "mutant: a comparison flipped, a constant off by one; no negation that is the flip (%d)", n);
	variants_free(v, n);
	n = variants_of("\tif (!bio || bio->bi_status)", &v);
	CHECK(n == 1 && has_variant(v, n, "cond", "\tif (!(!bio || bio->bi_status))"),
	      "mutant: a condition negated (%d)", n);
	variants_free(v, n);
	n = variants_of("}", &v);
	CHECK(n == 0, "mutant: a closing brace has none (%d)", n);
	variants_free(v, n);
	n = variants_of("\t*sector += 8;", &v);
	CHECK(n == 2 && has_variant(v, n, "arith", "\t*sector -= 8;"),
	      "mutant: a statement through a pointer is code, not a comment (%d)", n);
	variants_free(v, n);
	n = variants_of("\tif (c) x |= REQ_FUA;", &v);
	CHECK(!has_variant(v, n, "flag", "\t;"),
	      "mutant: an if is not dropped as a flag statement");
	variants_free(v, n);
	n = variants_of("\tx = A_FLAG | BIT(3) | p->B_FLAG;", &v);
	CHECK(n == 2 && has_variant(v, n, "flag", "\tx = BIT(3) | p->B_FLAG;") &&
	      has_variant(v, n, "const", "\tx = A_FLAG | BIT(4) | p->B_FLAG;"),
	      "mutant: A_FLAG dropped; BIT(3) and p->B_FLAG are not flags to drop (%d)", n);
	variants_free(v, n);
	n = variants_of("\tsector = start + (offset >> 9);", &v);
	CHECK(n == 2 && has_variant(v, n, "arith", "\tsector = start - (offset >> 9);") &&
	      has_variant(v, n, "const", "\tsector = start + (offset >> 10);"),
	      "mutant: + becomes -, a shift is off by one, >> is no comparison (%d)", n);
	variants_free(v, n);
	n = variants_of("\tbio_init(bio, bdev, vecs, nr, opf);", &v);
	CHECK(n == 5 && has_variant(v, n, "call", "\t;") &&
	      has_variant(v, n, "swap", "\tbio_init(bdev, bio, vecs, nr, opf);") &&
	      has_variant(v, n, "swap", "\tbio_init(bio, bdev, vecs, opf, nr);"),
	      "mutant: a call dropped, each neighbouring pair of arguments swapped (%d)", n);
	variants_free(v, n);
	n = variants_of("\tbio->bi_opf = REQ_OP_WRITE | REQ_PREFLUSH;", &v);
	CHECK(n == 2 && has_variant(v, n, "flag", "\tbio->bi_opf = REQ_OP_WRITE;") &&
	      has_variant(v, n, "flag", "\tbio->bi_opf = REQ_PREFLUSH;"),
	      "mutant: a flag dropped from an | expression, either side (%d)", n);
	variants_free(v, n);
	n = variants_of("\tbio->bi_opf |= REQ_SYNC;", &v);
	CHECK(n == 1 && has_variant(v, n, "flag", "\t;"),
	      "mutant: a flag set dropped (%d)", n);
	variants_free(v, n);
	n = variants_of("\tpr_err(\"md: x < y, 1 == %d\\n\", a - b);", &v);
	CHECK(n == 0, "mutant: no mutant of logging, nor inside a string (%d)", n);
	variants_free(v, n);
	n = variants_of("\tp->x = q->y; /* a < b */", &v);
	CHECK(n == 0, "mutant: -> and a comment are not comparisons (%d)", n);
	variants_free(v, n);
	n = variants_of("\t * if (a == b) in a comment", &v);
	CHECK(n == 0, "mutant: a comment line has none (%d)", n);
	variants_free(v, n);
	n = variants_of("\tx <<= 2;", &v);
	CHECK(n == 1 && has_variant(v, n, "const", "\tx <<= 3;"),
	      "mutant: <<= is no comparison (%d)", n);
	variants_free(v, n);
	n = variants_of("\treturn min(a, b) + 0x10;", &v);
	CHECK(n == 1 && has_variant(v, n, "arith", "\treturn min(a, b) - 0x10;"),
	      "mutant: min()'s arguments and hex constants are left alone (%d)", n);
	variants_free(v, n);
}

static void test_mutants(void)
{
	char *patch = read_file("host/test/cov/0001-fixture.patch", NULL);
	char *text, tmp[] = "/tmp/mutant-XXXXXX";
	struct mutants ms = { 0 }, a = { 0 }, b = { 0 };
	int fd, i, same = 0;

	mutants_from_patch(&ms, patch ? patch : "", "host/test/cov/src");
	CHECK(ms.n == 1 && ms.m[0].line == 12 && !strcmp(ms.m[0].op, "arith") &&
	      !strcmp(ms.m[0].func, "foo_compute") &&
	      !strcmp(ms.m[0].new, "\tx -= b;"),
	      "mutant: the fixture's added lines give one mutant, x -= b at foo.c:12 (%d)",
	      ms.n);
	text = ms.n ? mutant_patch(&ms.m[0], "host/test/cov/src") : NULL;
	fd = mkstemp(tmp);
	if (fd >= 0 && text) {
		char *argv[] = { "patch", "-p1", "--dry-run", "-s", "-d",
				 "host/test/cov/src", "-i", tmp, NULL };

		CHECK(write(fd, text, strlen(text)) == (ssize_t)strlen(text) &&
		      run_argv(argv, NULL, "/dev/null") == 0 &&
		      strstr(text, "-\tx += b;\n+\tx -= b;\n"),
		      "mutant: its patch applies to the tree with patch -p1");
	} else {
		CHECK(0, "mutant: its patch is made");
	}
	if (fd >= 0)
		close(fd);
	unlink(tmp);
	free(text);
	mutants_free(&ms);
	for (i = 0; i < 12; i++) {
		struct mutant m = { .line = i + 1, .order = i };

		snprintf(m.id, sizeof(m.id), "%08d", i);
		m.old = xstrdup("a");
		m.new = xstrdup("b");
		a.m = xrealloc(a.m, (a.n + 1) * sizeof(m));
		a.m[a.n++] = m;
		m.old = xstrdup("a");
		m.new = xstrdup("b");
		b.m = xrealloc(b.m, (b.n + 1) * sizeof(m));
		b.m[b.n++] = m;
	}
	mutants_sample(&a, 4, 7);
	mutants_sample(&b, 4, 7);
	for (i = 0; i < a.n && i < b.n; i++)
		same += !strcmp(a.m[i].id, b.m[i].id) &&
			(!i || a.m[i].order > a.m[i - 1].order);
	CHECK(a.n == 4 && same == 4,
	      "mutant: --mutate-max takes the same seeded choice twice, in order");
	mutants_free(&a);
	mutants_free(&b);
	free(patch);
	patch = read_file("host/test/cov/0002-quiet.patch", NULL);
	mutants_from_patch(&ms, patch ? patch : "", "host/test/cov/src");
	CHECK(ms.n == 1 && ms.m[0].line == 6 &&
	      !strcmp(ms.m[0].new, "\ta = a + b;"),
	      "mutant: none in a logging call's continuation line, one in the next statement (%d)",
	      ms.n);
	mutants_free(&ms);
	free(patch);
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

/* The tree: steps under their test, a step's own steps under it. */
static void test_ktap_nested(void)
{
	struct ktap k = feed(
		"KTAP version 1\n1..2\n"
		"    KTAP version 1\n    1..3\n"
		"    # duration_ms: 250\n    ok 1 written\n"
		"        KTAP version 1\n        1..1\n"
		"        not ok 1 block 7 differs\n"
		"    not ok 2 read back\n"
		"    # mismatch at 4096\n"
		"not ok 1 data-integrity\n"
		"    KTAP version 1\n    1..0 # SKIP no swap file\n"
		"ok 2 swapfile-integrity # SKIP no swap file\n");
	const struct ktap_test *t = &k.tests[0];
	struct strbuf why = { 0 };

	CHECK(ktap_finish(&k) == 0 && k.ntests == 2, "ktap nested: two tests (%s)",
	      k.errors.buf ? k.errors.buf : "");
	CHECK(t->nsub == 2 && t->plan == 3 && !strcmp(t->sub[0].name, "written") &&
	      t->sub[0].result == KTAP_PASS && t->sub[0].duration == 0.25 &&
	      t->sub[1].result == KTAP_FAIL,
	      "ktap nested: a test keeps its steps, results and durations");
	CHECK(t->sub[1].nsub == 1 && !strcmp(t->sub[1].sub[0].name, "block 7 differs"),
	      "ktap nested: a step keeps its own steps");
	CHECK(strstr(t->detail, "    not ok 2 read back") &&
	      strstr(t->detail, "        not ok 1 block 7 differs"),
	      "ktap nested: the test's detail still holds its steps' lines");
	CHECK(k.tests[1].result == KTAP_SKIP && k.tests[1].plan == 0 &&
	      k.tests[1].nsub == 0, "ktap nested: a skipped test, plan 0");
	CHECK(test_checked(t, &why) == KTAP_FAIL && !why.len,
	      "steps: a failed test stays failed");
	ktap_free(&k);
	k = feed("KTAP version 1\n1..1\n    KTAP version 1\n    1..3\n"
		 "    ok 1 a\n    ok 2 b\nok 1 t\n");
	CHECK(test_checked(&k.tests[0], &why) == KTAP_FAIL &&
	      strstr(why.buf, "planned 3 steps and reported 2"),
	      "steps: passing with a planned step missing is a failure (%s)",
	      why.buf ? why.buf : "");
	ktap_free(&k);
	sb_free(&why);
	k = feed("KTAP version 1\n1..1\n    KTAP version 1\n    1..2\n"
		 "    ok 1 a\n    not ok 2 b\nok 1 t\n");
	CHECK(test_checked(&k.tests[0], &why) == KTAP_FAIL &&
	      strstr(why.buf, "1 of its steps failed"),
	      "steps: passing with a failed step is a failure");
	ktap_free(&k);
	sb_free(&why);
}

/* A splat is named after the test in whose window it came. */
static void test_windows(void)
{
	struct test_result kl = { 0 };
	char *text2, *text3;
	char *text = scan_console(
		"[ 0.5] WARNING: at boot\n"
		"[ 1.0] stacktest: begin swapfile-integrity\n"
		"[ 2.0] EXT4-fs error (device md0): bad block\n"
		"[ 3.0] stacktest: end swapfile-integrity\n"
		"[ 3.5] stacktest: begin stack-teardown\n"
		"[ 3.6] stacktest: end stack-teardown\n"
		"[ 4.0] BUG: after the tests\n", &kl);

	CHECK(text && strstr(text, "at boot:\n  [ 0.5] WARNING") &&
	      strstr(text, "during swapfile-integrity:\n  [ 2.0] EXT4-fs error") &&
	      strstr(text, "after stack-teardown:\n  [ 4.0] BUG"),
	      "kernel log: each splat under its window (%s)", text);
	free(scan_console("", NULL));
	text2 = scan_console(
		"[ 1.0] init: deadline near: blocked tasks (sysrq-w) follow\n"
		"[ 1.1] Call Trace:\n[ 1.2] init: end of the blocked tasks\n",
		NULL);
	CHECK(!text2 || !*text2, "kernel log: PID 1's own blocked-task dump is no splat");
	CHECK((text3 = scan_console(
		"[ 1.0] init: deadline near: blocked tasks (sysrq-w) follow\n"
		"[ 1.1] Call Trace:\n[ 1.2] init: end of the blocked tasks\n"
		"[ 1.3] BUG: after it\n", NULL)) && strstr(text3, "BUG: after it") &&
	      !strstr(text3, "Call Trace"), "kernel log: a splat after the dump still counts");
	free(text2);
	free(text3);
	CHECK(kl.nsub == 3 && !strcmp(kl.sub[1].name, "swapfile-integrity") &&
	      kl.sub[1].result == KTAP_FAIL && strstr(kl.sub[1].detail, "EXT4-fs"),
	      "kernel log: a failed step per window with splats");
	free(text);
}

/* Layer kinds: registered once each, each with its kernel fragment. */
static void test_kinds(void)
{
	const struct layer_kind *const *k;
	char path[128], err[256];
	struct fragments f;
	int i, n, bad = 0;

	k = layer_kinds(&n);
	for (i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "config/layers/%s.config", k[i]->name);
		bad += !path_exists(path) || !k[i]->build || !k[i]->teardown ||
		       (i && !strcmp(k[i - 1]->name, k[i]->name));
	}
	CHECK(n >= 14 && !bad, "layer kinds: %d, each once, with build, teardown and config/layers/KIND.config", n);
	kconfig_fragments("config", "6.1", NULL, NULL, &f);
	for (i = 1, bad = 0; i <= f.nlayers; i++)
		bad += !layer_kind(fragment_kind(&f, i, path, sizeof(path)));
	CHECK(f.nlayers == n && !bad && strstr(f.path[0], "base.config"),
	      "config/: base.config first, then one fragment per layer kind");
	debug_profile_checks(&f);
	CHECK(layer_kind("brd")->swap_in_ram && layer_kind("drbd")->joins_nodes &&
	      swap_pressure_rank(layer_kind("dm-zoned")->swap_pressure) >
	      swap_pressure_rank("reclaim"),
	      "layer kinds: brd in RAM, drbd joins nodes, dm-zoned's memcg pressure");
	CHECK(kconfig_lacks("dm-zoned config/layers/dm-zoned.config:3: CONFIG_DM_ZONED=y did not take\n",
			    "dm-zoned", err, sizeof(err)) &&
	      !strncmp(err, "config/layers/dm-zoned.config:3", 31) &&
	      !kconfig_lacks("", "md", err, sizeof(err)),
	      "kconfig: a kind the kernel lacks, with the reason");
}

/* Every topology of a folder parses, and none runs a harness self-test. */
static int check_folder(const char *dir, int *bad)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	struct topology t;
	char path[300], err[512];
	int n = 0, i;

	while (d && (de = readdir(d))) {
		if (!strstr(de->d_name, ".ini"))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		if (topo_load(path, &t, err, sizeof(err))) {
			printf("    %s\n", err);
			(*bad)++;
			continue;
		}
		for (i = 0; i < t.ntests; i++)
			*bad += !strncmp(t.tests[i], "selftests/", 10);
		n++;
		topo_free(&t);
	}
	if (d)
		closedir(d);
	return n;
}

static void test_production(void)
{
	int bad = 0, n = check_folder("topologies", &bad);
	int ki = check_folder("topologies/known-issues", &bad);

	CHECK(n >= 26 && ki >= 3 && !bad,
	      "topologies/ (%d) and known-issues/ (%d) parse, none uses selftests/",
	      n, ki);
}

/* A dm-log-writes log built here in the kernel's format, replayed. */
static void lw_put(FILE *f, uint64_t sector, uint64_t n, uint64_t flags,
		   const char *mark, int fill)
{
	uint64_t e[4] = { htole64(sector), htole64(n), htole64(flags),
			  htole64(mark ? strlen(mark) : n * 512) };
	char sec[512] = { 0 };
	uint64_t i;

	memcpy(sec, e, sizeof(e));
	if (mark)
		memcpy(sec + sizeof(e), mark, strlen(mark));
	fwrite(sec, 1, 512, f);
	for (i = 0; !(flags & (8 | 4)) && i < n; i++) {
		memset(sec, fill, 512);
		fwrite(sec, 1, 512, f);
	}
}

static void test_logwrites(void)
{
	const char *log = "build/check/unit-lw.log", *dev = "build/check/unit-lw.img";
	struct { uint64_t magic, version, nr; uint32_t ss; } __attribute__((packed)) sb = {
		htole64(0x6a736677736872ULL), htole64(1), htole64(7), htole32(512) };
	char head[512] = { 0 }, msg[256] = "", got[16 * 512];
	FILE *f;
	int fd, ok;

	mkdir_p("build/check");
	f = fopen(log, "w");
	memcpy(head, &sb, sizeof(sb));
	fwrite(head, 1, 512, f);
	lw_put(f, 0, 8, 0, NULL, 'a');		/* a write, flushed below */
	lw_put(f, 0, 0, 1, NULL, 0);		/* the flush */
	lw_put(f, 0, 0, 8, "call-1", 0);
	lw_put(f, 8, 8, 2, NULL, 'b');		/* a FUA write */
	lw_put(f, 0, 4, 4, NULL, 0);		/* a discard */
	lw_put(f, 0, 0, 8, "call-2", 0);
	lw_put(f, 4, 1, 0, NULL, 'c');
	fclose(f);
	fd = open(dev, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	ok = fd >= 0 && !ftruncate(fd, sizeof(got));
	close(fd);
	ok = ok && lw_replay(log, dev, "call-1", msg, sizeof(msg)) == 1;
	fd = open(dev, O_RDONLY);
	ok = ok && read(fd, got, sizeof(got)) == sizeof(got) && got[0] == 'a' &&
	     got[8 * 512 - 1] == 'a' && got[8 * 512] == 0;
	close(fd);
	CHECK(ok, "log-writes: replay to a mark applies what was logged before it (%s)", msg);
	ok = lw_replay(log, dev, "call-2", msg, sizeof(msg)) == 3;
	fd = open(dev, O_RDONLY);
	ok = ok && read(fd, got, sizeof(got)) == sizeof(got) && got[0] == 0 &&
	     got[4 * 512 - 1] == 0 && got[4 * 512] == 'a' && got[8 * 512] == 'b';
	close(fd);
	CHECK(ok, "log-writes: a FUA write and a discard (as zeroes) in log order (%s)", msg);
	CHECK(lw_replay(log, dev, "call-9", msg, sizeof(msg)) < 0 &&
	      strstr(msg, "no mark 'call-9' in 7 entries"),
	      "log-writes: a mark not in the log is an error naming it (%s)", msg);
	CHECK(lw_replay(dev, log, NULL, msg, sizeof(msg)) < 0 &&
	      strstr(msg, "not a dm-log-writes log"),
	      "log-writes: a file that is no log is refused (%s)", msg);
}

static const char *want_of(struct expect *e, const char *ks,
			   const char *series, const char *topo)
{
	const struct expect_rule *r;

	e->kseries = ks;
	r = expect_find(e, series, topo);
	return r ? r->want : "none";
}

static void test_expect(void)
{
	struct expect e;
	char err[256] = "";

	CHECK(expect_load("host/test/expect/kernels.expect", &e, err,
			  sizeof(err)) == 0, "expect: loads (%s)", err);
	CHECK(!strcmp(want_of(&e, "6.1", "base", "dm-zoned"), "pass") &&
	      !strcmp(want_of(&e, "6.12", "base", "dm-zoned"),
		      "fail:swapfile-integrity"),
	      "expect: [base@6.12] applies on 6.12 only");
	CHECK(!strcmp(want_of(&e, "6.12", "base", "raid10-reshape-frozen"),
		      "fail:md-interrupt") &&
	      !strcmp(want_of(&e, "6.12", "base", "raid1"), "pass"),
	      "expect: a topology [base@6.12] does not name falls to [base]");
	CHECK(!strcmp(want_of(&e, "6.12", "replay", "brd"), "fail") &&
	      !strcmp(want_of(&e, "6.1", "replay", "brd"), "none"),
	      "expect: a kernel's section alone: nothing on other kernels");
}

static void test_ksource(void)
{
	char rel[64] = "", *f;
	const char *mk = "build/unit-test-Makefile";
	FILE *fp = fopen(mk, "w");

	fputs("# SPDX\nVERSION = 6\nPATCHLEVEL = 13\nSUBLEVEL = 0\n"
	      "EXTRAVERSION = -rc1\nNAME = Baby Opossum Posse\n", fp);
	fclose(fp);
	CHECK(ksource_makefile_release(mk, rel, sizeof(rel)) == 0 &&
	      !strcmp(rel, "6.13.0-rc1"), "ksource: Makefile release (%s)", rel);
	fp = fopen(mk, "w");
	fputs("all:\n\techo not a kernel\n", fp);
	fclose(fp);
	CHECK(ksource_makefile_release(mk, rel, sizeof(rel)) == -1,
	      "ksource: a Makefile with no VERSION is no kernel's");
	unlink(mk);
	f = series_file("patches/replay-5.12-rc1-swapfile", "6.12");
	CHECK(!strcmp(f, "patches/replay-5.12-rc1-swapfile/series-6.12"),
	      "series: a folder's series-6.12 is 6.12's (%s)", f);
	free(f);
	f = series_file("patches/replay-5.12-rc1-swapfile", "6.1");
	CHECK(!strcmp(f, "patches/replay-5.12-rc1-swapfile/series"),
	      "series: other kernels read series (%s)", f);
	free(f);
}

/*
 * --kcidb: a run of two topologies (one passed, one hung) as a KCIDB
 * submission; make check's reports step validates the file with
 * kcidb-io.  Here: the paths, ids and statuses a dashboard keys on.
 */
#define UNIT_KCIDB "build/check/unit.kcidb.json"
static void test_kcidb(void)
{
	struct ksource k = { .name = "linux-source-6.1", .release = "6.1.192",
			     .version = "linux-source-6.1 6.1.192-3" };
	struct test_result ok[2] = {
		{ .name = "swapfile-integrity", .result = KTAP_PASS,
		  .duration = 3.5, .detail = "" },
		{ .name = "drbd check", .result = KTAP_SKIP, .duration = -1,
		  .detail = "", .directive = "SKIP no peer" },
	};
	struct test_result hung = { .name = "reserve-io", .result = KTAP_FAIL,
				    .duration = 60, .detail = "# writer D in mempool_alloc\n" };
	struct topo_result t[2] = {
		{ .name = "raid10", .verdict = "PASS", .ntests = 2, .tests = ok,
		  .wall = 15.2, .dir = "build/results/x/base/raid10", .nodes = 1 },
		{ .name = "raid1-bioset-reserve", .verdict = "TIMEOUT",
		  .ntests = 1, .tests = &hung, .wall = 75,
		  .dir = "build/results/x/base/raid1-bioset-reserve", .nodes = 1 },
	};
	struct series_report s = { .name = "base", .path = "patches/base",
				   .kernel_key = "fb5639d7aa19b3d2", .ntopo = 2,
				   .res = t };
	struct run_report r = { .id = "20261207-1400-1", .kernel = &k,
				.profile = "default", .seed = 7, .accel = "tcg",
				.complete = true, .nseries = 1, .series = &s };
	json_object *o, *tests, *x;
	char *text;
	size_t n = 0;

	mkdir_p("build/check");
	CHECK(report_kcidb(&r, UNIT_KCIDB) == 0, "kcidb: written");
	text = read_file(UNIT_KCIDB, &n);
	o = text ? json_tokener_parse(text) : NULL;
	tests = o ? json_object_object_get(o, "tests") : NULL;
	CHECK(tests && json_object_array_length(tests) == 5,
	      "kcidb: a test per topology and per guest test (5)");
	x = tests ? json_object_array_get_idx(tests, 1) : NULL;
	CHECK(x && !strcmp(json_object_get_string(json_object_object_get(x, "path")),
			   "stacktest.raid10.swapfile-integrity") &&
	      !strcmp(json_object_get_string(json_object_object_get(x, "status")), "PASS") &&
	      !strcmp(json_object_get_string(json_object_object_get(x, "build_id")),
		      "stacktest:build-fb5639d7aa19b3d2"),
	      "kcidb: stacktest.raid10.swapfile-integrity PASS on the build's id");
	x = tests ? json_object_array_get_idx(tests, 2) : NULL;
	CHECK(x && !strcmp(json_object_get_string(json_object_object_get(x, "path")),
			   "stacktest.raid10.drbd_check") &&
	      !strcmp(json_object_get_string(json_object_object_get(x, "status")), "SKIP"),
	      "kcidb: a name outside the path alphabet is mended (drbd_check), SKIP");
	x = tests ? json_object_array_get_idx(tests, 3) : NULL;
	CHECK(x && !strcmp(json_object_get_string(json_object_object_get(x, "status")), "FAIL"),
	      "kcidb: a hang (TIMEOUT) is the kernel found faulty: FAIL");
	x = tests ? json_object_array_get_idx(tests, 4) : NULL;
	CHECK(x && strstr(json_object_get_string(json_object_object_get(x, "log_excerpt")),
			  "mempool_alloc"),
	      "kcidb: a failed test carries its log excerpt");
	json_object_put(o);
	free(text);
}

/*
 * A kernel artifact's coverage.list: every state and the host's reason
 * survive the round trip, and a committed list (no reason) still reads.
 */
static void test_cov_list(void)
{
	const char *path = "build/obj/cov-list.test";
	struct cov a = { 0 }, b = { 0 };
	char err[256];
	int rc;

	rc = cov_from_list(&a, "patches/base/coverage.list", err, sizeof(err));
	CHECK(rc == 0 && a.n > 10 && !a.fn[0].why[0],
	      "patches/base/coverage.list reads, without reasons (%d)", a.n);
	cov_classify(&a, "/nonexistent");
	a.fn[1].absent = a.fn[1].removed = true;
	rc = cov_write_list(&a, path) ||
	     cov_from_list(&b, path, err, sizeof(err));
	CHECK(rc == 0 && b.n == a.n, "the written list reads back (%d of %d)",
	      b.n, a.n);
	CHECK(b.n > 4 && b.fn[0].unreachable && !b.fn[0].removed &&
	      b.fn[1].absent && b.fn[1].removed &&
	      !strcmp(b.fn[3].why, a.fn[3].why) &&
	      !strcmp(b.fn[4].file, a.fn[4].file) && b.fn[3].why[0],
	      "states, files and reasons survive (%s: '%s')", b.fn[3].name,
	      b.fn[3].why);
	unlink(path);
	cov_free(&a);
	cov_free(&b);
}

int main(void)
{
	test_topology();
	test_logwrites();
	test_ktap_nested();
	test_windows();
	test_kinds();
	test_production();
	test_splats();
	test_layers();
	test_ktap();
	test_kconfig();
	test_series();
	test_patch_output();
	test_patch_path();
	test_cpio();
	test_coverage();
	test_mutant_ops();
	test_mutants();
	test_hang();
	test_progress();
	test_expect();
	test_ksource();
	test_kcidb();
	test_cov_list();
	printf("unit: %d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
