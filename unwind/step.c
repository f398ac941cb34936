// SPDX-License-Identifier: GPL-2.0
/*
 * The unwinder's step: from the current frame to its caller (see
 * unwind.h), and the loop that steps from frame to frame
 * (sfu_unwind_frames()), which walk.c's interfaces run.
 *
 * sfu_unwind_next() finds the frame's rules (an SFrame row through the
 * registry, else the frame-pointer chain) and hands them to one common
 * step, sfu_unwind_step(), which evaluates them -- the CFA, the caller's
 * IP and FP, and the callee-saved registers it tracks below the topmost
 * frame -- and checks the result.  What is not the usual frame goes to
 * the files below: a signal frame (signal.c), Go's systemstack()
 * (go.c), the return addresses of the frame-pointer fallback
 * (ra_check.c).  Every check that can fail ends the walk with a reason
 * of its own; nothing is retried or guessed.
 */
#include <linux/percpu.h>
#include <linux/sched.h>

#include "sframe_unwind/registry.h"
#include "sframe_unwind/arch.h"
#include "sframe_unwind/unwind.h"
#include "internal.h"
#include "ra_check.h"

/*
 * After a step through a frame with rules @r and CFA @cfa: the caller's
 * tracked registers.  Rules that list every save say which changed: *(CFA +
 * offset) for a listed slot (a failed read loses the value, it does not
 * end the walk), lost for one saved where the rules cannot say, unchanged
 * for the others.  Rules that list none (SFrame of gas, frame pointers, JIT
 * code) may have changed any of them.
 */
static __always_inline void sfu_tracked_step(struct sfu_unwind_state *st,
					     const struct sfu_frame_rules *r, unsigned long cfa)
{
	const struct sfu_saved_rule *sr;
	unsigned long val;
	unsigned int i;
	int slot;

	if (!st->tracked_known)
		return;
	if (!(r->flags & SFU_RULES_SAVED_REGS)) {
		st->tracked_known = 0;
		return;
	}
	for (i = 0; i < SFU_MAX_SAVED_RULES; i++) {
		sr = &r->saved[i];
		if (sr->kind == SFU_SAVED_NONE)
			continue;
		slot = sfu_arch_tracked_slot(sr->regnum);
		if (slot < 0)
			continue;
		if (sr->kind == SFU_SAVED_CFA_DEREF &&
		    !sfu_unwind_read_word(st, cfa + sr->offset, &val))
			st->tracked[slot] = val;
		else
			st->tracked_known &= ~BIT(slot);
	}
}

/* The value a rule is based on: SP and FP of any frame, others topmost only. */
static int sfu_base_value(const struct sfu_unwind_state *st, u8 base, u16 regnum,
			  unsigned long *val)
{
	switch (base) {
	case SFU_BASE_SP:
		*val = st->sp;
		return 0;
	case SFU_BASE_FP:
		*val = st->fp;
		return 0;
	case SFU_BASE_REG:
		return sfu_reg_value(st, regnum, val);
	}
	return SFU_END_BAD_RULE;
}

/* Apply an RA or FP rule; @cur is the value RETAIN keeps. */
static int sfu_rule_value(const struct sfu_unwind_state *st, const struct sfu_reg_rule *rule,
			  unsigned long cfa, unsigned long cur, unsigned long *val)
{
	unsigned long base;
	int reason;

	switch (rule->kind) {
	case SFU_RULE_RETAIN:
		*val = cur;
		return 0;
	case SFU_RULE_CFA_DEREF:
		return sfu_unwind_read_word(st, cfa + rule->offset, val);
	case SFU_RULE_REG:
	case SFU_RULE_REG_DEREF:
		reason = sfu_base_value(st, rule->base, rule->regnum, &base);
		if (reason)
			return reason;
		if (rule->kind == SFU_RULE_REG) {
			*val = base + rule->offset;
			return 0;
		}
		return sfu_unwind_read_word(st, base + rule->offset, val);
	case SFU_RULE_UNDEFINED:
		*val = 0;
		return 0;
	}
	return SFU_END_BAD_RULE;
}

static bool sfu_rule_reg_known(const struct sfu_unwind_state *st, const struct sfu_reg_rule *rule)
{
	return !((rule->kind == SFU_RULE_REG || rule->kind == SFU_RULE_REG_DEREF) &&
		 rule->base == SFU_BASE_REG) || sfu_reg_known(st, rule->regnum);
}

