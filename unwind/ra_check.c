// SPDX-License-Identifier: GPL-2.0
/*
 * Return addresses found without unwind rows: the frame-pointer fallback
 * takes one only where the page tables show executable user text and the
 * code before it is a call (or it is the signal trampoline).
 */
#include <linux/irqflags.h>
#include <linux/mm.h>
#include <linux/mm_types.h>
#include <linux/pgtable.h>
#include <linux/sched.h>

#include "sframe_unwind/arch.h"
#include "sframe_unwind/unwind.h"
#include "internal.h"
#include "ra_check.h"

/* What sfu_check_ra() checks a word for. */
enum sfu_ra_how {
	SFU_RA_TAKE,		/* a return address the walk would take */
	SFU_RA_TEXT,		/* the same, from a record of code that keeps them: text only */
	SFU_RA_SCAN_ANY,	/* a stack word: after any call, or a trampoline */
	SFU_RA_SCAN_DIRECT,	/* a stack word: after a direct call that can lead there */
};

/* What the page tables say about a user page (sfu_user_text()). */
enum sfu_text {
	SFU_TEXT_NO,		/* present, not user-executable */
	SFU_TEXT_YES,		/* present and user-executable */
	SFU_TEXT_UNKNOWN,	/* not present, or a leaf the walk does not read */
	SFU_TEXT_ANON,		/* present, user-executable and anonymous (JIT code) */
};

/*
 * An executable page's kind: anonymous memory (what JIT compilers write
 * their code into) or not (a file's text, the vDSO, shared memory).  The
 * page may be unmapped and freed under the lockless walk's feet, as
 * GUP-fast allows for: its flags are then those of whatever it has
 * become, and one frame is judged on them; nothing is dereferenced.
 */
static int sfu_text_kind(unsigned long pfn)
{
	if (!pfn_valid(pfn))
		return SFU_TEXT_YES;
	return PageAnon(pfn_to_page(pfn)) ? SFU_TEXT_ANON : SFU_TEXT_YES;
}

/*
 * Whether @addr is in executable user text of @mm, as the CPU would see
 * it on a return there: the page-table entry that maps it.  The walk is
 * GUP-fast's and perf's (perf_get_page_size()): lockless, with interrupts
 * disabled, which keeps the tables from being freed under it; so it works
 * in any context, NMI included, and costs a few loads.  @mm may be another
 * task's, whose users the caller holds: its page tables are freed the same
 * way, after every CPU has had interrupts enabled.  A page that is not
 * present cannot be judged (SFU_TEXT_UNKNOWN); nor can a PUD leaf (1 GB
 * hugetlb, never user text in practice).  With @kind, executable
 * anonymous memory is told apart (SFU_TEXT_ANON).
 */
static int sfu_user_text_pfn(struct mm_struct *mm, unsigned long addr, bool kind,
			     unsigned long *pfnp)
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
		ret = !sfu_arch_pmd_user_exec(pmd) ? SFU_TEXT_NO :
		      kind ? sfu_text_kind(pmd_pfn(pmd)) : SFU_TEXT_YES;
		goto out;
	}
	/* 64-bit only: a table of PTEs is never in high memory. */
	ptep = pte_offset_kernel(&pmd, addr);
	pte = READ_ONCE(*ptep);
	if (pte_present(pte)) {
		ret = !sfu_arch_pte_user_exec(pte) ? SFU_TEXT_NO :
		      kind && !pte_special(pte) ? sfu_text_kind(pte_pfn(pte)) : SFU_TEXT_YES;
		if (pfnp && ret == SFU_TEXT_YES && !pte_special(pte))
			*pfnp = pte_pfn(pte);
	}
out:
	local_irq_restore(flags);
	return ret;
}

static int sfu_user_text(struct mm_struct *mm, unsigned long addr, bool kind)
{
	return sfu_user_text_pfn(mm, addr, kind, NULL);
}

/**
 * sfu_user_file_offset() - the file offset an address of user text maps
 * @mm: the address space
 * @addr: an address in it
 * @off: set to the offset in its file of the byte at @addr
 *
 * From the page-table entry and the page's index in its file, as the
 * lockless walk of sfu_user_text() finds them: the page may be freed and
 * reused under it, and the offset is then that of whatever it became, a
 * hint the caller checks against what it reads there.
 *
 * Context: any, NMI included.
 * Return: true if @addr is in a present page of a file's executable text.
 */
