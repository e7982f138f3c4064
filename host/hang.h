/* SPDX-License-Identifier: GPL-2.0 */
#ifndef HOST_HANG_H
#define HOST_HANG_H

/*
 * The function of a kernel text address, "name+0xoff", from the text of
 * a System.map; NULL when no text symbol is at or below it.
 */
char *ksym(const char *map, unsigned long long addr);

/*
 * One line from what QEMU's monitor said at the deadline (host/qemu.c):
 * the VM's run state, the vCPU's instruction pointer as a function (map:
 * System.map text, may be NULL), whether it was halted and whether it
 * took interrupts.  NULL when state holds none of it.
 */
char *vcpu_summary(const char *state, const char *map);

/*
 * The NMI the host injects at the deadline makes the guest panic and
 * print its stack, then every task.  Cut console (its text) where that
 * begins, so that what came before is judged alone; return the stack
 * (the panic line to the first "</TASK>", at most 40 lines), or NULL.
 */
char *nmi_split(char *console);

#endif
