// SPDX-License-Identifier: GPL-2.0
/*
 * Generic user-space stack unwinder (see unwind.h).
 *
 * One state, one loop: start from the task's registers, then for each
 * frame find its rules (an SFrame row through the registry, else the
 * frame-pointer chain) and let one common step compute the CFA and the
 * caller's IP, SP and FP from them.  Every check that can fail ends the
 * walk with a reason of its own; nothing is retried or guessed.
 *
 * With SFU_UNWIND_NOFAULT every read of user memory (section, stack and
 * instruction bytes) is a no-fault read, and the walk takes no lock and
 * never sleeps: it may run in IRQ or NMI context.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/export.h>
#include <linux/irqflags.h>
#include <linux/moduleparam.h>
#include <linux/percpu.h>
#include <linux/preempt.h>
#include <linux/sched.h>
#include <linux/sched/task_stack.h>
#include <linux/uaccess.h>

#include "sframe_unwind/registry.h"
#include "sframe_unwind/lib.h"
#include "sframe_unwind/arch.h"
#include "sframe_unwind/unwind.h"
#include "sframe_unwind/compat/export.h"
#include "internal.h"
#include "ra_check.h"

static unsigned int sfu_max_depth = SFU_UNWIND_DEFAULT_DEPTH;

static int sfu_max_depth_set(const char *val, const struct kernel_param *kp)
{
	return param_set_uint_minmax(val, kp, 1, SFU_UNWIND_MAX_DEPTH);
}

static const struct kernel_param_ops sfu_max_depth_ops = {
	.set = sfu_max_depth_set,
	.get = param_get_uint,
};
module_param_cb(max_depth, &sfu_max_depth_ops, &sfu_max_depth, 0644);
MODULE_PARM_DESC(max_depth,
		 "Most frames an ioctl or deferred unwind returns (1-4096, default 127)");

/**
 * sfu_unwind_depth_limit() - the max_depth module parameter
 *
 * Return: the most frames an unwind into an array stores (the module's
 * ioctls and deferred walks; sfu_unwind_user_walk() has its caller's).
 */
unsigned int sfu_unwind_depth_limit(void)
{
	return READ_ONCE(sfu_max_depth);
}
EXPORT_SYMBOL_IF_KUNIT(sfu_unwind_depth_limit);

/*
 * @n native words at @addr without faulting: one access check, then one
 * __get_user() each, instead of a copy routine sized for any length.  Not
 * in NMI context, where copy_from_user_nofault() also checks that the CPU
 * is not between two mms (nmi_uaccess_okay(), which modules cannot call).
 * Return: true if every word was read.
 */
static bool sfu_get_user_words(unsigned long addr, unsigned long *words, unsigned int n)
{
	const unsigned long __user *p = (const unsigned long __user *)addr;
	bool ok = false;
	unsigned int i;

	if (in_nmi())
		return false;
	pagefault_disable();
	if (user_access_begin(p, n * sizeof(*p))) {
		for (i = 0; i < n; i++)
			unsafe_get_user(words[i], &p[i], fault);
		ok = true;
fault:
		user_access_end();
	}
	pagefault_enable();
	return ok;
}

/* @n (1 or 2) consecutive words of the task's size at @addr. */
static int sfu_read_words(const struct sfu_unwind_state *st, unsigned long addr,
			  unsigned long *words, unsigned int n)
{
	if (st->ws == sizeof(unsigned long) && !st->task && sfu_get_user_words(addr, words, n))
		return 0;
	return sfu_unwind_read_words_slow(st, addr, words, n);
}

/**
 * sfu_unwind_read_word() - read one word of the task's size
 * @st: the unwind, whose flags say how user memory may be read
 * @addr: user address
 * @word: the word read, zero-extended for a compat task
 *
 * Return: 0, or SFU_END_FAULT.
 */
int sfu_unwind_read_word(const struct sfu_unwind_state *st, unsigned long addr,
			 unsigned long *word)
{
	return sfu_read_words(st, addr, word, 1);
}