bool sfu_user_file_offset(struct mm_struct *mm, unsigned long addr, unsigned long *off)
{
	unsigned long pfn = 0;
	struct folio *folio;
	struct page *page;

	if (sfu_user_text_pfn(mm, addr, true, &pfn) != SFU_TEXT_YES || !pfn || !pfn_valid(pfn))
		return false;
	page = pfn_to_page(pfn);
	folio = page_folio(page);
	*off = ((READ_ONCE(folio->index) + folio_page_idx(folio, page)) << PAGE_SHIFT) +
	       offset_in_page(addr);
	return true;
}

/*
 * Is @ra a return address: in executable user text (the page of the
 * call's last byte, RA - 1, so that a call ending its text counts), right
 * after a call instruction that can have led to @callee_ip (the arch hook;
 * 0: any call), or at the signal trampoline a handler returns to?  A
 * faultable unwind faults a page that is not present in and looks again;
 * a no-fault one cannot check it.  A scan of stack words (@how not
 * SFU_RA_TAKE) faults nothing in: a page not present is not text; with
 * SFU_RA_SCAN_DIRECT only a direct call that can have led to @callee_ip
 * counts.  *@callee: the function a direct call leads to, 0 if not known
 * (sfu_arch_call_before()).
 * Returns 0 or the stop reason.
 */
static int sfu_check_ra(struct sfu_unwind_state *st, unsigned long ra, unsigned long callee_ip,
			enum sfu_ra_how how, unsigned long *callee)
{
	bool scan = how > SFU_RA_TEXT, direct = how == SFU_RA_SCAN_DIRECT;
	unsigned long ip = st->ip;
	int text, reason;
	u8 byte;

	*callee = 0;
	text = sfu_user_text(st->mm, ra - 1, false);
	if (scan && text != SFU_TEXT_YES)
		return SFU_END_RA_NOT_TEXT;
	if (text == SFU_TEXT_UNKNOWN && !(st->flags & SFU_UNWIND_NOFAULT)) {
		/* Nothing readable is mapped there: no text either. */
		if (sfu_unwind_read(st, ra - 1, &byte, 1))
			return SFU_END_RA_NOT_TEXT;
		text = sfu_user_text(st->mm, ra - 1, false);
	}
	if (text == SFU_TEXT_NO)
		return SFU_END_RA_NOT_TEXT;
	if (text == SFU_TEXT_UNKNOWN)
		return SFU_END_RA_UNCHECKED;
	if (how == SFU_RA_TEXT)
		return 0;
	/* The trampoline hook reads the code at the frame's IP. */
	st->ip = ra;
	if (!direct && sfu_arch_sigreturn_at(st))
		reason = 0;
	else
		reason = sfu_arch_call_before(st, ra, callee_ip, direct, callee);
	st->ip = ip;
	return reason;
}

/**
 * sfu_ra_direct_call() - is a word a return address after a direct call
 * @st: the unwind (its mm and read mode)
 * @ra: the word
 * @callee: set to the function the call leads to, 0 if not known
 *
 * Return: 0 if @ra is in user text right after a direct call, else the
 * stop reason sfu_check_ra() gives.
 */
int sfu_ra_direct_call(struct sfu_unwind_state *st, unsigned long ra, unsigned long *callee)
{
	return sfu_check_ra(st, ra, 0, SFU_RA_SCAN_DIRECT, callee);
}

/* Words of a frame that the frame-pointer check looks at, from its SP up. */
#define SFU_FP_SCAN_WORDS	128

/*
 * A word above the record's slot, in the topmost frame: whether it shows
 * that the record is not the frame's (@fn: the function the record's call
 * reaches, known): a direct call to a function that starts above @fn and
 * at or below the frame's IP, which @fn cannot hold then.  Returns
 * SFU_END_RA_OTHER_CALLEE or 0.
 */
static int sfu_fp_witness_check(struct sfu_unwind_state *st, unsigned long word,
				unsigned long callee_ip, unsigned long fn)
{
	unsigned long to;

	if (word <= PAGE_SIZE || word >= TASK_SIZE)
		return 0;
	if (sfu_check_ra(st, word, 0, SFU_RA_SCAN_DIRECT, &to) || !to ||
	    to <= fn || to > callee_ip)
		return 0;
	return SFU_END_RA_OTHER_CALLEE;
}

/* What a stack word below the record's slot is (sfu_fp_below_word()). */
enum sfu_fp_word {
	SFU_FP_WORD_NONE,	/* no return address */
	SFU_FP_WORD_RA,		/* a return address that proves nothing */
	SFU_FP_WORD_PROOF,	/* one that proves the record skips a frame */
	SFU_FP_WORD_SKIPPED,	/* that, and one the walk can go on from */
};

