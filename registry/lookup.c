// SPDX-License-Identifier: GPL-2.0
/*
 * The lookup path: the section covering a PC and the row for it, from any
 * context, NMI included, without taking a lock.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/file.h>
#include <linux/hash.h>
#include <linux/hashtable.h>
#include <linux/mm.h>
#include <linux/mmap_lock.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/sched.h>
#include <linux/sched/mm.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include "sframe_unwind/compat/export.h"
#include "sframe_unwind/registry.h"
#include "internal.h"
#include "rules_cache.h"
#include "sframe_rules.h"
#include "stats.h"

/*
 * The usable section of @smm covering @pc, or NULL (counted); under RCU.
 */
static struct sfu_section *sfu_section_find(struct sfu_mm *smm, unsigned long pc)
{
	struct sfu_section *s;

	/* See sfu_mm_write_begin(): never spin on a writer this CPU interrupted. */
	if (smm && !in_task() && atomic_read(&smm->writing)) {
		sfu_stat_inc(SFU_STAT_LOOKUP_BUSY);
		return NULL;
	}
	s = smm ? mtree_load(&smm->text, pc) : NULL;

	if (!s) {
		sfu_stat_inc(SFU_STAT_LOOKUP_NO_SECTION);
		return NULL;
	}
	if (!sfu_section_usable(s)) {
		sfu_stat_inc(SFU_STAT_LOOKUP_STALE);
		return NULL;
	}
	return s;
}

/*
 * The decoder's result as the registry's: counted, and in the errno terms
 * of sfu_lookup_rules().
 */
static __always_inline int sfu_lookup_result(int err)
{
	switch (err) {
	case 0:
		return 0;
	case -SFRAME_E_NO_FDE:
	case -SFRAME_E_NO_FRE:
		return -ENOENT;
	case -SFRAME_E_FAULT:
		sfu_stat_inc(SFU_STAT_LOOKUP_FAULT);
		return -EFAULT;
	case -SFRAME_E_NO_INDEX:
		/* A long function in a section without a kernel copy. */
		sfu_stat_inc(SFU_STAT_LOOKUP_UNINDEXED);
		return -E2BIG;
	default:
		sfu_stat_inc(SFU_STAT_LOOKUP_ERROR);
		return -EBADMSG;
	}
}

/*
 * The rules for @cpc from a kernel copy, on a miss of the rules cache: the
 * decoder's row, converted and remembered.  Out of line so that a hit does
 * not zero a row on its stack.
 */
static noinline int sfu_copy_decode(const struct sfu_sframe_copy *c, u64 cpc,
				    struct sfu_frame_rules *rules)
{
	struct sfu_sframe_row row;
	int err;

	err = sfu_sframe_find_row(&c->sec, cpc, &row);
	if (err)
		return err;
	sfu_sframe_rules(&row, rules);
	sfu_rowc_store(c->id, cpc, rules);
	return 0;
}

/*
 * The rules for @pc from kernel copy @c of a section moved by @bias, or
 * remembered from an earlier lookup on this CPU: under RCU, which keeps
 * the copy alive.  Rules hold offsets only, so the bias does not enter
 * them.  Returns 0 or an SFrame error.
 */
static __always_inline int sfu_copy_rules(const struct sfu_sframe_copy *c, long bias,
					  unsigned long pc, struct sfu_frame_rules *rules,
					  struct sfu_lookup_counts *counts)
{
	u64 cpc = pc - bias;
	enum sfu_rowc_result res;

	res = sfu_rowc_lookup(c->id, cpc, rules);
	if (res == SFU_ROWC_HIT) {
		counts->rowc_hits++;
		return 0;
	}
	if (res == SFU_ROWC_MISS)
		counts->rowc_misses++;
	return sfu_copy_decode(c, cpc, rules);
}

/* The rules for @pc from @s's sidecar, for a PC its own section has no FDE for. */
static noinline int sfu_extra_rules(const struct sfu_section *s, unsigned long pc,
				    struct sfu_frame_rules *rules,
				    struct sfu_lookup_counts *counts)
{
	if (!s->extra)
		return -SFRAME_E_NO_FDE;
	return sfu_copy_rules(s->extra, s->bias, pc, rules, counts);
}

/* The rules for @pc from @s's kernel copy, else from its sidecar; under RCU. */
static __always_inline int sfu_copy_find_rules(const struct sfu_section *s, unsigned long pc,
					       struct sfu_frame_rules *rules,
					       struct sfu_lookup_counts *counts)
{
	int err = sfu_copy_rules(s->copy, s->bias, pc, rules, counts);

	if (unlikely(err == -SFRAME_E_NO_FDE))
		err = sfu_extra_rules(s, pc, rules, counts);
	return err;
}