/*
 * Another register of a frame: from the task's registers, or those a
 * signal frame saved in user memory; below them, a tracked callee-saved
 * register whose save the frames above listed.
 */
static int sfu_reg_value(const struct sfu_unwind_state *st, u16 regnum, unsigned long *val)
{
	int slot;

	if (!st->topmost) {
		slot = sfu_arch_tracked_slot(regnum);
		if (slot < 0 || !(st->tracked_known & BIT(slot)))
			return SFU_END_BAD_RULE;
		*val = st->tracked[slot];
		return 0;
	}
	if (st->sigctx)
		return sfu_arch_sigctx_reg(st, regnum, val);
	return sfu_arch_reg_value(st->regs, regnum, val) ? 0 : SFU_END_BAD_RULE;
}

/* Whether this frame knows register @regnum: all in the topmost, tracked ones below. */
static bool sfu_reg_known(const struct sfu_unwind_state *st, u16 regnum)
{
	int slot;

	if (st->topmost)
		return true;
	slot = sfu_arch_tracked_slot(regnum);
	return slot >= 0 && (st->tracked_known & BIT(slot));
}

/**
 * sfu_tracked_load() - take the tracked registers of a fully known frame
 * @st: the unwind, at a frame whose registers are all known (the topmost,
 *	or one a signal interrupted: signal.c)
 *
 * Their values then serve the rules of the frames below it; none in
 * compat tasks.
 */
void sfu_tracked_load(struct sfu_unwind_state *st)
{
	unsigned long val;
	int slot;

	BUILD_BUG_ON(SFU_ARCH_NR_TRACKED > SFU_MAX_SAVED_RULES);
	st->tracked_known = 0;
	if (st->compat)
		return;
	for (slot = 0; slot < SFU_ARCH_NR_TRACKED; slot++) {
		if (sfu_reg_value(st, sfu_arch_tracked_regnum(slot), &val))
			continue;
		st->tracked[slot] = val;
		st->tracked_known |= BIT(slot);
	}
}

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

		reason = sfu_read_words(st, cfa + r->fp.offset, record, 2);
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
			this_cpu_inc(sfu_unwind_stats.sframe_faults);
		else if (err != -ENOENT)
			this_cpu_inc(sfu_unwind_stats.sframe_errors);
		return SFU_END_NO_INFO;
	}
	return 0;
}

static void sfu_unwind_stop(struct sfu_unwind_state *st, int reason)
{
	st->done = true;
	st->stop = reason;
}

/* @task: NULL for current, whose mm is @mm. */
static void sfu_unwind_start(struct sfu_unwind_state *st, struct task_struct *task,
			     struct mm_struct *mm, struct pt_regs *regs, unsigned int flags,
			     struct sfu_lookup *rows)
{
	int reason;

	memset(st, 0, sizeof(*st));
	st->flags = flags;
	st->rows = rows;
	st->mm = mm;
	st->task = task;
	if (task)
		sfu_lookup_begin_remote(rows, task, mm);
	else
		sfu_lookup_begin(rows, mm);
	st->regs = regs;
	st->topmost = true;
	st->sp_exact = true;
	st->method = SFU_METHOD_REGS;
	st->scan_left = SFU_FP_SCAN_BUDGET;
	st->switches_left = SFU_STACK_SWITCHES;
	if (!regs || !mm) {
		sfu_unwind_stop(st, SFU_END_NOT_USER);
		return;
	}
	reason = sfu_arch_start(st, regs);
	if (reason) {
		sfu_unwind_stop(st, reason);
		return;
	}
	sfu_tracked_load(st);
}

/*
 * What one step works in.  Kept by the unwind rather than by each step:
 * the kernel may zero every local of a function on entry
 * (CONFIG_INIT_STACK_ALL_ZERO), which costs more than the step's own work
 * for a structure of this size.
 */
struct sfu_unwind_scratch {
	struct sfu_frame_rules rules;
};

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
 * Move @st to the caller of the current frame, or end the walk.  The
 * methods in order: the registry's rules, then frame pointers; a method
 * that has nothing for the frame (SFU_END_NO_INFO) hands it to the next.
 * Returns the CFA of the frame just left when it is known exactly, else 0.
 */
