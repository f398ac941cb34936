// SPDX-License-Identifier: GPL-2.0
/*
 * What VMA changes do to the sections of an mm's trees: the hooks report
 * a change (sfu_vma_changed()), state.c's table says what it makes of
 * each section it overlaps, and a stale section is re-checked against the
 * VMAs (sfu_section_settle()): usable again, kept, or removed; at once
 * where that needs no sleep, else in the task_work the hook queues
 * (sfu_recheck()).
 */
#include <linux/mm.h>
#include <linux/mmap_lock.h>
#include <linux/sched.h>

#include "internal.h"
#include "stats.h"
#include "sframe_unwind/compat/export.h"

/**
 * sfu_section_settle() - decide on a stale section what needs no tree change
 * @smm: its registry, the mm's mmap_lock held
 * @s: a section of @smm
 *
 * A stale section whose text and data are mapped as when it was found is
 * usable again; one whose text is still mapped from its file at its
 * place, though not executable (or whose data went), is kept.  A kept
 * section was decided on, and any change since would have made it stale
 * again (sfu_vma_changed()).
 *
 * Context: any; the mmap_lock held.
 * Return: true if @s is to be removed, which the caller does (or has done).
 */
static bool sfu_section_settle(struct sfu_mm *smm, struct sfu_section *s)
{
	struct mm_struct *mm = smm->mm;
	enum sfu_section_text text;

	if (READ_ONCE(s->state) != SFU_SECTION_STALE)
		return false;
	sfu_stat_inc(SFU_STAT_RECHECKED);
	text = sfu_section_text_state(mm, s);
	if (text == SFU_SECTION_TEXT_MAPPED && (s->copy || sfu_section_data_mapped(mm, s)))
		sfu_section_step(smm, s, SFU_EV_CHECK_OK);
	else if (text != SFU_SECTION_TEXT_GONE && !sfu_section_anon_text(s))
		sfu_section_step(smm, s, SFU_EV_CHECK_KEEP);
	else
		return true;
	return false;
}

/*
 * What a VMA change does to one section of its range (@ev, the plan's):
 * true if a re-check is due.  Any change but execute permission given back
 * counts as a mark (vma_events).  With @now, the section is decided on at
 * once, and only one to be removed asks for a re-check.
 */
static bool sfu_section_touched(struct sfu_mm *smm, struct sfu_section *s,
				enum sfu_section_event ev, bool now, bool *marked)
{
	if (!sfu_section_step(smm, s, ev))
		return false;
	if (ev != SFU_EV_EXEC)
		*marked = true;
	return !now || sfu_section_settle(smm, s);
}

/* The sections of @mt overlapping [@start, @end) through sfu_section_touched(). */
static bool sfu_touch_tree(struct sfu_mm *smm, struct maple_tree *mt, unsigned long start,
			   unsigned long end, enum sfu_section_event ev, bool now, bool *marked)
{
	struct sfu_section *s;
	unsigned long idx = start;
	bool recheck = false;

	mt_for_each(mt, s, idx, end - 1)
		recheck |= sfu_section_touched(smm, s, ev, now, marked);
	return recheck;
}

/*
 * sfu_recheck() of [@start, @last] done at once, in the hook of the VMA
 * change that asked for it, where that needs neither sleep nor memory the
 * allocator must wait for: true if done, false if the re-check is to be
 * queued (the registry's lock taken, a section with data in the mm, a
 * tree node not at hand).  What was done stays done; the queued re-check
 * does the rest.  The registry's writers hold the mmap_lock, for reading
 * at least, and the hook's caller holds it too: the trylock fails only
 * where another task's scan or re-check is running.
 */
static bool sfu_recheck_now(struct sfu_mm *smm, unsigned long start, unsigned long last)
{
	struct sfu_section *s;
	unsigned long idx = start;
	bool done = true;

	if (READ_ONCE(smm->recheck_all) || !sfu_mm_write_trybegin(smm))
		return false;
	mt_for_each(&smm->text, s, idx, last)
		if (sfu_section_settle(smm, s) && !sfu_section_remove_now(smm, s))
			done = false;
	/* Sections with data in the mm wait for the queued re-check. */
	idx = start;
	if (!mtree_empty(&smm->data) && mt_find(&smm->data, &idx, last))
		done = false;
	sfu_mm_write_end(smm);
	return done;
}