/*
 * The row for @pc from the sidecar of the section of @mm covering it, for
 * a PC the section's own rows (read from user memory, outside RCU) have no
 * FDE for; only its rules are used, so its addresses are left in the
 * sidecar's.  Any context.
 */
static int sfu_extra_find_row(struct mm_struct *mm, unsigned long pc, struct sfu_sframe_row *row)
{
	struct sfu_section *s;
	int err = -SFRAME_E_NO_FDE;

	rcu_read_lock();
	s = sfu_section_find(sfu_mm_find(mm), pc);
	if (s && s->extra)
		err = sfu_sframe_find_row(&s->extra->sec, pc - s->bias, row);
	rcu_read_unlock();
	return err;
}

/* Add what a series of lookups counted to the stats counters. */
static void sfu_lookup_counts_flush(struct sfu_lookup_counts *counts)
{
	if (counts->lookups)
		sfu_stat_add(SFU_STAT_LOOKUPS, counts->lookups);
	if (counts->rowc_hits)
		sfu_stat_add(SFU_STAT_ROW_CACHE_HITS, counts->rowc_hits);
	if (counts->rowc_misses)
		sfu_stat_add(SFU_STAT_ROW_CACHE_MISSES, counts->rowc_misses);
	memset(counts, 0, sizeof(*counts));
}

/* The row for @pc from user memory, through a copy of @s's header. */
static int sfu_user_find_row(const struct sfu_sframe_section *hdr, unsigned long pc, bool nofault,
			     struct sfu_sframe_row *row)
{
	struct sfu_sframe_section sec = *hdr;

	sfu_stat_inc(SFU_STAT_LOOKUP_USER);
	sec.reader.kind = nofault ? SFRAME_READER_USER_NOFAULT : SFRAME_READER_USER;
	return sfu_sframe_find_row(&sec, pc, row);
}

/**
 * sfu_lookup_begin() - start a series of lookups in @mm
 * @c: the lookup state, owned by the caller (on its stack)
 * @mm: the current task's mm, which the caller keeps in use throughout
 */
void sfu_lookup_begin(struct sfu_lookup *c, struct mm_struct *mm)
{
	c->mm = mm;
	c->task = NULL;
	c->smm = NULL;
	c->section = NULL;
	c->rcu = false;
	c->uncovered = false;
	memset(&c->counts, 0, sizeof(c->counts));
}
EXPORT_SYMBOL_IF_KUNIT(sfu_lookup_begin);

/**
 * sfu_lookup_begin_remote() - start a series of lookups in another task's mm
 * @c: the lookup state, owned by the caller (on its stack)
 * @task: the task whose memory a section without a kernel copy is read from
 * @mm: @task's mm, whose users the caller holds (mmget()) throughout
 *
 * As sfu_lookup_begin(), for an unwind of @task from another task: user
 * memory is read with access_process_vm(), never through the current mm,
 * and the lookups must be faultable (process context).
 */
void sfu_lookup_begin_remote(struct sfu_lookup *c, struct task_struct *task,
			     struct mm_struct *mm)
{
	sfu_lookup_begin(c, mm);
	c->task = task;
}

/**
 * sfu_lookup_end() - leave the RCU read-side section of a series of lookups
 * @c: the lookup state
 *
 * To be called before anything that may sleep, and when the series of
 * lookups ends: what the lookups counted since the last call is then
 * added to the stats counters.  The next sfu_lookup_rules() enters the
 * read-side section again.
 */
void sfu_lookup_end(struct sfu_lookup *c)
{
	sfu_lookup_counts_flush(&c->counts);
	if (!c->rcu)
		return;
	c->section = NULL;
	c->rcu = false;
	/* For sparse: the read-side section was the lookup's, not this function's. */
	__acquire(RCU);
	rcu_read_unlock();
}
EXPORT_SYMBOL_IF_KUNIT(sfu_lookup_end);

/*
 * sfu_lookup_rules() of a section without a kernel copy: a no-fault read
 * of user memory first, then, if that faulted and faults are allowed, a
 * read that may fault outside RCU.  In another task's mm (@c->task) only
 * the latter, through that task's page tables.  Kept out of line: its
 * copies of the header and the row would be zeroed on every lookup's
 * stack otherwise.  Returns the decoder's 0 or -SFRAME_E_xxx.
 */
static noinline int sfu_lookup_user(struct sfu_lookup *c, const struct sfu_section *s,
				    unsigned long pc, bool nofault,
				    struct sfu_frame_rules *rules)
{
	struct sfu_sframe_section sec;
	struct sfu_sframe_row row;
	int err = -SFRAME_E_FAULT;

