// SPDX-License-Identifier: GPL-2.0
/*
 * The step out of Go's systemstack(): from the system stack back to the
 * goroutine's.
 *
 * systemstack(fn) saves the goroutine's SP (and its frame pointer) in the
 * goroutine's g (g.sched), switches SP to the thread's system stack (the
 * stack of its m's g0) and calls fn there.  Nothing on the system stack
 * leads back: fn's frame record holds the system stack's frame pointer on
 * arm64 (g0.sched.bp, usually 0), and on amd64 up to Go 1.20, whose
 * systemstack() keeps no frame, the goroutine's frame pointer, whose
 * record skips systemstack()'s caller.  The Go runtime's own traceback
 * (and so every pprof profile) goes on at g.m.curg.sched.sp; so does this
 * step, from the g register the task's registers hold (the ABI's: R14 on
 * amd64 since Go 1.17, X28 on arm64).  Nothing of it is taken on trust:
 *
 *   - the g register's g must be its m's g0 (m.g0 == g), and the frame's
 *     SP inside that g's stack;
 *   - the goroutine is a g among m's first words (m.curg: 192 bytes in on
 *     Go 1.16 to 1.24; m.gsignal, which may also look like one, comes
 *     before) whose m is that m and whose saved SP is inside its own
 *     stack;
 *   - and the return address there, at that SP or the word above it
 *     (amd64 since Go 1.21 pushes a frame pointer first), follows a direct
 *     call of a function that starts at most SFU_GO_SWITCH_CALL bytes
 *     before the frame's IP: a call of systemstack() itself.  The first g
 *     that passes is taken.
 *
 * The frame's CFA lies SFU_ARCH_GO_RA_TO_CFA bytes above that return
 * address: the word itself on amd64 (a call pushed it), the 16-byte frame
 * on arm64, whose Go functions keep their link register at 0(RSP).
 *
 * A frame that fails any of these is left to the frame-pointer fallback
 * as before.  The layout of g's first words (stack, stackguard0,
 * stackguard1, _panic, _defer, m, sched.sp) and m's first (g0) has not
 * changed since Go 1.4.
 */
#include <linux/sched.h>

#include "sframe_unwind/arch.h"
#include "sframe_unwind/unwind.h"
#include "internal.h"
#include "ra_check.h"

/* Words of Go's runtime.g and runtime.m this step reads. */
#define SFU_GO_G_STACK_LO	0
#define SFU_GO_G_STACK_HI	1
#define SFU_GO_G_M		6
#define SFU_GO_G_SCHED_SP	7
#define SFU_GO_M_G0		0
/* m.curg is looked for in m's first words (word 24 on Go 1.16 to 1.24). */
#define SFU_GO_M_WORDS		64
#define SFU_GO_M_CHUNK		8
/* Bytes from systemstack()'s entry to its call of fn, at most (0x68 on arm64). */
#define SFU_GO_SWITCH_CALL	512

/* A word that may be a g or an m: a non-zero, aligned user address. */
static bool sfu_go_ptr(const struct sfu_unwind_state *st, unsigned long p)
{
	return p && !(p & (st->ws - 1)) && p < TASK_SIZE;
}

/* Stack bounds and saved SP of the g at @g, if it belongs to @m (0: any). */
static bool sfu_go_g(const struct sfu_unwind_state *st, unsigned long g, unsigned long m,
		     unsigned long *lo, unsigned long *hi, unsigned long *sp)
{
	unsigned long w[SFU_GO_G_SCHED_SP + 1];

	if (!sfu_go_ptr(st, g) || sfu_unwind_read(st, g, w, sizeof(w)))
		return false;
	*lo = w[SFU_GO_G_STACK_LO];
	*hi = w[SFU_GO_G_STACK_HI];
	*sp = w[SFU_GO_G_SCHED_SP];
	return *lo < *hi && *hi <= TASK_SIZE && (!m || w[SFU_GO_G_M] == m);
}

