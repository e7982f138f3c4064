/* SPDX-License-Identifier: GPL-2.0 */
#ifndef HOST_MERGE_H
#define HOST_MERGE_H

#include "cli.h"

/*
 * --merge REPORT...: several runs' report.json (or results folders) of
 * one kernel as one run, judged and written like a run; the exit status.
 */
int merge_main(const struct options *o, int argc, char **argv);

#endif
