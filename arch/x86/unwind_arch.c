// SPDX-License-Identifier: GPL-2.0
/*
 * x86_64 hooks of the generic user unwinder: the frame-pointer rules, the
 * registers of the topmost frame, and those a signal frame saved.
 */
#include <linux/kernel.h>
#include <linux/mm.h>
#include <linux/string.h>
#include <linux/sched/task_stack.h>
#include <linux/signal.h>
#include <linux/sizes.h>
#include <asm/ptrace.h>
#include <asm/sigframe.h>

#include "sframe_unwind/arch.h"
#include "sframe_unwind/compat/export.h"

/* Instructions that tell where the topmost frame is in its prologue. */
#define SFU_X86_PUSH_RBP	0x55
#define SFU_X86_RET		0xc3
#define SFU_X86_RET_IMM		0xc2	/* "ret $imm16" */
#define SFU_X86_REP		0xf3	/* "repz ret" */
#define SFU_X86_POP_RBP		0x5d
#define SFU_X86_LEAVE		0xc9
static const u8 sfu_x86_endbr64[] = { 0xf3, 0x0f, 0x1e, 0xfa };
static const u8 sfu_x86_endbr32[] = { 0xf3, 0x0f, 0x1e, 0xfb };
static const u8 sfu_x86_mov_rsp_rbp[][3] = {
	{ 0x48, 0x89, 0xe5 },	/* mov %rsp,%rbp */
	{ 0x48, 0x8b, 0xec },	/* the same, other encoding */
};

static const u8 sfu_x86_mov_esp_ebp[][2] = {
	{ 0x89, 0xe5 },		/* mov %esp,%ebp */
	{ 0x8b, 0xec },
};

enum sfu_x86_frame_state {
	SFU_X86_FRAME_BODY,	/* RBP is this function's frame pointer */
	SFU_X86_FRAME_ENTRY,	/* RA at SP, RBP still the caller's */
	SFU_X86_FRAME_PUSHED,	/* RBP pushed, not yet set: RA at SP + 1 word */
};

/*
 * Where the topmost frame is in the "push %rbp; mov %rsp,%rbp ... pop
 * %rbp; ret" pattern, from the instruction it is about to execute.  A
 * failed read (no-fault mode, or a vanished page) means "body": the
 * frame-pointer chain is then the only information there is.
 */
static enum sfu_x86_frame_state sfu_x86_topmost_state(const struct sfu_unwind_state *st)
{
	u8 insn[4];
	unsigned int i;

	if (sfu_unwind_read(st, st->ip, insn, sizeof(insn)))
		return SFU_X86_FRAME_BODY;
	if (insn[0] == SFU_X86_PUSH_RBP || insn[0] == SFU_X86_RET ||
	    (insn[0] == SFU_X86_REP && insn[1] == SFU_X86_RET) ||
	    !memcmp(insn, st->compat ? sfu_x86_endbr32 : sfu_x86_endbr64, sizeof(insn)))
		return SFU_X86_FRAME_ENTRY;
	for (i = 0; i < ARRAY_SIZE(sfu_x86_mov_rsp_rbp); i++) {
		if (st->compat ? !memcmp(insn, sfu_x86_mov_esp_ebp[i], 2) :
				 !memcmp(insn, sfu_x86_mov_rsp_rbp[i], 3))
			return SFU_X86_FRAME_PUSHED;
	}
	return SFU_X86_FRAME_BODY;
}

/**
 * sfu_arch_fp_rules() - rules of a frame that has no SFrame row
 * @st: the frame
 * @r: filled with the frame-pointer chain's rules
 *
 * A frame built by "push %rbp; mov %rsp,%rbp" has its CFA 2 words above
 * RBP, the return address 1 word and the caller's RBP 2 words below the
 * CFA.  The topmost frame may be at the first instruction of a function
 * (or at its final ret): the return address is then at SP and RBP is the
 * caller's; or right after the push, with the return address one word up.
 */
