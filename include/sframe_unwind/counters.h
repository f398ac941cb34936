/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Counter sets: event counters, per CPU, listed once and shown in debugfs.
 *
 * The layer that owns a set lists it once, in its header, as an X-macro
 * with one entry a counter, in the order its debugfs file prints them:
 *
 *	#define SFU_FOO_COUNTERS(X)					\
 *		X(SFU_FOO_BARS, "bars", "bars seen")			\
 *		X(SFU_FOO_DROPPED, "dropped", "bars dropped: no memory")
 *
 *	enum sfu_foo_counter { SFU_FOO_COUNTERS(SFU_COUNTER_ID) SFU_FOO_NR };
 *
 * An entry is the constant the code counts with, the name the file prints
 * and what the counter counts: the text Documentation/reference.rst gives
 * it, which scripts/check-docs holds to this one.  A list may include
 * another (SFU_BAR_COUNTERS(X) among its entries).  The owner defines the
 * values, per CPU, the names and the set:
 *
 *	DEFINE_PER_CPU(u64 [SFU_FOO_NR], sfu_foo_stats);
 *	static const char *const sfu_foo_names[] = {
 *		SFU_FOO_COUNTERS(SFU_COUNTER_NAME)
 *	};
 *	const struct sfu_counters sfu_foo_counters =
 *		SFU_COUNTERS_INIT("foo_stats", sfu_foo_names, sfu_foo_stats, NULL);
 *
 * and counts with this_cpu_inc(sfu_foo_stats[SFU_FOO_BARS]) or
 * sfu_counter_add(&sfu_foo_counters, ...): one per-CPU add, safe against
 * the interrupts that nest there, so any context may count, NMI included.
 * sfu_counters_debugfs() adds the set's file, "<name> <value>" a line in
 * the order of the list, so that scripts read it with a simple parser.
 */
#ifndef _SFRAME_UNWIND_COUNTERS_H
#define _SFRAME_UNWIND_COUNTERS_H

#include <linux/build_bug.h>
#include <linux/percpu.h>
#include <linux/types.h>

struct seq_file;

/* Expansions of a list's X(constant, name, description) entries. */
#define SFU_COUNTER_ID(_id, _name, _desc)	_id,
#define SFU_COUNTER_NAME(_id, _name, _desc)	\
	[_id] = _name,

/**
 * struct sfu_counters - a set of per-CPU counters and the file that shows it
 * @file: its file in the module's debugfs directory
 * @names: the name of each counter, as the file prints it
 * @nr: the number of counters
 * @values: @nr counters per CPU
 * @show_more: optional: prints what the file shows after the counters
 */
struct sfu_counters {
	const char *file;
	const char *const *names;
	unsigned int nr;
	u64 __percpu *values;
	void (*show_more)(struct seq_file *m);
};

/**
 * SFU_COUNTERS_INIT() - the initialiser of a struct sfu_counters
 * @_file: its debugfs file
 * @_names: the array of names, one per counter
 * @_pcpu: the per-CPU array of u64 counters, as many as @_names
 * @_more: what the file prints after the counters, or NULL
 */
#define SFU_COUNTERS_INIT(_file, _names, _pcpu, _more) {			\
	.file = (_file),							\
	.names = (_names),							\
	.nr = sizeof(_names) / sizeof((_names)[0]) +				\
	      BUILD_BUG_ON_ZERO(sizeof(_names) / sizeof((_names)[0]) !=	\
				sizeof(_pcpu) / sizeof(u64)),			\
	.values = &(_pcpu)[0],							\
	.show_more = (_more),							\
}

/**
 * sfu_counter_add() - add to a counter on this CPU
 * @c: the set
 * @i: the counter
 * @n: what to add
 *
 * Context: any, NMI included.
 */
static inline void sfu_counter_add(const struct sfu_counters *c, unsigned int i, u64 n)
{
	this_cpu_add(c->values[i], n);
}

/**
 * sfu_counter_inc() - count one event on this CPU
 * @c: the set
 * @i: the counter
 *
 * Context: any, NMI included.
 */
static inline void sfu_counter_inc(const struct sfu_counters *c, unsigned int i)
{
	this_cpu_inc(c->values[i]);
}

u64 sfu_counter_read(const struct sfu_counters *c, unsigned int i);
void sfu_counters_show(struct seq_file *m, const struct sfu_counters *c);
void sfu_counters_debugfs(const struct sfu_counters *c);
void sfu_counters_debugfs_remove(const struct sfu_counters *c);

#endif /* _SFRAME_UNWIND_COUNTERS_H */
