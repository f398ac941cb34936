// SPDX-License-Identifier: GPL-2.0
/*
 * arm64 hooks of the generic user unwinder: the frame-record rules and the
 * registers of the topmost frame.
 */
#include <linux/kernel.h>
#include <linux/mm.h>
#include <linux/string.h>
#include <linux/signal.h>
#include <linux/sizes.h>
#include <asm/ptrace.h>
#include <asm/sigcontext.h>
#include <asm/ucontext.h>

#include "sframe_unwind/arch.h"
#include "sframe_unwind/compat/export.h"

/* Instructions that sign, check or return through x30. */
#define SFU_ARM64_PACIASP	0xd503233fU
#define SFU_ARM64_PACIBSP	0xd503237fU
#define SFU_ARM64_AUTIASP	0xd50323bfU
#define SFU_ARM64_AUTIBSP	0xd50323ffU
#define SFU_ARM64_RET		0xd65f03c0U
#define SFU_ARM64_RETAA		0xd65f0bffU
#define SFU_ARM64_RETAB		0xd65f0fffU
/* Hints (nop, bti, xpaclri, ...): no effect on the frame. */
#define SFU_ARM64_HINT_MASK	0xfffff01fU
#define SFU_ARM64_HINT		0xd503201fU
/* stp x29, x30, [sp, #-N]! : the prologue's store of the frame record */
#define SFU_ARM64_STP_FP_LR_PRE_MASK	0xffc07fffU
#define SFU_ARM64_STP_FP_LR_PRE		0xa9807bfdU
/* mov x29, sp : the frame record is at SP, x29 still the caller's */
#define SFU_ARM64_MOV_FP_SP		0x910003fdU
/*
 * Instructions the prologue scan looks at: enough to see past a short
 * leaf body to its ret (the vDSO's clock_gettime has 46 from its entry,
 * along the path of branches not taken).
 */
#define SFU_ARM64_PROLOGUE_SCAN		48
/* Instructions read at once (within a page). */
#define SFU_ARM64_SCAN_CHUNK		16
/*
 * A PLT entry (and the IFUNC stubs of a static program's .iplt): 16
 * bytes, 16-byte aligned: adrp x16, page; ldr x17, [x16, #off];
 * add x16, x16, #off; br x17.  No unwind data describes them (ld writes
 * no CFI for the AArch64 PLT), and they leave SP, x29 and x30 alone.
 */
#define SFU_ARM64_ADRP_X16_MASK		0x9f00001fU
#define SFU_ARM64_ADRP_X16		0x90000010U
#define SFU_ARM64_LDR_X17_X16_MASK	0xffc003ffU
#define SFU_ARM64_LDR_X17_X16		0xf9400211U
#define SFU_ARM64_ADD_X16_X16_MASK	0xffc003ffU
#define SFU_ARM64_ADD_X16_X16		0x91000210U
#define SFU_ARM64_BR_X17		0xd61f0220U

/* Is the topmost frame's PC in a PLT entry (return address in x30)? */
static bool sfu_arm64_in_plt_entry(const struct sfu_unwind_state *st)
{
	__le32 raw[4];

	if (sfu_unwind_read(st, st->ip & ~15UL, raw, sizeof(raw)))
		return false;
	return (le32_to_cpu(raw[0]) & SFU_ARM64_ADRP_X16_MASK) == SFU_ARM64_ADRP_X16 &&
	       (le32_to_cpu(raw[1]) & SFU_ARM64_LDR_X17_X16_MASK) == SFU_ARM64_LDR_X17_X16 &&
	       (le32_to_cpu(raw[2]) & SFU_ARM64_ADD_X16_X16_MASK) == SFU_ARM64_ADD_X16_X16 &&
	       le32_to_cpu(raw[3]) == SFU_ARM64_BR_X17;
}

