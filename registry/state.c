// SPDX-License-Identifier: GPL-2.0
/*
 * A section's life, in one place: what each event makes of a section in
 * each state (sfu_section_next[], applied by sfu_section_step()); what a
 * change of a VMA that a hook saw asks of the sections it overlaps is
 * beside its declarations, inline (sfu_vma_plan(), internal.h).  Nothing
 * here looks at a VMA or a tree: the callers do, and step the sections
 * they find through the table.
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