static unsigned long sfu_unwind_next(struct sfu_unwind_state *st,
				     struct sfu_unwind_scratch *scratch)
{
	struct sfu_frame_rules *rules = &scratch->rules;
	unsigned long cfa = 0, sp = st->sp, ip = st->ip, callee_fp = st->fp, ra, fp, skipped;
	bool sp_exact = st->sp_exact, topmost = st->topmost, below = st->found_below, injected;
	u8 method = SFU_METHOD_SFRAME;
	int reason;

	st->found_below = false;
	if (st->compat && (st->flags & SFU_UNWIND_NO_FP || !SFU_ARCH_COMPAT_FP)) {
		sfu_unwind_stop(st, SFU_END_COMPAT);
		return 0;
	}

	reason = sfu_frame_lookup(st, rules);
	/*
	 * A signal frame: marked so by the rows, or, without rows, a
	 * trampoline recognised by its code (the arm64 vDSO has no CFI).
	 */
	if ((!reason && (rules->flags & SFU_RULES_SIGNAL)) ||
	    (reason == SFU_END_NO_INFO && sfu_arch_sigreturn_at(st))) {
		reason = sfu_signal_step(st);
		if (reason) {
			sfu_unwind_stop(st, reason);
			return 0;
		}
		st->method = SFU_METHOD_SIGNAL;
		return 0;
	}
	/* Go's systemstack(), which its rows leave out: back to the goroutine (go.c). */
	if (reason == SFU_END_NO_INFO && st->uncovered &&
	    !sfu_go_systemstack_step(st, &ra, &cfa, &fp)) {
		reason = sfu_step_to_caller(st, cfa, ra, fp, true, &cfa);
		if (reason) {
			sfu_unwind_stop(st, reason);
			return 0;
		}
		st->tracked_known = 0;
		st->method = SFU_METHOD_FP;
		return cfa;
	}
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
	}
	if (reason) {
		sfu_unwind_stop(st, reason);
		return 0;
	}
	st->method = method;
	return cfa;
}

/* What the walk hands each frame to; false ends the walk. */
typedef bool (*sfu_walk_fn)(void *arg, const struct sfu_uframe *frame);

/*
 * The one walk loop: from @regs of @task (NULL: current) in @mm, each
 * frame, innermost first and with the CFA its step found, to @fn, until
 * the walk stops, @fn declines or @limit frames were handed ("depth",
 * unless that frame's step ended the walk anyway).  A fallback frame that
 * leads nowhere is not handed (sfu_fp_unconfirmed()).  Returns the count.
 */
static unsigned int sfu_walk(struct task_struct *task, struct mm_struct *mm,
			     struct pt_regs *regs, unsigned int flags, unsigned int limit,
			     sfu_walk_fn fn, void *arg, int *stop_reason)
{
	unsigned long by_method[SFU_METHOD_NR] = {};
	struct sfu_unwind_scratch scratch;
	struct sfu_unwind_state st;
	struct sfu_lookup rows;
	unsigned int nr = 0, prev = 0;
	struct sfu_uframe f = {};

	sfu_unwind_start(&st, task, mm, regs, flags, &rows);
	while (!st.done) {
		f.ip = st.ip;
		f.method = st.method;
		f.cfa = sfu_unwind_next(&st, &scratch);
		if (sfu_fp_unconfirmed(&st, f.method, prev))
			break;
		prev = f.method;
		by_method[f.method]++;
		nr++;
		if ((!fn(arg, &f) || nr == limit) && !st.done)
			sfu_unwind_stop(&st, SFU_END_DEPTH);
	}
	sfu_lookup_end(&rows);
	sfu_unwind_account(&st, by_method, stop_reason);
	return nr;
}

/* sfu_walk()'s consumer for the array API. */
struct sfu_walk_array {
	struct sfu_uframe *frames;
	unsigned int nr;
};