void sfu_arch_fp_rules(const struct sfu_unwind_state *st, struct sfu_frame_rules *r)
{
	enum sfu_x86_frame_state state = SFU_X86_FRAME_BODY;
	long ws = st->ws;

	memset(r, 0, sizeof(*r));
	if (st->topmost)
		state = sfu_x86_topmost_state(st);

	r->ra.kind = SFU_RULE_CFA_DEREF;
	r->ra.offset = -ws;
	switch (state) {
	case SFU_X86_FRAME_ENTRY:
		r->cfa.base = SFU_BASE_SP;
		r->cfa.offset = ws;
		r->fp.kind = SFU_RULE_RETAIN;
		break;
	case SFU_X86_FRAME_PUSHED:
		r->cfa.base = SFU_BASE_SP;
		r->cfa.offset = 2 * ws;
		r->fp.kind = SFU_RULE_CFA_DEREF;
		r->fp.offset = -2 * ws;
		break;
	case SFU_X86_FRAME_BODY:
		r->cfa.base = SFU_BASE_FP;
		r->cfa.offset = 2 * ws;
		r->fp.kind = SFU_RULE_CFA_DEREF;
		r->fp.offset = -2 * ws;
		break;
	}
}

/* The longest call instruction ending at a return address (prefixes apart). */
#define SFU_X86_CALL_MAX	7
#define SFU_X86_CALL_REL32	0xe8
#define SFU_X86_GRP5		0xff	/* FF /2 is call near, absolute indirect */

/*
 * The length of "FF /2" from its opcode to its end, given its ModRM byte
 * and the byte after it (the SIB byte when ModRM says there is one): 2 for
 * a register or [reg], +1 for a SIB byte, +1 for disp8, +4 for disp32
 * (mod 10; mod 00 with r/m 101, RIP-relative in 64-bit mode, absolute in
 * 32-bit mode; mod 00 with a SIB base of 101).  The same in both modes; a
 * REX prefix changes no length (REX.B does not turn r/m 101 into a base),
 * so prefixes are not looked at.
 */
static unsigned int sfu_x86_ff2_len(u8 modrm, u8 sib)
{
	u8 mod = modrm >> 6, rm = modrm & 7;

	switch (mod) {
	case 3:
		return 2;
	case 0:
		if (rm == 4)
			return (sib & 7) == 5 ? 7 : 3;
		return rm == 5 ? 6 : 2;
	case 1:
		return rm == 4 ? 4 : 3;
	default:
		return rm == 4 ? 7 : 6;
	}
}

/*
 * Does an indirect near call end where @end points?  @avail bytes before
 * @end may be read (at most 7 are).
 *
 * A near call is "E8 rel32" (5 bytes: sfu_x86_direct_call_ends_at()), or
 * "FF /2" (ModRM reg field 2), tried here:
 * call through a register (2 bytes, 3 with REX: "41 FF D0" is call *%r8),
 * through memory at [reg] (2), [reg + disp8] (3), [reg + disp32] (6),
 * with a SIB byte (3, 4 and 7), RIP-relative or absolute disp32 (6: the
 * "call *sym@GOTPCREL(%rip)" of -fno-plt), or [index * scale + disp32]
 * (7: jump tables of calls).  Each of the lengths 2, 3, 4, 6 and 7 is
 * tried: the bytes at @end - length must be FF and a ModRM of reg 2 whose
 * form has exactly that length.  Prefixes (REX, notrack 3E, bnd F2,
 * segment) come before the opcode and never change where a call ends, so
 * an instruction with them is recognised by its opcode and operands.  Far
 * calls (FF /3, 9A) are not near calls of user code and are refused.
 */
static bool sfu_x86_indirect_call_ends_at(const u8 *end, unsigned int avail)
{
	unsigned int len;
	const u8 *op;

	for (len = 2; len <= min_t(unsigned int, avail, SFU_X86_CALL_MAX); len++) {
		op = end - len;
		if (op[0] != SFU_X86_GRP5 || (op[1] & 0x38) != 0x10)
			continue;
		/* op[2] is the SIB byte only where the form has one (len >= 3). */
		if (sfu_x86_ff2_len(op[1], len > 2 ? op[2] : 0) == len)
			return true;
	}
	return false;
}

/* "E8 rel32" ending at @end (5 bytes), of the @avail that may be read. */
static bool sfu_x86_direct_call_ends_at(const u8 *end, unsigned int avail)
{
	return avail >= 5 && end[-5] == SFU_X86_CALL_REL32;
}