/* Whether the registers other than SP and FP that the rules read are known. */
static bool sfu_rules_regs_known(const struct sfu_unwind_state *st,
				 const struct sfu_frame_rules *r)
{
	return (r->cfa.base != SFU_BASE_REG || sfu_reg_known(st, r->cfa.regnum)) &&
	       sfu_rule_reg_known(st, &r->ra) && sfu_rule_reg_known(st, &r->fp);
}

/* The checks of every frame's CFA: 0, or a stop reason. */
static __always_inline int sfu_check_cfa(const struct sfu_unwind_state *st, unsigned long cfa)
{
	/* A leaf an injected call interrupted: CFA = SP = the CFA below (arm64). */
	bool leaf = (st->topmost || st->ip_exact) && SFU_ARCH_TOPMOST_CFA_MAY_BE_SP;

	/* A cycle, or data that walks back down the stack (or to another stack). */
	if (!st->topmost && (cfa < st->prev_cfa || (cfa == st->prev_cfa && !leaf)) &&
	    !st->switching)
		return SFU_END_CFA_NOT_INCREASING;
	/* The caller's frame lies above this one: the stack grows down. */
	if ((cfa < st->sp && !st->switching) || (cfa == st->sp && !leaf))
		return SFU_END_BAD_CFA;
	/* Stack slots are word aligned, and the stack is in user space. */
	if ((cfa & (st->ws - 1)) || cfa >= TASK_SIZE)
		return SFU_END_BAD_CFA;
	return 0;
}

/*
 * The end of every step: check the return address and move @st to the
 * caller.  Returns 0, or SFU_END_BAD_RA with @st unchanged.
 */
static __always_inline int sfu_step_to_caller(struct sfu_unwind_state *st, unsigned long cfa,
					      unsigned long ra, unsigned long fp, bool sp_exact,
					      unsigned long *cfa_out)
{
	ra = sfu_arch_return_address(ra);
	/* Code is in user space, and never at 0. */
	if (!ra || ra >= TASK_SIZE)
		return SFU_END_BAD_RA;

	st->ip = ra;
	st->sp = cfa;
	st->fp = fp;
	st->prev_cfa = cfa;
	st->sp_exact = sp_exact;
	st->ip_exact = false;
	st->topmost = false;
	st->sigctx = 0;
	*cfa_out = sp_exact ? cfa : 0;
	return 0;
}

/*
 * Whether rules @r that are not of the usual shape can serve this frame:
 * 0, SFU_END_NO_INFO when they cannot but another method may, or the
 * stop reason.  An RA kept in a register becomes a register rule here
 * where the architecture has one (arm64's LR in the topmost frame).
 */
static int sfu_rules_check(const struct sfu_unwind_state *st, struct sfu_frame_rules *r)
{
	if (r->flags & SFU_RULES_OUTERMOST)
		return SFU_END_OUTERMOST;
	if (r->ra.kind == SFU_RULE_RETAIN && !sfu_arch_ra_in_register(&r->ra))
		return SFU_END_BAD_RULE;
	/* After a frame-pointer step SP is only a bound: SP-based rules cannot work. */
	if (!st->sp_exact && r->cfa.base == SFU_BASE_SP)
		return SFU_END_NO_INFO;
	if (r->ra.kind == SFU_RULE_UNDEFINED)
		return SFU_END_OUTERMOST;
	if (r->flags & SFU_RULES_SIGNAL)
		return SFU_END_SIGNAL;
	/* Deeper frames' registers (but SP, FP and tracked ones) are not recovered. */
	if (r->ra.kind == SFU_RULE_RETAIN || !sfu_rules_regs_known(st, r))
		return SFU_END_BAD_RULE;
	return 0;
}

/* The CFA of rules that sfu_rules_check() accepted: 0 or a stop reason. */
static int sfu_rules_cfa(const struct sfu_unwind_state *st, const struct sfu_frame_rules *r,
			 unsigned long *cfa)
{
	int reason = sfu_base_value(st, r->cfa.base, r->cfa.regnum, cfa);

	if (reason)
		return reason;
	*cfa += r->cfa.offset;
	if (!r->cfa.deref)
		return 0;
	reason = sfu_unwind_read_word(st, *cfa, cfa);
	*cfa += r->cfa.addend;
	return reason;
}