enum sfu_arm64_frame_state {
	SFU_ARM64_FRAME_BODY,		/* x29 points at this function's frame record */
	SFU_ARM64_FRAME_LR_LIVE,	/* RA in x30, SP and x29 the caller's */
	SFU_ARM64_FRAME_RECORD_AT_SP,	/* record stored at SP, x29 not yet set */
};

/* b.cond, cbz/cbnz, tbz/tbnz: the scan goes on as if not taken. */
static bool sfu_arm64_is_cond_branch(u32 insn)
{
	return (insn & 0xff000010U) == 0x54000000U ||	/* b.cond */
	       (insn & 0x7e000000U) == 0x34000000U ||	/* cbz, cbnz */
	       (insn & 0x7e000000U) == 0x36000000U;	/* tbz, tbnz */
}

/* A load of a general-register pair whose second register is x29 or x30. */
static bool sfu_arm64_loads_fp_lr_pair(u32 insn)
{
	return (insn & 0x3e400000U) == 0x28400000U && ((insn >> 10) & 0x1f) >= 29;
}

/*
 * Neither writes x29, x30 or SP nor addresses memory through SP (whose
 * writeback forms move it).  Register 31 is the zero register, and so
 * harmless, as the destination of move-wide, bitfield and register
 * data processing and of flag-setting add, sub or and (ands), as the source of
 * register data processing and as the register a load or store moves;
 * it is SP as the destination of the other immediate forms and of add or
 * sub of an extended register, and as a base address.  Anything else,
 * branches and system instructions but barriers and mrs included, is not
 * neutral.
 */
static bool sfu_arm64_frame_neutral(u32 insn)
{
	u32 rd = insn & 0x1f, rn = (insn >> 5) & 0x1f;
	bool flags = insn & BIT(29);

	if ((insn & 0x1f000000U) == 0x10000000U)	/* adr, adrp */
		return rd < 29;
	if ((insn & 0x1f000000U) == 0x11000000U)	/* add/sub (immediate) */
		return rd < 29 || (rd == 31 && flags);
	if ((insn & 0x1f800000U) == 0x12000000U)	/* logical (immediate) */
		return rd < 29 || (rd == 31 && (insn & 0x60000000U) == 0x60000000U);
	if ((insn & 0x1f800000U) == 0x12800000U ||	/* move wide */
	    (insn & 0x1f000000U) == 0x13000000U)	/* bitfield, extract */
		return rd < 29 || rd == 31;
	if ((insn & 0x1f200000U) == 0x0b200000U)	/* add/sub (extended register) */
		return rd < 29 || (rd == 31 && flags);
	if ((insn & 0x0e000000U) == 0x0a000000U)	/* data processing (register) */
		return rd < 29 || rd == 31;
	if ((insn & 0xfffff01fU) == 0xd503301fU)	/* dsb, dmb, isb, clrex, sb */
		return true;
	if ((insn & 0xfff00000U) == 0xd5300000U)	/* mrs */
		return rd < 29 || rd == 31;
	if ((insn & 0x0a000000U) == 0x08000000U) {	/* loads and stores */
		if (rn == 31 || sfu_arm64_loads_fp_lr_pair(insn))
			return false;
		return (insn & BIT(26)) || rd < 29 || rd == 31;	/* SIMD&FP, or a GPR */
	}
	if ((insn & 0x0e000000U) == 0x0e000000U)	/* SIMD&FP data processing */
		return rd < 29;
	return false;
}

/*
 * Where the topmost frame is in its prologue or epilogue.  Compilers
 * schedule unrelated instructions (adrp, add) before the prologue, so the
 * instructions from the PC on are scanned up to the first that could
 * change the frame: a store of the frame record (or a PAC signing) ahead
 * means the return address is still in x30, as does a PC in a PLT entry.
 * So does a ret (or the autiasp before it) reached through instructions
 * that leave SP, x29 and x30 alone, conditional branches taken as not
 * taken: a leaf body, or an epilogue past its reload of the record (any
 * path to a ret restores the frame first, so on none of them is there a
 * frame left).  A failed read means "body", as does anything the scan
 * does not understand, an unconditional branch included.
 */