/* Bytes of code read at a direct call's target: endbr64, bnd, jmp *disp32(%rip). */
#define SFU_X86_STUB_MAX	11
/* How far into its function a callee's IP may be: functions are smaller. */
#define SFU_X86_CALLEE_SPAN	SZ_1M
/* push imm32: the lazy PLT entry's instruction an unbound GOT slot leads to */
#define SFU_X86_PUSH_IMM32	0x68
/* Bytes of a PLT entry (.plt and .plt.sec alike). */
#define SFU_X86_PLT_ENTRY	16

/* The rel32 operand at @p (x86 is little-endian). */
static s32 sfu_x86_rel32(const u8 *p)
{
	s32 v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/* Whether @ip can be in the function that starts at @target (sfu_fn_holds()). */
static bool sfu_x86_in_callee(const struct sfu_unwind_state *st, unsigned long target,
			      unsigned long ip)
{
	return sfu_fn_holds(st, target, ip, SFU_X86_CALLEE_SPAN);
}

/*
 * The function a call through the PLT entry at @plt, whose GOT slot is at
 * @slot, goes to: the address the slot holds, or 0 where it has not been
 * bound yet (lazy binding: it still leads back into the PLT, to the entry's
 * "push $index", after endbr64 where built so, and on to the dynamic
 * linker's resolver, which the frame may be in).  A slot bound to a
 * function near the PLT (a large library's own calls through it) is told
 * apart by the code there; where that cannot be read, a target near @plt
 * is taken as not bound.
 */
static int sfu_x86_plt_dest(const struct sfu_unwind_state *st, unsigned long plt,
			    unsigned long slot, unsigned long *fn)
{
	unsigned long dest = 0;
	u8 c[5];

	/* A word of the task's size (x86 is little-endian). */
	if (slot >= TASK_SIZE || sfu_unwind_read(st, slot, &dest, st->ws))
		return SFU_END_RA_UNCHECKED;
	*fn = dest;
	if (dest + SFU_X86_CALLEE_SPAN - plt >= 2 * SFU_X86_CALLEE_SPAN)
		return 0;
	if (dest >= TASK_SIZE - sizeof(c) - 4 || sfu_unwind_read(st, dest, c, 1)) {
		*fn = 0;
		return 0;
	}
	/* push imm32, or endbr64 (f3 0f 1e fa) then push imm32 */
	if (c[0] == 0xf3 && sfu_unwind_read(st, dest, c, sizeof(c)))
		*fn = 0;
	else if (c[0] == SFU_X86_PUSH_IMM32 ||
		 (c[0] == 0xf3 && c[1] == 0x0f && c[2] == 0x1e && c[3] == 0xfa &&
		  c[4] == SFU_X86_PUSH_IMM32))
		*fn = 0;
	return 0;
}

/*
 * Where a direct call to @target leads a frame at @ip: into the function
 * at @target (a PLT entry's own frame too), or through a jump stub at
 * @target, a PLT entry ("jmp
 * *disp32(%rip)", after endbr64 and bnd where built so; sfu_x86_plt_dest())
 * or a "jmp rel32" to a function.  The PLT first: it lies below the code
 * that calls it, so that every function of the object is within its span.
 * Sets *@fn to the function reached (0: not known), and returns 0 if it
 * can hold @ip, SFU_END_RA_OTHER_CALLEE if not: a tail call from the
 * function called to another that lies before it is refused too, and the
 * walk stops there.
 */
static int sfu_x86_call_reaches(const struct sfu_unwind_state *st, unsigned long target,
				unsigned long ip, unsigned long *fn)
{
	u8 c[SFU_X86_STUB_MAX];
	unsigned long slot, dest;
	unsigned int i = 0;
	int reason;

	*fn = target;
	if (target >= TASK_SIZE || sfu_unwind_read(st, target, c, sizeof(c)))
		return sfu_x86_in_callee(st, target, ip) ? 0 : SFU_END_RA_UNCHECKED;
	if (c[0] == 0xf3 && c[1] == 0x0f && c[2] == 0x1e && c[3] == 0xfa)
		i = 4;				/* endbr64 */
	if (c[i] == 0xf2)
		i++;				/* bnd */
	/* jmp *disp32(%rip): a PLT entry (32-bit code: jmp *disp32, absolute) */
	if (c[i] == SFU_X86_GRP5 && c[i + 1] == 0x25) {
		slot = st->compat ? (u32)sfu_x86_rel32(&c[i + 2]) :
				    target + i + 6 + sfu_x86_rel32(&c[i + 2]);
		/* The frame is the PLT entry's own: a sample on its jump. */
		if (ip - target < SFU_X86_PLT_ENTRY)
			return 0;
		reason = sfu_x86_plt_dest(st, target, slot, fn);
		if (reason || !*fn || sfu_x86_in_callee(st, *fn, ip))
			return reason;
		return SFU_END_RA_OTHER_CALLEE;
	}
	/* Looked at only here: a function's bounds cost reads of its file's table. */
	if (sfu_x86_in_callee(st, target, ip))
		return 0;
	dest = target + i + 5 + sfu_x86_rel32(&c[i + 1]);
	if (c[i] == 0xe9 && sfu_x86_in_callee(st, dest, ip)) {
		*fn = dest;
		return 0;
	}
	return SFU_END_RA_OTHER_CALLEE;
}

/**
 * sfu_arch_callee_holds() - can the function that starts at @fn hold @ip
 * @st: the unwind (its mm and read mode)
 * @fn: a function's first instruction (a call's target)
 * @ip: an address of code
 *
 * Exactly where the file's .eh_frame_hdr tells where @ip's function
 * starts (sfu_fn_holds()); elsewhere a function is taken to span at most
 * SZ_1M (SFU_X86_CALLEE_SPAN) from its start, as for the calls
 * sfu_arch_call_before() checks.
 *
 * Return: true if @ip lies in that span.
 */
bool sfu_arch_callee_holds(const struct sfu_unwind_state *st, unsigned long fn,
			   unsigned long ip)
{
	return sfu_x86_in_callee(st, fn, ip);
}

/* Bytes of a function's start searched for the frame set-up. */
#define SFU_X86_PROLOGUE_SCAN	32

/*
 * The search of sfu_arch_fn_sets_fp(): 1 if "mov %rsp,%rbp" lies in the
 * first SFU_X86_PROLOGUE_SCAN bytes of the function that starts at @start,
 * before @ip; 0 if not; -1 if the bytes could not be read (or @ip leaves
 * no room for it).
 */
static int sfu_x86_fp_setup(const struct sfu_unwind_state *st, unsigned long start,
			    unsigned long ip)
{
	unsigned int n = min_t(unsigned long, ip - start, SFU_X86_PROLOGUE_SCAN), i, j;
	u8 c[SFU_X86_PROLOGUE_SCAN];

	if (ip <= start || n < 3 || sfu_unwind_read(st, start, c, n))
		return -1;
	for (i = 0; i + 3 <= n; i++) {
		for (j = 0; j < ARRAY_SIZE(sfu_x86_mov_rsp_rbp); j++)
			if (!memcmp(c + i, sfu_x86_mov_rsp_rbp[j], 3))
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
 * A function built with frame pointers sets %rbp to its frame record with
 * "mov %rsp,%rbp" (48 89 e5, or 48 8b ec) near its start: right after
 * "push %rbp" (and endbr64), or after the checks shrink-wrapping puts
 * first.  The first SFU_X86_PROLOGUE_SCAN bytes before @ip are searched
 * for it; a function without (code built without frame pointers, where
 * %rbp holds what its caller left or a value of its own) keeps no record.
 *
 * Return: true if the set-up is there, or the bytes could not be read.
 */
bool sfu_arch_fn_sets_fp(const struct sfu_unwind_state *st, unsigned long start,
			 unsigned long ip)
{
	return sfu_x86_fp_setup(st, start, ip) != 0;
}
EXPORT_SYMBOL_IF_KUNIT(sfu_arch_fn_sets_fp);

/**
 * sfu_arch_fp_record_live() - is a function's frame record in place at an address
 * @st: the unwind (its read mode)
 * @start: the function's first instruction (sfu_fn_start())
 * @ip: an address of the function, past its start, in a frame whose
 *	registers are exact
 *
 * The function set %rbp to its record before @ip (sfu_arch_fn_sets_fp(),
 * the code read) and has not taken it down: @ip is not at a return (ret,
 * ret imm16, rep ret), and the byte before @ip is not "pop %rbp" (5d) or
 * "leave" (c9), which restore the caller's %rbp.  That byte may be the
 * end of a longer instruction: the answer is then no, never a wrong yes.
 * An epilogue that places other instructions between its "pop %rbp" and
 * its ret is not seen.
 *
 * Return: true if the record is in place.
 */
bool sfu_arch_fp_record_live(const struct sfu_unwind_state *st, unsigned long start,
			     unsigned long ip)
{
	u8 c[3];

	if (sfu_x86_fp_setup(st, start, ip) != 1 || sfu_unwind_read(st, ip - 1, c, 3))
		return false;
	return c[0] != SFU_X86_POP_RBP && c[0] != SFU_X86_LEAVE && c[1] != SFU_X86_RET &&
	       c[1] != SFU_X86_RET_IMM && !(c[1] == SFU_X86_REP && c[2] == SFU_X86_RET);
}
EXPORT_SYMBOL_IF_KUNIT(sfu_arch_fp_record_live);

/**
 * sfu_arch_call_before() - does a call instruction end at a return address
 * @st: the unwind (for its read mode)
 * @ra: the return address, found without unwind rows
 * @callee_ip: the IP of the frame @ra would return from, or 0 not to check
 *	where a direct call goes
 * @direct: only a direct call counts (an indirect one: SFU_END_RA_NOT_CALL)
 * @callee: if not NULL, set to the function a direct call leads to (its
 *	target, or where the stub at its target goes: sfu_x86_call_reaches()),
 *	or 0 where that is not known (an indirect call, a PLT slot not bound)
 *
 * Reads the 7 bytes before @ra; when those cross into a page that cannot
 * be read, only those on @ra's page.  A direct call must go where it can
 * have led to @callee_ip (sfu_x86_call_reaches()).
 *
 * Return: 0 if a call ends at @ra (sfu_x86_indirect_call_ends_at(),
 * sfu_x86_direct_call_ends_at()),
 * SFU_END_RA_NOT_CALL if none does, SFU_END_RA_OTHER_CALLEE if a direct
 * call to elsewhere does, SFU_END_RA_UNCHECKED if the bytes could not be
 * read.
 */
int sfu_arch_call_before(const struct sfu_unwind_state *st, unsigned long ra,
			 unsigned long callee_ip, bool direct, unsigned long *callee)
{
	u8 code[SFU_X86_CALL_MAX];
	const u8 *end = code + SFU_X86_CALL_MAX;
	unsigned int n = SFU_X86_CALL_MAX;
	unsigned long fn = 0;
	int reason = 0;

	if (sfu_unwind_read(st, ra - n, code, n)) {
		n = offset_in_page(ra);
		if (!n || n >= SFU_X86_CALL_MAX ||
		    sfu_unwind_read(st, ra - n, code + SFU_X86_CALL_MAX - n, n))
			return SFU_END_RA_UNCHECKED;
	}
	if (callee)
		*callee = 0;
	/* The bytes may read as both: then the call's target is not known. */
	if (sfu_x86_indirect_call_ends_at(end, n))
		return direct ? SFU_END_RA_NOT_CALL : 0;
	if (!sfu_x86_direct_call_ends_at(end, n))
		return SFU_END_RA_NOT_CALL;
	if (callee_ip || callee)
		reason = sfu_x86_call_reaches(st, ra + sfu_x86_rel32(end - 4), callee_ip, &fn);
	if (callee)
		*callee = fn;
	return callee_ip ? reason : 0;
}

/* pt_regs offsets of DWARF registers 0-16 (x86-64 psABI numbering). */
static const u16 sfu_x86_dwarf_regs[] = {
	offsetof(struct pt_regs, ax), offsetof(struct pt_regs, dx),
	offsetof(struct pt_regs, cx), offsetof(struct pt_regs, bx),
	offsetof(struct pt_regs, si), offsetof(struct pt_regs, di),
	offsetof(struct pt_regs, bp), offsetof(struct pt_regs, sp),
	offsetof(struct pt_regs, r8), offsetof(struct pt_regs, r9),
	offsetof(struct pt_regs, r10), offsetof(struct pt_regs, r11),
	offsetof(struct pt_regs, r12), offsetof(struct pt_regs, r13),
	offsetof(struct pt_regs, r14), offsetof(struct pt_regs, r15),
	offsetof(struct pt_regs, ip),
};

/**
 * sfu_arch_reg_value() - a register of the topmost frame
 * @regs: the task's user registers
 * @regnum: DWARF register number
 * @val: the register's value
 *
 * Return: true, or false for a register pt_regs does not hold (vector,
 * segment, flags registers).
 */
bool sfu_arch_reg_value(struct pt_regs *regs, unsigned int regnum, unsigned long *val)
{
	if (regnum >= ARRAY_SIZE(sfu_x86_dwarf_regs))
		return false;
	*val = regs_get_register(regs, sfu_x86_dwarf_regs[regnum]);
	return true;
}

/* Where struct sigcontext_64 keeps DWARF registers 0-16. */
static const u16 sfu_x86_sigctx_regs[] = {
	offsetof(struct sigcontext_64, ax), offsetof(struct sigcontext_64, dx),
	offsetof(struct sigcontext_64, cx), offsetof(struct sigcontext_64, bx),
	offsetof(struct sigcontext_64, si), offsetof(struct sigcontext_64, di),
	offsetof(struct sigcontext_64, bp), offsetof(struct sigcontext_64, sp),
	offsetof(struct sigcontext_64, r8), offsetof(struct sigcontext_64, r9),
	offsetof(struct sigcontext_64, r10), offsetof(struct sigcontext_64, r11),
	offsetof(struct sigcontext_64, r12), offsetof(struct sigcontext_64, r13),
	offsetof(struct sigcontext_64, r14), offsetof(struct sigcontext_64, r15),
	offsetof(struct sigcontext_64, ip),
};

/**
 * sfu_arch_signal_frame() - the registers a signal frame saved
 * @st: the frame of the signal trampoline (glibc's __restore_rt): the
 *      handler returned to it, popping the frame's pretcode, so its SP is
 *      the struct rt_sigframe's ucontext
 * @sigctx: the user address of the saved struct sigcontext_64
 *
 * Return: true; false for a compat task (another frame layout).
 */
bool sfu_arch_signal_frame(const struct sfu_unwind_state *st, unsigned long *sigctx)
{
	unsigned long frame = st->sp - sizeof(((struct rt_sigframe *)0)->pretcode);

	if (st->compat)
		return false;
	*sigctx = frame + offsetof(struct rt_sigframe, uc.uc_mcontext);
	return true;
}

/* mov $__NR_rt_sigreturn, %rax; syscall: glibc's __restore_rt, and musl's */
static const u8 sfu_x86_sigreturn[] = { 0x48, 0xc7, 0xc0, 0x0f, 0x00, 0x00, 0x00, 0x0f, 0x05 };

/**
 * sfu_arch_sigreturn_at() - is the frame's code a signal trampoline
 * @st: a frame that has no SFrame row
 *
 * For a trampoline without unwind rows (a static program without a
 * sidecar), the code itself says what it is, as it does to libgcc's and
 * gdb's unwinders: the rt_sigreturn system call at the return address the
 * handler returned to.
 *
 * Return: true if @st->ip is at that sequence in a native task.
 */
bool sfu_arch_sigreturn_at(const struct sfu_unwind_state *st)
{
	u8 code[sizeof(sfu_x86_sigreturn)];

	if (st->compat || sfu_unwind_read(st, st->ip, code, sizeof(code)))
		return false;
	return !memcmp(code, sfu_x86_sigreturn, sizeof(code));
}

/**
 * sfu_arch_sigctx_reg() - a register of the frame a signal interrupted
 * @st: that frame (@st->sigctx from sfu_arch_signal_frame())
 * @regnum: DWARF register number
 * @val: its saved value
 *
 * Return: 0, SFU_END_FAULT if the context could not be read, or
 * SFU_END_BAD_RULE for a register the context does not hold.
 */
int sfu_arch_sigctx_reg(const struct sfu_unwind_state *st, unsigned int regnum,
			unsigned long *val)
{
	u64 v;

	if (regnum >= ARRAY_SIZE(sfu_x86_sigctx_regs))
		return SFU_END_BAD_RULE;
	if (sfu_unwind_read(st, st->sigctx + sfu_x86_sigctx_regs[regnum], &v, sizeof(v)))
		return SFU_END_FAULT;
	*val = v;
	return 0;
}