/*
 * A stack word below the record's slot.  SFU_FP_WORD_PROOF: it follows a
 * direct call (or one through a PLT entry, bound) to a function that
 * starts at or below @callee_ip and above @fn, the one the record's call
 * reaches (or that call cannot lead there at all, @other, or where it goes
 * is not known, @fn 0): a frame the record skips.  SFU_FP_WORD_SKIPPED:
 * that, and the function can hold @callee_ip (sfu_arch_call_before(); a
 * PLT entry's own frame is reached by a call to the entry): the return
 * address of the frame left, if it is the lowest of all.
 * SFU_FP_WORD_RA: after any other call (a tail call's function may lie
 * anywhere), or a trampoline.
 */
static enum sfu_fp_word sfu_fp_below_word(struct sfu_unwind_state *st, unsigned long word,
					  unsigned long callee_ip, unsigned long fn, bool other,
					  unsigned long *to)
{
	unsigned long reach;

	*to = 0;
	if (word <= PAGE_SIZE || word >= TASK_SIZE)
		return SFU_FP_WORD_NONE;
	if (sfu_check_ra(st, word, 0, SFU_RA_SCAN_ANY, to))
		return SFU_FP_WORD_NONE;
	/*
	 * A direct call that can hold @callee_ip reaches what the arch hook
	 * finds with @callee_ip: a call through a PLT entry that the frame is
	 * in reaches the entry, wherever its slot is bound.
	 */
	if (*to && !sfu_check_ra(st, word, callee_ip, SFU_RA_SCAN_DIRECT, &reach) && reach &&
	    (other || !fn || reach > fn)) {
		*to = reach;
		return SFU_ARCH_FP_RECORD_ABOVE_LOCALS ? SFU_FP_WORD_SKIPPED : SFU_FP_WORD_PROOF;
	}
	if (!*to || *to > callee_ip || (!other && fn && *to <= fn))
		return SFU_FP_WORD_RA;
	return SFU_FP_WORD_PROOF;
}

/*
 * Whether the function that holds @ip keeps a frame record: it sets one
 * up (sfu_arch_fn_sets_fp()) where its start is known (sfu_fn_start()).
 * A record read in a frame of a function that sets up none is no record
 * of that frame: the register holds its caller's value, or data; where
 * the register pointed into the frame's own locals, at words left there
 * by calls since returned, they read as a record of a frame the walk
 * would take for a tail call's.
 */
static bool sfu_fp_record_kept(struct sfu_unwind_state *st, unsigned long ip)
{
	unsigned long start;

	return !sfu_fn_start(st, ip, &start) || sfu_arch_fn_sets_fp(st, start, ip);
}

/**
 * sfu_fp_record_live() - does a frame's own code keep its record in place
 * @st: the unwind (its mm and read mode)
 * @ip: the frame's IP
 *
 * Where the file's .eh_frame_hdr tells where the function that holds @ip
 * starts (sfu_fn_start()), its code set up a frame record before @ip and
 * has not taken it down at @ip (sfu_arch_fp_record_live()): in a frame
 * whose registers are exact, the frame-pointer register is then that
 * record, not a value of code without frame pointers.
 *
 * Return: true if so; false if not, or not known.
 */
bool sfu_fp_record_live(struct sfu_unwind_state *st, unsigned long ip)
{
	unsigned long start;

	return sfu_fn_start(st, ip, &start) && sfu_arch_fp_record_live(st, start, ip);
}