static enum sfu_arm64_frame_state sfu_arm64_topmost_state(const struct sfu_unwind_state *st)
{
	__le32 raw[SFU_ARM64_SCAN_CHUNK];
	unsigned int i, base = 0, have = 0;
	unsigned long at;
	u32 insn;

	if (sfu_arm64_in_plt_entry(st))
		return SFU_ARM64_FRAME_LR_LIVE;
	for (i = 0; i < SFU_ARM64_PROLOGUE_SCAN; i++) {
		/* raw[] holds instructions base.. base + have - 1 of one page. */
		if (i >= base + have) {
			at = st->ip + 4 * i;
			base = i;
			have = min_t(unsigned long, SFU_ARM64_SCAN_CHUNK,
				     (PAGE_SIZE - offset_in_page(at)) / 4);
			if (!have || sfu_unwind_read(st, at, raw, 4 * have))
				break;
		}
		insn = le32_to_cpu(raw[i - base]);
		if (insn == SFU_ARM64_PACIASP || insn == SFU_ARM64_PACIBSP ||
		    (insn & SFU_ARM64_STP_FP_LR_PRE_MASK) == SFU_ARM64_STP_FP_LR_PRE)
			return SFU_ARM64_FRAME_LR_LIVE;
		/* No frame left between here and the return through x30. */
		if (insn == SFU_ARM64_AUTIASP || insn == SFU_ARM64_AUTIBSP ||
		    insn == SFU_ARM64_RET || insn == SFU_ARM64_RETAA ||
		    insn == SFU_ARM64_RETAB)
			return SFU_ARM64_FRAME_LR_LIVE;
		if (insn == SFU_ARM64_MOV_FP_SP)
			return SFU_ARM64_FRAME_RECORD_AT_SP;
		if ((insn & SFU_ARM64_HINT_MASK) == SFU_ARM64_HINT ||
		    sfu_arm64_is_cond_branch(insn))
			continue;
		if (!sfu_arm64_frame_neutral(insn))
			break;
	}
	return SFU_ARM64_FRAME_BODY;
}

/**
 * sfu_arch_fp_rules() - rules of a frame that has no SFrame row
 * @st: the frame
 * @r: filled with the frame-record chain's rules
 *
 * x29 points at the frame record {caller's x29, return address}.  The
 * record sits anywhere in the frame (GCC puts it at the bottom), so
 * x29 + 16 is only a lower bound of the caller's SP: the rules say so
 * (SFU_RULES_CFA_BOUND), and the caller's frame must then be found from
 * its x29 as well.  The topmost frame may be before its record is stored
 * or after it is reloaded (return address in x30), or between the store
 * and "mov x29, sp".
 */
void sfu_arch_fp_rules(const struct sfu_unwind_state *st, struct sfu_frame_rules *r)
{
	enum sfu_arm64_frame_state state = SFU_ARM64_FRAME_BODY;

	memset(r, 0, sizeof(*r));
	if (st->topmost)
		state = sfu_arm64_topmost_state(st);

	switch (state) {
	case SFU_ARM64_FRAME_LR_LIVE:
		r->cfa.base = SFU_BASE_SP;
		r->fp.kind = SFU_RULE_RETAIN;
		sfu_arch_ra_in_register(&r->ra);
		return;
	case SFU_ARM64_FRAME_RECORD_AT_SP:
		r->cfa.base = SFU_BASE_SP;
		break;
	case SFU_ARM64_FRAME_BODY:
		r->cfa.base = SFU_BASE_FP;
		break;
	}
	r->cfa.offset = 16;
	r->ra.kind = SFU_RULE_CFA_DEREF;
	r->ra.offset = -8;
	r->fp.kind = SFU_RULE_CFA_DEREF;
	r->fp.offset = -16;
	r->flags = SFU_RULES_CFA_BOUND;
}

