// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel tracepoints by name.  Tracepoints of the kernel image are not
 * exported to modules on 6.1; for_each_kernel_tracepoint() finds them.
 */
#include <linux/string.h>
#include <linux/tracepoint.h>

#include "sframe_unwind/lib.h"

struct sfu_tp_search {
	const char *name;
	struct tracepoint *tp;
};

static void sfu_tp_match(struct tracepoint *tp, void *priv)
{
	struct sfu_tp_search *search = priv;

	if (!strcmp(tp->name, search->name))
		search->tp = tp;
}

/**
 * sfu_tracepoint_find() - a kernel tracepoint by name
 * @name: e.g. "sched_process_exit" or "sys_enter"
 *
 * Context: process context.
 * Return: the tracepoint, or NULL.
 */
struct tracepoint *sfu_tracepoint_find(const char *name)
{
	struct sfu_tp_search search = { .name = name };

	for_each_kernel_tracepoint(sfu_tp_match, &search);
	return search.tp;
}
