/* SPDX-License-Identifier: GPL-2.0 */
#ifndef HOST_TOPO_H
#define HOST_TOPO_H

#include "../stacks/layer.h"

#define TOPO_MAX_LAYERS 16
#define TOPO_MAX_TESTS 16

#define TOPO_MAX_OPTIONS 8
#define TOPO_MAX_TRACE 16

struct topology {
	char *name;		/* file name without directory and .ini */
	char *path;
	char *description;
	long long memory;	/* bytes */
	int nodes;
	int timeout;		/* seconds, for the whole guest */
	int ndisks;
	long long disk_size;	/* bytes */
	char bus[16];
	bool write_through;	/* the guest is told: no volatile write cache */
	int nzoned;		/* NVMe zoned namespaces after the disks */
	long long zoned_size;	/* bytes each; 16M zones */
	int nlayers;
	struct layer layers[TOPO_MAX_LAYERS];
	char *layer_text[TOPO_MAX_LAYERS];
	int ntests;
	char *tests[TOPO_MAX_TESTS];	/* node0's, or the only guest's */
	int npeer;
	char *peer_tests[TOPO_MAX_TESTS];	/* node1's (nodes = 2) */
	int join_layer;		/* the layer joining two nodes (drbd), or -1 */
	char swap_pressure[16];	/* reclaim, memcg, pageout; "": by the stack */
	int noptions;
	char *options[TOPO_MAX_OPTIONS];	/* "name=value": STACK_OPT_NAME */
	int nknown;
	char *known[TOPO_MAX_OPTIONS];	/* "X.Y TEST why": a SKIP on X.Y */
	int ntrace;
	char *trace[TOPO_MAX_TRACE];	/* its layers' own paths to count */
};

/*
 * Parse a topology file.  On error return -1 and put "file:line: what"
 * in err.  Its layers must fit its disks (each kind's disks()), and each
 * test must be a guest test program: guest-tests/tests/NAME.c, or a
 * self-test of the harness, "selftests/NAME" (guest-tests/selftests/),
 * under $STACKTEST_ROOT (default: the current folder).
 */
int topo_load(const char *path, struct topology *t, char *err, size_t errlen);
void topo_free(struct topology *t);

#endif
