// SPDX-License-Identifier: GPL-2.0
/*
 * The user unwinder's counters (stats.h) and <debugfs>/sframe_unwind/unwind_stats.
 */
#include <linux/export.h>
#include <linux/percpu.h>

#include "sframe_unwind/compat/export.h"
#include "sframe_unwind/counters.h"
#include "sframe_unwind/unwind.h"
#include "internal.h"

DEFINE_PER_CPU(u64 [SFU_UW_NR], sfu_unwind_stats);

static const char *const sfu_unwind_counter_names[] = {
	SFU_UNWIND_COUNTERS(SFU_COUNTER_NAME)
};

const struct sfu_counters sfu_unwind_counters =
	SFU_COUNTERS_INIT("unwind_stats", sfu_unwind_counter_names, sfu_unwind_stats, NULL);
EXPORT_SYMBOL_IF_KUNIT(sfu_unwind_counters);

/**
 * sfu_unwind_account() - count a finished unwind and report why it ended
 * @st: the unwind, ended
 * @by_method: the frames it found, by enum sfu_method
 * @stop_reason: if not NULL, set to the enum sfu_end that ended it
 *
 * Context: any, NMI included.
 */
void sfu_unwind_account(const struct sfu_unwind_state *st, const unsigned long *by_method,
			int *stop_reason)
{
	unsigned int i;

	sfu_unwind_count(SFU_UW_UNWINDS, 1);
	if (st->stop != SFU_END_NONE)
		sfu_unwind_count(SFU_UW_STOP(st->stop), 1);
	for (i = SFU_METHOD_REGS; i < SFU_METHOD_NR; i++)
		sfu_unwind_count(SFU_UW_FRAMES(i), by_method[i]);
	if (stop_reason)
		*stop_reason = st->stop;
}

/**
 * sfu_unwind_sframe_faults() - SFrame lookups on this CPU that met a missing page
 *
 * A no-fault unwind falls back to frame pointers where a page of a
 * section is not resident; a caller that compares this count before and
 * after its unwind (on the same CPU, with migration disabled) learns that
 * it did, and can have the pages faulted in for the next time.  An unwind
 * in an interrupt nested between the two reads counts too: the caller may
 * see a fault that was not its own, never miss one of its own.
 *
 * Context: any, NMI included.
 * Return: the count of this CPU.
 */
unsigned long sfu_unwind_sframe_faults(void)
{
	return this_cpu_read(sfu_unwind_stats[SFU_UW_SFRAME_FAULTS]);
}
EXPORT_SYMBOL_IF_KUNIT(sfu_unwind_sframe_faults);

/**
 * sfu_unwind_init() - set up the unwinder's debugfs statistics
 *
 * Context: module init, after the debugfs root exists.
 * Return: 0.
 */
int sfu_unwind_init(void)
{
	sfu_counters_debugfs(&sfu_unwind_counters);
	return 0;
}

/**
 * sfu_unwind_exit() - undo sfu_unwind_init()
 *
 * Context: module exit, before the debugfs root is removed.
 */
void sfu_unwind_exit(void)
{
	sfu_counters_debugfs_remove(&sfu_unwind_counters);
}
