// SPDX-License-Identifier: GPL-2.0
/*
 * The counters of deferred unwinding (stats.h) and
 * <debugfs>/sframe_unwind/deferred_stats: the counters, then the slots
 * held and the module's task_work pending.
 */
#include <linux/export.h>
#include <linux/percpu.h>
#include <linux/seq_file.h>

#include "sframe_unwind/compat/export.h"
#include "sframe_unwind/counters.h"
#include "sframe_unwind/task_work.h"
#include "internal.h"

DEFINE_PER_CPU(u64 [SFU_DF_NR], sfu_df_stats);

static const char *const sfu_df_stat_names[] = {
	SFU_DEFERRED_COUNTERS(SFU_COUNTER_NAME)
};

/* What deferred_stats prints after the counters: two values of now. */
static void sfu_df_stats_more(struct seq_file *m)
{
	seq_printf(m, "slots_used %u\n", sfu_df_slots_used());
	seq_printf(m, "task_work_pending %ld\n", sfu_task_work_pending());
}

static const struct sfu_counters sfu_df_counters =
	SFU_COUNTERS_INIT("deferred_stats", sfu_df_stat_names, sfu_df_stats, sfu_df_stats_more);

/**
 * sfu_deferred_stat() - one of the deferred-unwinding counters
 * @s: which
 *
 * Return: its value, summed over CPUs.
 */
u64 sfu_deferred_stat(enum sfu_deferred_stat s)
{
	return sfu_counter_read(&sfu_df_counters, s);
}
EXPORT_SYMBOL_IF_KUNIT(sfu_deferred_stat);

/**
 * sfu_df_stats_init() - create <debugfs>/sframe_unwind/deferred_stats
 */
void sfu_df_stats_init(void)
{
	sfu_counters_debugfs(&sfu_df_counters);
}

/**
 * sfu_df_stats_exit() - remove it
 */
void sfu_df_stats_exit(void)
{
	sfu_counters_debugfs_remove(&sfu_df_counters);
}
