// SPDX-License-Identifier: GPL-2.0
/*
 * Counter sets (sframe_unwind/counters.h): their sums over the CPUs and
 * the debugfs files that show them.
 */
#include <linux/cpumask.h>
#include <linux/percpu.h>
#include <linux/seq_file.h>

#include "sframe_unwind/compat/export.h"
#include "sframe_unwind/counters.h"
#include "sframe_unwind/lib.h"

/**
 * sfu_counter_read() - one counter of a set, summed over the CPUs
 * @c: the set
 * @i: the counter
 *
 * Counters are only ever added to on their own CPU; the sum is a snapshot
 * that may miss additions made while it runs.
 *
 * Return: the sum.
 */
u64 sfu_counter_read(const struct sfu_counters *c, unsigned int i)
{
	u64 sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += READ_ONCE(per_cpu_ptr(c->values, cpu)[i]);
	return sum;
}
EXPORT_SYMBOL_IF_KUNIT(sfu_counter_read);

/**
 * sfu_counters_show() - print a set, "<name> <value>" a line
 * @m: the seq_file
 * @c: the set
 *
 * In the order of the set's list; for a file that prints more than the
 * counters (sfu_counters_debugfs() prints them alone).
 */
void sfu_counters_show(struct seq_file *m, const struct sfu_counters *c)
{
	unsigned int i;

	for (i = 0; i < c->nr; i++)
		seq_printf(m, "%s %llu\n", c->names[i], sfu_counter_read(c, i));
}
EXPORT_SYMBOL_IF_KUNIT(sfu_counters_show);

static int sfu_counters_file_show(struct seq_file *m, void *v)
{
	const struct sfu_counters *c = m->private;

	sfu_counters_show(m, c);
	if (c->show_more)
		c->show_more(m);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(sfu_counters_file);

/**
 * sfu_counters_debugfs() - add a set's file to the module's debugfs directory
 * @c: the set, which must outlive the file
 *
 * The file, c->file, prints the counters (sfu_counters_show()), then
 * whatever c->show_more prints.
 */
void sfu_counters_debugfs(const struct sfu_counters *c)
{
	sfu_debugfs_file(c->file, 0444, (void *)c, &sfu_counters_file_fops);
}

/**
 * sfu_counters_debugfs_remove() - remove the file sfu_counters_debugfs() added
 * @c: the set
 */
void sfu_counters_debugfs_remove(const struct sfu_counters *c)
{
	sfu_debugfs_remove(c->file);
}
