// SPDX-License-Identifier: GPL-2.0
/*
 * The registry's event counters (stats.h) and their debugfs file: "<name>
 * <value>" a line, in the order of SFU_STATS, so scripts can read them
 * with a simple parser.
 */
#include <linux/export.h>
#include <linux/percpu.h>

#include "sframe_unwind/counters.h"
#include "stats.h"
#include "sframe_unwind/compat/export.h"

DEFINE_PER_CPU(u64, sfu_stats[SFU_STAT_NR]);

static const char *const sfu_stat_names[] = {
	SFU_STATS(SFU_COUNTER_NAME)
};

static const struct sfu_counters sfu_stat_counters =
	SFU_COUNTERS_INIT("stats", sfu_stat_names, sfu_stats, NULL);

/**
 * sfu_stat_read() - the value of one counter
 * @s: the counter
 *
 * Return: its value, summed over the CPUs.
 */
u64 sfu_stat_read(enum sfu_stat s)
{
	return sfu_counter_read(&sfu_stat_counters, s);
}
EXPORT_SYMBOL_IF_KUNIT(sfu_stat_read);

/**
 * sfu_stats_debugfs_init() - create <debugfs>/sframe_unwind/stats
 */
void sfu_stats_debugfs_init(void)
{
	sfu_counters_debugfs(&sfu_stat_counters);
}