/*
 * The step into the goroutine whose stack is [@lo, @hi) and saved SP @sp,
 * if the return address there proves it: see the top of this file.
 */
static int sfu_go_goroutine(struct sfu_unwind_state *st, unsigned long lo, unsigned long hi,
			    unsigned long sp, unsigned long *ra, unsigned long *cfa,
			    unsigned long *fp)
{
	unsigned long slot, word, fn, caller_fp;
	unsigned int i;

	if (sp < lo || sp >= hi)
		return SFU_END_NO_INFO;
	for (i = 0; i < 2; i++) {
		slot = sp + i * st->ws;
		if (slot + st->ws > hi || sfu_unwind_read_word(st, slot, &word))
			return SFU_END_NO_INFO;
		word = sfu_arch_return_address(word);
		if (sfu_ra_direct_call(st, word, &fn) || !fn)
			continue;
		if (fn <= st->ip && st->ip - fn <= SFU_GO_SWITCH_CALL)
			break;
	}
	if (i == 2)
		return SFU_END_NO_INFO;
	/*
	 * The caller's frame pointer, where systemstack() saved one below its
	 * return address (arm64; amd64 since Go 1.21): a word of the stack
	 * above that slot.  Else the register still holds the caller's.
	 */
	*fp = st->fp;
	if (!sfu_unwind_read_word(st, slot - st->ws, &caller_fp) && caller_fp > slot &&
	    caller_fp < hi && !(caller_fp & (st->ws - 1)))
		*fp = caller_fp;
	*ra = word;
	*cfa = slot + SFU_ARCH_GO_RA_TO_CFA;
	return 0;
}

/**
 * sfu_go_systemstack_step() - step out of systemstack() to the goroutine
 * @st: the unwind, at a frame of code its file's rows leave out
 * @ra: the return address into systemstack()'s caller, on success
 * @cfa: systemstack()'s CFA on the goroutine's stack, on success
 * @fp: the caller's frame pointer, on success
 *
 * Return: 0 if @st's frame is systemstack() on the system stack and the
 * goroutine's frame was found and proven (see the top of this file);
 * SFU_END_NO_INFO if not, for the frame-pointer fallback to try.
 */
int sfu_go_systemstack_step(struct sfu_unwind_state *st, unsigned long *ra,
			    unsigned long *cfa, unsigned long *fp)
{
	unsigned long g0 = sfu_arch_go_g(st->regs), m, w[SFU_GO_M_CHUNK], lo, hi, sp;
	unsigned int i, j;

	if (st->compat || !st->switches_left)
		return SFU_END_NO_INFO;
	/*
	 * The g register's g must run on the stack of this frame (whose SP
	 * may be only a lower bound: arm64's frame records lie below locals),
	 * and be its m's g0.
	 */
	if (!sfu_go_g(st, g0, 0, &lo, &hi, &sp) || st->sp < lo || st->sp >= hi ||
	    sfu_unwind_read(st, g0 + SFU_GO_G_M * sizeof(long), &m, sizeof(m)) ||
	    !sfu_go_ptr(st, m))
		return SFU_END_NO_INFO;
	/* m.curg: a g of m's whose saved SP leads to a call of systemstack(). */
	for (i = 0; i < SFU_GO_M_WORDS; i += SFU_GO_M_CHUNK) {
		if (sfu_unwind_read(st, m + i * sizeof(long), w, sizeof(w)))
			return SFU_END_NO_INFO;
		for (j = 0; j < SFU_GO_M_CHUNK; j++) {
			if (!i && !j) {
				if (w[SFU_GO_M_G0] != g0)
					return SFU_END_NO_INFO;
				continue;
			}
			if (w[j] == g0 || !sfu_go_g(st, w[j], m, &lo, &hi, &sp) ||
			    sfu_go_goroutine(st, lo, hi, sp, ra, cfa, fp))
				continue;
			st->switches_left--;
			sfu_unwind_count(SFU_UW_GO_STACK_SWITCHES, 1);
			return 0;
		}
	}
	return SFU_END_NO_INFO;
}
