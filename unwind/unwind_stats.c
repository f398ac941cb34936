// SPDX-License-Identifier: GPL-2.0
/*
 * The user unwinder's counters, per CPU so that counting costs nothing in
 * NMI context, and <debugfs>/sframe_unwind/unwind_stats.
 */
#include <linux/debugfs.h>
#include <linux/export.h>
#include <linux/percpu.h>
#include <linux/seq_file.h>

#include "sframe_unwind/compat/export.h"
#include "sframe_unwind/lib.h"
#include "sframe_unwind/unwind.h"
#include "internal.h"

DEFINE_PER_CPU(struct sfu_unwind_stats, sfu_unwind_stats);

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

	this_cpu_inc(sfu_unwind_stats.unwinds);
	this_cpu_inc(sfu_unwind_stats.stops[st->stop]);
	for (i = SFU_METHOD_REGS; i < SFU_METHOD_NR; i++)
		this_cpu_add(sfu_unwind_stats.frames[i], by_method[i]);
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
	return this_cpu_read(sfu_unwind_stats.sframe_faults);
}
EXPORT_SYMBOL_IF_KUNIT(sfu_unwind_sframe_faults);

static int sfu_unwind_stats_show(struct seq_file *m, void *v)
{
	static const char *const methods[] = {
		[SFU_METHOD_REGS] = "regs", [SFU_METHOD_SFRAME] = "sframe", [SFU_METHOD_FP] = "fp",
		[SFU_METHOD_SIGNAL] = "signal",
	};
	struct sfu_unwind_stats sum;
	unsigned int i;

	sfu_percpu_sum_struct(sfu_unwind_stats, &sum);
	seq_printf(m, "unwinds %llu\n", sum.unwinds);
	for (i = SFU_METHOD_REGS; i < SFU_METHOD_NR; i++)
		seq_printf(m, "frames_%s %llu\n", methods[i], sum.frames[i]);
	for (i = SFU_END_NONE + 1; i < SFU_END_NR; i++)
		seq_printf(m, "stop_%s %llu\n", sfu_end_name(i), sum.stops[i]);
	seq_printf(m, "sframe_faults %llu\n", sum.sframe_faults);
	seq_printf(m, "sframe_errors %llu\n", sum.sframe_errors);
	seq_printf(m, "fp_jit_frames %llu\n", sum.fp_jit_frames);
	seq_printf(m, "fp_nocfi_frames %llu\n", sum.fp_nocfi_frames);
	seq_printf(m, "fp_skipped_frames %llu\n", sum.fp_skipped_frames);
	seq_printf(m, "fp_tail_calls %llu\n", sum.fp_tail_calls);
	seq_printf(m, "go_stack_switches %llu\n", sum.go_stack_switches);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(sfu_unwind_stats);

/**
 * sfu_unwind_init() - set up the unwinder's debugfs statistics
 *
 * Context: module init, after the debugfs root exists.
 * Return: 0.
 */
int sfu_unwind_init(void)
{
	sfu_debugfs_file("unwind_stats", 0444, NULL, &sfu_unwind_stats_fops);
	return 0;
}

/**
 * sfu_unwind_exit() - undo sfu_unwind_init()
 *
 * Context: module exit, before the debugfs root is removed.
 */
void sfu_unwind_exit(void)
{
	sfu_debugfs_remove("unwind_stats");
}