/**
 * sfu_fp_ra_check() - may the frame-pointer fallback take this caller
 * @st: the unwind, at the caller: its IP is the return address to check
 * @callee_ip: the IP of the frame the fallback stepped out of
 * @sp: the stack pointer of that frame (a lower bound below the topmost
 *	frame)
 * @exact: that frame's registers are all known (the topmost frame, or one
 *	a signal interrupted)
 * @below: that frame was found below the record, which skipped it
 * @skipped: set to the stack address of the return address of the frame
 *	left, found below the record, when the record is a caller's: the
 *	walk goes on from there (0: none)
 *
 * A return address found without unwind rows is taken only if it is one
 * (sfu_check_ra()), after a call that can have led to the frame left.  In
 * code built without frame pointers the chain reads whatever the
 * frame-pointer register holds: a number, a stack or heap address, or the
 * frame record of a function several frames up, whose return address is
 * a true one that skips the frames between.  Those frames' own return
 * addresses lie on the stack between the frame's SP and the record, where
 * the architecture keeps the record above a frame's locals
 * (SFU_ARCH_FP_RECORD_ABOVE_LOCALS): the words from SP up to the return
 * address's slot (at most SFU_FP_SCAN_WORDS a frame and SFU_FP_SCAN_BUDGET
 * an unwind, read no-fault) are searched for them.
 *
 * The lowest return address there is the frame's own if the record is not
 * the frame's: the frame-pointer register is then its caller's, whose
 * call pushed it.  Where it follows a direct call that can have led to
 * @callee_ip (through a PLT entry too: a frame-pointer program's call into
 * libc), and that call, or the record's own call that cannot reach
 * @callee_ip, proves that the record is not the frame's, the walk goes on
 * from it (*@skipped), with the frame-pointer register as it was: the
 * frame the record skipped is found instead of skipped, and the next step
 * checks it as any other.  Unless another word up to the record follows
 * a direct call to a function that starts between that call's and
 * @callee_ip: the function called first cannot hold @callee_ip then, and
 * its return address is a stale one, left in the frame's locals by calls
 * since returned.  Any other return address there stops the walk
 * where the record may skip a frame: in the topmost frame (any return
 * address below its record is a frame's), or where the record's call
 * cannot reach @callee_ip.  Below the topmost frame only a proof stops
 * it: the locals of a frame built with frame pointers (an array not yet
 * filled) may hold stale return addresses of other calls, indirect ones
 * above all (qsort()'s of its comparison function).  Where the record's
 * call is direct and its function known, the words above the record in
 * the topmost frame are searched for a call to a function that starts
 * between that function and @callee_ip, which proves that the record's
 * function does not hold @callee_ip.
 *
 * A frame the record skips was called, itself or through others, from
 * the function the record's call reaches, whose return address into that
 * function lies below the record: where that call can reach @callee_ip
 * (the record may be the frame's), a word below the record that this
 * function cannot hold (sfu_arch_callee_holds()) is no skipped frame's
 * and is passed over, a stale one (what a frame of code with frame
 * pointers leaves in its locals).  Where the record's call cannot reach
 * @callee_ip, a return address at the topmost frame's SP, after an
 * indirect call, that the function the record's call reaches can hold is
 * the frame's own if no other lies below the record: a frame that left SP
 * where its call put it (a leaf's early return before it saves the frame
 * pointer, a comparison function's through a pointer), called from the
 * record's function; one with locals would have left its own return
 * address below the record too.
 *
 * A record whose call cannot reach @callee_ip is the frame's own all the
 * same where no return address at all lies between SP and its slot: a
 * frame the record skipped would have left one there (an x86 call pushes
 * it), so the frame was reached by a tail call (a function that ends in a
 * jump to another, which lies before it); where its saved frame pointer
 * leads on up the stack, and the frame's function sets up a record where
 * its start is known (sfu_fp_record_kept()).  A profiler must stop rather
 * than invent a caller; it may not stop where the stack proves the
 * caller.
 *
 * Code that is known to keep frame records is taken at its word, as
 * perf's own walk takes every record: JIT code, in executable anonymous
 * memory (V8's, a JVM's with -XX:+PreserveFramePointer, LuaJIT's), whose
 * compilers keep frame pointers so that perf can walk them; and code of a
 * file with unwind information that its CFI leaves out
 * (sfu_lookup_uncovered(): no compiler that emits CFI made it; V8's
 * builtins, generated into node's text as its JIT code is).  Their frames
 * hold tagged values and spilled return addresses of other calls, which
 * the word scan would take for skipped frames.  A JIT frame's return
 * address must still be executable user text after a call (any call: JIT
 * code calls through registers and tail-calls); one of code its file's CFI
 * leaves out need only be executable text (Go's goroutines return to
 * goexit + 1, after no call), and its record may lead to another stack,
 * SFU_STACK_SWITCHES times an unwind (Go's systemstack() keeps the
 * goroutine's frame pointer on the system stack).  The walk's other
 * checks (an aligned CFA in user space; sfu_fp_unconfirmed()) still
 * apply; they never refuse a true frame.  JIT code that keeps no frame
 * (PCRE2's) leaves the register as its caller set it, as perf's walk
 * finds it too.
 *
 * Long because the scan below the record is one walk over the words with
 * one state (the candidate skipped frame, its call's target, whether it
 * sits at SP, whether a return address was seen) that every exit reads;
 * split, each part would take and return all of it.
 *
 * Return: 0, or the stop reason.
 */
