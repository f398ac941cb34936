// SPDX-License-Identifier: GPL-2.0
/*
 * x86_64 hooks of the generic user unwinder: the frame-pointer rules, the
 * registers of the topmost frame, and those a signal frame saved.
 */
#include <linux/kernel.h>
#include <linux/string.h>
#include <linux/signal.h>
#include <asm/ptrace.h>
#include <asm/sigframe.h>

#include "unwind_arch.h"

/* Instructions that tell where the topmost frame is in its prologue. */
#define SFU_X86_PUSH_RBP	0x55
#define SFU_X86_RET		0xc3
#define SFU_X86_REP		0xf3	/* "repz ret" */
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
 * Return: 0, SFU_STOP_FAULT if the context could not be read, or
 * SFU_STOP_BAD_RULE for a register the context does not hold.
 */
int sfu_arch_sigctx_reg(const struct sfu_unwind_state *st, unsigned int regnum,
			unsigned long *val)
{
	u64 v;

	if (regnum >= ARRAY_SIZE(sfu_x86_sigctx_regs))
		return SFU_STOP_BAD_RULE;
	if (sfu_unwind_read(st, st->sigctx + sfu_x86_sigctx_regs[regnum], &v, sizeof(v)))
		return SFU_STOP_FAULT;
	*val = v;
	return 0;
}