/*
 * The calls that leave their return address in x30, exactly: BL imm26,
 * BLR Xn, and the pointer-authenticating BLRAA Xn, Xm, BLRAB Xn, Xm,
 * BLRAAZ Xn, BLRABZ Xn.
 */
#define SFU_ARM64_BL_MASK	0xfc000000U
#define SFU_ARM64_BL		0x94000000U
#define SFU_ARM64_BLR_MASK	0xfffffc1fU	/* Rn free */
#define SFU_ARM64_BLR		0xd63f0000U
#define SFU_ARM64_BLRAAZ	0xd63f081fU
#define SFU_ARM64_BLRABZ	0xd63f0c1fU
#define SFU_ARM64_BLRAX_MASK	0xfffffc00U	/* Rn, Rm free */
#define SFU_ARM64_BLRAA		0xd73f0800U
#define SFU_ARM64_BLRAB		0xd73f0c00U

static bool sfu_arm64_is_call(u32 insn)
{
	return (insn & SFU_ARM64_BL_MASK) == SFU_ARM64_BL ||
	       (insn & SFU_ARM64_BLR_MASK) == SFU_ARM64_BLR ||
	       (insn & SFU_ARM64_BLR_MASK) == SFU_ARM64_BLRAAZ ||
	       (insn & SFU_ARM64_BLR_MASK) == SFU_ARM64_BLRABZ ||
	       (insn & SFU_ARM64_BLRAX_MASK) == SFU_ARM64_BLRAA ||
	       (insn & SFU_ARM64_BLRAX_MASK) == SFU_ARM64_BLRAB;
}

/* Where a direct call or branch goes: PC-relative, imm26 words, signed. */
#define SFU_ARM64_B_MASK	0xfc000000U
#define SFU_ARM64_B		0x14000000U
/* "adrp x16, ..." starts a PLT entry or a linker veneer; "bti c" may precede it. */
#define SFU_ARM64_ADRP_X16_MASK	0x9f00001fU
#define SFU_ARM64_ADRP_X16	0x90000010U
#define SFU_ARM64_BTI_C		0xd503245fU
/* How far into its function a callee's PC may be: functions are smaller. */
#define SFU_ARM64_CALLEE_SPAN	SZ_1M

static unsigned long sfu_arm64_branch_target(unsigned long pc, u32 insn)
{
	return pc + ((long)((s32)(insn << 6) >> 6) << 2);
}

/* Whether @ip can be in the function that starts at @target. */
static bool sfu_arm64_in_callee(unsigned long target, unsigned long ip)
{
	return target <= ip && ip - target < SFU_ARM64_CALLEE_SPAN;
}

/*
 * May a BL to @target have led to the frame at @ip?  Where the function
 * at @target holds @ip, or @target is a PLT entry or veneer (adrp x16,
 * after bti c where built so: a call to another object or a far one,
 * whose target this does not follow), or a B to a function that holds
 * @ip.  A tail call from the function called to another that lies before
 * it is refused too: the walk stops there.  Sets *@fn to the function
 * reached, 0 where not known (a PLT entry or veneer).
 */
static int sfu_arm64_call_reaches(const struct sfu_unwind_state *st, unsigned long target,
				  unsigned long ip, unsigned long *fn)
{
	unsigned long at = target;
	__le32 raw[2];
	u32 insn;

	*fn = target;
	if (sfu_arm64_in_callee(target, ip))
		return 0;
	*fn = 0;
	if (target >= TASK_SIZE || sfu_unwind_read(st, target, raw, sizeof(raw)))
		return SFU_END_RA_UNCHECKED;
	insn = le32_to_cpu(raw[0]);
	if (insn == SFU_ARM64_BTI_C) {
		insn = le32_to_cpu(raw[1]);
		at += 4;
	}
	if ((insn & SFU_ARM64_ADRP_X16_MASK) == SFU_ARM64_ADRP_X16)
		return 0;
	if ((insn & SFU_ARM64_B_MASK) == SFU_ARM64_B &&
	    sfu_arm64_in_callee(sfu_arm64_branch_target(at, insn), ip)) {
		*fn = sfu_arm64_branch_target(at, insn);
		return 0;
	}
	return SFU_END_RA_OTHER_CALLEE;
}

