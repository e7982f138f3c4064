/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A layer kind is one self-describing entry, in its own file under
 * stacks/, registered with LAYER_KIND(): its options, the guest tools it
 * runs, the disks it takes, how swap on top of it gets its pages out,
 * what it needs on the kernel command line, and its build and teardown.
 * Its kernel options are config/layers/NAME.config.  The host reads the
 * same entries (to check a topology before booting anything, to put the
 * tools into the initramfs, to write the command line) as the guest's
 * PID 1 does (to build the stack).  Nothing else lists the kinds.
 *
 * A layer in a topology: "md level=raid10 layout=n2 chunk=64K".
 */
#ifndef STACKS_LAYER_H
#define STACKS_LAYER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define LAYER_MAX_OPTS 8
#define LAYER_MAX_TOOLS 8
#define LAYER_MAX_OPS 16

struct layer_opt {
	char key[24];
	char val[64];
};

struct layer {
	char kind[16];
	int nopts;
	struct layer_opt opt[LAYER_MAX_OPTS];
};

/* An option: a size ('s'), a count ('n'), or one word of a '|' list ('e'). */
struct layer_key {
	const char *key;
	char type;
	const char *choices;
};

struct stack;

/*
 * What a walk (--explore, guest-tests/tests/explore.c) can do to a live
 * layer of a kind, beside the I/O it does on the top: fail a member,
 * reload a table.  None may change the data the stack holds: the walk's
 * model of every block stays as it was, and a full scan checks that.
 *
 * pick() draws the operation's arguments from r into args ("md0 vdb"),
 * or returns -1 when it cannot run now (the array is already degraded);
 * apply() carries them out, as a trace replays them: 0 done, 1 not
 * applicable now (a shrunk trace dropped what it needed), -1 failed
 * (the kernel misbehaved), why in msg.  settle() ends every walk: undo
 * what is left undone (re-add, resume, thaw) and wait until the layer is
 * whole; it may check (md's mismatch_cnt).  alone: no I/O beside it.
 * offline: alone, and the walk closes its target first (the filesystem
 * on it unmounted, swap on that off) and opens it again after, so the
 * layer can be stopped and started (md's restart).  weight: how often
 * a walk draws it against the kind's others (0: 4).
 */
struct layer_op {
	const char *name;
	int (*pick)(const char *kind, uint64_t r, char *args, size_t len);
	int (*apply)(const char *kind, const char *args, char *msg,
		     size_t len);
	bool alone;
	int weight;
	bool offline;
};

struct layer_kind {
	const char *name;
	const char *what;		/* one line, for --layers */
	struct layer_key keys[LAYER_MAX_OPTS];
	/* Guest programs it runs: names in PATH, or absolute guest paths. */
	const char *tools[LAYER_MAX_TOOLS];
	/*
	 * How many free disks it takes, given whether a device is below it
	 * and how many disks are free; -1 with the reason in err.  NULL: the
	 * device below, else one free disk.
	 */
	int (*disks)(const struct layer *l, bool below, int free, char *err,
		     size_t len);
	/*
	 * Leaves its devices in the pool of free disks (for the next layer
	 * to take, as log-writes does under each md member), not on top.
	 */
	bool pool;
	/* Makes a disk of its own and adds it to the pool (null_blk). */
	bool makes_disk;
	bool fs;			/* mounts a filesystem */
	bool needs_fs;			/* goes in a mounted filesystem */
	/* Swap on top: "reclaim" (NULL), "memcg" or "pageout" (strongest wins). */
	const char *swap_pressure;
	bool swap_in_ram;		/* swap on it lives in RAM */
	bool joins_nodes;		/* joins the two guests of nodes = 2 */
	/* Words it needs on the kernel command line (built-in drivers). */
	void (*cmdline)(const struct layer *l, char *buf, size_t len);
	int (*build)(struct stack *s, const struct layer *l, char *msg,
		     size_t len);
	int (*teardown)(struct stack *s, const struct layer *l, char *msg,
			size_t len);
	/* A walk's operations on it (none: the walk only does I/O above it). */
	struct layer_op ops[LAYER_MAX_OPS];
	int (*settle)(const char *kind, char *msg, size_t len);
};

#define LAYER_KIND(var)							\
	static const struct layer_kind *const layer_kind_##var		\
	__attribute__((used, section("stacktest_layers"))) = &var

/* The registered kinds, sorted by name; their count in *n. */
const struct layer_kind *const *layer_kinds(int *n);
const struct layer_kind *layer_kind(const char *name);

/* Parse and validate one layer; on error return -1 with a message. */
int layer_parse(const char *text, struct layer *l, char *err, size_t errlen);
const char *layer_get(const struct layer *l, const char *key,
		      const char *def);
/* The disks a layer takes (its kind's disks(), or the default). */
int layer_disks(const struct layer *l, bool below, int free, char *err,
		size_t len);
/* A disks() for layers that make their own device (brd, zram, swap file). */
int layer_disks_none(const struct layer *l, bool below, int free, char *err,
		     size_t len);

/* Swap pressures, weakest first: "reclaim", "memcg", "pageout". */
extern const char *const swap_pressures[];
/* Its rank in swap_pressures, -1 if unknown. */
int swap_pressure_rank(const char *name);

/* "256M", "1G", "4096", "64K" into bytes; -1 when malformed. */
long long parse_size(const char *s);

#endif