/*
 * The one step: from the rules @r of the current frame, its CFA and the
 * caller's IP, SP and FP.  Returns 0 with @st moved to the caller and
 * *@cfa_out set; SFU_END_NO_INFO when @r cannot serve this frame and
 * another method may; or the reason the walk stops.  @st is unchanged
 * unless it returns 0.
 *
 * The usual rows (CFA = SP or FP + offset, RA = *(CFA + offset), FP kept
 * or *(CFA + offset): every row of the usual prologues and epilogues) go
 * straight; the others are checked first.
 */
static int sfu_unwind_step(struct sfu_unwind_state *st, struct sfu_frame_rules *r,
			   unsigned long *cfa_out)
{
	u8 ra_kind = r->ra.kind, fp_kind = r->fp.kind;
	unsigned long cfa, ra, fp;
	int reason;

	if (unlikely((r->flags & ~(SFU_RULES_SAVED_REGS | SFU_RULES_INJECTED)) || r->cfa.deref ||
		     r->cfa.base == SFU_BASE_REG || ra_kind != SFU_RULE_CFA_DEREF ||
		     (fp_kind != SFU_RULE_RETAIN && fp_kind != SFU_RULE_CFA_DEREF))) {
		reason = sfu_rules_check(st, r);
		if (!reason)
			reason = sfu_rules_cfa(st, r, &cfa);
		if (reason)
			return reason;
		ra_kind = r->ra.kind;
	} else if (r->cfa.base == SFU_BASE_SP) {
		/* After a frame-pointer step SP is only a bound. */
		if (!st->sp_exact)
			return SFU_END_NO_INFO;
		cfa = st->sp + r->cfa.offset;
	} else {
		cfa = st->fp + r->cfa.offset;
	}
	reason = sfu_check_cfa(st, cfa);
	if (reason)
		return reason;

	if (ra_kind == SFU_RULE_CFA_DEREF && fp_kind == SFU_RULE_CFA_DEREF &&
	    r->fp.offset == r->ra.offset - (long)st->ws) {
		/* A frame record {FP, RA}: one read for both. */
		unsigned long record[2];

		reason = sfu_unwind_read_words(st, cfa + r->fp.offset, record, 2);
		fp = record[0];
		ra = record[1];
	} else {
		reason = sfu_rule_value(st, &r->ra, cfa, 0, &ra);
		if (!reason)
			reason = sfu_rule_value(st, &r->fp, cfa, st->fp, &fp);
	}
	if (reason)
		return reason;
	reason = sfu_step_to_caller(st, cfa, ra, fp, !(r->flags & SFU_RULES_CFA_BOUND), cfa_out);
	if (reason)
		return reason;
	sfu_tracked_step(st, r, cfa);
	/* An injected call's return address is the interrupted PC itself. */
	st->ip_exact = r->flags & SFU_RULES_INJECTED;
	if (st->ip_exact)
		sfu_injected_lr(st, cfa);
	return 0;
}

/*
 * The rules the registry has for the current frame, into @r (the unwind's,
 * not a local that would be zeroed on every frame).  Returns 0, or
 * SFU_END_NO_INFO when there are none (the caller may then try frame
 * pointers).
 */
static int sfu_frame_lookup(struct sfu_unwind_state *st, struct sfu_frame_rules *r)
{
	unsigned long pc;
	int err;

	st->uncovered = false;
	if (st->flags & SFU_UNWIND_NO_SFRAME || st->compat)
		return SFU_END_NO_INFO;
	/*
	 * A return address may be just after its function (a noreturn call
	 * ends it): look up the call; an injected call's is exact (ip_exact).
	 */
	pc = st->topmost || st->ip_exact ? st->ip : st->ip - 1;
	/* Consecutive frames in one library share the section's lookup. */
	err = sfu_lookup_rules(st->rows, pc, st->flags & SFU_UNWIND_NOFAULT, r);
	st->uncovered = err == -ENOENT && sfu_lookup_uncovered(st->rows);
	if (err) {
		if (err == -EFAULT)
			sfu_unwind_count(SFU_UW_SFRAME_FAULTS, 1);
		else if (err != -ENOENT)
			sfu_unwind_count(SFU_UW_SFRAME_ERRORS, 1);
		return SFU_END_NO_INFO;
	}
	return 0;
}

