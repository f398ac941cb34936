// SPDX-License-Identifier: GPL-2.0
/*
 * Return addresses found without unwind rows: the frame-pointer fallback
 * takes one only where the page tables show executable user text and the
 * code before it is a call (or it is the signal trampoline).
 */
#include <linux/irqflags.h>
#include <linux/mm_types.h>
#include <linux/pgtable.h>
#include <linux/sched.h>

#include "sframe_unwind/arch.h"
#include "sframe_unwind/unwind.h"
#include "ra_check.h"

/* What the page tables say about a user page (sfu_user_text()). */
enum sfu_text {
	SFU_TEXT_NO,		/* present, not user-executable */
	SFU_TEXT_YES,		/* present and user-executable */
	SFU_TEXT_UNKNOWN,	/* not present, or a leaf the walk does not read */
};

/*
 * Whether @addr is in executable user text of @mm, as the CPU would see
 * it on a return there: the page-table entry that maps it.  The walk is
 * GUP-fast's and perf's (perf_get_page_size()): lockless, with interrupts
 * disabled, which keeps the tables from being freed under it; so it works
 * in any context, NMI included, and costs a few loads.  @mm may be another
 * task's, whose users the caller holds: its page tables are freed the same
 * way, after every CPU has had interrupts enabled.  A page that is not
 * present cannot be judged (SFU_TEXT_UNKNOWN); nor can a PUD leaf (1 GB
 * hugetlb, never user text in practice).
 */
static int sfu_user_text(struct mm_struct *mm, unsigned long addr)
{
	int ret = SFU_TEXT_UNKNOWN;
	unsigned long flags;
	pgd_t *pgdp, pgd;
	p4d_t *p4dp, p4d;
	pud_t *pudp, pud;
	pmd_t *pmdp, pmd;
	pte_t *ptep, pte;

	local_irq_save(flags);
	pgdp = pgd_offset(mm, addr);
	pgd = READ_ONCE(*pgdp);
	if (pgd_none(pgd))
		goto out;
	p4dp = p4d_offset_lockless(pgdp, pgd, addr);
	p4d = READ_ONCE(*p4dp);
	if (!p4d_present(p4d))
		goto out;
	pudp = pud_offset_lockless(p4dp, p4d, addr);
	pud = READ_ONCE(*pudp);
	if (!pud_present(pud) || pud_leaf(pud))
		goto out;
	pmdp = pmd_offset_lockless(pudp, pud, addr);
	pmd = READ_ONCE(*pmdp);
	if (!pmd_present(pmd))
		goto out;
	if (pmd_leaf(pmd)) {
		ret = sfu_arch_pmd_user_exec(pmd) ? SFU_TEXT_YES : SFU_TEXT_NO;
		goto out;
	}
	/* 64-bit only: a table of PTEs is never in high memory. */
	ptep = pte_offset_kernel(&pmd, addr);
	pte = READ_ONCE(*ptep);
	if (pte_present(pte))
		ret = sfu_arch_pte_user_exec(pte) ? SFU_TEXT_YES : SFU_TEXT_NO;
out:
	local_irq_restore(flags);
	return ret;
}

/*
 * Is @ra a return address: in executable user text (the page of the
 * call's last byte, RA - 1, so that a call ending its text counts), right
 * after a call instruction that can have led to @callee_ip (the arch hook;
 * 0: any call), or at the signal trampoline a handler returns to?  A
 * faultable unwind faults a page that is not present in and looks again;
 * a no-fault one cannot check it.  A @scan of stack words faults nothing
 * in: a page not present is not text.
 * Returns 0 or the stop reason.
 */
static int sfu_check_ra(struct sfu_unwind_state *st, unsigned long ra, unsigned long callee_ip,
			bool scan)
{
	unsigned long ip = st->ip;
	int text, reason;
	u8 byte;

	text = sfu_user_text(st->mm, ra - 1);
	if (scan && text != SFU_TEXT_YES)
		return SFU_STOP_RA_NOT_TEXT;
	if (text == SFU_TEXT_UNKNOWN && !(st->flags & SFU_UNWIND_NOFAULT)) {
		/* Nothing readable is mapped there: no text either. */
		if (sfu_unwind_read(st, ra - 1, &byte, 1))
			return SFU_STOP_RA_NOT_TEXT;
		text = sfu_user_text(st->mm, ra - 1);
	}
	if (text == SFU_TEXT_NO)
		return SFU_STOP_RA_NOT_TEXT;
	if (text == SFU_TEXT_UNKNOWN)
		return SFU_STOP_RA_UNCHECKED;
	/* The trampoline hook reads the code at the frame's IP. */
	st->ip = ra;
	reason = sfu_arch_sigreturn_at(st) ? 0 : sfu_arch_call_before(st, ra, callee_ip);
	st->ip = ip;
	return reason;
}

/* Words of a frame that the frame-pointer check looks at, from its SP up. */
#define SFU_FP_SCAN_WORDS	128

/**
 * sfu_fp_ra_check() - may the frame-pointer fallback take this caller
 * @st: the unwind, at the caller: its IP is the return address to check
 * @callee_ip: the IP of the frame the fallback stepped out of
 * @sp: the stack pointer of that frame
 * @exact: that frame's registers are all known (the topmost frame, or one
 *	a signal interrupted): scan its stack words too
 *
 * A return address found without unwind rows is taken only if it is one
 * (sfu_check_ra()), after a call that can have led to the frame left.  In
 * code built without frame pointers the chain reads whatever the
 * frame-pointer register holds: a number, a stack or heap
 * address, or the frame record of a function several frames up, whose
 * return address is a true one that skips the frames between.  Those
 * frames' own return addresses lie on the stack between the frame's SP and
 * the record: with @exact, the words from SP up to the return address's
 * slot (at most SFU_FP_SCAN_WORDS, read no-fault) must hold no return
 * address either.  Deeper frames are not scanned: their locals may hold
 * stale return addresses, which would stop walks of code built with frame
 * pointers.  A profiler must stop rather than invent a caller.
 *
 * Return: 0, or the stop reason.
 */
int sfu_fp_ra_check(struct sfu_unwind_state *st, unsigned long callee_ip, unsigned long sp,
		    bool exact)
{
	unsigned long end = st->sp - st->ws, word;
	unsigned int n = 0;
	int reason;

	reason = sfu_check_ra(st, st->ip, callee_ip, false);
	if (reason || !exact)
		return reason;
	for (; sp < end && n < SFU_FP_SCAN_WORDS; sp += st->ws, n++) {
		if (sfu_unwind_read_word(st, sp, &word))
			break;
		word = sfu_arch_return_address(word);
		if (word > PAGE_SIZE && word < TASK_SIZE && !sfu_check_ra(st, word, 0, true))
			return SFU_STOP_FP_SKIPS;
	}
	return 0;
}
