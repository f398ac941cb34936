// SPDX-License-Identifier: GPL-2.0
/*
 * Rules found in kernel copies of sections, remembered per CPU.
 *
 * A profiler unwinds the same hot stacks again and again: the same return
 * addresses, looked up in the same sections.  A kernel copy never changes
 * and its id is never reused, so the row found for a (copy id, address)
 * pair holds for as long as anything can ask for it: the cache needs no
 * invalidation, and an entry of a copy that is gone is only never hit
 * again.  Sections read from user memory are never cached: their bytes
 * may change.
 *
 * Each CPU has a direct-mapped table of SFU_ROWC_SIZE entries.  Only
 * lookups on that CPU touch it, with preemption off, but an IRQ or NMI may
 * interrupt one: every entry has a sequence count, odd while it is being
 * written, which a writer claims with cmpxchg (an interrupted writer's
 * entry is skipped, not overwritten) and a reader checks before and after
 * copying the row.
 */
#include <linux/atomic.h>
#include <linux/bits.h>
#include <linux/cpumask.h>
#include <linux/hash.h>
#include <linux/moduleparam.h>
#include <linux/percpu.h>

#include "rules_cache.h"

bool sfu_row_cache_on = true;
module_param_named(row_cache, sfu_row_cache_on, bool, 0644);
MODULE_PARM_DESC(row_cache, "Remember rows found in kernel copies of sections, per CPU (default on)");

struct sfu_rowc __percpu *sfu_rowc;

/**
 * sfu_rowc_store() - remember rules on this CPU
 * @copy_id: id of the kernel copy they were found in
 * @pc: the address looked up, in the copy's address space
 * @rules: the rules found
 *
 * Skipped when an interrupted writer on this CPU holds the entry.
 *
 * Context: any, NMI included.
 */
void sfu_rowc_store(u64 copy_id, u64 pc, const struct sfu_frame_rules *rules)
{
	struct sfu_rowc_entry *e;
	u32 seq;

	if (!READ_ONCE(sfu_row_cache_on) || !sfu_rowc)
		return;
	e = &get_cpu_ptr(sfu_rowc)->e[sfu_rowc_slot(copy_id, pc)];
	seq = READ_ONCE(e->seq);
	if (!(seq & 1) && cmpxchg(&e->seq, seq, seq + 1) == seq) {
		barrier();
		e->copy_id = copy_id;
		e->pc = pc;
		e->rules = *rules;
		barrier();
		WRITE_ONCE(e->seq, seq + 2);
	}
	put_cpu_ptr(sfu_rowc);
}

/**
 * sfu_rowc_bytes() - memory of the tables of all CPUs
 *
 * Return: bytes.
 */
size_t sfu_rowc_bytes(void)
{
	return sizeof(struct sfu_rowc) * num_possible_cpus();
}

/**
 * sfu_rowc_init() - allocate the tables
 *
 * Return: 0 or -ENOMEM.
 */
int sfu_rowc_init(void)
{
	sfu_rowc = alloc_percpu(struct sfu_rowc);
	return sfu_rowc ? 0 : -ENOMEM;
}

/**
 * sfu_rowc_exit() - free the tables
 *
 * Context: module exit, when no lookup can run any more.
 */
void sfu_rowc_exit(void)
{
	free_percpu(sfu_rowc);
	sfu_rowc = NULL;
}