int sfu_fp_ra_check(struct sfu_unwind_state *st, unsigned long callee_ip, unsigned long sp,
		    bool exact, bool below, unsigned long *skipped)
{
	unsigned long slot = st->sp - st->ws, first = sp, end, fn, word, to, cand = 0, cand_to = 0;
	enum sfu_fp_word kind;
	bool other, seen = false, at_sp = false;
	int reason;

	*skipped = 0;
	if (st->uncovered) {
		/* A CFA at or below the frame's SP: the record led to another stack. */
		if (st->switching && st->sp <= sp)
			st->switches_left--;
		st->switching = false;
		sfu_unwind_count(SFU_UW_FP_NOCFI_FRAMES, 1);
		return sfu_check_ra(st, st->ip, 0, SFU_RA_TEXT, &fn);
	}
	if (sfu_user_text(st->mm, callee_ip, true) == SFU_TEXT_ANON) {
		sfu_unwind_count(SFU_UW_FP_JIT_FRAMES, 1);
		return sfu_check_ra(st, st->ip, 0, SFU_RA_TAKE, &fn);
	}
	/*
	 * A record met again from the frame it skipped was no frame's of that
	 * frame's callee: it is one only if it leads on up the stack, or ends
	 * it (what the register of code without frame pointers points at
	 * need not).
	 */
	if (below && st->fp && (st->fp < st->sp || (st->fp & (st->ws - 1))))
		return SFU_END_FP_SKIPS;
	reason = sfu_check_ra(st, st->ip, callee_ip, SFU_RA_TAKE, &fn);
	other = reason == SFU_END_RA_OTHER_CALLEE;
	if ((reason && !other) ||
	    (!SFU_ARCH_FP_RECORD_ABOVE_LOCALS && (other || !exact)))
		return reason;
	end = sp + SFU_FP_SCAN_WORDS * st->ws;
	if (!exact || !fn || other)
		end = min(end, slot);
	for (; sp < end; sp += st->ws) {
		if (sp == slot)
			continue;
		/* A walk that scanned its budget stops rather than take records unchecked. */
		if (!st->scan_left)
			return other ? reason : SFU_END_RA_UNCHECKED;
		st->scan_left--;
		if (sfu_unwind_read_word(st, sp, &word))
			return other || !cand ? reason : SFU_END_FP_SKIPS;
		word = sfu_arch_return_address(word);
		if (sp > slot) {
			reason = sfu_fp_witness_check(st, word, callee_ip, fn);
			if (reason)
				return reason;
			continue;
		}
		/*
		 * A frame the record skips was called from the record's function,
		 * whose return address into it lies below the record: a word that
		 * function cannot hold is stale.
		 */
		if (!other && fn && !sfu_arch_callee_holds(st, fn, word))
			continue;
		kind = sfu_fp_below_word(st, word, callee_ip, fn, other, &to);
		if (kind == SFU_FP_WORD_NONE)
			continue;
		if (cand) {
			/* A return address at SP is the frame's only if it is the only one. */
			if (at_sp)
				return reason;
			/* A call to a function between the candidate's and the IP refutes it. */
			if (to > cand_to && to <= callee_ip)
				return other ? reason : SFU_END_FP_SKIPS;
			continue;
		}
		if (kind == SFU_FP_WORD_SKIPPED && !seen) {
			cand = sp;
			cand_to = to;
			continue;
		}
		/*
		 * At SP, after a call that says nothing of where it went (an
		 * indirect one), into the function the record's call reaches: the
		 * return address of a frame that keeps SP where its call left it
		 * (a leaf's early return, before it saves the frame pointer), if
		 * no other lies below the record.
		 */
		if (kind == SFU_FP_WORD_RA && !to && sp == first && exact && other && fn &&
		    sfu_arch_callee_holds(st, fn, word)) {
			cand = sp;
			at_sp = true;
			continue;
		}
		seen = true;
		if (other)
			return reason;
		if (exact || kind != SFU_FP_WORD_RA)
			return SFU_END_FP_SKIPS;
	}
	if (cand && (!at_sp || sp >= slot)) {
		sfu_unwind_count(SFU_UW_FP_SKIPPED_FRAMES, 1);
		*skipped = cand;
		return 0;
	}
	/*
	 * Nothing below a record that cannot be the caller's: a tail call, if
	 * all was read and the record's frame pointer leads on up the stack,
	 * as a record of code that keeps frame pointers does (the register of
	 * code without them may point into the frame's own locals, at a
	 * stale word and a zero).
	 */
	if (other && sp >= slot && st->fp > st->sp && sfu_fp_record_kept(st, callee_ip)) {
		sfu_unwind_count(SFU_UW_FP_TAIL_CALLS, 1);
		return 0;
	}
	return reason;
}
