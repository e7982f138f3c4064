/* SPDX-License-Identifier: GPL-2.0 */
#ifndef HOST_MUTATE_H
#define HOST_MUTATE_H

#include "sched.h"

/*
 * --mutate: run the series as it is (the baseline), then each of its
 * mutants on the baseline topologies that executed the mutated function;
 * report every mutant's outcome on the console, in mutate.json and in
 * mutate.xml (JUnit) in the results folder.  Returns the exit status.
 */
int mutate_main(struct ctx *c);

#endif