/*
 * The step to the frame a record further up skipped (sfu_fp_ra_check()), its return
 * address at @slot: the frame left kept no frame pointer, so its register @fp is
 * still the caller's, and its CFA is right above @slot.  Returns 0 or the stop reason.
 */
static int sfu_skipped_step(struct sfu_unwind_state *st, unsigned long slot, unsigned long fp,
			    unsigned long *cfa)
{
	unsigned long ra;
	int reason = sfu_unwind_read_word(st, slot, &ra);

	if (!reason)
		reason = sfu_step_to_caller(st, slot + st->ws, ra, fp, true, cfa);
	st->tracked_known = 0;
	st->found_below = !reason;
	return reason;
}

/*
 * The frames the rules' step does not serve, after the lookup that gave
 * @reason: a signal frame, marked so by the rows or, without rows, a
 * trampoline recognised by its code (the arm64 vDSO has no CFI); and Go's
 * systemstack(), which its rows leave out: back to the goroutine (go.c).
 * Returns true when it took the frame (@st moved to the caller with
 * *@cfa the CFA of the frame left, or the walk ended with *@cfa 0), false
 * when it leaves the frame to the rules and frame pointers.
 */
static bool sfu_special_step(struct sfu_unwind_state *st, const struct sfu_frame_rules *rules,
			     int reason, unsigned long *cfa)
{
	unsigned long ra, fp;

	if ((!reason && (rules->flags & SFU_RULES_SIGNAL)) ||
	    (reason == SFU_END_NO_INFO && sfu_arch_sigreturn_at(st))) {
		reason = sfu_signal_step(st);
		if (reason)
			sfu_unwind_stop(st, reason);
		else
			st->method = SFU_METHOD_SIGNAL;
		return true;
	}
	if (reason != SFU_END_NO_INFO || !st->uncovered ||
	    sfu_go_systemstack_step(st, &ra, cfa, &fp))
		return false;
	reason = sfu_step_to_caller(st, *cfa, ra, fp, true, cfa);
	if (reason) {
		sfu_unwind_stop(st, reason);
		*cfa = 0;
		return true;
	}
	st->tracked_known = 0;
	st->method = SFU_METHOD_FP;
	return true;
}

/*
 * Move the unwind to the caller of the current frame (@st not done),
 * working in @rules.  The methods in order: the registry's rules, then
 * frame pointers; a method that has nothing for the frame
 * (SFU_END_NO_INFO) hands it to the next.  A step that fails ends the
 * walk (sfu_unwind_stop()).  Returns the CFA of the frame just left when
 * it is known exactly, else 0.
 */
static __always_inline unsigned long sfu_unwind_next(struct sfu_unwind_state *st,
						     struct sfu_frame_rules *rules)
{
	unsigned long cfa = 0, sp = st->sp, ip = st->ip, callee_fp = st->fp, skipped;
	bool sp_exact = st->sp_exact, topmost = st->topmost, below = st->found_below, injected;
	u8 method = SFU_METHOD_SFRAME;
	int reason;

	st->found_below = false;
	st->fp_from_exact = false;
	if (st->compat && (st->flags & SFU_UNWIND_NO_FP || !SFU_ARCH_COMPAT_FP)) {
		sfu_unwind_stop(st, SFU_END_COMPAT);
		return 0;
	}

	reason = sfu_frame_lookup(st, rules);
	if (sfu_special_step(st, rules, reason, &cfa))
		return cfa;
	injected = !reason && (rules->flags & SFU_RULES_INJECTED);	/* no call before its RA */
	for (;;) {
		if (!reason)
			reason = sfu_unwind_step(st, rules, &cfa);
		if (reason != SFU_END_NO_INFO || method == SFU_METHOD_FP ||
		    (st->flags & SFU_UNWIND_NO_FP) || injected)
			break;
		method = SFU_METHOD_FP;
		sfu_arch_fp_rules(st, rules);
		st->switching = st->uncovered && st->switches_left;	/* ra_check.c */
		/* The ABI's end of the chain: the outermost frame zeroes FP. */
		reason = rules->cfa.base == SFU_BASE_FP && !st->fp ? SFU_END_FP_END : 0;
	}
	/* @st is at the caller now: its IP is the return address to check. */
	if (!reason && method == SFU_METHOD_FP) {
		reason = sfu_fp_ra_check(st, ip, sp, sp_exact && topmost, below, &skipped);
		/* The record was a caller's: on from the frame it skipped. */
		if (!reason && skipped)
			reason = sfu_skipped_step(st, skipped, callee_fp, &cfa);
		else if (!reason)
			st->fp_from_exact = topmost && !below;
	}
	if (reason) {
		sfu_unwind_stop(st, reason);
		return 0;
	}
	st->method = method;
	return cfa;
}