static bool sfu_walk_store(void *arg, const struct sfu_uframe *frame)
{
	struct sfu_walk_array *a = arg;

	a->frames[a->nr++] = *frame;
	return true;
}

/* sfu_walk()'s consumer for sfu_unwind_user_walk(): the IPs only. */
struct sfu_walk_consumer {
	sfu_unwind_consume_fn consume;
	void *cookie;
};

static bool sfu_walk_consume(void *arg, const struct sfu_uframe *frame)
{
	struct sfu_walk_consumer *c = arg;

	return c->consume(c->cookie, frame->ip);
}

/**
 * sfu_unwind_user_regs() - unwind the current task's user stack from @regs
 * @regs: user registers of the topmost frame (normally task_pt_regs())
 * @frames: where to store the frames, innermost first
 * @max: capacity of @frames; the walk stores at most this many frames,
 *       and at most the max_depth module parameter
 * @flags: SFU_UNWIND_NOFAULT, SFU_UNWIND_NO_SFRAME, SFU_UNWIND_NO_FP
 * @stop_reason: if not NULL, set to the enum sfu_end that ended the
 *               walk (SFU_END_DEPTH when the limit cut it short)
 *
 * Stack memory is that of current->mm: the caller may pass registers
 * other than the task's own (the KUnit suite builds them), but the stack
 * they describe must be in the current mm.
 *
 * Context: with SFU_UNWIND_NOFAULT any context, NMI included (no-fault
 * reads, no locks but RCU); otherwise task context that may fault pages in.
 * Wherever the caller cannot fault (interrupt context, interrupts or
 * preemption disabled, pagefault_disable(), an RCU read-side section:
 * sfu_caller_may_fault()) the unwind is no-fault whatever @flags say.
 * Return: the number of frames stored (0 when there is no user context),
 * or -EINVAL for @max 0, a NULL @frames or unknown @flags.
 */
int sfu_unwind_user_regs(struct pt_regs *regs, struct sfu_uframe *frames, unsigned int max,
			 unsigned int flags, int *stop_reason)
{
	struct sfu_walk_array a = { .frames = frames };

	if (!frames || !max || (flags & ~SFU_UNWIND_ALL_FLAGS))
		return -EINVAL;
	/* A caller that cannot fault gets no-fault reads whatever it asked. */
	if (!sfu_caller_may_fault())
		flags |= SFU_UNWIND_NOFAULT;
	return sfu_walk(NULL, current->mm, regs, flags, min(max, sfu_unwind_depth_limit()),
			sfu_walk_store, &a, stop_reason);
}
EXPORT_SYMBOL_NS_GPL(sfu_unwind_user_regs, SFU_NS);

/**
 * sfu_unwind_task_regs() - unwind another task's user stack from @regs
 * @task: the task, which must not run during the walk (blocked, stopped,
 *	or preempted); the caller holds a reference to it
 * @mm: @task's mm, whose users the caller holds (mmget())
 * @regs: @task's user registers (task_pt_regs(@task))
 * @frames: where to store the frames, innermost first
 * @max: capacity of @frames (also bounded by the max_depth parameter)
 * @flags: SFU_UNWIND_NO_SFRAME, SFU_UNWIND_NO_FP (SFU_UNWIND_NOFAULT is
 *	refused: every read may sleep)
 * @stop_reason: if not NULL, set to the enum sfu_end
 *
 * Every read of @task's memory (stack, code, sections without a kernel
 * copy) goes through access_process_vm() without FOLL_FORCE; lookups use
 * @mm's registry.  Nothing of @task changes.  If @task ran meanwhile the
 * frames describe no single moment: the caller checks that it did not
 * (its context-switch counts) and discards them if it did.
 *
 * Context: process context that may sleep, never on the current task.
 * Return: the number of frames stored, or -EINVAL for @max 0, a NULL
 * @frames, unknown flags or a caller that cannot sleep.
 */