	if (!c->task) {
		err = sfu_user_find_row(&s->sec, pc, true, &row);
		if (err == -SFRAME_E_NO_FDE)
			return sfu_extra_rules(s, pc, rules, &c->counts);
	}
	if (err == -SFRAME_E_FAULT && !nofault) {
		/* Fault the section's pages in, outside RCU. */
		sec = s->sec;
		sfu_lookup_end(c);
		if (c->task) {
			sfu_stat_inc(SFU_STAT_LOOKUP_USER);
			sec.reader.kind = SFRAME_READER_REMOTE;
			sec.reader.remote = c->task;
			err = sfu_sframe_find_row(&sec, pc, &row);
		} else {
			err = sfu_user_find_row(&sec, pc, false, &row);
		}
		/* @s may be gone: its sidecar is found again. */
		if (err == -SFRAME_E_NO_FDE)
			err = sfu_extra_find_row(c->mm, pc, &row);
	}
	if (!err)
		sfu_sframe_rules(&row, rules);
	return err;
}

/**
 * sfu_lookup_rules() - the unwind rules for a user PC, in a series of lookups
 * @c: from sfu_lookup_begin() or sfu_lookup_begin_remote()
 * @pc: the user address
 * @nofault: no lookup may fault, sleep or leave the RCU read-side section
 * @rules: filled in on success
 *
 * The registry's one lookup path: the section covering @pc, then its
 * kernel copy (through the per-CPU rules cache), reading no user memory;
 * or, for a section without one (max_kernel_bytes reached), the section in
 * user memory, the current mm's or @c->task's.  A PC the section has no
 * FDE for is looked up in the kernel copy of the file's sidecar, if it has
 * one (a file whose own .sframe covers only part of its code).
 *
 * A series of lookups, such as one unwind, stays in an RCU read-side
 * section between calls, until sfu_lookup_end(): the registry and the
 * section the last lookup found are kept, and a PC in the same section
 * (the next frame in the same library) skips the hash and the tree.  A
 * faultable lookup that must fault (a section without a kernel copy whose
 * pages are not present) ends the read-side section first.
 *
 * Context: any, with @nofault; task context otherwise.  Between calls the
 * caller must not sleep without sfu_lookup_end().
 * Return: 0; -ENOENT when nothing registered describes @pc (no section, or
 * one that awaits a re-check, or no row for @pc in it:
 * sfu_lookup_uncovered() tells which); -EFAULT when section memory could
 * not be read; -E2BIG when @pc's function has more rows than a lookup
 * scans and its section no FRE index (no kernel copy); -EBADMSG when the
 * section's data for @pc is invalid.
 */
int sfu_lookup_rules(struct sfu_lookup *c, unsigned long pc, bool nofault,
		     struct sfu_frame_rules *rules)
{
	const struct sfu_section *s = c->section;
	int err;

	c->counts.lookups++;
	c->uncovered = false;
	if (!c->rcu) {
		rcu_read_lock();
		/* For sparse: the lookup holds the read-side section, not this function. */
		__release(RCU);
		c->rcu = true;
		s = NULL;
	}
	/* A section found by this lookup stays valid while it holds RCU. */
	if (!s || pc < s->text_start || pc >= s->text_end ||
	    !sfu_section_usable(s)) {
		/* The registry lives as long as the mm, which the caller keeps. */
		if (!c->smm)
			c->smm = sfu_mm_find(c->mm);
		s = sfu_section_find(c->smm, pc);
		c->section = s;
		if (!s)
			return -ENOENT;
	}
	if (s->copy)
		err = sfu_copy_find_rules(s, pc, rules, &c->counts);
	else
		err = sfu_lookup_user(c, s, pc, nofault, rules);
	c->uncovered = err == -SFRAME_E_NO_FDE;
	return sfu_lookup_result(err);
}
EXPORT_SYMBOL_IF_KUNIT(sfu_lookup_rules);

/**
 * sfu_lookup_uncovered() - was the last lookup's PC in described code without rows
 * @c: the lookup state, after an sfu_lookup_rules() that returned -ENOENT
 *
 * The PC lies in the text of a section (its file has unwind information:
 * its own .sframe, a sidecar, an explicit registration) but no function
 * of the section, nor of its sidecar, covers it: code that its toolchain
 * gave no CFI, such as the builtins V8 generates into node's text.
 *
 * Return: true if so; false when no section holds the PC, or another
 * error ended the lookup.
 */
bool sfu_lookup_uncovered(const struct sfu_lookup *c)
{
	return c->uncovered;
}
EXPORT_SYMBOL_IF_KUNIT(sfu_lookup_uncovered);
