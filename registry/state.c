// SPDX-License-Identifier: GPL-2.0
/*
 * A section's life, in one place: what each event makes of a section in
 * each state (sfu_section_next[], applied by sfu_section_step()), and
 * what a change of a VMA that a hook saw asks of the sections it overlaps
 * (sfu_vma_plan()).  Nothing here looks at a VMA or a tree: the callers
 * do, and step the sections they find through the table.
 * Documentation/registry.rst shows the table.
 */
#include <linux/atomic.h>
#include <linux/bug.h>

#include "internal.h"

/* An entry is the next state + 1; 0: the event cannot happen in that state. */
#define SFU_TO(state)	((state) + 1)

static const u8 sfu_section_next[SFU_SECTION_NR_STATES][SFU_EV_NR] = {
	[SFU_SECTION_NEW] = {
		[SFU_EV_FOUND] = SFU_TO(SFU_SECTION_LIVE),
		[SFU_EV_WAIT] = SFU_TO(SFU_SECTION_PENDING),
	},
	[SFU_SECTION_PENDING] = {
		[SFU_EV_RETRY] = SFU_TO(SFU_SECTION_NEW),
		[SFU_EV_MM_GONE] = SFU_TO(SFU_SECTION_GONE),
	},
	[SFU_SECTION_LIVE] = {
		[SFU_EV_LOST] = SFU_TO(SFU_SECTION_STALE),
		[SFU_EV_NOEXEC] = SFU_TO(SFU_SECTION_STALE),
		[SFU_EV_EXEC] = SFU_TO(SFU_SECTION_LIVE),
		[SFU_EV_REMOVE] = SFU_TO(SFU_SECTION_GONE),
		[SFU_EV_MM_GONE] = SFU_TO(SFU_SECTION_GONE),
	},
	[SFU_SECTION_STALE] = {
		[SFU_EV_LOST] = SFU_TO(SFU_SECTION_STALE),
		[SFU_EV_NOEXEC] = SFU_TO(SFU_SECTION_STALE),
		[SFU_EV_EXEC] = SFU_TO(SFU_SECTION_STALE),
		[SFU_EV_CHECK_OK] = SFU_TO(SFU_SECTION_LIVE),
		[SFU_EV_CHECK_KEEP] = SFU_TO(SFU_SECTION_KEPT),
		[SFU_EV_REMOVE] = SFU_TO(SFU_SECTION_GONE),
		[SFU_EV_MM_GONE] = SFU_TO(SFU_SECTION_GONE),
	},
	/* Decided on: a change made since may have taken its text, or made it usable. */
	[SFU_SECTION_KEPT] = {
		[SFU_EV_LOST] = SFU_TO(SFU_SECTION_STALE),
		/* mprotect neither maps nor unmaps: still not executable, still kept */
		[SFU_EV_NOEXEC] = SFU_TO(SFU_SECTION_KEPT),
		[SFU_EV_EXEC] = SFU_TO(SFU_SECTION_STALE),
		[SFU_EV_REMOVE] = SFU_TO(SFU_SECTION_GONE),
		[SFU_EV_MM_GONE] = SFU_TO(SFU_SECTION_GONE),
	},
	/*
	 * A VMA change walks the trees without the registry's lock, and
	 * mprotect()'s hook decides on what it meets there: an unregistration,
	 * which takes that lock but not the mmap lock, may remove it meanwhile.
	 */
	[SFU_SECTION_GONE] = {
		[SFU_EV_LOST] = SFU_TO(SFU_SECTION_GONE),
		[SFU_EV_NOEXEC] = SFU_TO(SFU_SECTION_GONE),
		[SFU_EV_EXEC] = SFU_TO(SFU_SECTION_GONE),
		[SFU_EV_CHECK_OK] = SFU_TO(SFU_SECTION_GONE),
		[SFU_EV_CHECK_KEEP] = SFU_TO(SFU_SECTION_GONE),
	},
};

/**
 * sfu_section_step() - what @ev makes of @s
 * @smm: the registry @s is in or waits for
 * @s: the section
 * @ev: what happened to it
 *
 * Moves @s to the state sfu_section_next[] gives, atomically: the hooks
 * of VMA changes step sections under the mmap lock alone, which munmap
 * may hold for reading while a re-check holds it too.  A section that is
 * kept marks its registry (sfu_mm.had_kept) first: from then on a VMA
 * that is not executable may hold registered text.
 *
 * Context: any, not sleeping.
 * Return: true if @s changed state: for a VMA change, a re-check is due.
 */
bool sfu_section_step(struct sfu_mm *smm, struct sfu_section *s, enum sfu_section_event ev)
{
	enum sfu_section_state old, new;

	do {
		old = READ_ONCE(s->state);
		if (WARN_ON_ONCE(!sfu_section_next[old][ev]))
			return false;
		new = sfu_section_next[old][ev] - 1;
		if (new == old)
			return false;
		if (new == SFU_SECTION_KEPT && !READ_ONCE(smm->had_kept))
			WRITE_ONCE(smm->had_kept, true);
	} while (cmpxchg(&s->state, old, new) != old);
	return true;
}

/**
 * sfu_vma_plan() - what a VMA change asks of the sections it overlaps
 * @c: the change
 * @p: filled in
 *
 * vm_area_free(): a VMA that is neither a file's nor executable holds no
 * section's text or data (an explicit section's data is copied); one
 * that is not executable holds only kept text.  Both the text and the
 * data it held are lost.
 *
 * mprotect() of current's mm: the VMAs stay as they are, so each section
 * is decided on at once (sfu_section_settle()).  Text losing PROT_EXEC
 * and file data losing PROT_READ make their sections stale; file text
 * executable again, readable or not (execute-only text), may make a kept
 * section usable.  Anonymous text executable again holds none.
 *
 * change_protection() of another mm: text losing PROT_EXEC and file data
 * losing PROT_READ make their sections stale, for that mm's next re-check.
 *
 * Context: any.
 * Return: false if the change asks nothing of any section.
 */
bool sfu_vma_plan(const struct sfu_vma_change *c, struct sfu_vma_plan *p)
{
	bool data_gone = c->file && !c->read;

	*p = (struct sfu_vma_plan){ .text_ev = SFU_EV_LOST, .data_ev = SFU_EV_LOST };
	switch (c->event) {
	case SFU_VMA_UNMAP:
		if (!c->file && !c->exec)
			return false;
		p->text = true;
		p->kept_only = !c->exec;
		p->data = true;
		break;
	case SFU_VMA_PROTECT:
		if (c->exec && !c->file)
			return false;
		p->text = true;
		p->text_ev = c->exec ? SFU_EV_EXEC : SFU_EV_NOEXEC;
		p->data = data_gone;
		p->data_ev = c->exec ? SFU_EV_LOST : SFU_EV_NOEXEC;
		p->now = true;
		break;
	case SFU_VMA_PROTECT_REMOTE:
		p->text = !c->exec;
		p->data = data_gone;
		break;
	}
	return p->text || p->data;
}