int sfu_unwind_task_regs(struct task_struct *task, struct mm_struct *mm, struct pt_regs *regs,
			 struct sfu_uframe *frames, unsigned int max, unsigned int flags,
			 int *stop_reason)
{
	struct sfu_walk_array a = { .frames = frames };

	if (!frames || !max || (flags & ~(SFU_UNWIND_NO_SFRAME | SFU_UNWIND_NO_FP)) ||
	    !task || task == current || !sfu_caller_may_fault())
		return -EINVAL;
	might_sleep();
	return sfu_walk(task, mm, regs, flags, min(max, sfu_unwind_depth_limit()),
			sfu_walk_store, &a, stop_reason);
}
EXPORT_SYMBOL_IF_KUNIT(sfu_unwind_task_regs);

/**
 * sfu_unwind_user_walk() - unwind from @regs, handing each frame to @consume
 * @regs: user registers of the topmost frame (normally task_pt_regs())
 * @consume: called with @cookie and each frame's IP, innermost first; the
 *	walk ends after a call that returns false
 * @cookie: @consume's first argument
 * @flags: SFU_UNWIND_NOFAULT, SFU_UNWIND_NO_SFRAME, SFU_UNWIND_NO_FP
 * @stop_reason: if not NULL, set to the enum sfu_end that ended the
 *	walk (SFU_END_DEPTH when @consume ended it before the stack did,
 *	or SFU_UNWIND_MAX_DEPTH frames did)
 *
 * The walk of sfu_unwind_user_regs() for a caller that takes the frames
 * one by one, as the kernel's arch_stack_walk_user() hands them to a
 * stack_trace_consume_fn: the walk goes no further than the frame
 * @consume declines.  @consume runs between the steps of the walk, in a
 * section that holds the RCU read lock: it must not sleep.  The caller's
 * limit bounds the walk, as it bounds the kernel's walk this replaces
 * (perf's max_stack, an ftrace stack's size), not max_depth: at most
 * SFU_UNWIND_MAX_DEPTH frames.
 *
 * Context: as sfu_unwind_user_regs().
 * Return: the number of frames handed to @consume, or -EINVAL for a NULL
 * @consume or unknown @flags.
 */
int sfu_unwind_user_walk(struct pt_regs *regs, sfu_unwind_consume_fn consume, void *cookie,
			 unsigned int flags, int *stop_reason)
{
	struct sfu_walk_consumer c = { .consume = consume, .cookie = cookie };

	if (!consume || (flags & ~SFU_UNWIND_ALL_FLAGS))
		return -EINVAL;
	/* A caller that cannot fault gets no-fault reads whatever it asked. */
	if (!sfu_caller_may_fault())
		flags |= SFU_UNWIND_NOFAULT;
	return sfu_walk(NULL, current->mm, regs, flags, SFU_UNWIND_MAX_DEPTH,
			sfu_walk_consume, &c, stop_reason);
}
EXPORT_SYMBOL_NS_GPL(sfu_unwind_user_walk, SFU_NS);

/**
 * sfu_unwind_user() - unwind the current task's user stack
 * @frames: where to store the frames, innermost first
 * @max: capacity of @frames (also bounded by the max_depth parameter)
 * @flags: SFU_UNWIND_NOFAULT, SFU_UNWIND_NO_SFRAME, SFU_UNWIND_NO_FP
 * @stop_reason: if not NULL, set to the enum sfu_end
 *
 * Starts from the user registers saved at the task's entry into the
 * kernel (task_pt_regs()): in a system call or task_work, where the task
 * called or was interrupted; in IRQ or NMI context, the interrupted user
 * frame only if the CPU was in user mode at the time, else the registers
 * of the task's last entry from user space.
 *
 * Context: see sfu_unwind_user_regs().
 * Return: frames stored (0 for kernel threads), or -EINVAL.
 */
int sfu_unwind_user(struct sfu_uframe *frames, unsigned int max, unsigned int flags,
		    int *stop_reason)
{
	struct pt_regs *regs = NULL;

	if (!(current->flags & PF_KTHREAD))
		regs = task_pt_regs(current);
	return sfu_unwind_user_regs(regs, frames, max, flags, stop_reason);
}
EXPORT_SYMBOL_NS_GPL(sfu_unwind_user, SFU_NS);