/**
 * sfu_vma_changed() - a VMA change may have touched registered sections
 * @mm: the mm whose VMAs change, its mmap_lock held for writing
 * @c: the change, of a range not empty
 * @p: what it means for the sections it overlaps (sfu_vma_plan(), which
 *	asked something)
 *
 * Steps the sections whose text or data (not those with a kernel copy,
 * whose data lookups do not read) overlaps the range through what the
 * change means for them.  Anonymous memory holds only
 * the text of sections without a file, and nothing is looked at there
 * when @mm has none.
 *
 * Every section whose state this changes asks for a re-check: one already
 * stale has its re-check queued, so unmapping a library's text and then
 * its data costs one re-check, not two.  mprotect() decides on each
 * section at once, and only one to be removed asks.  A change in another
 * task's mm queues nothing: that mm's next re-check looks at every
 * section.  In current's mm the re-check is done here if it can be
 * (sfu_recheck_now()), and queued only if not.
 *
 * Context: any, not sleeping; under @mm's mmap lock (munmap may have
 * downgraded it to a read lock).
 * Return: true if the caller is to queue a re-check of the range.
 */
bool sfu_vma_changed(struct mm_struct *mm, const struct sfu_vma_change *c,
		     struct sfu_vma_plan p)
{
	bool marked = false, recheck = false;
	struct sfu_mm *smm;

	/* In exit_mmap the whole registry goes; nothing to re-check. */
	if (!mm || !atomic_read(&mm->mm_users))
		return false;
	rcu_read_lock();
	smm = sfu_mm_find(mm);
	if (!smm)
		goto out;
	if ((p.kept_only && !READ_ONCE(smm->had_kept)) ||
	    (!c->file && !atomic_read(&smm->nr_anon_text)))
		p.text = false;
	if (p.text)
		recheck |= sfu_touch_tree(smm, &smm->text, c->start, c->end, p.text_ev, p.now,
					  &marked);
	/*
	 * Only sections without a kernel copy are in the data tree.  Their
	 * data losing read permission marks them even where their text got
	 * execute permission back (execute-only text).
	 */
	if (p.data && !mtree_empty(&smm->data))
		recheck |= sfu_touch_tree(smm, &smm->data, c->start, c->end, p.data_ev, p.now,
					  &marked);
	if (recheck && mm != current->mm) {
		WRITE_ONCE(smm->recheck_all, true);
		recheck = false;
	}
	if (recheck && sfu_recheck_now(smm, c->start, c->end - 1))
		recheck = false;
out:
	rcu_read_unlock();
	if (marked)
		sfu_stat_inc(SFU_STAT_VMA_EVENTS);
	return recheck;
}

/* sfu_recheck() over the sections of @mt in [@start, @last]. */
static void sfu_recheck_tree(struct sfu_mm *smm, struct maple_tree *mt, unsigned long start,
			     unsigned long last)
{
	struct sfu_section *s;
	unsigned long idx = start;

	mt_for_each(mt, s, idx, last)
		if (sfu_section_settle(smm, s))
			sfu_section_remove_locked(smm, s);
}

/**
 * sfu_recheck() - check @mm's stale sections in a range against its VMAs
 * @mm: the current task's mm
 * @start: start of the range that changed
 * @last: its last byte (ULONG_MAX and @start 0: every section)
 *
 * A stale section whose text and data are still mapped from the same file
 * at the same place becomes usable again; any other is removed.  The data
 * of a section with a kernel copy no longer matters.  Only the sections
 * whose text or data overlaps the range are looked at: the one whose
 * change marked them stale (sfu_vma_changed()) queued this re-check.  When
 * sections were marked in @mm from another task, which queued nothing,
 * every section is looked at.
 *
 * Context: task context, mmap_lock not held.
 */
void sfu_recheck(struct mm_struct *mm, unsigned long start, unsigned long last)
{
	struct sfu_mm *smm;

	smm = sfu_mm_lookup(mm);
	if (!smm)
		return;
	if (READ_ONCE(smm->recheck_all)) {
		WRITE_ONCE(smm->recheck_all, false);
		start = 0;
		last = ULONG_MAX;
	}
	mmap_read_lock(mm);
	sfu_mm_write_begin(smm);
	sfu_recheck_tree(smm, &smm->text, start, last);
	sfu_recheck_tree(smm, &smm->data, start, last);
	sfu_mm_write_end(smm);
	/* Also drops the pending sections whose text went. */
	sfu_retry_pending(smm, 0, ULONG_MAX);
	mmap_read_unlock(mm);
}
EXPORT_SYMBOL_IF_KUNIT(sfu_recheck);