/**
 * sfu_arch_callee_holds() - can the function that starts at @fn hold @ip
 * @st: the unwind (unused: arm64 takes no function bounds yet)
 * @fn: a function's first instruction (a call's target)
 * @ip: an address of code
 *
 * A function is taken to span at most SZ_1M (SFU_ARM64_CALLEE_SPAN) from
 * its start, as for the calls sfu_arch_call_before() checks.
 *
 * Return: true if @ip lies in that span.
 */
bool sfu_arch_callee_holds(const struct sfu_unwind_state *st, unsigned long fn,
			   unsigned long ip)
{
	return sfu_arm64_in_callee(fn, ip);
}

/* add x29, sp, #imm12: "mov x29, sp" and its form with an offset */
#define SFU_ARM64_ADD_FP_SP_MASK	0xffc003ffU
/* Instructions of a function's start searched for the frame set-up. */
#define SFU_ARM64_SETUP_SCAN		16

/*
 * The search of sfu_arch_fn_sets_fp(): 1 if "mov x29, sp" or "add x29, sp,
 * #imm" is among the first SFU_ARM64_SETUP_SCAN instructions of the
 * function that starts at @start, before @ip; 0 if not; -1 if the code
 * could not be read (or @ip leaves no room for it).
 */
static int sfu_arm64_fp_setup(const struct sfu_unwind_state *st, unsigned long start,
			      unsigned long ip)
{
	unsigned int n = min_t(unsigned long, (ip - start) / 4, SFU_ARM64_SETUP_SCAN), i;
	__le32 insn[SFU_ARM64_SETUP_SCAN];

	if (ip <= start || !n || sfu_unwind_read(st, start, insn, n * 4))
		return -1;
	for (i = 0; i < n; i++) {
		if ((le32_to_cpu(insn[i]) & SFU_ARM64_ADD_FP_SP_MASK) == SFU_ARM64_MOV_FP_SP)
			return 1;
	}
	return 0;
}

/**
 * sfu_arch_fn_sets_fp() - does a function set up a frame record before an address
 * @st: the unwind (its read mode)
 * @start: the function's first instruction (sfu_fn_start())
 * @ip: an address of the function, past its start
 *
 * A function that keeps a frame record points x29 at it with "mov x29,
 * sp" or "add x29, sp, #imm" near its start, after the stp that saves
 * the pair.  The first SFU_ARM64_SETUP_SCAN instructions before @ip are
 * searched for it.
 *
 * Return: true if the set-up is there, or the code could not be read.
 */
bool sfu_arch_fn_sets_fp(const struct sfu_unwind_state *st, unsigned long start,
			 unsigned long ip)
{
	return sfu_arm64_fp_setup(st, start, ip) != 0;
}
EXPORT_SYMBOL_IF_KUNIT(sfu_arch_fn_sets_fp);

/* ldp x29, x30, [sp...]: post-index, signed offset or pre-index */
#define SFU_ARM64_LDP_MASK		0xffc00000U
#define SFU_ARM64_LDP_POST		0xa8c00000U
#define SFU_ARM64_LDP_OFFSET		0xa9400000U
#define SFU_ARM64_LDP_PRE		0xa9c00000U
#define SFU_ARM64_LDP_FP_LR_MASK	0x00007c1fU
#define SFU_ARM64_LDP_FP_LR		0x0000781dU

