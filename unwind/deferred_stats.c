// SPDX-License-Identifier: GPL-2.0
/*
 * The counters of deferred unwinding and <debugfs>/sframe_unwind/deferred_stats.
 */
#include <linux/percpu.h>
#include <linux/seq_file.h>

#include "sframe_unwind/compat/export.h"
#include "sframe_unwind/lib.h"
#include "sframe_unwind/task_work.h"
#include "internal.h"

DEFINE_PER_CPU(u64 [SFU_DF_NR], sfu_df_stats);

static const char *const sfu_df_stat_names[SFU_DF_NR] = {
	/* calls of the request functions with a registered requester */
	[SFU_DF_REQUESTS] = "requests",
	/* requests that started an entry's unwind */
	[SFU_DF_QUEUED] = "queued",
	/* requests of another requester for an entry already requested */
	[SFU_DF_JOINED] = "joined",
	/* requests of a requester already served or queued for the entry */
	[SFU_DF_ALREADY] = "already",
	/* callbacks made */
	[SFU_DF_DELIVERED] = "delivered",
	/* callchains walked */
	[SFU_DF_UNWINDS] = "unwinds",
	/* deliveries from the cache, without a walk */
	[SFU_DF_CACHE_HITS] = "cache_hits",
	/* requests refused: kernel thread, I/O worker, no mm */
	[SFU_DF_REJECTED_NOT_USER] = "rejected_not_user",
	/* requests refused: the task is exiting */
	[SFU_DF_REJECTED_EXITING] = "rejected_exiting",
	/* requests refused: every slot the task may use is taken */
	[SFU_DF_REJECTED_NO_SLOT] = "rejected_no_slot",
	/* requests refused: NMI found the task's slot or the CPU's hand-off busy */
	[SFU_DF_REJECTED_BUSY] = "rejected_busy",
	/* callbacks not made: the task exited first */
	[SFU_DF_DROPPED_EXIT] = "dropped_exit",
	/* callbacks not made: the task exec'd first */
	[SFU_DF_DROPPED_EXEC] = "dropped_exec",
	/* callbacks not made: the NMI hand-off ran in another task */
	[SFU_DF_DROPPED_LOST] = "dropped_lost",
	/* callbacks not made: the requester was cancelled */
	[SFU_DF_DROPPED_CANCEL] = "dropped_cancel",
	/* callbacks not made: no memory for the callchain */
	[SFU_DF_DROPPED_NOMEM] = "dropped_nomem",
};

/**
 * sfu_deferred_stat() - one of the deferred-unwinding counters
 * @s: which
 *
 * Return: its value, summed over CPUs.
 */
u64 sfu_deferred_stat(enum sfu_deferred_stat s)
{
	return sfu_percpu_sum(&sfu_df_stats[0], s);
}
EXPORT_SYMBOL_IF_KUNIT(sfu_deferred_stat);

static int sfu_df_stats_show(struct seq_file *m, void *v)
{
	unsigned int i;

	for (i = 0; i < SFU_DF_NR; i++)
		seq_printf(m, "%s %llu\n", sfu_df_stat_names[i], sfu_deferred_stat(i));
	seq_printf(m, "slots_used %u\n", sfu_df_slots_used());
	seq_printf(m, "task_work_pending %ld\n", sfu_task_work_pending());
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(sfu_df_stats);

/**
 * sfu_df_stats_init() - create <debugfs>/sframe_unwind/deferred_stats
 */
void sfu_df_stats_init(void)
{
	sfu_debugfs_file("deferred_stats", 0444, NULL, &sfu_df_stats_fops);
}

/**
 * sfu_df_stats_exit() - remove it
 */
void sfu_df_stats_exit(void)
{
	sfu_debugfs_remove("deferred_stats");
}