/*
 * Does the walk drop the frame it just stepped out of (@st after the
 * step; @method found that frame, @prev the frame before it, 0: none)?
 * The first frame of a frame-pointer chain (@prev not SFU_METHOD_FP) comes
 * from a frame pointer no record vouches for: the register of the topmost
 * frame, or a value SFrame rules left unchanged, which code built without
 * frame pointers uses as it likes.  Such a frame is handed on only once
 * the step out of it has worked, or has ended the stack where the ABI ends
 * it (SFU_END_OUTERMOST, SFU_END_FP_END): a record read where the
 * register pointed at stale data passes the checks of its own return
 * address now and then (a true one, left by calls since returned), but
 * rarely leads on to a frame whose checks pass too.  The walk then ends
 * with SFU_END_FP_UNCONFIRMED.  Deeper frames of the chain come from the
 * records before them: the last one, into code without frame pointers or
 * rows (__libc_start_call_main() above main()), is kept.  So is the first
 * one where the register was the record of the frame left (at
 * @left_ip; 0: not asked) as its code set it up: its registers exact (the
 * topmost frame, or one a signal interrupted), its function's start
 * known, the set-up before its IP and no return at it
 * (sfu_fp_record_live(), asked here only, of the frames it would drop);
 * main() sampled in its body, whose record leads to
 * __libc_start_call_main(), as perf's own walk finds it.
 *
 * Inline: the loop asks it of every frame.
 */
static __always_inline bool sfu_fp_unconfirmed(struct sfu_unwind_state *st, unsigned int method,
					       unsigned int prev, unsigned long left_ip)
{
	if (method != SFU_METHOD_FP || prev == SFU_METHOD_FP || !st->done ||
	    st->stop == SFU_END_OUTERMOST || st->stop == SFU_END_FP_END)
		return false;
	if (left_ip && sfu_fp_record_live(st, left_ip))
		return false;
	st->stop = SFU_END_FP_UNCONFIRMED;
	return true;
}

/**
 * sfu_unwind_frames() - step from frame to frame, handing each on
 * @st: the unwind, started (walk.c)
 * @limit: frames to hand at most
 * @fn: what each frame is handed to, innermost first, with the CFA its
 *	step found; false ends the walk
 * @arg: @fn's argument
 * @by_method: counts of the frames handed, by enum sfu_method
 *
 * Until the walk stops, @fn declines or @limit frames were handed
 * ("depth", unless that frame's step ended the walk anyway).  A fallback
 * frame that leads nowhere is not handed (sfu_fp_unconfirmed()).  Here
 * rather than in walk.c so that each step is the loop's own code, not a
 * call.
 *
 * Return: the frames handed.
 */
unsigned int sfu_unwind_frames(struct sfu_unwind_state *st, unsigned int limit,
			       sfu_walk_fn fn, void *arg, unsigned long *by_method)
{
	/*
	 * The rules a step works in, kept across the frames: the kernel may
	 * zero every local of a function on entry (CONFIG_INIT_STACK_ALL_ZERO),
	 * which costs more than a step's own work for a structure of this size.
	 */
	struct sfu_frame_rules rules;
	unsigned long prev_ip = 0, left_ip;
	unsigned int nr = 0, prev = 0;
	struct sfu_uframe f = {};

	while (!st->done) {
		f.ip = st->ip;
		f.method = st->method;
		left_ip = st->fp_from_exact ? prev_ip : 0;
		f.cfa = sfu_unwind_next(st, &rules);
		if (sfu_fp_unconfirmed(st, f.method, prev, left_ip))
			break;
		prev = f.method;
		prev_ip = f.ip;
		by_method[f.method]++;
		nr++;
		if ((!fn(arg, &f) || nr == limit) && !st->done)
			sfu_unwind_stop(st, SFU_END_DEPTH);
	}
	return nr;
}