static bool sfu_arm64_ldp_fp_lr(u32 insn)
{
	u32 op = insn & SFU_ARM64_LDP_MASK;

	return (op == SFU_ARM64_LDP_POST || op == SFU_ARM64_LDP_OFFSET ||
		op == SFU_ARM64_LDP_PRE) &&
	       (insn & SFU_ARM64_LDP_FP_LR_MASK) == SFU_ARM64_LDP_FP_LR;
}

/**
 * sfu_arch_fp_record_live() - is a function's frame record in place at an address
 * @st: the unwind (its read mode)
 * @start: the function's first instruction (sfu_fn_start())
 * @ip: an address of the function, past its start, in a frame whose
 *	registers are exact
 *
 * The function pointed x29 at its record before @ip (sfu_arch_fn_sets_fp(),
 * the code read) and has not taken it down: the instruction before @ip is
 * no ldp of x29 and x30, and the one at @ip no return or authentication
 * of x30 (RET, RETAA, RETAB, AUTIASP, AUTIBSP), which follow that ldp.
 *
 * Return: true if the record is in place.
 */
bool sfu_arch_fp_record_live(const struct sfu_unwind_state *st, unsigned long start,
			     unsigned long ip)
{
	__le32 raw[2];
	u32 at;

	if (sfu_arm64_fp_setup(st, start, ip) != 1 || sfu_unwind_read(st, ip - 4, raw, 8))
		return false;
	at = le32_to_cpu(raw[1]);
	return !sfu_arm64_ldp_fp_lr(le32_to_cpu(raw[0])) && at != SFU_ARM64_RET &&
	       at != SFU_ARM64_RETAA && at != SFU_ARM64_RETAB && at != SFU_ARM64_AUTIASP &&
	       at != SFU_ARM64_AUTIBSP;
}
EXPORT_SYMBOL_IF_KUNIT(sfu_arch_fp_record_live);

/**
 * sfu_arch_call_before() - is the instruction before a return address a call
 * @st: the unwind (for its read mode)
 * @ra: the return address (PAC already stripped), found without unwind
 *	rows: from a frame record, or from x30 in the topmost frame
 * @callee_ip: the IP of the frame @ra would return from, or 0 not to check
 *	where a BL goes
 * @direct: only a BL counts (an indirect call: SFU_END_RA_NOT_CALL)
 * @callee: if not NULL, set to the function a BL leads to where known
 *	(sfu_arm64_call_reaches(); with no @callee_ip, the BL's target), else 0
 *
 * A BL must go where it can have led to @callee_ip (sfu_arm64_call_reaches()).
 *
 * Return: 0 if @ra is 4-byte aligned and the instruction at @ra - 4 is
 * BL, BLR, BLRAA, BLRAAZ, BLRAB or BLRABZ; SFU_END_RA_NOT_CALL if not;
 * SFU_END_RA_OTHER_CALLEE if a BL to elsewhere; SFU_END_RA_UNCHECKED if
 * code could not be read.
 */
int sfu_arch_call_before(const struct sfu_unwind_state *st, unsigned long ra,
			 unsigned long callee_ip, bool direct, unsigned long *callee)
{
	unsigned long fn = 0;
	__le32 raw;
	u32 insn;
	int reason;

	if (callee)
		*callee = 0;
	if (ra & 3)
		return SFU_END_RA_NOT_CALL;
	if (sfu_unwind_read(st, ra - 4, &raw, sizeof(raw)))
		return SFU_END_RA_UNCHECKED;
	insn = le32_to_cpu(raw);
	if (!sfu_arm64_is_call(insn))
		return SFU_END_RA_NOT_CALL;
	if ((insn & SFU_ARM64_BL_MASK) != SFU_ARM64_BL)
		return direct ? SFU_END_RA_NOT_CALL : 0;
	if (!callee_ip) {
		if (callee)
			*callee = sfu_arm64_branch_target(ra - 4, insn);
		return 0;
	}
	reason = sfu_arm64_call_reaches(st, sfu_arm64_branch_target(ra - 4, insn), callee_ip, &fn);
	if (callee)
		*callee = fn;
	return reason;
}

/**
 * sfu_arch_reg_value() - a register of the topmost frame
 * @regs: the task's user registers
 * @regnum: DWARF register number
 * @val: the register's value
 *
 * Return: true, or false for a register that is not x0-x30 or SP.
 */
bool sfu_arch_reg_value(struct pt_regs *regs, unsigned int regnum, unsigned long *val)
{
	if (regnum < SFU_ARM64_DWARF_SP)
		*val = regs->regs[regnum];
	else if (regnum == SFU_ARM64_DWARF_SP)
		*val = user_stack_pointer(regs);
	else
		return false;
	return true;
}

/**
 * sfu_arch_signal_frame() - the registers a signal frame saved
 * @st: the frame of the signal trampoline (the vDSO's
 *      __kernel_rt_sigreturn): the handler returned to it with the SP the
 *      kernel gave it, the address of the struct rt_sigframe, which is a
 *      siginfo followed by the ucontext
 * @sigctx: the user address of the saved struct sigcontext
 *
 * Return: true; false for a compat task (another frame layout).
 */
bool sfu_arch_signal_frame(const struct sfu_unwind_state *st, unsigned long *sigctx)
{
	if (st->compat)
		return false;
	*sigctx = st->sp + sizeof(struct siginfo) + offsetof(struct ucontext, uc_mcontext);
	return true;
}

/* mov x8, #__NR_rt_sigreturn; svc #0: the vDSO's __kernel_rt_sigreturn */
#define SFU_ARM64_MOV_X8_SIGRETURN	0xd2801168U
#define SFU_ARM64_SVC_0			0xd4000001U

/**
 * sfu_arch_sigreturn_at() - is the frame's code a signal trampoline
 * @st: a frame that has no SFrame row
 *
 * The vDSO's __kernel_rt_sigreturn has no unwind rows: the kernel's vDSO
 * ships no CFI on arm64.  Its code says what it is, as it does to
 * libgcc's and gdb's unwinders: the rt_sigreturn system call at the
 * return address the handler returned to.
 *
 * Return: true if @st->ip is at that sequence in a native task.
 */
bool sfu_arch_sigreturn_at(const struct sfu_unwind_state *st)
{
	__le32 code[2];

	if (st->compat || sfu_unwind_read(st, st->ip, code, sizeof(code)))
		return false;
	return le32_to_cpu(code[0]) == SFU_ARM64_MOV_X8_SIGRETURN &&
	       le32_to_cpu(code[1]) == SFU_ARM64_SVC_0;
}

/**
 * sfu_arch_sigctx_reg() - a register of the frame a signal interrupted
 * @st: that frame (@st->sigctx from sfu_arch_signal_frame())
 * @regnum: DWARF register number: x0-x30, SP (31), or 32 for the PC
 * @val: its saved value
 *
 * Return: 0, SFU_END_FAULT if the context could not be read, or
 * SFU_END_BAD_RULE for a register the context does not hold.
 */
int sfu_arch_sigctx_reg(const struct sfu_unwind_state *st, unsigned int regnum,
			unsigned long *val)
{
	unsigned long off;
	u64 v;

	if (regnum <= 30)
		off = offsetof(struct sigcontext, regs) + regnum * sizeof(u64);
	else if (regnum == SFU_ARM64_DWARF_SP)
		off = offsetof(struct sigcontext, sp);
	else if (regnum == SFU_ARCH_DWARF_IP)
		off = offsetof(struct sigcontext, pc);
	else
		return SFU_END_BAD_RULE;
	if (sfu_unwind_read(st, st->sigctx + off, &v, sizeof(v)))
		return SFU_END_FAULT;
	*val = v;
	return 0;
}
