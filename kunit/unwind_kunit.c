// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite for the user unwinder: synthetic stacks in user memory of the
 * test mm, described by hand-built SFrame sections registered through the
 * registry, unwound from hand-made registers.
 *
 * A case is a table row: the functions of a section (function i lives at
 * text + i * 0x100, functions without an FDE have no SFrame), the words
 * written on the stack, the registers, and the exact frames and stop
 * reason the unwind must give.  Every row runs twice, with faultable and
 * with no-fault reads, unless it is about the difference.  Rows use
 * generic layouts (CFA = SP + n, return address at CFA - 8, saved frame
 * pointer at CFA - 16) that the section builder encodes for the ABI of the
 * architecture the suite runs on; rows about one architecture say so.
 */
#include <kunit/test.h>
#include <linux/bitmap.h>
#include <linux/file.h>
#include <linux/mm.h>
#include <linux/mman.h>
#include <linux/preempt.h>
#include <linux/sched.h>
#include <linux/shmem_fs.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "sframe_unwind/compat/kunit.h"
#include "kunit/unwind_kunit.h"
#include "sframe_unwind/registry.h"
#include "sframe/sframe_format.h"
#include "sframe_unwind/unwind.h"
#include "unwind_arch_kunit.h"
#include "sframe_unwind/consumers_arch.h"
#include "user_mem.h"

#define UW_FUNC_SIZE	0x100	/* every function's size and spacing */
#define UW_STACK_SIZE	0x10000	/* bytes of stack; an unmapped page follows */
#define UW_MAX_FRAMES	8
#define UW_MAX_WORDS	20
#define UW_SEC_CAP	1024

/* A value in a case, resolved against where the case's memory landed. */
enum uw_val_kind {
	UW_V_NONE,
	UW_V_ABS,		/* @off itself */
	UW_V_TEXT,		/* text + @fn * UW_FUNC_SIZE + @off */
	UW_V_STACK,		/* stack + @off */
	UW_V_HOLE,		/* the unmapped page after the stack, + @off */
	UW_V_FPCFA,		/* stack + @off where frame pointers give exact CFAs, else 0 */
	UW_V_SIGNED_TEXT,	/* UW_V_TEXT signed with pointer authentication */
};

struct uw_val {
	u8 kind;
	u8 fn;
	s64 off;
};

#define V_NONE		{ .kind = UW_V_NONE }
#define V_ABS(x)	{ .kind = UW_V_ABS, .off = (s64)(x) }
#define V_TXT(f, o)	{ .kind = UW_V_TEXT, .fn = (f), .off = (o) }
#define V_STK(o)	{ .kind = UW_V_STACK, .off = (o) }
#define V_HOLE(o)	{ .kind = UW_V_HOLE, .off = (o) }
#define V_FPCFA(o)	{ .kind = UW_V_FPCFA, .off = (o) }
#define V_SIGNED(f, o)	{ .kind = UW_V_SIGNED_TEXT, .fn = (f), .off = (o) }

/* Rows of a hand-built section. */
enum uw_row_kind {
	UW_ROW_DEFAULT,		/* CFA = SP/FP + @cfa, RA at CFA - 8, FP at CFA + @fp */
	UW_ROW_ENTRY,		/* a function's first instruction, in the ABI's words */
	UW_ROW_LR,		/* CFA = SP + @cfa, RA in the link register (AArch64) */
	UW_ROW_OUTERMOST,	/* RA undefined */
	UW_ROW_FLEX,		/* V3 FLEX (control, offset) pairs from @flex */
};

/* Bases of FLEX rules: registers by role, numbered by the architecture. */
enum uw_reg {
	UW_REG_CFA,		/* no register: the CFA (reg_p clear) */
	UW_REG_SP,
	UW_REG_FP,
	UW_REG_SCRATCH,		/* uw_arch.dwarf_scratch */
	UW_REG_BAD,		/* uw_arch.dwarf_bad */
	UW_REG_TRACKED,		/* uw_arch.dwarf_tracked */
};

/* Where a FLEX row says the tracked register was saved (SFRAME_F_SFU_SAVED_REGS). */
enum uw_saved {
	UW_SAVED_NONE,		/* no pair: unchanged */
	UW_SAVED_AT,		/* at CFA + @saved_off */
	UW_SAVED_LOST,		/* saved where SFrame cannot say */
};

struct uw_flex {
	u8 reg;
	bool deref;
	s32 off;
	s32 add;	/* CFA only: SFRAME_F_SFU_CFA_ADDEND's addend after the deref */
};

struct uw_row {
	u8 start;
	u8 kind;
	bool fp_base;
	bool mangled;
	s32 cfa;
	s32 fp;
	u8 nflex;
	struct uw_flex flex[3];	/* CFA, RA, FP */
	u8 saved;		/* enum uw_saved */
	s32 saved_off;
};

#define UW_MAX_ROWS	2
#define UW_MAX_FUNCS	12

struct uw_func {
	u8 idx;
	bool signal;
	u8 nrows;
	struct uw_row rows[UW_MAX_ROWS];
};

struct uw_sec {
	u8 version;
	bool saved_regs;	/* SFRAME_F_SFU_SAVED_REGS */
	u16 injected;		/* bit i: f<i> is entered by an injected call */
	bool narrow;		/* V3: SFRAME_F_SFU_NARROW_INDEX, 12-byte FDEs */
	u8 nfuncs;
	struct uw_func funcs[UW_MAX_FUNCS];
};

#define R_ENTRY(s)		{ .start = (s), .kind = UW_ROW_ENTRY }
#define R_SP(s, c, f)		{ .start = (s), .cfa = (c), .fp = (f) }
#define R_FP(s, c, f)		{ .start = (s), .fp_base = true, .cfa = (c), .fp = (f) }
#define R_SP_SIGNED(s, c, f)	{ .start = (s), .cfa = (c), .fp = (f), .mangled = true }
#define R_LR(s, c)		{ .start = (s), .kind = UW_ROW_LR, .cfa = (c) }
#define R_OUTERMOST(s)		{ .start = (s), .kind = UW_ROW_OUTERMOST }
#define R_FLEX(s, n, ...)	{ .start = (s), .kind = UW_ROW_FLEX, .nflex = (n), \
				  .flex = { __VA_ARGS__ } }
#define R_FLEX_SAVED(s, k, o, n, ...)	{ .start = (s), .kind = UW_ROW_FLEX, .nflex = (n), \
					  .flex = { __VA_ARGS__ }, .saved = UW_SAVED_##k, \
					  .saved_off = (o) }
#define FX(r, d, o)		{ .reg = UW_REG_##r, .deref = (d), .off = (o) }
#define FXA(r, o, a)		{ .reg = UW_REG_##r, .deref = true, .off = (o), .add = (a) }

#define FN1(i, r0)		{ .idx = (i), .nrows = 1, .rows = { r0 } }
#define FN2(i, r0, r1)		{ .idx = (i), .nrows = 2, .rows = { r0, r1 } }

/* V2 section of DEFAULT rows used by most cases; f12-f15 have no FDE. */
static const struct uw_sec sec_basic = {
	.version = SFRAME_VERSION_2,
	.nfuncs = 11,
	.funcs = {
		FN2(0, R_ENTRY(0), R_SP(4, 32, -16)),
		FN2(1, R_ENTRY(0), R_SP(4, 48, -16)),
		FN2(2, R_ENTRY(0), R_SP(4, 64, -16)),
		FN1(3, R_OUTERMOST(0)),
		FN1(5, R_FP(0, 16, -16)),
		FN1(6, R_SP(0, 16, 0)),
		FN1(7, R_SP(0, 0, 0)),
		FN1(8, R_SP(0, 13, 0)),
		FN1(9, R_SP(0, 40000, -16)),
		FN1(10, R_LR(0, 0)),
		FN1(11, R_SP(0, 32, -16)),
	},
};

/*
 * V3 (PCREL) DEFAULT rows, and a signal frame in f4; @narrow_: with
 * sframe-gen's 12-byte FDE index entries.
 */
#define UW_SEC_V3(narrow_)	{ \
	.version = SFRAME_VERSION_3, \
	.narrow = (narrow_), \
	.nfuncs = 5, \
	.funcs = { \
		FN2(0, R_ENTRY(0), R_SP(4, 32, -16)), \
		FN2(1, R_ENTRY(0), R_SP(4, 48, -16)), \
		FN2(2, R_ENTRY(0), R_SP(4, 64, -16)), \
		FN1(3, R_OUTERMOST(0)), \
		{ .idx = 4, .signal = true, .nrows = 1, .rows = { R_SP(0, 16, 0) } }, \
	}, \
}

static const struct uw_sec sec_v3 = UW_SEC_V3(false);
static const struct uw_sec sec_v3_narrow = UW_SEC_V3(true);

/*
 * V3 with a signal trampoline as gas and sframe-gen describe one: f4 a
 * signal FDE without rows.  f10 keeps its return address in the link
 * register (AArch64 only).
 */
static const struct uw_sec sec_sig = {
	.version = SFRAME_VERSION_3,
	.nfuncs = 5,
	.funcs = {
		FN2(0, R_ENTRY(0), R_SP(4, 32, -16)),
		FN2(1, R_ENTRY(0), R_SP(4, 48, -16)),
		FN1(3, R_OUTERMOST(0)),
		{ .idx = 4, .signal = true, .nrows = 0 },
		FN1(10, R_LR(0, 0)),
	},
};

/* AArch64 rows that say the return address is signed. */
static const struct uw_sec sec_pac = {
	.version = SFRAME_VERSION_2,
	.nfuncs = 3,
	.funcs = {
		FN1(1, R_SP(0, 48, -16)),
		FN1(3, R_OUTERMOST(0)),
		FN1(11, R_SP_SIGNED(0, 32, -16)),
	},
};

/* V3 FLEX rows: every kind of CFA, RA and FP rule. */
static const struct uw_sec sec_flex = {
	.version = SFRAME_VERSION_3,
	.nfuncs = 10,
	.funcs = {
		/* CFA = *(FP - 8), RA = *(CFA - 8), FP = *(CFA - 16) */
		FN1(0, R_FLEX(0, 6, FX(FP, true, -8), FX(CFA, true, -8), FX(CFA, true, -16))),
		/* CFA = scratch register, RA = *(CFA - 8) */
		FN1(1, R_FLEX(0, 4, FX(SCRATCH, false, 0), FX(CFA, true, -8))),
		/* CFA = *(scratch + 8), RA = *(CFA - 8) */
		FN1(2, R_FLEX(0, 4, FX(SCRATCH, true, 8), FX(CFA, true, -8))),
		/* CFA = SP + 16, RA = *(SP + 8), FP = scratch register */
		FN1(3, R_FLEX(0, 6, FX(SP, false, 16), FX(SP, true, 8), FX(SCRATCH, false, 0))),
		/* CFA = SP + 16, RA = scratch register */
		FN1(4, R_FLEX(0, 4, FX(SP, false, 16), FX(SCRATCH, false, 0))),
		/* CFA = SP + 16, RA = *(CFA - 8), FP = *(scratch) */
		FN1(5, R_FLEX(0, 6, FX(SP, false, 16), FX(CFA, true, -8), FX(SCRATCH, true, 0))),
		/* CFA = a register pt_regs does not hold */
		FN1(6, R_FLEX(0, 4, FX(BAD, false, 0), FX(CFA, true, -8))),
		/* CFA = SP + 16, RA = *(CFA - 8), FP unchanged */
		FN1(7, R_FLEX(0, 4, FX(SP, false, 16), FX(CFA, true, -8))),
		FN1(8, R_OUTERMOST(0)),
		/* CFA = *(SP + 16) + 8 (OpenSSL's), RA = *(CFA - 8) */
		FN1(9, R_FLEX(0, 4, FXA(SP, 16, 8), FX(CFA, true, -8))),
	},
};

/*
 * ld.so's lazy-binding trampoline and what it calls (x86_64): f1 keeps its
 * CFA in rbx (CFA = rbx + 24) while it calls f0, which pushed rbx (saved at
 * CFA - 16); f2 is a DEFAULT FDE, rbx unchanged; f4 saved rbx where SFrame
 * cannot say; f5 saves nothing.
 */
#define UW_SEC_SAVED(flag, k0, k4)	{ \
	.version = SFRAME_VERSION_3, \
	.saved_regs = (flag), \
	.nfuncs = 6, \
	.funcs = { \
		FN1(0, R_FLEX_SAVED(0, k0, -16, 4, FX(SP, false, 16), FX(CFA, true, -8))), \
		FN1(1, R_FLEX(0, 4, FX(TRACKED, false, 24), FX(CFA, true, -8))), \
		FN2(2, R_ENTRY(0), R_SP(4, 32, -16)), \
		FN1(3, R_OUTERMOST(0)), \
		FN1(4, R_FLEX_SAVED(0, k4, 0, 4, FX(SP, false, 16), FX(CFA, true, -8))), \
		FN1(5, R_FLEX(0, 4, FX(SP, false, 16), FX(CFA, true, -8))), \
	}, \
}

/*
 * Go's asynchronous preemption: f0 (asyncPreempt) was entered by a call a
 * signal handler faked, whose return address is the PC it interrupted.
 * f1 changes its CFA at + 0x40, f2 follows f1.  f4 is another such
 * function, whose caller's link register the handler stored at CFA - 16
 * (arm64), and f10 a leaf, its return address in the link register.  The
 * FDEs of the functions in @mask say so (and the section has
 * SFRAME_F_SFU_INJECTED_CALLS); with none, the same rows as a section
 * without the extension.
 */
#define UW_SEC_INJECTED(mask)	{ \
	.version = SFRAME_VERSION_3, \
	.injected = (mask), \
	.nfuncs = 6, \
	.funcs = { \
		FN1(0, R_SP(0, 32, -16)), \
		FN2(1, R_SP(0, 16, 0), R_SP(0x40, 48, -16)), \
		FN1(2, R_SP(0, 24, 0)), \
		FN1(3, R_OUTERMOST(0)), \
		FN1(4, R_SP(0, 48, -24)), \
		FN1(10, R_LR(0, 0)), \
	}, \
}

static const struct uw_sec sec_injected = UW_SEC_INJECTED(BIT(0) | BIT(4));
static const struct uw_sec sec_injected_unflagged = UW_SEC_INJECTED(0);

static const struct uw_sec sec_saved = UW_SEC_SAVED(true, AT, LOST);
/* The same CFI as sframe-gen --no-saved-regs writes it: no flag, no pairs. */
static const struct uw_sec sec_saved_unflagged = UW_SEC_SAVED(false, NONE, NONE);

struct uw_word {
	u32 at;
	struct uw_val val;
};

struct uw_exp {
	struct uw_val ip;
	struct uw_val cfa;
	u8 method;
};

struct uw_text {
	struct uw_val at;
	u8 len;
	u8 bytes[16];
};

/**
 * struct uw_case - one unwind and what it must give
 * @name: what it shows, as a sentence
 * @arch: UW_ARCH_* it applies to, 0 for all
 * @sec: the section to register, NULL for none
 * @ip: initial instruction pointer
 * @sp: initial stack pointer
 * @fp: initial frame pointer
 * @lr: initial link register (arm64)
 * @scratch: initial value of uw_arch.dwarf_scratch
 * @tracked: initial value of uw_arch.dwarf_tracked
 * @go_g: initial value of Go's g register (sfu_arch_go_g())
 * @compat: registers of a compat task
 * @stack: words on the stack (offsets from its start)
 * @text: instruction bytes to place in the text
 * @stub: more of them, elsewhere (a PLT entry)
 * @got: a word to place in the text, @at bytes from its start (the PLT
 *	entry's GOT slot)
 * @flags: SFU_UNWIND_* (besides the mode the run adds)
 * @max: capacity passed to the unwinder, 0 for UW_MAX_FRAMES
 * @one_mode: run only as given, not also with the other read mode
 * @jit: the text is anonymous memory, as JIT code is (else a file's)
 * @fn_table: the text's file has a page before it with an ELF header and a
 *	.eh_frame_hdr listing every function (uw_write_fn_table())
 * @caller: UW_CALLER_* context the unwinder is called from
 * @frames: the frames expected
 * @stop: the stop reason expected
 */
struct uw_case {
	const char *name;
	unsigned int arch;
	const struct uw_sec *sec;
	struct uw_val ip, sp, fp, lr, scratch, tracked, go_g;
	bool compat;
	struct uw_word stack[UW_MAX_WORDS];
	struct uw_text text;
	struct uw_text stub;
	struct uw_word got;
	unsigned int flags;
	unsigned int max;
	bool one_mode;
	bool jit;
	bool fn_table;
	u8 caller;
	struct uw_exp frames[UW_MAX_FRAMES];
	u8 stop;
};

/* uw_case.caller: the context the walk is called from (default: may fault). */
enum {
	UW_CALLER_TASK,
	UW_CALLER_PREEMPT_OFF,		/* a tracepoint probe, a spinlock */
	UW_CALLER_PAGEFAULT_OFF,	/* inside pagefault_disable() */
};

#define W(a, ...)		{ .at = (a), .val = __VA_ARGS__ }
#define F(i, c, m)		{ .ip = i, .cfa = c, .method = SFU_METHOD_##m }
#define C0			V_ABS(0)

/*
 * The topmost frame's record returns to f1 + 0x80, right after the code
 * given in bytes: a call (the frame-pointer fallback takes the caller) or
 * not (the walk stops with ra_not_call).
 */
#define UW_CODE_LEN(...)	sizeof((const u8[]){ __VA_ARGS__ })
#define UW_FP_RA_CASE(nm, a, ...)						\
	.name = (nm), .arch = (a),						\
	.ip = V_TXT(0, 0x10), .sp = V_STK(0x1000), .fp = V_STK(0x1100),	\
	.text = { .at = V_TXT(1, 0x80 - UW_CODE_LEN(__VA_ARGS__)),		\
		  .len = UW_CODE_LEN(__VA_ARGS__), .bytes = { __VA_ARGS__ } },	\
	.stack = { W(0x1100, V_ABS(0)), W(0x1108, V_TXT(1, 0x80)) }

#define UW_FP_CALL(nm, a, ...) {						\
	UW_FP_RA_CASE(nm, a, __VA_ARGS__),					\
	.frames = { F(V_TXT(0, 0x10), V_FPCFA(0x1110), REGS), F(V_TXT(1, 0x80), C0, FP) }, \
	.stop = SFU_END_FP_END,						\
}

/*
 * The topmost frame's record returns to f1 + 0x80, after a direct call to
 * f2 + 0x80 (where f0 + 0x10 cannot be), and leads on to f3 + 0x40 with a
 * zero frame pointer; nothing lies between the frame's SP and the record.
 */
#define UW_FP_TAIL_CALL_CASE							\
	.arch = UW_ARCH_X86_64,							\
	.ip = V_TXT(0, 0x10), .sp = V_STK(0x1000), .fp = V_STK(0x1100),	\
	.text = { .at = V_TXT(1, 0x7b), .len = 5,				\
		  .bytes = { 0xe8, 0x00, 0x01, 0x00, 0x00 } },			\
	.stack = {								\
		W(0x1100, V_STK(0x1200)), W(0x1108, V_TXT(1, 0x80)),		\
		W(0x1200, V_ABS(0)), W(0x1208, V_TXT(3, 0x40)),			\
	}

/*
 * The topmost frame, in f0 of a file whose table shows where f0 starts,
 * has a record that returns to f1 + 0x40 (after the indirect call every
 * function has there) and names itself as the next record: the step out
 * of f1 + 0x40 fails.
 */
#define UW_FP_LEFT_FRAME_CASE							\
	.arch = UW_ARCH_X86_64, .fn_table = true,				\
	.ip = V_TXT(0, 0x10), .sp = V_STK(0x1000), .fp = V_STK(0x1100),	\
	.stack = { W(0x1100, V_STK(0x1100)), W(0x1108, V_TXT(1, 0x40)) }

#define UW_FP_OTHER_CALLEE(nm, a, ...) {					\
	UW_FP_RA_CASE(nm, a, __VA_ARGS__),					\
	.frames = { F(V_TXT(0, 0x10), C0, REGS) },				\
	.stop = SFU_END_RA_OTHER_CALLEE,					\
}

#define UW_FP_NOT_CALL(nm, a, ...) {						\
	UW_FP_RA_CASE(nm, a, __VA_ARGS__),					\
	.frames = { F(V_TXT(0, 0x10), C0, REGS) },				\
	.stop = SFU_END_RA_NOT_CALL,						\
}

/*
 * The topmost frame's record returns to f1 + 0x40, whose record, at
 * 0x1200, to f3 + 0x40 with a zero frame pointer; between them, in f1's
 * frame, lies the word @word.
 */
#define UW_FP_DEEP_WORD(nm, word, ...) {					\
	.name = (nm), .arch = UW_ARCH_X86_64,					\
	.ip = V_TXT(0, 0x10), .sp = V_STK(0x1000), .fp = V_STK(0x1100),	\
	.stack = {								\
		W(0x1100, V_STK(0x1200)), W(0x1108, V_TXT(1, 0x40)),		\
		W(0x1150, word),						\
		W(0x1200, V_ABS(0)), W(0x1208, V_TXT(3, 0x40)),			\
	},									\
	__VA_ARGS__								\
}

#define UW_FP_DEEP_TAKEN							\
	.frames = {								\
		F(V_TXT(0, 0x10), V_FPCFA(0x1110), REGS),			\
		F(V_TXT(1, 0x40), V_FPCFA(0x1210), FP),				\
		F(V_TXT(3, 0x40), C0, FP),					\
	},									\
	.stop = SFU_END_FP_END

/*
 * The topmost frame, at f@fn + 0x10, has a record that returns to f1 +
 * 0x80, after "call f2"; f2 is a PLT entry, "jmp *(f2 + 0x10)(%rip);
 * push $0", whose GOT slot holds @slot.  Below the record, in the frame, lies the
 * word @below.
 */
#define UW_FP_PLT(nm, fn, slot, below, ...) {						\
	.name = (nm), .arch = UW_ARCH_X86_64,					\
	.ip = V_TXT(fn, 0x10), .sp = V_STK(0x1000), .fp = V_STK(0x1100),	\
	.text = { .at = V_TXT(1, 0x7b), .len = 5,				\
		  .bytes = { 0xe8, 0x80, 0x00, 0x00, 0x00 } },			\
	.stub = { .at = V_TXT(2, 0), .len = 11,					\
		  .bytes = { 0xff, 0x25, 0x0a, 0x00, 0x00, 0x00,		\
			     0x68, 0x00, 0x00, 0x00, 0x00 } },			\
	.got = { .at = 2 * UW_FUNC_SIZE + 0x10, .val = slot },		\
	.stack = { W(0x1028, below), W(0x1100, V_ABS(0)), W(0x1108, V_TXT(1, 0x80)) }, \
	__VA_ARGS__								\
}

/*
 * The topmost frame, at f3 + 0x10, has a record that returns to f1 +
 * 0x80, after "call f2"; above the record lies f4 + 0x80, after "call
 * f@to" (given as its rel32 bytes).
 */
#define UW_FP_WITNESS(nm, r0, r1, r2, r3, ...) {				\
	.name = (nm), .arch = UW_ARCH_X86_64,					\
	.ip = V_TXT(3, 0x10), .sp = V_STK(0x1000), .fp = V_STK(0x1100),	\
	.text = { .at = V_TXT(1, 0x7b), .len = 5,				\
		  .bytes = { 0xe8, 0x80, 0x00, 0x00, 0x00 } },			\
	.stub = { .at = V_TXT(4, 0x7b), .len = 5, .bytes = { 0xe8, r0, r1, r2, r3 } }, \
	.stack = {								\
		W(0x1100, V_ABS(0)), W(0x1108, V_TXT(1, 0x80)),			\
		W(0x1180, V_TXT(4, 0x80)),					\
	},									\
	__VA_ARGS__								\
}

/*
 * The topmost frame, at f0 + 0x10, has a record that returns to f1 +
 * 0x80, after "call f2"; below the record lie @low, then f2 + 0x80, after
 * a call given as its rel32 bytes.
 */
#define UW_FP_BELOW(nm, low, r0, r1, r2, r3, ...) {				\
	.name = (nm), .arch = UW_ARCH_X86_64,					\
	.ip = V_TXT(0, 0x10), .sp = V_STK(0x1000), .fp = V_STK(0x1100),	\
	.text = { .at = V_TXT(1, 0x7b), .len = 5,				\
		  .bytes = { 0xe8, 0x80, 0x00, 0x00, 0x00 } },			\
	.stub = { .at = V_TXT(2, 0x7b), .len = 5, .bytes = { 0xe8, r0, r1, r2, r3 } }, \
	.stack = {								\
		W(0x1010, low), W(0x1020, V_TXT(2, 0x80)),			\
		W(0x1100, V_ABS(0)), W(0x1108, V_TXT(1, 0x80)),			\
	},									\
	__VA_ARGS__								\
}

#define UW_FP_PLT_TAKEN								\
	.frames = { F(V_TXT(0, 0x10), V_FPCFA(0x1110), REGS), F(V_TXT(1, 0x80), C0, FP) }, \
	.stop = SFU_END_FP_END

/* f0 -> f1 -> f2 -> f3 (outermost) through the V3 section @s, every frame exact. */
#define UW_CASE_V3_CHAIN(n, s) {						\
	.name = n,								\
	.sec = s,								\
	.ip = V_TXT(0, 0x10), .sp = V_STK(0x1000),				\
	.stack = {								\
		W(0x1018, V_TXT(1, 0x40)), W(0x1048, V_TXT(2, 0x40)),		\
		W(0x1088, V_TXT(3, 0x40)),					\
	},									\
	.frames = {								\
		F(V_TXT(0, 0x10), V_STK(0x1020), REGS),				\
		F(V_TXT(1, 0x40), V_STK(0x1050), SFRAME),			\
		F(V_TXT(2, 0x40), V_STK(0x1090), SFRAME),			\
		F(V_TXT(3, 0x40), C0, SFRAME),					\
	},									\
	.stop = SFU_END_OUTERMOST,						\
}

static const struct uw_case uw_cases[] = {
	{
		/*
		 * The signal interrupted f1 at + 0x40, where its CFA changes,
		 * and pushed that PC for f0: f1's row is the one at + 0x40.
		 */
		.name = "injected_call_returns_to_the_row_of_the_interrupted_pc",
		.sec = &sec_injected,
		.ip = V_TXT(0, 0x10), .sp = V_STK(0x1000),
		.stack = {
			W(0x1018, V_TXT(1, 0x40)), W(0x1028, V_TXT(3, 0x20)),
			W(0x1048, V_TXT(3, 0x10)),
		},
		.frames = {
			F(V_TXT(0, 0x10), V_STK(0x1020), REGS),
			F(V_TXT(1, 0x40), V_STK(0x1050), SFRAME),
			F(V_TXT(3, 0x10), C0, SFRAME),
		},
		.stop = SFU_END_OUTERMOST,
	},
	{
		/* The same stack, f0 not marked: f1 + 0x3f's row, the one before. */
		.name = "return_address_without_the_injected_flag_takes_the_row_before",
		.sec = &sec_injected_unflagged,
		.ip = V_TXT(0, 0x10), .sp = V_STK(0x1000),
		.stack = {
			W(0x1018, V_TXT(1, 0x40)), W(0x1028, V_TXT(3, 0x20)),
			W(0x1048, V_TXT(3, 0x10)),
		},
		.frames = {
			F(V_TXT(0, 0x10), V_STK(0x1020), REGS),
			F(V_TXT(1, 0x40), V_STK(0x1030), SFRAME),
			F(V_TXT(3, 0x20), C0, SFRAME),
		},
		.stop = SFU_END_OUTERMOST,
	},
	{
		/* The signal interrupted f2 at its first byte: f2's row, not f1's. */
		.name = "injected_call_at_a_function_start_returns_to_that_function",
		.sec = &sec_injected,
		.ip = V_TXT(0, 0x10), .sp = V_STK(0x1000),
		.stack = {
			W(0x1018, V_TXT(2, 0)), W(0x1030, V_TXT(3, 0x30)),
			W(0x1048, V_TXT(3, 0x10)),
		},
		.frames = {
			F(V_TXT(0, 0x10), V_STK(0x1020), REGS),
			F(V_TXT(2, 0), V_STK(0x1038), SFRAME),
			F(V_TXT(3, 0x30), C0, SFRAME),
		},
		.stop = SFU_END_OUTERMOST,
	},
	{
		/*
		 * The signal interrupted the leaf f10, whose return address
		 * is still in x30: the handler stored x30 at f4's CFA - 16.
		 */
		.name = "arm64_leaf_an_injected_call_interrupted_returns_through_its_saved_lr",
		.arch = UW_ARCH_ARM64,
		.sec = &sec_injected,
		.ip = V_TXT(4, 0x10), .sp = V_STK(0x1000), .lr = V_TXT(10, 0x20),
		.stack = {
			W(0x1028, V_TXT(10, 0x20)), W(0x1020, V_TXT(3, 0x10)),
			W(0x1018, V_STK(0x2000)),
		},
		.frames = {
			F(V_TXT(4, 0x10), V_STK(0x1030), REGS),
			F(V_TXT(10, 0x20), V_STK(0x1030), SFRAME),
			F(V_TXT(3, 0x10), C0, SFRAME),
		},
		.stop = SFU_END_OUTERMOST,
	},
	{
		/* Not marked: x30 is unknown below the topmost frame. */
		.name = "arm64_leaf_below_an_ordinary_call_stops_with_bad_rule",
		.arch = UW_ARCH_ARM64,
		.sec = &sec_injected_unflagged,
		.ip = V_TXT(4, 0x10), .sp = V_STK(0x1000), .lr = V_TXT(10, 0x20),
		.stack = {
			W(0x1028, V_TXT(10, 0x20)), W(0x1020, V_TXT(3, 0x10)),
			W(0x1018, V_STK(0x2000)),
		},
		.frames = {
			F(V_TXT(4, 0x10), V_STK(0x1030), REGS),
			F(V_TXT(10, 0x20), C0, SFRAME),
		},
		.stop = SFU_END_BAD_RULE,
	},
	{
		/* Not marked: the byte before f2 is f1's last, and f1's row is taken. */
		.name = "return_address_at_a_function_start_without_the_flag_is_the_previous_ones",
		.sec = &sec_injected_unflagged,
		.ip = V_TXT(0, 0x10), .sp = V_STK(0x1000),
		.stack = {
			W(0x1018, V_TXT(2, 0)), W(0x1030, V_TXT(3, 0x30)),
			W(0x1048, V_TXT(3, 0x10)),
		},
		.frames = {
			F(V_TXT(0, 0x10), V_STK(0x1020), REGS),
			F(V_TXT(2, 0), V_STK(0x1050), SFRAME),
			F(V_TXT(3, 0x10), C0, SFRAME),
		},
		.stop = SFU_END_OUTERMOST,
	},
	{
		.name = "sp_based_rows_unwind_every_frame_up_to_the_outermost_one",
		.sec = &sec_basic,
		.ip = V_TXT(0, 0x10), .sp = V_STK(0x1000), .fp = V_ABS(0x1234),
		.stack = {
			W(0x1018, V_TXT(1, 0x40)), W(0x1010, V_STK(0x2000)),
			W(0x1048, V_TXT(2, 0x40)), W(0x1088, V_TXT(3, 0x40)),
		},
		.frames = {
			F(V_TXT(0, 0x10), V_STK(0x1020), REGS),
			F(V_TXT(1, 0x40), V_STK(0x1050), SFRAME),
			F(V_TXT(2, 0x40), V_STK(0x1090), SFRAME),
			F(V_TXT(3, 0x40), C0, SFRAME),
		},
		.stop = SFU_END_OUTERMOST,
	},
	UW_CASE_V3_CHAIN("v3_pcrel_sections_unwind_like_v2_ones", &sec_v3),
	UW_CASE_V3_CHAIN("v3_narrow_index_sections_unwind_like_v3_ones", &sec_v3_narrow),
	{
		.name = "chain_of_exactly_max_frames_still_reports_the_outermost_frame",
		.sec = &sec_basic, .max = 4,
		.ip = V_TXT(0, 0x10), .sp = V_STK(0x1000),
		.stack = {
			W(0x1018, V_TXT(1, 0x40)), W(0x1048, V_TXT(2, 0x40)),
			W(0x1088, V_TXT(3, 0x40)),
		},
		.frames = {
			F(V_TXT(0, 0x10), V_STK(0x1020), REGS),
			F(V_TXT(1, 0x40), V_STK(0x1050), SFRAME),
			F(V_TXT(2, 0x40), V_STK(0x1090), SFRAME),
			F(V_TXT(3, 0x40), C0, SFRAME),
		},
		.stop = SFU_END_OUTERMOST,
	},
	{
		.name = "fp_based_row_unwinds_a_frame_whose_size_varies",
		.sec = &sec_basic,
		.ip = V_TXT(5, 0x10), .sp = V_STK(0x1000), .fp = V_STK(0x1400),
		.stack = {
			W(0x1408, V_TXT(1, 0x40)), W(0x1400, V_STK(0x1600)),
			W(0x1438, V_TXT(3, 0x40)),
		},
		.frames = {
			F(V_TXT(5, 0x10), V_STK(0x1410), REGS),
			F(V_TXT(1, 0x40), V_STK(0x1440), SFRAME),
			F(V_TXT(3, 0x40), C0, SFRAME),
		},
		.stop = SFU_END_OUTERMOST,
	},
	{
		.name = "saved_frame_pointer_is_restored_for_the_callers_fp_based_row",
		.sec = &sec_basic,
		.ip = V_TXT(0, 0x10), .sp = V_STK(0x1000), .fp = V_ABS(0),
		.stack = {
			W(0x1018, V_TXT(5, 0x40)), W(0x1010, V_STK(0x1100)),
			W(0x1108, V_TXT(3, 0x40)),
		},
		.frames = {
			F(V_TXT(0, 0x10), V_STK(0x1020), REGS),
			F(V_TXT(5, 0x40), V_STK(0x1110), SFRAME),
			F(V_TXT(3, 0x40), C0, SFRAME),
		},
		.stop = SFU_END_OUTERMOST,
	},
	{
		.name = "frame_larger_than_32_kib_is_unwound",
		.sec = &sec_basic,
		.ip = V_TXT(9, 0x10), .sp = V_STK(0x1000),
		.stack = { W(0x1000 + 40000 - 8, V_TXT(3, 0x40)) },
		.frames = {
			F(V_TXT(9, 0x10), V_STK(0x1000 + 40000), REGS),
			F(V_TXT(3, 0x40), C0, SFRAME),
		},
		.stop = SFU_END_OUTERMOST,
	},
	{
		.name = "x86_entry_row_finds_the_return_address_at_sp",
		.arch = UW_ARCH_X86_64, .sec = &sec_basic,
		.ip = V_TXT(0, 0), .sp = V_STK(0x1000),
		.stack = { W(0x1000, V_TXT(1, 0x40)), W(0x1030, V_TXT(3, 0x40)) },
		.frames = {
			F(V_TXT(0, 0), V_STK(0x1008), REGS),
			F(V_TXT(1, 0x40), V_STK(0x1038), SFRAME),
			F(V_TXT(3, 0x40), C0, SFRAME),
		},
		.stop = SFU_END_OUTERMOST,
	},
	{
		.name = "arm64_entry_row_takes_the_return_address_from_the_link_register",
		.arch = UW_ARCH_ARM64, .sec = &sec_basic,
		.ip = V_TXT(0, 0), .sp = V_STK(0x1000), .lr = V_TXT(1, 0x40),
		.stack = { W(0x1028, V_TXT(3, 0x40)) },
		.frames = {
			F(V_TXT(0, 0), V_STK(0x1000), REGS),
			F(V_TXT(1, 0x40), V_STK(0x1030), SFRAME),
			F(V_TXT(3, 0x40), C0, SFRAME),
		},
		.stop = SFU_END_OUTERMOST,
	},
	{
		.name = "arm64_link_register_rule_in_a_deeper_frame_stops_with_bad_rule",
		.arch = UW_ARCH_ARM64, .sec = &sec_basic,
		.ip = V_TXT(0, 0x10), .sp = V_STK(0x1000), .lr = V_TXT(3, 0x40),
		.stack = { W(0x1018, V_TXT(10, 0x40)) },
		.frames = {
			F(V_TXT(0, 0x10), V_STK(0x1020), REGS),
			F(V_TXT(10, 0x40), C0, SFRAME),
		},
		.stop = SFU_END_BAD_RULE,
	},
	{
		.name = "arm64_signed_return_address_on_the_stack_is_stripped",
		.arch = UW_ARCH_ARM64, .sec = &sec_pac,
		.ip = V_TXT(11, 0x10), .sp = V_STK(0x1000),
		.stack = {
			W(0x1018, V_SIGNED(1, 0x40)), W(0x1048, V_SIGNED(3, 0x40)),
		},
		.frames = {
			F(V_TXT(11, 0x10), V_STK(0x1020), REGS),
			F(V_TXT(1, 0x40), V_STK(0x1050), SFRAME),
			F(V_TXT(3, 0x40), C0, SFRAME),
		},
		.stop = SFU_END_OUTERMOST,
	},
	{
		.name = "arm64_signed_link_register_is_stripped",
		.arch = UW_ARCH_ARM64, .sec = &sec_basic,
		.ip = V_TXT(0, 0), .sp = V_STK(0x1000), .lr = V_SIGNED(1, 0x40),
		.stack = { W(0x1028, V_TXT(3, 0x40)) },
		.frames = {
			F(V_TXT(0, 0), V_STK(0x1000), REGS),
			F(V_TXT(1, 0x40), V_STK(0x1030), SFRAME),
			F(V_TXT(3, 0x40), C0, SFRAME),
		},
		.stop = SFU_END_OUTERMOST,
	},
	{
		.name = "x86_return_address_with_high_bits_set_stops_with_bad_ra",
		.arch = UW_ARCH_X86_64, .sec = &sec_basic,
		.ip = V_TXT(0, 0x10), .sp = V_STK(0x1000),
		.stack = { W(0x1018, V_SIGNED(1, 0x40)) },
		.frames = { F(V_TXT(0, 0x10), C0, REGS) },
		.stop = SFU_END_BAD_RA,
	},
	{
		.name = "topmost_cfa_below_sp_stops_with_bad_cfa",
		.sec = &sec_basic,
		.ip = V_TXT(5, 0x10), .sp = V_STK(0x1000), .fp = V_STK(0x800),
		.stack = { W(0x808, V_TXT(3, 0x40)) },
		.frames = { F(V_TXT(5, 0x10), C0, REGS) },
		.stop = SFU_END_BAD_CFA,
	},
	{
		.name = "misaligned_cfa_stops_with_bad_cfa",
		.sec = &sec_basic,
		.ip = V_TXT(8, 0x10), .sp = V_STK(0x1000),
		.frames = { F(V_TXT(8, 0x10), C0, REGS) },
		.stop = SFU_END_BAD_CFA,
	},
	{
		.name = "cfa_not_above_the_previous_one_stops_the_walk",
		.sec = &sec_basic,
		.ip = V_TXT(0, 0x10), .sp = V_STK(0x1000),
		.stack = { W(0x1018, V_TXT(7, 0x40)), W(0x1010, V_TXT(3, 0x40)) },
		.frames = {
			F(V_TXT(0, 0x10), V_STK(0x1020), REGS),
			F(V_TXT(7, 0x40), C0, SFRAME),
		},
		.stop = SFU_END_CFA_NOT_INCREASING,
	},
	{
		.name = "frame_pointer_cycle_stops_instead_of_looping",
		.sec = &sec_basic,
		.ip = V_TXT(12, 0x10), .sp = V_STK(0x1000), .fp = V_STK(0x1100),
		.stack = { W(0x1100, V_STK(0x1100)), W(0x1108, V_TXT(12, 0x40)) },
		/* The caller the record names leads nowhere: it is not kept. */
		.frames = { F(V_TXT(12, 0x10), V_FPCFA(0x1110), REGS) },
		.stop = SFU_END_FP_UNCONFIRMED,
	},
	{
		.name = "zero_return_address_stops_with_bad_ra",
		.sec = &sec_basic,
		.ip = V_TXT(0, 0x10), .sp = V_STK(0x1000),
		.stack = { W(0x1018, V_ABS(0)) },
		.frames = { F(V_TXT(0, 0x10), C0, REGS) },
		.stop = SFU_END_BAD_RA,
	},
	{
		.name = "kernel_return_address_stops_with_bad_ra",
		.sec = &sec_basic,
		.ip = V_TXT(0, 0x10), .sp = V_STK(0x1000),
		.stack = { W(0x1018, V_ABS(0xffffffff81000000ULL)) },
		.frames = { F(V_TXT(0, 0x10), C0, REGS) },
		.stop = SFU_END_BAD_RA,
	},
	{
		.name = "return_address_in_unmapped_memory_stops_with_fault",
		.sec = &sec_basic,
		.ip = V_TXT(0, 0x10), .sp = V_STK(UW_STACK_SIZE - 0x10),
		.frames = { F(V_TXT(0, 0x10), C0, REGS) },
		.stop = SFU_END_FAULT,
	},
	{
		.name = "nofault_read_of_a_page_not_yet_present_stops_with_fault",
		.sec = &sec_basic, .flags = SFU_UNWIND_NOFAULT, .one_mode = true,
		.ip = V_TXT(9, 0x10), .sp = V_STK(0x1000),
		.frames = { F(V_TXT(9, 0x10), C0, REGS) },
		.stop = SFU_END_FAULT,
	},
	{
		.name = "faultable_read_of_a_page_not_yet_present_reads_it",
		.sec = &sec_basic, .one_mode = true,
		.ip = V_TXT(9, 0x10), .sp = V_STK(0x1000),
		.frames = { F(V_TXT(9, 0x10), C0, REGS) },
		.stop = SFU_END_BAD_RA,
	},
	{
		/* The caller cannot fault: the walk is no-fault whatever it asked. */
		.name = "faultable_walk_with_preemption_disabled_reads_without_faulting",
		.sec = &sec_basic, .one_mode = true, .caller = UW_CALLER_PREEMPT_OFF,
		.ip = V_TXT(9, 0x10), .sp = V_STK(0x1000),
		.frames = { F(V_TXT(9, 0x10), C0, REGS) },
		.stop = SFU_END_FAULT,
	},
	{
		.name = "faultable_walk_with_page_faults_disabled_reads_without_faulting",
		.sec = &sec_basic, .one_mode = true, .caller = UW_CALLER_PAGEFAULT_OFF,
		.ip = V_TXT(9, 0x10), .sp = V_STK(0x1000),
		.frames = { F(V_TXT(9, 0x10), C0, REGS) },
		.stop = SFU_END_FAULT,
	},
	{
		.name = "depth_limit_cuts_a_longer_chain",
		.sec = &sec_basic, .max = 4,
		.ip = V_TXT(6, 0x10), .sp = V_STK(0x1000),
		.stack = {
			W(0x1008, V_TXT(6, 0x40)), W(0x1018, V_TXT(6, 0x40)),
			W(0x1028, V_TXT(6, 0x40)), W(0x1038, V_TXT(6, 0x40)),
			W(0x1048, V_TXT(3, 0x40)),
		},
		.frames = {
			F(V_TXT(6, 0x10), V_STK(0x1010), REGS),
			F(V_TXT(6, 0x40), V_STK(0x1020), SFRAME),
			F(V_TXT(6, 0x40), V_STK(0x1030), SFRAME),
			F(V_TXT(6, 0x40), V_STK(0x1040), SFRAME),
		},
		.stop = SFU_END_DEPTH,
	},
	{
		.name = "function_without_fde_falls_back_to_the_frame_pointer_chain",
		.sec = &sec_basic,
		.ip = V_TXT(12, 0x10), .sp = V_STK(0x1000), .fp = V_STK(0x1100),
		.stack = {
			W(0x1100, V_STK(0x1200)), W(0x1108, V_TXT(12, 0x40)),
			W(0x1200, V_STK(0x1300)), W(0x1208, V_TXT(13, 0x40)),
			W(0x1300, V_ABS(0)), W(0x1308, V_TXT(14, 0x40)),
		},
		.frames = {
			F(V_TXT(12, 0x10), V_FPCFA(0x1110), REGS),
			F(V_TXT(12, 0x40), V_FPCFA(0x1210), FP),
			F(V_TXT(13, 0x40), V_FPCFA(0x1310), FP),
			F(V_TXT(14, 0x40), C0, FP),
		},
		.stop = SFU_END_FP_END,
	},
	{
		.name = "missing_section_falls_back_to_the_frame_pointer_chain",
		.ip = V_TXT(0, 0x10), .sp = V_STK(0x1000), .fp = V_STK(0x1100),
		.stack = {
			W(0x1100, V_STK(0x1200)), W(0x1108, V_TXT(1, 0x40)),
			W(0x1200, V_ABS(0)), W(0x1208, V_TXT(2, 0x40)),
		},
		.frames = {
			F(V_TXT(0, 0x10), V_FPCFA(0x1110), REGS),
			F(V_TXT(1, 0x40), V_FPCFA(0x1210), FP),
			F(V_TXT(2, 0x40), C0, FP),
		},
		.stop = SFU_END_FP_END,
	},
	{
		.name = "missing_section_without_fp_fallback_stops_with_no_info",
		.flags = SFU_UNWIND_NO_FP,
		.ip = V_TXT(0, 0x10), .sp = V_STK(0x1000), .fp = V_STK(0x1100),
		.stack = { W(0x1100, V_ABS(0)), W(0x1108, V_TXT(1, 0x40)) },
		.frames = { F(V_TXT(0, 0x10), C0, REGS) },
		.stop = SFU_END_NO_INFO,
	},
	{
		.name = "missing_section_and_fp_into_unmapped_memory_stops_with_fault",
		.ip = V_TXT(0, 0x10), .sp = V_STK(0x1000), .fp = V_HOLE(0x100),
		.frames = { F(V_TXT(0, 0x10), C0, REGS) },
		.stop = SFU_END_FAULT,
	},
	{
		.name = "sframe_and_frame_pointer_frames_interleave",
		.sec = &sec_basic,
		.ip = V_TXT(0, 0x10), .sp = V_STK(0x1000), .fp = V_ABS(0),
		.stack = {
			W(0x1018, V_TXT(12, 0x40)), W(0x1010, V_STK(0x1100)),
			W(0x1108, V_TXT(5, 0x40)), W(0x1100, V_STK(0x1200)),
			W(0x1208, V_TXT(3, 0x40)), W(0x1200, V_ABS(0)),
		},
		.frames = {
			F(V_TXT(0, 0x10), V_STK(0x1020), REGS),
			F(V_TXT(12, 0x40), V_FPCFA(0x1110), SFRAME),
			F(V_TXT(5, 0x40), V_STK(0x1210), FP),
			F(V_TXT(3, 0x40), C0, SFRAME),
		},
		.stop = SFU_END_OUTERMOST,
	},
	{
		.name = "no_sframe_flag_walks_frame_pointers_only",
		.sec = &sec_basic, .flags = SFU_UNWIND_NO_SFRAME,
		.ip = V_TXT(0, 0x10), .sp = V_STK(0x1000), .fp = V_STK(0x1100),
		.stack = {
			W(0x1108, V_TXT(5, 0x40)), W(0x1100, V_STK(0x1200)),
			W(0x1208, V_TXT(3, 0x40)), W(0x1200, V_ABS(0)),
		},
		.frames = {
			F(V_TXT(0, 0x10), V_FPCFA(0x1110), REGS),
			F(V_TXT(5, 0x40), V_FPCFA(0x1210), FP),
			F(V_TXT(3, 0x40), C0, FP),
		},
		.stop = SFU_END_FP_END,
	},
	{
		/* The kernel's frame at the trampoline's SP holds no saved PC. */
		.name = "signal_frame_without_a_saved_pc_stops_with_bad_ra",
		.sec = &sec_v3,
		.ip = V_TXT(0, 0x10), .sp = V_STK(0x1000),
		.stack = { W(0x1018, V_TXT(4, 0x40)) },
		.frames = {
			F(V_TXT(0, 0x10), V_STK(0x1020), REGS),
			F(V_TXT(4, 0x40), C0, SFRAME),
		},
		.stop = SFU_END_BAD_RA,
	},
	{
		/*
		 * f0 returns into the trampoline f4, below which the kernel
		 * saved the registers of f1, interrupted at 0x10 on another
		 * stack (sigaltstack: lower addresses); f1 is then unwound
		 * from its exact PC, and returns to the outermost f3.
		 */
		.name = "signal_frame_resumes_in_the_interrupted_code",
		.sec = &sec_sig,
		.ip = V_TXT(0, 0x10), .sp = V_STK(0x4000),
		.stack = {
			W(0x4018, V_TXT(4, 0x40)),
			W(0x4020 + UW_SIG_IP, V_TXT(1, 0x10)),
			W(0x4020 + UW_SIG_SP, V_STK(0x1000)),
			W(0x4020 + UW_SIG_FP, V_STK(0x1100)),
			W(0x1028, V_TXT(3, 0x40)),
		},
		.frames = {
			F(V_TXT(0, 0x10), V_STK(0x4020), REGS),
			F(V_TXT(4, 0x40), C0, SFRAME),
			F(V_TXT(1, 0x10), V_STK(0x1030), SIGNAL),
			F(V_TXT(3, 0x40), C0, SFRAME),
		},
		.stop = SFU_END_OUTERMOST,
	},
	{
		/*
		 * The signal interrupted the first instruction of f1: the
		 * return address is still at SP (x86_64), the CFA SP + 8,
		 * as for the topmost frame.
		 */
		.name = "signal_frame_at_a_function_entry_finds_the_return_address",
		.arch = UW_ARCH_X86_64,
		.sec = &sec_sig,
		.ip = V_TXT(0, 0x10), .sp = V_STK(0x4000),
		.stack = {
			W(0x4018, V_TXT(4, 0x40)),
			W(0x4020 + UW_SIG_IP, V_TXT(1, 0)),
			W(0x4020 + UW_SIG_SP, V_STK(0x1000)),
			W(0x1000, V_TXT(3, 0x40)),
		},
		.frames = {
			F(V_TXT(0, 0x10), V_STK(0x4020), REGS),
			F(V_TXT(4, 0x40), C0, SFRAME),
			F(V_TXT(1, 0), V_STK(0x1008), SIGNAL),
			F(V_TXT(3, 0x40), C0, SFRAME),
		},
		.stop = SFU_END_OUTERMOST,
	},
	{
		/*
		 * The signal interrupted f10, whose return address is still
		 * in x30: it comes from the saved registers, as the topmost
		 * frame's comes from pt_regs.
		 */
		.name = "signal_frame_in_a_leaf_takes_the_saved_link_register",
		.arch = UW_ARCH_ARM64,
		.sec = &sec_sig,
		.ip = V_TXT(0, 0x10), .sp = V_STK(0x4000),
		.stack = {
			W(0x4018, V_TXT(4, 0x40)),
			W(0x4020 + UW_SIG_IP, V_TXT(10, 0x8)),
			W(0x4020 + UW_SIG_SP, V_STK(0x1000)),
			W(0x4020 + UW_SIG_LR, V_TXT(3, 0x40)),
		},
		.frames = {
			F(V_TXT(0, 0x10), V_STK(0x4020), REGS),
			F(V_TXT(4, 0x40), C0, SFRAME),
			F(V_TXT(10, 0x8), V_STK(0x1000), SIGNAL),
			F(V_TXT(3, 0x40), C0, SFRAME),
		},
		.stop = SFU_END_OUTERMOST,
	},
	{
		/*
		 * As above, but the trampoline f12 has no rows at all (the
		 * arm64 vDSO has no CFI; a static program without its
		 * sidecar): its code, rt_sigreturn's system call, says it
		 * is one.
		 */
		.name = "x86_signal_trampoline_without_rows_is_known_by_its_code",
		.arch = UW_ARCH_X86_64,
		.sec = &sec_sig,
		.ip = V_TXT(0, 0x10), .sp = V_STK(0x4000),
		/* mov $15, %rax; syscall */
		.text = { .at = V_TXT(12, 0), .len = 9, .bytes = {
			0x48, 0xc7, 0xc0, 0x0f, 0x00, 0x00, 0x00, 0x0f, 0x05 } },
		.stack = {
			W(0x4018, V_TXT(12, 0)),
			W(0x4020 + UW_SIG_IP, V_TXT(1, 0x10)),
			W(0x4020 + UW_SIG_SP, V_STK(0x1000)),
			W(0x4020 + UW_SIG_FP, V_STK(0x1100)),
			W(0x1028, V_TXT(3, 0x40)),
		},
		.frames = {
			F(V_TXT(0, 0x10), V_STK(0x4020), REGS),
			F(V_TXT(12, 0), C0, SFRAME),
			F(V_TXT(1, 0x10), V_STK(0x1030), SIGNAL),
			F(V_TXT(3, 0x40), C0, SFRAME),
		},
		.stop = SFU_END_OUTERMOST,
	},
	{
		.name = "arm64_signal_trampoline_without_rows_is_known_by_its_code",
		.arch = UW_ARCH_ARM64,
		.sec = &sec_sig,
		.ip = V_TXT(0, 0x10), .sp = V_STK(0x4000),
		/* mov x8, #139; svc #0 */
		.text = { .at = V_TXT(12, 0), .len = 8, .bytes = {
			0x68, 0x11, 0x80, 0xd2, 0x01, 0x00, 0x00, 0xd4 } },
		.stack = {
			W(0x4018, V_TXT(12, 0)),
			W(0x4020 + UW_SIG_IP, V_TXT(1, 0x10)),
			W(0x4020 + UW_SIG_SP, V_STK(0x1000)),
			W(0x4020 + UW_SIG_FP, V_STK(0x1100)),
			W(0x1028, V_TXT(3, 0x40)),
		},
		.frames = {
			F(V_TXT(0, 0x10), V_STK(0x4020), REGS),
			F(V_TXT(12, 0), C0, SFRAME),
			F(V_TXT(1, 0x10), V_STK(0x1030), SIGNAL),
			F(V_TXT(3, 0x40), C0, SFRAME),
		},
		.stop = SFU_END_OUTERMOST,
	},
	{
		.name = "flex_cfa_loaded_through_the_frame_pointer",
		.sec = &sec_flex,
		.ip = V_TXT(0, 0x10), .sp = V_STK(0x1000), .fp = V_STK(0x1200),
		.stack = {
			W(0x11f8, V_STK(0x1300)), W(0x12f8, V_TXT(8, 0x40)),
			W(0x12f0, V_ABS(0)),
		},
		.frames = {
			F(V_TXT(0, 0x10), V_STK(0x1300), REGS),
			F(V_TXT(8, 0x40), C0, SFRAME),
		},
		.stop = SFU_END_OUTERMOST,
	},
	{
		/* The SP the function saved, plus the RA's slot: the caller's SP. */
		.name = "flex_cfa_loaded_then_the_addend_added",
		.sec = &sec_flex,
		.ip = V_TXT(9, 0x10), .sp = V_STK(0x1000),
		.stack = { W(0x1010, V_STK(0x1ff8)), W(0x1ff8, V_TXT(8, 0x40)) },
		.frames = {
			F(V_TXT(9, 0x10), V_STK(0x2000), REGS),
			F(V_TXT(8, 0x40), C0, SFRAME),
		},
		.stop = SFU_END_OUTERMOST,
	},
	{
		/*
		 * ld.so's _dl_runtime_resolve_* (f1, CFA = rbx + 24) below
		 * _dl_fixup (f0), which pushed rbx: its row says where.
		 */
		.name = "cfa_on_rbx_below_the_top_from_where_the_callee_saved_rbx",
		.arch = UW_ARCH_X86_64,
		.sec = &sec_saved,
		.ip = V_TXT(0, 0x10), .sp = V_STK(0x1000), .tracked = V_ABS(0x5a5a),
		.stack = {
			W(0x1000, V_STK(0x1100)), W(0x1008, V_TXT(1, 0x40)),
			W(0x1110, V_TXT(2, 0x40)), W(0x1130, V_TXT(3, 0x40)),
		},
		.frames = {
			F(V_TXT(0, 0x10), V_STK(0x1010), REGS),
			F(V_TXT(1, 0x40), V_STK(0x1118), SFRAME),
			F(V_TXT(2, 0x40), V_STK(0x1138), SFRAME),
			F(V_TXT(3, 0x40), C0, SFRAME),
		},
		.stop = SFU_END_OUTERMOST,
	},
	{
		.name = "cfa_on_rbx_below_the_top_without_saved_registers_is_a_bad_rule",
		.arch = UW_ARCH_X86_64,
		.sec = &sec_saved_unflagged,
		.ip = V_TXT(0, 0x10), .sp = V_STK(0x1000), .tracked = V_ABS(0x5a5a),
		.stack = {
			W(0x1000, V_STK(0x1100)), W(0x1008, V_TXT(1, 0x40)),
			W(0x1110, V_TXT(2, 0x40)), W(0x1130, V_TXT(3, 0x40)),
		},
		.frames = {
			F(V_TXT(0, 0x10), V_STK(0x1010), REGS),
			F(V_TXT(1, 0x40), C0, SFRAME),
		},
		.stop = SFU_END_BAD_RULE,
	},
	{
		/* f5's row lists no save: rbx is still the topmost frame's. */
		.name = "rbx_a_frame_does_not_save_keeps_the_value_of_the_registers",
		.arch = UW_ARCH_X86_64,
		.sec = &sec_saved,
		.ip = V_TXT(5, 0x10), .sp = V_STK(0x1000), .tracked = V_STK(0x1100),
		.stack = {
			W(0x1008, V_TXT(1, 0x40)), W(0x1110, V_TXT(2, 0x40)),
			W(0x1130, V_TXT(3, 0x40)),
		},
		.frames = {
			F(V_TXT(5, 0x10), V_STK(0x1010), REGS),
			F(V_TXT(1, 0x40), V_STK(0x1118), SFRAME),
			F(V_TXT(2, 0x40), V_STK(0x1138), SFRAME),
			F(V_TXT(3, 0x40), C0, SFRAME),
		},
		.stop = SFU_END_OUTERMOST,
	},
	{
		.name = "rbx_saved_where_sframe_cannot_say_is_lost_to_the_caller",
		.arch = UW_ARCH_X86_64,
		.sec = &sec_saved,
		.ip = V_TXT(4, 0x10), .sp = V_STK(0x1000), .tracked = V_STK(0x1100),
		.stack = {
			W(0x1000, V_STK(0x1100)), W(0x1008, V_TXT(1, 0x40)),
			W(0x1110, V_TXT(2, 0x40)),
		},
		.frames = {
			F(V_TXT(4, 0x10), V_STK(0x1010), REGS),
			F(V_TXT(1, 0x40), C0, SFRAME),
		},
		.stop = SFU_END_BAD_RULE,
	},
	{
		/*
		 * Frame pointers say nothing of rbx: unknown above them, so the
		 * step out of the caller fails (bad_rule), and that caller,
		 * which only frame pointers found, is not kept either.
		 */
		.name = "rbx_is_unknown_after_a_frame_pointer_step",
		.arch = UW_ARCH_X86_64,
		.sec = &sec_saved,
		.ip = V_TXT(12, 0x10), .sp = V_STK(0x0f00), .fp = V_STK(0x1000),
		.tracked = V_STK(0x1100),
		.stack = {
			W(0x1000, V_STK(0x1200)), W(0x1008, V_TXT(1, 0x40)),
			W(0x1110, V_TXT(2, 0x40)),
		},
		.frames = { F(V_TXT(12, 0x10), V_STK(0x1010), REGS) },
		.stop = SFU_END_FP_UNCONFIRMED,
	},
	{
		.name = "flex_cfa_from_another_register_in_the_topmost_frame",
		.sec = &sec_flex,
		.ip = V_TXT(1, 0x10), .sp = V_STK(0x1000), .scratch = V_STK(0x1400),
		.stack = { W(0x13f8, V_TXT(7, 0x40)), W(0x1408, V_TXT(8, 0x40)) },
		.frames = {
			F(V_TXT(1, 0x10), V_STK(0x1400), REGS),
			F(V_TXT(7, 0x40), V_STK(0x1410), SFRAME),
			F(V_TXT(8, 0x40), C0, SFRAME),
		},
		.stop = SFU_END_OUTERMOST,
	},
	{
		.name = "flex_cfa_loaded_through_another_register",
		.sec = &sec_flex,
		.ip = V_TXT(2, 0x10), .sp = V_STK(0x1000), .scratch = V_STK(0x1500),
		.stack = { W(0x1508, V_STK(0x1600)), W(0x15f8, V_TXT(8, 0x40)) },
		.frames = {
			F(V_TXT(2, 0x10), V_STK(0x1600), REGS),
			F(V_TXT(8, 0x40), C0, SFRAME),
		},
		.stop = SFU_END_OUTERMOST,
	},
	{
		.name = "flex_ra_read_through_sp_and_fp_taken_from_a_register",
		.sec = &sec_flex,
		.ip = V_TXT(3, 0x10), .sp = V_STK(0x1000), .scratch = V_STK(0x1700),
		.stack = {
			W(0x1008, V_TXT(0, 0x40)), W(0x16f8, V_STK(0x1800)),
			W(0x17f8, V_TXT(8, 0x40)),
		},
		.frames = {
			F(V_TXT(3, 0x10), V_STK(0x1010), REGS),
			F(V_TXT(0, 0x40), V_STK(0x1800), SFRAME),
			F(V_TXT(8, 0x40), C0, SFRAME),
		},
		.stop = SFU_END_OUTERMOST,
	},
	{
		.name = "flex_ra_taken_from_a_register_in_the_topmost_frame",
		.sec = &sec_flex,
		.ip = V_TXT(4, 0x10), .sp = V_STK(0x1000), .scratch = V_TXT(7, 0x40),
		.stack = { W(0x1018, V_TXT(8, 0x40)) },
		.frames = {
			F(V_TXT(4, 0x10), V_STK(0x1010), REGS),
			F(V_TXT(7, 0x40), V_STK(0x1020), SFRAME),
			F(V_TXT(8, 0x40), C0, SFRAME),
		},
		.stop = SFU_END_OUTERMOST,
	},
	{
		.name = "flex_fp_loaded_through_a_register",
		.sec = &sec_flex,
		.ip = V_TXT(5, 0x10), .sp = V_STK(0x1000), .scratch = V_STK(0x1900),
		.stack = {
			W(0x1008, V_TXT(0, 0x40)), W(0x1900, V_STK(0x1a00)),
			W(0x19f8, V_STK(0x1b00)), W(0x1af8, V_TXT(8, 0x40)),
		},
		.frames = {
			F(V_TXT(5, 0x10), V_STK(0x1010), REGS),
			F(V_TXT(0, 0x40), V_STK(0x1b00), SFRAME),
			F(V_TXT(8, 0x40), C0, SFRAME),
		},
		.stop = SFU_END_OUTERMOST,
	},
	{
		.name = "flex_register_rule_in_a_deeper_frame_stops_with_bad_rule",
		.sec = &sec_flex,
		.ip = V_TXT(7, 0x10), .sp = V_STK(0x1000), .scratch = V_STK(0x1400),
		.stack = { W(0x1008, V_TXT(1, 0x40)), W(0x13f8, V_TXT(8, 0x40)) },
		.frames = {
			F(V_TXT(7, 0x10), V_STK(0x1010), REGS),
			F(V_TXT(1, 0x40), C0, SFRAME),
		},
		.stop = SFU_END_BAD_RULE,
	},
	{
		.name = "flex_rule_on_a_register_pt_regs_lacks_stops_with_bad_rule",
		.sec = &sec_flex,
		.ip = V_TXT(6, 0x10), .sp = V_STK(0x1000),
		.frames = { F(V_TXT(6, 0x10), C0, REGS) },
		.stop = SFU_END_BAD_RULE,
	},
	{
		.name = "x86_fp_fallback_at_push_rbp_finds_the_return_address_at_sp",
		.arch = UW_ARCH_X86_64,
		.ip = V_TXT(12, 0), .sp = V_STK(0x1000), .fp = V_STK(0x1100),
		.text = { .at = V_TXT(12, 0), .len = 1, .bytes = { 0x55 } },
		.stack = {
			W(0x1000, V_TXT(13, 0x40)),
			W(0x1100, V_ABS(0)), W(0x1108, V_TXT(14, 0x40)),
		},
		.frames = {
			F(V_TXT(12, 0), V_STK(0x1008), REGS),
			F(V_TXT(13, 0x40), V_STK(0x1110), FP),
			F(V_TXT(14, 0x40), C0, FP),
		},
		.stop = SFU_END_FP_END,
	},
	{
		.name = "x86_fp_fallback_at_endbr64_finds_the_return_address_at_sp",
		.arch = UW_ARCH_X86_64,
		.ip = V_TXT(12, 0), .sp = V_STK(0x1000), .fp = V_STK(0x1100),
		.text = { .at = V_TXT(12, 0), .len = 5, .bytes = { 0xf3, 0x0f, 0x1e, 0xfa, 0x55 } },
		.stack = {
			W(0x1000, V_TXT(13, 0x40)),
			W(0x1100, V_ABS(0)), W(0x1108, V_TXT(14, 0x40)),
		},
		.frames = {
			F(V_TXT(12, 0), V_STK(0x1008), REGS),
			F(V_TXT(13, 0x40), V_STK(0x1110), FP),
			F(V_TXT(14, 0x40), C0, FP),
		},
		.stop = SFU_END_FP_END,
	},
	{
		.name = "x86_fp_fallback_after_push_rbp_finds_both_on_the_stack",
		.arch = UW_ARCH_X86_64,
		.ip = V_TXT(12, 1), .sp = V_STK(0xff8), .fp = V_ABS(1),
		.text = { .at = V_TXT(12, 1), .len = 3, .bytes = { 0x48, 0x89, 0xe5 } },
		.stack = {
			W(0xff8, V_STK(0x1100)), W(0x1000, V_TXT(13, 0x40)),
			W(0x1100, V_ABS(0)), W(0x1108, V_TXT(14, 0x40)),
		},
		.frames = {
			F(V_TXT(12, 1), V_STK(0x1008), REGS),
			F(V_TXT(13, 0x40), V_STK(0x1110), FP),
			F(V_TXT(14, 0x40), C0, FP),
		},
		.stop = SFU_END_FP_END,
	},
	{
		.name = "arm64_fp_fallback_at_paciasp_takes_the_link_register",
		.arch = UW_ARCH_ARM64,
		.ip = V_TXT(12, 0), .sp = V_STK(0x1000), .fp = V_STK(0x1100),
		.lr = V_SIGNED(13, 0x40),
		.text = { .at = V_TXT(12, 0), .len = 4, .bytes = { 0x3f, 0x23, 0x03, 0xd5 } },
		.stack = { W(0x1100, V_ABS(0)), W(0x1108, V_TXT(14, 0x40)) },
		.frames = {
			F(V_TXT(12, 0), V_STK(0x1000), REGS),
			F(V_TXT(13, 0x40), C0, FP),
			F(V_TXT(14, 0x40), C0, FP),
		},
		.stop = SFU_END_FP_END,
	},
	{
		.name = "arm64_fp_fallback_looks_past_instructions_scheduled_before_the_prologue",
		.arch = UW_ARCH_ARM64,
		.ip = V_TXT(12, 0), .sp = V_STK(0x1000), .fp = V_STK(0x1100),
		.lr = V_TXT(13, 0x40),
		/* adrp x7, .; add x3, x7, #0xd0; stp x29, x30, [sp, #-16]! */
		.text = { .at = V_TXT(12, 0), .len = 12, .bytes = {
			0x87, 0x04, 0x00, 0x90, 0xe3, 0x40, 0x03, 0x91,
			0xfd, 0x7b, 0xbf, 0xa9 } },
		.stack = { W(0x1100, V_ABS(0)), W(0x1108, V_TXT(14, 0x40)) },
		.frames = {
			F(V_TXT(12, 0), V_STK(0x1000), REGS),
			F(V_TXT(13, 0x40), C0, FP),
			F(V_TXT(14, 0x40), C0, FP),
		},
		.stop = SFU_END_FP_END,
	},
	{
		/*
		 * A PLT entry (or a static program's IFUNC stub), which no
		 * CFI describes: it ends in a branch, but leaves x30 alone.
		 */
		.name = "arm64_fp_fallback_in_a_plt_entry_takes_the_link_register",
		.arch = UW_ARCH_ARM64,
		.ip = V_TXT(12, 8), .sp = V_STK(0x1000), .fp = V_STK(0x1100),
		.lr = V_TXT(13, 0x40),
		/* adrp x16, .; ldr x17, [x16, #8]; add x16, x16, #8; br x17 */
		.text = { .at = V_TXT(12, 0), .len = 16, .bytes = {
			0x10, 0x00, 0x00, 0x90, 0x11, 0x06, 0x40, 0xf9,
			0x10, 0x22, 0x00, 0x91, 0x20, 0x02, 0x1f, 0xd6 } },
		.stack = { W(0x1100, V_ABS(0)), W(0x1108, V_TXT(14, 0x40)) },
		.frames = {
			F(V_TXT(12, 8), V_STK(0x1000), REGS),
			F(V_TXT(13, 0x40), C0, FP),
			F(V_TXT(14, 0x40), C0, FP),
		},
		.stop = SFU_END_FP_END,
	},
	{
		.name = "arm64_fp_fallback_stops_looking_at_a_branch",
		.arch = UW_ARCH_ARM64,
		.ip = V_TXT(12, 0), .sp = V_STK(0x1000), .fp = V_STK(0x1100),
		.lr = V_TXT(13, 0x40),
		/* b .+8; stp x29, x30, [sp, #-16]! : the stp is not this frame's */
		.text = { .at = V_TXT(12, 0), .len = 8, .bytes = {
			0x02, 0x00, 0x00, 0x14, 0xfd, 0x7b, 0xbf, 0xa9 } },
		.stack = { W(0x1100, V_ABS(0)), W(0x1108, V_TXT(14, 0x40)) },
		.frames = {
			F(V_TXT(12, 0), C0, REGS),
			F(V_TXT(14, 0x40), C0, FP),
		},
		.stop = SFU_END_FP_END,
	},
	{
		/*
		 * A leaf body without CFI (the vDSO's clock_gettime): a ret
		 * ahead when a conditional branch is not taken,
		 * with nothing in between that touches SP, x29 or x30.
		 */
		.name = "arm64_fp_fallback_in_a_leaf_body_takes_the_link_register",
		.arch = UW_ARCH_ARM64,
		.ip = V_TXT(12, 0), .sp = V_STK(0x1000), .fp = V_STK(0x1100),
		.lr = V_TXT(13, 0x40),
		/* sub x0, x2, x11; b.ls .+8; mov w0, #0; ret */
		.text = { .at = V_TXT(12, 0), .len = 16, .bytes = {
			0x40, 0x00, 0x0b, 0xcb, 0x49, 0x00, 0x00, 0x54,
			0x00, 0x00, 0x80, 0x52, 0xc0, 0x03, 0x5f, 0xd6 } },
		.stack = { W(0x1100, V_ABS(0)), W(0x1108, V_TXT(14, 0x40)) },
		.frames = {
			F(V_TXT(12, 0), V_STK(0x1000), REGS),
			F(V_TXT(13, 0x40), C0, FP),
			F(V_TXT(14, 0x40), C0, FP),
		},
		.stop = SFU_END_FP_END,
	},
	{
		/*
		 * Register 31 as the zero register (mov w5, w5 is orr with
		 * wzr; cmp writes wzr) and a barrier: none of them touches
		 * the frame.
		 */
		.name = "arm64_fp_fallback_reads_register_31_as_the_zero_register",
		.arch = UW_ARCH_ARM64,
		.ip = V_TXT(12, 0), .sp = V_STK(0x1000), .fp = V_STK(0x1100),
		.lr = V_TXT(13, 0x40),
		/* isb; mov w5, w5; cmp w0, #0xf; ret */
		.text = { .at = V_TXT(12, 0), .len = 16, .bytes = {
			0xdf, 0x3f, 0x03, 0xd5, 0xe5, 0x03, 0x05, 0x2a,
			0x1f, 0x3c, 0x00, 0x71, 0xc0, 0x03, 0x5f, 0xd6 } },
		.stack = { W(0x1100, V_ABS(0)), W(0x1108, V_TXT(14, 0x40)) },
		.frames = {
			F(V_TXT(12, 0), V_STK(0x1000), REGS),
			F(V_TXT(13, 0x40), C0, FP),
			F(V_TXT(14, 0x40), C0, FP),
		},
		.stop = SFU_END_FP_END,
	},
	{
		/* add sp, sp, #16; ret: register 31 is SP there. */
		.name = "arm64_fp_fallback_stops_looking_at_a_write_of_sp",
		.arch = UW_ARCH_ARM64,
		.ip = V_TXT(12, 0), .sp = V_STK(0x1000), .fp = V_STK(0x1100),
		.lr = V_TXT(13, 0x40),
		.text = { .at = V_TXT(12, 0), .len = 8, .bytes = {
			0xff, 0x43, 0x00, 0x91, 0xc0, 0x03, 0x5f, 0xd6 } },
		.stack = { W(0x1100, V_ABS(0)), W(0x1108, V_TXT(14, 0x40)) },
		.frames = {
			F(V_TXT(12, 0), C0, REGS),
			F(V_TXT(14, 0x40), C0, FP),
		},
		.stop = SFU_END_FP_END,
	},
	{
		/* ldp x0, x30, [x1]; ret: x30 is reloaded before the ret. */
		.name = "arm64_fp_fallback_stops_looking_at_a_load_of_x30",
		.arch = UW_ARCH_ARM64,
		.ip = V_TXT(12, 0), .sp = V_STK(0x1000), .fp = V_STK(0x1100),
		.lr = V_TXT(13, 0x40),
		.text = { .at = V_TXT(12, 0), .len = 8, .bytes = {
			0x20, 0x78, 0x40, 0xa9, 0xc0, 0x03, 0x5f, 0xd6 } },
		.stack = { W(0x1100, V_ABS(0)), W(0x1108, V_TXT(14, 0x40)) },
		.frames = {
			F(V_TXT(12, 0), C0, REGS),
			F(V_TXT(14, 0x40), C0, FP),
		},
		.stop = SFU_END_FP_END,
	},
	{
		.name = "arm64_fp_fallback_at_mov_x29_sp_reads_the_record_at_sp",
		.arch = UW_ARCH_ARM64,
		.ip = V_TXT(12, 4), .sp = V_STK(0x1000), .fp = V_ABS(8),
		.text = { .at = V_TXT(12, 4), .len = 4, .bytes = { 0xfd, 0x03, 0x00, 0x91 } },
		.stack = {
			W(0x1000, V_STK(0x1100)), W(0x1008, V_TXT(13, 0x40)),
			W(0x1100, V_ABS(0)), W(0x1108, V_TXT(14, 0x40)),
		},
		.frames = {
			F(V_TXT(12, 4), C0, REGS),
			F(V_TXT(13, 0x40), C0, FP),
			F(V_TXT(14, 0x40), C0, FP),
		},
		.stop = SFU_END_FP_END,
	},
	/*
	 * A return address the frame-pointer fallback finds must be in
	 * executable user text, right after a call instruction (or at a
	 * signal trampoline).  Every function of the text has a call ending
	 * at its + 0x40 (uw_map_all()); these cases place code ending at
	 * f1 + 0x80, the return address of the topmost frame's record.
	 */
	/* call f0: f1 + 0x80 - 0x180, the function of the frame left. */
	UW_FP_CALL("x86_fp_return_address_after_call_rel32_is_taken", UW_ARCH_X86_64,
		   0xe8, 0x80, 0xfe, 0xff, 0xff),
	/*
	 * call f2 + 0x80: not where the frame left (f0 + 0x10) can be, and
	 * the record's frame pointer is 0: the register may have pointed
	 * into the frame's own locals, at a stale word.
	 */
	UW_FP_OTHER_CALLEE("x86_fp_direct_call_elsewhere_stops_with_ra_other_callee",
			   UW_ARCH_X86_64, 0xe8, 0x00, 0x01, 0x00, 0x00),
	{
		/*
		 * The same with a record whose frame pointer leads on up the
		 * stack, and no return address below it: no frame was
		 * skipped, the function called tail-called f0 (x86_64, where
		 * calls push it).
		 */
		.name = "x86_fp_direct_call_elsewhere_with_nothing_below_is_a_tail_call",
		UW_FP_TAIL_CALL_CASE,
		.frames = {
			F(V_TXT(0, 0x10), V_FPCFA(0x1110), REGS),
			F(V_TXT(1, 0x80), V_FPCFA(0x1210), FP),
			F(V_TXT(3, 0x40), C0, FP),
		},
		.stop = SFU_END_FP_END,
	},
	{
		/*
		 * The same where the file's table shows where f0 starts, and
		 * f0 sets up no record there (code built without frame
		 * pointers): the record is not f0's, but words the register
		 * points at, left by calls since returned.
		 */
		.name = "x86_fp_tail_call_into_a_function_without_a_record_stops",
		UW_FP_TAIL_CALL_CASE,
		.fn_table = true,
		.frames = { F(V_TXT(0, 0x10), C0, REGS) },
		.stop = SFU_END_RA_OTHER_CALLEE,
	},
	{
		/* And where f0 does (push %rbp; mov %rsp,%rbp): the tail call. */
		.name = "x86_fp_tail_call_into_a_function_that_sets_up_its_record_is_taken",
		UW_FP_TAIL_CALL_CASE,
		.fn_table = true,
		.stub = { .at = V_TXT(0, 0), .len = 4, .bytes = { 0x55, 0x48, 0x89, 0xe5 } },
		.frames = {
			F(V_TXT(0, 0x10), V_FPCFA(0x1110), REGS),
			F(V_TXT(1, 0x80), V_FPCFA(0x1210), FP),
			F(V_TXT(3, 0x40), C0, FP),
		},
		.stop = SFU_END_FP_END,
	},
	{
		/*
		 * f0 sets up no record (code built without frame pointers): the
		 * register is no record of its own, and the frame it leads to,
		 * whose step out fails, is dropped.
		 */
		.name = "x86_fp_frame_of_a_record_its_code_did_not_set_up_is_dropped",
		UW_FP_LEFT_FRAME_CASE,
		.frames = { F(V_TXT(0, 0x10), V_FPCFA(0x1110), REGS) },
		.stop = SFU_END_FP_UNCONFIRMED,
	},
	{
		/*
		 * f0 does (push %rbp; mov %rsp,%rbp) before the IP: the record is
		 * f0's own, and the frame it leads to is kept though the step out
		 * of it fails (main()'s record into __libc_start_call_main()).
		 */
		.name = "x86_fp_frame_of_a_record_its_code_set_up_is_kept",
		UW_FP_LEFT_FRAME_CASE,
		.stub = { .at = V_TXT(0, 0), .len = 4, .bytes = { 0x55, 0x48, 0x89, 0xe5 } },
		.frames = {
			F(V_TXT(0, 0x10), V_FPCFA(0x1110), REGS),
			F(V_TXT(1, 0x40), C0, FP),
		},
		.stop = SFU_END_CFA_NOT_INCREASING,
	},
	{
		/*
		 * The same right after f0's "pop %rbp": the record is taken down
		 * already, the register is the caller's.
		 */
		.name = "x86_fp_frame_of_a_record_taken_down_before_the_ip_is_dropped",
		UW_FP_LEFT_FRAME_CASE,
		.stub = { .at = V_TXT(0, 0), .len = 4, .bytes = { 0x55, 0x48, 0x89, 0xe5 } },
		.text = { .at = V_TXT(0, 0x0f), .len = 1, .bytes = { 0x5d } },
		.frames = { F(V_TXT(0, 0x10), V_FPCFA(0x1110), REGS) },
		.stop = SFU_END_FP_UNCONFIRMED,
	},
	UW_FP_CALL("x86_fp_return_address_after_call_through_a_register_is_taken",
		   UW_ARCH_X86_64, 0xff, 0xd0),
	UW_FP_CALL("x86_fp_return_address_after_call_through_r8_with_rex_is_taken",
		   UW_ARCH_X86_64, 0x41, 0xff, 0xd0),
	UW_FP_CALL("x86_fp_return_address_after_notrack_call_is_taken", UW_ARCH_X86_64,
		   0x3e, 0xff, 0xd0),
	UW_FP_CALL("x86_fp_return_address_after_call_through_memory_is_taken",
		   UW_ARCH_X86_64, 0xff, 0x10),
	UW_FP_CALL("x86_fp_return_address_after_call_through_disp8_is_taken", UW_ARCH_X86_64,
		   0xff, 0x53, 0x08),
	UW_FP_CALL("x86_fp_return_address_after_call_through_sib_is_taken", UW_ARCH_X86_64,
		   0xff, 0x14, 0x24),
	UW_FP_CALL("x86_fp_return_address_after_call_through_sib_disp8_is_taken",
		   UW_ARCH_X86_64, 0xff, 0x54, 0x24, 0x08),
	UW_FP_CALL("x86_fp_return_address_after_call_through_disp32_is_taken",
		   UW_ARCH_X86_64, 0xff, 0x93, 0x00, 0x01, 0x00, 0x00),
	UW_FP_CALL("x86_fp_return_address_after_call_rip_relative_is_taken", UW_ARCH_X86_64,
		   0xff, 0x15, 0x10, 0x00, 0x00, 0x00),
	UW_FP_CALL("x86_fp_return_address_after_call_through_sib_disp32_is_taken",
		   UW_ARCH_X86_64, 0xff, 0x94, 0x24, 0x00, 0x01, 0x00, 0x00),
	UW_FP_CALL("x86_fp_return_address_after_call_through_a_table_is_taken",
		   UW_ARCH_X86_64, 0xff, 0x14, 0xc5, 0x00, 0x10, 0x00, 0x00),
	UW_FP_NOT_CALL("x86_fp_return_address_after_jmp_rel32_stops", UW_ARCH_X86_64,
		       0xe9, 0x00, 0x01, 0x00, 0x00),
	UW_FP_NOT_CALL("x86_fp_return_address_after_jmp_through_a_register_stops",
		       UW_ARCH_X86_64, 0xff, 0xe0),
	UW_FP_NOT_CALL("x86_fp_return_address_after_jmp_rip_relative_stops", UW_ARCH_X86_64,
		       0xff, 0x25, 0x10, 0x00, 0x00, 0x00),
	UW_FP_NOT_CALL("x86_fp_return_address_after_a_far_call_stops", UW_ARCH_X86_64, 0xff, 0x18),
	UW_FP_NOT_CALL("x86_fp_return_address_inside_a_call_stops", UW_ARCH_X86_64,
		       0xff, 0x15, 0x10, 0x00, 0x00, 0x00, 0x90),
	UW_FP_NOT_CALL("x86_fp_return_address_after_a_call_of_another_length_stops",
		       UW_ARCH_X86_64, 0xff, 0x15, 0x10, 0x00),
	/* bl f0: f1 + 0x7c - 0x17c, the function of the frame left. */
	UW_FP_CALL("arm64_fp_return_address_after_bl_is_taken", UW_ARCH_ARM64,
		   0xa1, 0xff, 0xff, 0x97),
	/* bl f2 + 0x7c: not where the frame left (f0 + 0x10) can be. */
	UW_FP_OTHER_CALLEE("arm64_fp_bl_elsewhere_stops_with_ra_other_callee", UW_ARCH_ARM64,
			   0x40, 0x00, 0x00, 0x94),
	UW_FP_CALL("arm64_fp_return_address_after_blr_is_taken", UW_ARCH_ARM64,
		   0x20, 0x00, 0x3f, 0xd6),
	UW_FP_CALL("arm64_fp_return_address_after_blraa_is_taken", UW_ARCH_ARM64,
		   0x22, 0x08, 0x3f, 0xd7),
	UW_FP_CALL("arm64_fp_return_address_after_blraaz_is_taken", UW_ARCH_ARM64,
		   0x3f, 0x08, 0x3f, 0xd6),
	UW_FP_CALL("arm64_fp_return_address_after_blrab_is_taken", UW_ARCH_ARM64,
		   0x22, 0x0c, 0x3f, 0xd7),
	UW_FP_CALL("arm64_fp_return_address_after_blrabz_is_taken", UW_ARCH_ARM64,
		   0x3f, 0x0c, 0x3f, 0xd6),
	UW_FP_NOT_CALL("arm64_fp_return_address_after_b_stops", UW_ARCH_ARM64,
		       0x00, 0x00, 0x00, 0x14),
	UW_FP_NOT_CALL("arm64_fp_return_address_after_br_stops", UW_ARCH_ARM64,
		       0x20, 0x00, 0x1f, 0xd6),
	UW_FP_NOT_CALL("arm64_fp_return_address_after_braa_stops", UW_ARCH_ARM64,
		       0x22, 0x08, 0x1f, 0xd7),
	UW_FP_NOT_CALL("arm64_fp_return_address_after_ret_stops", UW_ARCH_ARM64,
		       0xc0, 0x03, 0x5f, 0xd6),
	UW_FP_NOT_CALL("fp_return_address_after_zeroed_text_stops", 0, 0x00),
	{
		.name = "arm64_fp_misaligned_return_address_stops_with_ra_not_call",
		.arch = UW_ARCH_ARM64,
		.ip = V_TXT(0, 0x10), .sp = V_STK(0x1000), .fp = V_STK(0x1100),
		.text = { .at = V_TXT(1, 0x80), .len = 4, .bytes = { 0x00, 0x00, 0x00, 0x94 } },
		.stack = { W(0x1100, V_ABS(0)), W(0x1108, V_TXT(1, 0x86)) },
		.frames = { F(V_TXT(0, 0x10), C0, REGS) },
		.stop = SFU_END_RA_NOT_CALL,
	},
	{
		.name = "arm64_fp_link_register_not_after_a_call_stops_with_ra_not_call",
		.arch = UW_ARCH_ARM64,
		.ip = V_TXT(12, 0), .sp = V_STK(0x1000), .fp = V_STK(0x1100),
		.lr = V_TXT(13, 0x80),
		.text = { .at = V_TXT(12, 0), .len = 4, .bytes = { 0x3f, 0x23, 0x03, 0xd5 } },
		.stack = { W(0x1100, V_ABS(0)), W(0x1108, V_TXT(14, 0x40)) },
		.frames = { F(V_TXT(12, 0), C0, REGS) },
		.stop = SFU_END_RA_NOT_CALL,
	},
	{
		.name = "fp_return_address_in_the_stack_stops_with_ra_not_text",
		.ip = V_TXT(0, 0x10), .sp = V_STK(0x1000), .fp = V_STK(0x1100),
		.stack = {
			W(0x1100, V_STK(0x1200)), W(0x1108, V_STK(0x1800)),
			W(0x1200, V_ABS(0)), W(0x1208, V_TXT(3, 0x40)),
		},
		.frames = { F(V_TXT(0, 0x10), C0, REGS) },
		.stop = SFU_END_RA_NOT_TEXT,
	},
	{
		.name = "fp_return_address_in_unmapped_memory_stops_with_ra_not_text",
		.one_mode = true,
		.ip = V_TXT(0, 0x10), .sp = V_STK(0x1000), .fp = V_STK(0x1100),
		.stack = { W(0x1100, V_ABS(0)), W(0x1108, V_HOLE(0x100)) },
		.frames = { F(V_TXT(0, 0x10), C0, REGS) },
		.stop = SFU_END_RA_NOT_TEXT,
	},
	{
		.name = "nofault_fp_return_address_in_a_page_not_present_stops_with_ra_unchecked",
		.one_mode = true, .flags = SFU_UNWIND_NOFAULT,
		.ip = V_TXT(0, 0x10), .sp = V_STK(0x1000), .fp = V_STK(0x1100),
		.stack = { W(0x1100, V_ABS(0)), W(0x1108, V_HOLE(0x100)) },
		.frames = { F(V_TXT(0, 0x10), C0, REGS) },
		.stop = SFU_END_RA_UNCHECKED,
	},
	{
		/*
		 * The frame pointer is not this frame's (code without frame
		 * pointers leaves it alone): a return address of its own lies
		 * below the record, which would skip its caller.
		 */
		.name = "fp_record_above_a_return_address_of_the_frame_stops_with_fp_skips",
		.ip = V_TXT(0, 0x10), .sp = V_STK(0x1000), .fp = V_STK(0x1100),
		.stack = {
			W(0x1028, V_TXT(2, 0x40)),
			W(0x1100, V_ABS(0)), W(0x1108, V_TXT(1, 0x40)),
		},
		.frames = { F(V_TXT(0, 0x10), C0, REGS) },
		.stop = SFU_END_FP_SKIPS,
	},
	/*
	 * The record is a caller's (its call, of f2, cannot have led to
	 * f0 + 0x10) and the lowest return address below it follows "call
	 * f0": the frame's own, pushed by the call of the frame the record
	 * skips.  The walk finds that frame (f2, whose CFA is right above its
	 * return address), whose record it then is.
	 */
	UW_FP_BELOW("x86_fp_frame_a_record_skips_is_found_by_its_return_address",
		    V_ABS(0), 0x80, 0xfd, 0xff, 0xff,
		    .frames = {
			F(V_TXT(0, 0x10), V_STK(0x1028), REGS),
			F(V_TXT(2, 0x80), V_FPCFA(0x1110), FP),
			F(V_TXT(1, 0x80), C0, FP),
		    },
		    .stop = SFU_END_FP_END),
	{
		/*
		 * Below a record that may be the frame's (its call is
		 * indirect), f2 + 0x80 follows "call f0", then f4 + 0x80 "call
		 * f3": f3 starts between f0 and the frame's IP (f3 + 0x10), so f0
		 * cannot hold it and the lower return address is a stale one.
		 * The record skips a frame all the same: the walk stops.
		 */
		.name = "x86_fp_return_address_refuted_by_a_call_to_a_later_function_stops",
		.arch = UW_ARCH_X86_64,
		.ip = V_TXT(3, 0x10), .sp = V_STK(0x1000), .fp = V_STK(0x1100),
		.text = { .at = V_TXT(2, 0x7b), .len = 5,
			  .bytes = { 0xe8, 0x80, 0xfd, 0xff, 0xff } },
		.stub = { .at = V_TXT(4, 0x7b), .len = 5,
			  .bytes = { 0xe8, 0x80, 0xfe, 0xff, 0xff } },
		.stack = {
			W(0x1010, V_TXT(2, 0x80)), W(0x1020, V_TXT(4, 0x80)),
			W(0x1100, V_ABS(0)), W(0x1108, V_TXT(1, 0x40)),
		},
		.frames = { F(V_TXT(3, 0x10), C0, REGS) },
		.stop = SFU_END_FP_SKIPS,
	},
	{
		/*
		 * The record's call, of f0, can have led to f0 + 0x10; below it
		 * lies f2 + 0x80, after "call f3", which can have too, if f3
		 * tail-called f0: it may be the frame's own return address.
		 */
		.name = "x86_fp_return_address_of_a_call_elsewhere_below_the_record_stops",
		.arch = UW_ARCH_X86_64,
		.ip = V_TXT(0, 0x10), .sp = V_STK(0x1000), .fp = V_STK(0x1100),
		.text = { .at = V_TXT(1, 0x7b), .len = 5,
			  .bytes = { 0xe8, 0x80, 0xfe, 0xff, 0xff } },
		.stub = { .at = V_TXT(2, 0x7b), .len = 5,
			  .bytes = { 0xe8, 0x80, 0x00, 0x00, 0x00 } },
		.stack = {
			W(0x1020, V_TXT(2, 0x80)),
			W(0x1100, V_ABS(0)), W(0x1108, V_TXT(1, 0x80)),
		},
		.frames = { F(V_TXT(0, 0x10), C0, REGS) },
		.stop = SFU_END_FP_SKIPS,
	},
	{
		/*
		 * As above, but the record's frame pointer leads back down the
		 * stack: no record of code that keeps frame pointers, but what
		 * the register of code without them pointed at.  The step out
		 * of the frame found below it fails, and that frame, the first
		 * of the chain, is dropped.
		 */
		.name = "x86_fp_record_met_again_must_lead_up_the_stack",
		.arch = UW_ARCH_X86_64,
		.ip = V_TXT(0, 0x10), .sp = V_STK(0x1000), .fp = V_STK(0x1100),
		.text = { .at = V_TXT(1, 0x7b), .len = 5,
			  .bytes = { 0xe8, 0x80, 0x00, 0x00, 0x00 } },
		.stub = { .at = V_TXT(2, 0x7b), .len = 5,
			  .bytes = { 0xe8, 0x80, 0xfd, 0xff, 0xff } },
		.stack = {
			W(0x1020, V_TXT(2, 0x80)),
			W(0x1100, V_STK(0x1050)), W(0x1108, V_TXT(1, 0x80)),
		},
		.frames = { F(V_TXT(0, 0x10), V_STK(0x1028), REGS) },
		.stop = SFU_END_FP_UNCONFIRMED,
	},
	/* "call f3" cannot have led to f0 + 0x10 either: no caller is proven. */
	UW_FP_BELOW("x86_fp_lowest_return_address_after_a_call_elsewhere_stops",
		    V_ABS(0), 0x80, 0x00, 0x00, 0x00,
		    .frames = { F(V_TXT(0, 0x10), C0, REGS) },
		    .stop = SFU_END_RA_OTHER_CALLEE),
	/*
	 * A lower return address, after "call *%rax" (f3 + 0x40), may be the
	 * frame's own: the one above proves nothing then.
	 */
	UW_FP_BELOW("x86_fp_return_address_above_the_lowest_one_is_not_taken",
		    V_TXT(3, 0x40), 0x80, 0xfd, 0xff, 0xff,
		    .frames = { F(V_TXT(0, 0x10), C0, REGS) },
		    .stop = SFU_END_RA_OTHER_CALLEE),
	{
		/*
		 * The same stack in JIT code (anonymous memory): its compilers
		 * keep frame records, and spilled return addresses of other
		 * calls in its frames are no sign of a skipped frame.  The
		 * record is taken, as perf's own walk takes it.
		 */
		.name = "jit_fp_record_above_a_return_address_of_the_frame_is_taken",
		.jit = true,
		.ip = V_TXT(0, 0x10), .sp = V_STK(0x1000), .fp = V_STK(0x1100),
		.stack = {
			W(0x1028, V_TXT(2, 0x40)),
			W(0x1100, V_ABS(0)), W(0x1108, V_TXT(1, 0x40)),
		},
		.frames = {
			F(V_TXT(0, 0x10), V_FPCFA(0x1110), REGS),
			F(V_TXT(1, 0x40), C0, FP),
		},
		.stop = SFU_END_FP_END,
	},
	{
		/* A direct call elsewhere: JIT code tail-calls, the caller stays. */
		.name = "x86_jit_fp_direct_call_elsewhere_is_taken",
		.arch = UW_ARCH_X86_64, .jit = true,
		.ip = V_TXT(0, 0x10), .sp = V_STK(0x1000), .fp = V_STK(0x1100),
		.text = { .at = V_TXT(1, 0x7b), .len = 5,
			  .bytes = { 0xe8, 0x00, 0x01, 0x00, 0x00 } },
		.stack = { W(0x1100, V_ABS(0)), W(0x1108, V_TXT(1, 0x80)) },
		.frames = {
			F(V_TXT(0, 0x10), V_FPCFA(0x1110), REGS),
			F(V_TXT(1, 0x80), C0, FP),
		},
		.stop = SFU_END_FP_END,
	},
	{
		/* The checks that never refuse a true frame still apply. */
		.name = "x86_jit_fp_return_address_not_after_a_call_stops_with_ra_not_call",
		.arch = UW_ARCH_X86_64, .jit = true,
		.ip = V_TXT(0, 0x10), .sp = V_STK(0x1000), .fp = V_STK(0x1100),
		.text = { .at = V_TXT(1, 0x7b), .len = 5,
			  .bytes = { 0x90, 0x90, 0x90, 0x90, 0x90 } },
		.stack = { W(0x1100, V_ABS(0)), W(0x1108, V_TXT(1, 0x80)) },
		.frames = { F(V_TXT(0, 0x10), C0, REGS) },
		.stop = SFU_END_RA_NOT_CALL,
	},
	{
		.name = "jit_fp_return_address_in_the_stack_stops_with_ra_not_text",
		.jit = true,
		.ip = V_TXT(0, 0x10), .sp = V_STK(0x1000), .fp = V_STK(0x1100),
		.stack = {
			W(0x1100, V_STK(0x1200)), W(0x1108, V_STK(0x1800)),
			W(0x1200, V_ABS(0)), W(0x1208, V_TXT(3, 0x40)),
		},
		.frames = { F(V_TXT(0, 0x10), C0, REGS) },
		.stop = SFU_END_RA_NOT_TEXT,
	},
	{
		/* Words that are no return address do not stop the walk. */
		.name = "fp_record_above_other_words_of_the_frame_is_taken",
		.ip = V_TXT(0, 0x10), .sp = V_STK(0x1000), .fp = V_STK(0x1100),
		.stack = {
			W(0x1010, V_TXT(2, 0x80)), W(0x1018, V_STK(0x1040)),
			W(0x1020, V_ABS(0x20)),
			W(0x1100, V_ABS(0)), W(0x1108, V_TXT(1, 0x40)),
		},
		.frames = {
			F(V_TXT(0, 0x10), V_FPCFA(0x1110), REGS),
			F(V_TXT(1, 0x40), C0, FP),
		},
		.stop = SFU_END_FP_END,
	},
	/*
	 * Go's systemstack(): f0 runs on the system stack (g0's, at stack +
	 * 0x0..0x1000), called from f12, systemstack() itself, which its
	 * file's rows leave out.  The goroutine's SP is in g.sched.sp of
	 * m.curg (g0 at + 0x2000, its m at + 0x3000, m.gsignal at m's word
	 * 10, a g of the m whose saved SP leads to no call of f12, m.curg at
	 * word 24, at + 0x4000, its stack + 0x8000..):
	 * there the return address after f2's direct call of f12, the frame
	 * pointer systemstack() saved below it, and f2's frame above.
	 */
#define UW_GO_CALL_X86		{ .at = V_TXT(2, 0xf), .len = 5, \
				  .bytes = { 0xe8, 0xec, 0x09, 0x00, 0x00 } }
#define UW_GO_CALL_ARM64	{ .at = V_TXT(2, 0x10), .len = 4, \
				  .bytes = { 0x7c, 0x02, 0x00, 0x94 } }
/* The RA into f2 at @ra_at, the word below it (@fp_at) and f2's RA (@f2_ra_at). */
#define UW_GO_STACK(m_g0, ra_at, fp_at, ra, f2_ra_at)	{ \
		W(0x110, V_ABS(0)), W(0x118, V_TXT(12, 0x40)), \
		W(0x2000, V_STK(0)), W(0x2008, V_STK(0x1000)), W(0x2030, V_STK(0x3000)), \
		W(0x3000, m_g0), W(0x3050, V_STK(0x5000)), W(0x30c0, V_STK(0x4000)), \
		W(0x5000, V_STK(0x6000)), W(0x5008, V_STK(0x7000)), \
		W(0x5030, V_STK(0x3000)), W(0x5038, V_STK(0x6800)), \
		W(0x4000, V_STK(0x8000)), W(0x4008, V_STK(0x10000)), \
		W(0x4030, V_STK(0x3000)), W(0x4038, V_STK(0x9000)), \
		W(ra_at, ra), W(fp_at, V_STK(0x9038)), W(f2_ra_at, V_TXT(3, 0x10)) }
#define UW_GO_REGS(g)	.sec = &sec_basic, .ip = V_TXT(0, 8), .sp = V_STK(0x100), .go_g = g
#define UW_GO_FRAMES(cfa, f2_cfa)	{ \
		F(V_TXT(0, 8), V_STK(0x120), REGS), \
		F(V_TXT(12, 0x40), V_STK(cfa), SFRAME), \
		F(V_TXT(2, 0x14), V_STK(f2_cfa), FP), \
		F(V_TXT(3, 0x10), C0, SFRAME) }
	{
		.name = "x86_go_systemstack_steps_to_the_goroutines_stack",
		.arch = UW_ARCH_X86_64, .text = UW_GO_CALL_X86, UW_GO_REGS(V_STK(0x2000)),
		.stack = UW_GO_STACK(V_STK(0x2000), 0x9000, 0x8ff8, V_TXT(2, 0x14), 0x9040),
		.frames = UW_GO_FRAMES(0x9008, 0x9048),
		.stop = SFU_END_OUTERMOST,
	},
	{
		/* arm64: systemstack()'s 16-byte frame, its link register at 0(RSP). */
		.name = "arm64_go_systemstack_steps_to_the_goroutines_stack",
		.arch = UW_ARCH_ARM64, .text = UW_GO_CALL_ARM64, UW_GO_REGS(V_STK(0x2000)),
		.stack = UW_GO_STACK(V_STK(0x2000), 0x9000, 0x8ff8, V_TXT(2, 0x14), 0x9048),
		.frames = UW_GO_FRAMES(0x9010, 0x9050),
		.stop = SFU_END_OUTERMOST,
	},
	{
		/* amd64 since Go 1.21: systemstack() pushes a frame pointer first. */
		.name = "x86_go_systemstack_with_a_frame_record_steps_to_the_goroutines_stack",
		.arch = UW_ARCH_X86_64, .text = UW_GO_CALL_X86, UW_GO_REGS(V_STK(0x2000)),
		.stack = UW_GO_STACK(V_STK(0x2000), 0x9008, 0x9000, V_TXT(2, 0x14), 0x9048),
		.frames = UW_GO_FRAMES(0x9010, 0x9050),
		.stop = SFU_END_OUTERMOST,
	},
	{
		/* Not Go: no g register, and the fallback finds no record. */
		.name = "x86_go_systemstack_without_a_g_register_ends_at_its_frame_pointer",
		.arch = UW_ARCH_X86_64, .text = UW_GO_CALL_X86, UW_GO_REGS(V_ABS(0)),
		.stack = UW_GO_STACK(V_STK(0x2000), 0x9000, 0x8ff8, V_TXT(2, 0x14), 0x9040),
		.frames = {
			F(V_TXT(0, 8), V_STK(0x120), REGS),
			F(V_TXT(12, 0x40), C0, SFRAME),
		},
		.stop = SFU_END_FP_END,
	},
	{
		/* The g register's g is not its m's g0: not the system stack. */
		.name = "x86_go_g_register_not_g0_is_no_systemstack",
		.arch = UW_ARCH_X86_64, .text = UW_GO_CALL_X86, UW_GO_REGS(V_STK(0x2000)),
		.stack = UW_GO_STACK(V_STK(0x4000), 0x9000, 0x8ff8, V_TXT(2, 0x14), 0x9040),
		.frames = {
			F(V_TXT(0, 8), V_STK(0x120), REGS),
			F(V_TXT(12, 0x40), C0, SFRAME),
		},
		.stop = SFU_END_FP_END,
	},
	{
		/* The goroutine's word is no return address of a call of f12. */
		.name = "x86_go_return_address_after_no_call_of_systemstack_is_not_taken",
		.arch = UW_ARCH_X86_64, .text = UW_GO_CALL_X86, UW_GO_REGS(V_STK(0x2000)),
		.stack = UW_GO_STACK(V_STK(0x2000), 0x9000, 0x8ff8, V_TXT(2, 0x40), 0x9040),
		.frames = {
			F(V_TXT(0, 8), V_STK(0x120), REGS),
			F(V_TXT(12, 0x40), C0, SFRAME),
		},
		.stop = SFU_END_FP_END,
	},
	{
		.name = "arm64_go_return_address_after_no_call_of_systemstack_is_not_taken",
		.arch = UW_ARCH_ARM64, .text = UW_GO_CALL_ARM64, UW_GO_REGS(V_STK(0x2000)),
		.stack = UW_GO_STACK(V_STK(0x2000), 0x9000, 0x8ff8, V_TXT(2, 0x40), 0x9040),
		.frames = {
			F(V_TXT(0, 8), V_STK(0x120), REGS),
			F(V_TXT(12, 0x40), C0, SFRAME),
		},
		.stop = SFU_END_FP_END,
	},
#undef UW_GO_CALL_X86
#undef UW_GO_CALL_ARM64
#undef UW_GO_STACK
#undef UW_GO_REGS
#undef UW_GO_FRAMES
	{
		/*
		 * The last frame of a chain of records, into code without
		 * frame pointers (libc's, above main()), is kept though the
		 * step out of it fails: the record before it vouches for it.
		 */
		.name = "fp_last_frame_of_a_record_chain_is_kept_where_the_chain_breaks",
		.ip = V_TXT(0, 0x10), .sp = V_STK(0x1000), .fp = V_STK(0x1100),
		.stack = {
			W(0x1100, V_STK(0x1200)), W(0x1108, V_TXT(1, 0x40)),
			W(0x1200, V_STK(0x1300)), W(0x1208, V_TXT(2, 0x40)),
			W(0x1300, V_ABS(0x1234)), W(0x1308, V_TXT(3, 0x40)),
		},
		.frames = {
			F(V_TXT(0, 0x10), V_FPCFA(0x1110), REGS),
			F(V_TXT(1, 0x40), V_FPCFA(0x1210), FP),
			F(V_TXT(2, 0x40), V_FPCFA(0x1310), FP),
			F(V_TXT(3, 0x40), C0, FP),
		},
		.stop = SFU_END_CFA_NOT_INCREASING,
	},
	/*
	 * Below the topmost frame too (x86_64, where the record lies above
	 * the frame's locals): a return address after a direct call to the
	 * function that holds the frame's IP (f2 + 0x80: after "call f1")
	 * lies below the record, which skips it: the walk goes on from that
	 * frame, whose CFA is right above its return address, and the record
	 * is its own.
	 */
	UW_FP_DEEP_WORD("x86_fp_frame_a_deeper_record_skips_is_found_by_its_return_address",
			V_TXT(2, 0x80),
			.text = { .at = V_TXT(2, 0x7b), .len = 5,
				  .bytes = { 0xe8, 0x80, 0xfe, 0xff, 0xff } },
			.frames = {
				F(V_TXT(0, 0x10), V_FPCFA(0x1110), REGS),
				F(V_TXT(1, 0x40), V_STK(0x1158), FP),
				F(V_TXT(2, 0x80), V_FPCFA(0x1210), FP),
				F(V_TXT(3, 0x40), C0, FP),
			},
			.stop = SFU_END_FP_END),
	/*
	 * A stale return address in a deeper frame, after a direct call to a
	 * function that cannot hold the frame's IP (f2 + 0x80: after "call
	 * f3", above f1): a local of code built with frame pointers, which
	 * does not stop it.
	 */
	UW_FP_DEEP_WORD("x86_fp_stale_return_address_of_another_callee_deeper_is_taken",
			V_TXT(2, 0x80),
			.text = { .at = V_TXT(2, 0x7b), .len = 5,
				  .bytes = { 0xe8, 0x80, 0x00, 0x00, 0x00 } },
			UW_FP_DEEP_TAKEN),
	/*
	 * Nor one after an indirect call, which says nothing of where it
	 * went: a stale one (qsort()'s call of its comparison function) in an
	 * array not yet filled.
	 */
	UW_FP_DEEP_WORD("x86_fp_stale_return_address_of_an_indirect_call_deeper_is_taken",
			V_TXT(2, 0x40), UW_FP_DEEP_TAKEN),
	UW_FP_PLT("x86_fp_call_through_a_plt_entry_bound_to_the_frames_function_is_taken",
		  0, V_TXT(0, 0), V_ABS(0), UW_FP_PLT_TAKEN),
	UW_FP_PLT("x86_fp_call_through_a_plt_entry_not_bound_yet_is_taken",
		  0, V_TXT(2, 0x06), V_ABS(0), UW_FP_PLT_TAKEN),
	/*
	 * Bound to f3, near the PLT (a large library's own calls through its
	 * PLT): bound, and f3 cannot hold f0 + 0x10.
	 */
	UW_FP_PLT("x86_fp_call_through_a_plt_entry_bound_near_it_stops_with_ra_other_callee",
		  0, V_TXT(3, 0), V_TXT(2, 0x40), .frames = { F(V_TXT(0, 0x10), C0, REGS) },
		  .stop = SFU_END_RA_OTHER_CALLEE),
	/*
	 * Bound elsewhere, above a return address of the frame (f2 + 0x40,
	 * after "call *%rax"): the record may skip the frame's caller.
	 */
	UW_FP_PLT("x86_fp_call_through_a_plt_entry_bound_elsewhere_stops_with_ra_other_callee",
		  0, V_ABS(0x10000), V_TXT(2, 0x40), .frames = { F(V_TXT(0, 0x10), C0, REGS) },
		  .stop = SFU_END_RA_OTHER_CALLEE),
	{
		/*
		 * A sample on a PLT entry's jump (f2 + 0x06): the entry keeps no
		 * frame, its return address is at SP, after "call f2", which
		 * leads into the entry itself wherever its slot is bound.
		 */
		.name = "x86_fp_frame_of_a_plt_entry_is_found_by_its_return_address",
		.arch = UW_ARCH_X86_64,
		.ip = V_TXT(2, 0x06), .sp = V_STK(0x1000), .fp = V_STK(0x1100),
		.text = { .at = V_TXT(1, 0x7b), .len = 5,
			  .bytes = { 0xe8, 0x80, 0x00, 0x00, 0x00 } },
		.stub = { .at = V_TXT(2, 0), .len = 6,
			  .bytes = { 0xff, 0x25, 0x0a, 0x00, 0x00, 0x00 } },
		.got = { .at = 2 * UW_FUNC_SIZE + 0x10, .val = V_ABS(0x10000) },
		.stack = {
			W(0x1000, V_TXT(1, 0x80)),
			W(0x1100, V_ABS(0)), W(0x1108, V_TXT(3, 0x40)),
		},
		.frames = {
			F(V_TXT(2, 0x06), V_STK(0x1008), REGS),
			F(V_TXT(1, 0x80), V_FPCFA(0x1110), FP),
			F(V_TXT(3, 0x40), C0, FP),
		},
		.stop = SFU_END_FP_END,
	},
	{
		/*
		 * A sample on the entry's first instruction, its slot bound to a
		 * function above the frame (a library's, mapped above the
		 * program): the call to the entry reaches the frame all the
		 * same, and the record (of f1's caller, which cannot reach the
		 * entry) is skipped by it.
		 */
		.name = "x86_fp_frame_of_a_plt_entry_bound_above_it_is_found_by_its_return_address",
		.arch = UW_ARCH_X86_64,
		.ip = V_TXT(2, 0), .sp = V_STK(0x1000), .fp = V_STK(0x1100),
		.text = { .at = V_TXT(1, 0x7b), .len = 5,
			  .bytes = { 0xe8, 0x80, 0x00, 0x00, 0x00 } },
		.stub = { .at = V_TXT(2, 0), .len = 6,
			  .bytes = { 0xff, 0x25, 0x0a, 0x00, 0x00, 0x00 } },
		.got = { .at = 2 * UW_FUNC_SIZE + 0x10, .val = V_TXT(14, 0) },
		.stack = {
			W(0x1000, V_TXT(1, 0x80)),
			W(0x1100, V_ABS(0)), W(0x1108, V_TXT(3, 0x40)),
		},
		.frames = {
			F(V_TXT(2, 0), V_STK(0x1008), REGS),
			F(V_TXT(1, 0x80), V_FPCFA(0x1110), FP),
			F(V_TXT(3, 0x40), C0, FP),
		},
		.stop = SFU_END_FP_END,
	},
	{
		/*
		 * A leaf's early return, before it saves the frame pointer
		 * (f0, called through a register from f1 + 0x40): the record
		 * is f1's, after "call f1" at f2 + 0x7b, which cannot reach f0;
		 * the return address at SP, into f1, is the only one below it.
		 */
		.name = "x86_fp_return_address_at_sp_into_the_records_function_is_the_frames",
		.arch = UW_ARCH_X86_64,
		.ip = V_TXT(0, 0x10), .sp = V_STK(0x1000), .fp = V_STK(0x1100),
		.text = { .at = V_TXT(2, 0x7b), .len = 5,
			  .bytes = { 0xe8, 0x80, 0xfe, 0xff, 0xff } },
		.stack = {
			W(0x1000, V_TXT(1, 0x40)),
			W(0x1100, V_ABS(0)), W(0x1108, V_TXT(2, 0x80)),
		},
		.frames = {
			F(V_TXT(0, 0x10), V_STK(0x1008), REGS),
			F(V_TXT(1, 0x40), V_FPCFA(0x1110), FP),
			F(V_TXT(2, 0x80), C0, FP),
		},
		.stop = SFU_END_FP_END,
	},
	{
		/* The same with another return address below the record: no proof. */
		.name = "x86_fp_return_address_at_sp_with_another_below_the_record_stops",
		.arch = UW_ARCH_X86_64,
		.ip = V_TXT(0, 0x10), .sp = V_STK(0x1000), .fp = V_STK(0x1100),
		.text = { .at = V_TXT(2, 0x7b), .len = 5,
			  .bytes = { 0xe8, 0x80, 0xfe, 0xff, 0xff } },
		.stack = {
			W(0x1000, V_TXT(1, 0x40)), W(0x1050, V_TXT(4, 0x40)),
			W(0x1100, V_ABS(0)), W(0x1108, V_TXT(2, 0x80)),
		},
		.frames = { F(V_TXT(0, 0x10), C0, REGS) },
		.stop = SFU_END_RA_OTHER_CALLEE,
	},
	{
		/* Above SP it may be a stale one, left in the frame's locals. */
		.name = "x86_fp_return_address_above_sp_into_the_records_function_stops",
		.arch = UW_ARCH_X86_64,
		.ip = V_TXT(0, 0x10), .sp = V_STK(0x1000), .fp = V_STK(0x1100),
		.text = { .at = V_TXT(2, 0x7b), .len = 5,
			  .bytes = { 0xe8, 0x80, 0xfe, 0xff, 0xff } },
		.stack = {
			W(0x1008, V_TXT(1, 0x40)),
			W(0x1100, V_ABS(0)), W(0x1108, V_TXT(2, 0x80)),
		},
		.frames = { F(V_TXT(0, 0x10), C0, REGS) },
		.stop = SFU_END_RA_OTHER_CALLEE,
	},
	{
		/*
		 * The record's call reaches the frame (f3, called from f2 +
		 * 0x7b); below it lies a return address into f1, which f3
		 * cannot hold: no frame the record skips could have returned
		 * there, its call would have come from f3.  Stale: the record
		 * is taken.
		 */
		.name = "x86_fp_stale_return_address_the_records_function_cannot_hold_is_passed",
		.arch = UW_ARCH_X86_64,
		.ip = V_TXT(3, 0x10), .sp = V_STK(0x1000), .fp = V_STK(0x1100),
		.text = { .at = V_TXT(2, 0x7b), .len = 5,
			  .bytes = { 0xe8, 0x80, 0x00, 0x00, 0x00 } },
		.stack = {
			W(0x1050, V_TXT(1, 0x40)),
			W(0x1100, V_ABS(0)), W(0x1108, V_TXT(2, 0x80)),
		},
		.frames = {
			F(V_TXT(3, 0x10), V_FPCFA(0x1110), REGS),
			F(V_TXT(2, 0x80), C0, FP),
		},
		.stop = SFU_END_FP_END,
	},
	{
		/* One into f3 may be a skipped frame's: the walk stops. */
		.name = "x86_fp_return_address_the_records_function_can_hold_stops",
		.arch = UW_ARCH_X86_64,
		.ip = V_TXT(3, 0x10), .sp = V_STK(0x1000), .fp = V_STK(0x1100),
		.text = { .at = V_TXT(2, 0x7b), .len = 5,
			  .bytes = { 0xe8, 0x80, 0x00, 0x00, 0x00 } },
		.stack = {
			W(0x1050, V_TXT(4, 0x40)),
			W(0x1100, V_ABS(0)), W(0x1108, V_TXT(2, 0x80)),
		},
		.frames = { F(V_TXT(3, 0x10), C0, REGS) },
		.stop = SFU_END_FP_SKIPS,
	},
	/*
	 * With no return address below the record, but a zero frame pointer
	 * in it: no tail call is proven.
	 */
	UW_FP_PLT("x86_fp_call_through_a_plt_entry_bound_elsewhere_with_a_zero_frame_pointer_stops",
		  0, V_ABS(0x10000), V_ABS(0), .frames = { F(V_TXT(0, 0x10), C0, REGS) },
		  .stop = SFU_END_RA_OTHER_CALLEE),
	/*
	 * Above the record, a call to f3, which starts between f2 and the
	 * frame's IP: f2 cannot hold that IP, the record is stale.
	 */
	UW_FP_WITNESS("x86_fp_call_to_a_function_between_the_records_and_the_ip_stops",
		      0x80, 0xfe, 0xff, 0xff,
		      .frames = { F(V_TXT(3, 0x10), C0, REGS) },
		      .stop = SFU_END_RA_OTHER_CALLEE),
	/* A call to f1, below f2, proves nothing. */
	UW_FP_WITNESS("x86_fp_call_to_a_function_below_the_records_is_no_proof",
		      0x80, 0xfc, 0xff, 0xff,
		      .frames = {
			F(V_TXT(3, 0x10), V_FPCFA(0x1110), REGS),
			F(V_TXT(1, 0x80), C0, FP),
		      },
		      .stop = SFU_END_FP_END),
	/* The PLT lies below the frame's function (as below all of an object's). */
	UW_FP_PLT("x86_fp_call_through_a_plt_entry_below_the_frame_bound_elsewhere_stops",
		  3, V_ABS(0x10000), V_TXT(2, 0x40), .frames = { F(V_TXT(3, 0x10), C0, REGS) },
		  .stop = SFU_END_RA_OTHER_CALLEE),
	{
		/* No call put it there: the kernel did, for the handler's return. */
		.name = "x86_fp_return_address_at_a_signal_trampoline_is_taken",
		.arch = UW_ARCH_X86_64,
		.ip = V_TXT(0, 0x10), .sp = V_STK(0x1000), .fp = V_STK(0x1100),
		/* mov $15, %rax; syscall */
		.text = { .at = V_TXT(12, 0), .len = 9, .bytes = {
			0x48, 0xc7, 0xc0, 0x0f, 0x00, 0x00, 0x00, 0x0f, 0x05 } },
		.stack = {
			W(0x1100, V_ABS(0)), W(0x1108, V_TXT(12, 0)),
			W(0x1110 + UW_SIG_IP, V_TXT(1, 0x10)),
			W(0x1110 + UW_SIG_SP, V_STK(0x3000)),
			W(0x1110 + UW_SIG_FP, V_STK(0x3100)),
			W(0x3100, V_ABS(0)), W(0x3108, V_TXT(3, 0x40)),
		},
		.frames = {
			F(V_TXT(0, 0x10), V_STK(0x1110), REGS),
			F(V_TXT(12, 0), C0, FP),
			F(V_TXT(1, 0x10), V_STK(0x3110), SIGNAL),
			F(V_TXT(3, 0x40), C0, FP),
		},
		.stop = SFU_END_FP_END,
	},
	{
		.name = "arm64_compat_task_stops_with_compat",
		.arch = UW_ARCH_ARM64, .compat = true,
		.ip = V_TXT(0, 0x10), .sp = V_STK(0x1000),
		.frames = { F(V_TXT(0, 0x10), C0, REGS) },
		.stop = SFU_END_COMPAT,
	},
};

/**
 * struct uw_env - where one case's memory landed
 * @test: the case
 * @u: its user memory
 * @text: start of the text (one page, 16 functions)
 * @stack: start of the stack (UW_STACK_SIZE bytes, then an unmapped page)
 * @sec: start of the section, 0 if none
 * @registered: the section is registered
 * @ws: stack word size (4 for compat cases)
 * @stack_img: kernel copy of the stack
 * @touched: pages of @stack_img with words in them
 * @sec_img: the section as built
 * @sec_len: its length
 */
struct uw_env {
	struct kunit *test;
	struct sfu_user_ctx u;
	unsigned long text;
	unsigned long stack;
	unsigned long sec;
	bool registered;
	unsigned int ws;
	u8 *stack_img;
	unsigned long touched[BITS_TO_LONGS(UW_STACK_SIZE / PAGE_SIZE)];
	u8 *sec_img;
	size_t sec_len;
};

static unsigned long uw_value(const struct uw_env *env, const struct uw_val *v)
{
	unsigned long text = env->text + v->fn * UW_FUNC_SIZE + v->off;
	bool real;

	switch (v->kind) {
	case UW_V_ABS:
		return v->off;
	case UW_V_TEXT:
		return text;
	case UW_V_STACK:
		return env->stack + v->off;
	case UW_V_HOLE:
		return env->stack + UW_STACK_SIZE + v->off;
	case UW_V_FPCFA:
		return uw_arch.fp_cfa_exact ? env->stack + v->off : 0;
	case UW_V_SIGNED_TEXT:
		return uw_arch_sign_ra(text, &real);
	}
	return 0;
}

static void uw_put_le(u8 *buf, size_t off, u64 v, unsigned int bytes)
{
	unsigned int i;

	for (i = 0; i < bytes; i++)
		buf[off + i] = v >> (8 * i);
}

static u16 uw_dwarf(u8 reg)
{
	switch (reg) {
	case UW_REG_SP:
		return uw_arch.dwarf_sp;
	case UW_REG_FP:
		return uw_arch.dwarf_fp;
	case UW_REG_SCRATCH:
		return uw_arch.dwarf_scratch;
	case UW_REG_TRACKED:
		return uw_arch.dwarf_tracked;
	default:
		return uw_arch.dwarf_bad;
	}
}

/* The FLEX control word of a rule. */
static s64 uw_flex_ctrl(const struct uw_flex *f)
{
	if (f->reg == UW_REG_CFA)
		return f->deref ? SFRAME_FLEX_CTRL_DEREF_P : SFRAME_FLEX_CTRL_PADDING;
	return (uw_dwarf(f->reg) << 3) | SFRAME_FLEX_CTRL_REG_P |
	       (f->deref ? SFRAME_FLEX_CTRL_DEREF_P : 0);
}

/* The data words and info byte of a row's FRE, in this ABI's encoding. */
static unsigned int uw_fre_words(const struct uw_row *r, s64 *w, u8 *info)
{
	bool amd64 = uw_arch.fixed_ra != 0;
	unsigned int n = 0, i, size;
	s64 max = 0;

	*info = SFRAME_FRE_INFO_BASE_SP;
	switch (r->kind) {
	case UW_ROW_OUTERMOST:
		break;
	case UW_ROW_ENTRY:
		/* AMD64: the call pushed RA; AArch64: RA is still in x30. */
		w[n++] = amd64 ? 8 : 0;
		break;
	case UW_ROW_LR:
		w[n++] = r->cfa;
		break;
	case UW_ROW_DEFAULT:
		if (r->fp_base)
			*info = 0;
		w[n++] = r->cfa;
		if (!amd64)
			w[n++] = -8;
		if (r->fp)
			w[n++] = r->fp;
		break;
	case UW_ROW_FLEX:
		*info = 0;
		for (i = 0; i < r->nflex / 2; i++) {
			w[n++] = uw_flex_ctrl(&r->flex[i]) |
				 (r->flex[i].add ? SFRAME_FLEX_CTRL_SFU_ADDEND : 0);
			w[n++] = r->flex[i].off;
			if (r->flex[i].add)
				w[n++] = r->flex[i].add;
		}
		if (r->saved == UW_SAVED_NONE)
			break;
		/* RA and FP present, as padding if need be, then the saved register. */
		for (i = r->nflex / 2; i < 3; i++)
			w[n++] = SFRAME_FLEX_CTRL_PADDING;
		w[n++] = (uw_arch.dwarf_tracked << 3) |
			 (r->saved == UW_SAVED_AT ? SFRAME_FLEX_CTRL_DEREF_P : 0);
		w[n++] = r->saved == UW_SAVED_AT ? r->saved_off : 0;
		break;
	}
	for (i = 0; i < n; i++)
		max = max_t(s64, max, abs(w[i]) + 1);
	size = max > S16_MAX ? SFRAME_FRE_DATAWORD_4B :
	       max > S8_MAX ? SFRAME_FRE_DATAWORD_2B : SFRAME_FRE_DATAWORD_1B;
	*info |= (n << 1) | (size << 5) | (r->mangled ? SFRAME_FRE_INFO_RA_MANGLED : 0);
	return n;
}

/* Lay out @s for functions at @env->text, as mapped at @env->sec. */
static size_t uw_build_section(const struct uw_env *env, const struct uw_sec *s, u8 *buf)
{
	bool v3 = s->version == SFRAME_VERSION_3;
	size_t fde_size = s->narrow ? SFRAME_V3N_FDE_BYTES :
			  v3 ? SFRAME_V3_FDE_BYTES : SFRAME_V2_FDE_BYTES;
	size_t fres = SFRAME_HDR_SIZE + s->nfuncs * fde_size, pos = fres;
	unsigned int i, j, k, n, nfres = 0;
	s64 w[SFRAME_FRE_MAX_WORDS];
	u8 info;

	for (i = 0; i < s->nfuncs; i++) {
		const struct uw_func *f = &s->funcs[i];
		size_t fde = SFRAME_HDR_SIZE + i * fde_size, fre_rel = pos - fres;
		u64 func = env->text + f->idx * UW_FUNC_SIZE;
		u8 fde_info = SFRAME_FRE_TYPE_ADDR1 | (f->signal ? SFRAME_V3_FDE_INFO_SIGNAL : 0);
		bool flex = f->rows[0].kind == UW_ROW_FLEX;
		bool injected = s->injected & BIT(f->idx);

		if (v3) {
			uw_put_le(buf, pos + SFRAME_V3_ATTR_NUM_FRES, f->nrows, 2);
			uw_put_le(buf, pos + SFRAME_V3_ATTR_INFO, fde_info, 1);
			uw_put_le(buf, pos + SFRAME_V3_ATTR_INFO2,
				  (flex ? SFRAME_FDE_TYPE_FLEX : SFRAME_FDE_TYPE_DEFAULT) |
				  (injected ? SFRAME_V3_FDE_INFO2_SFU_INJECTED : 0), 1);
			pos += SFRAME_V3_ATTR_BYTES;
		}
		for (j = 0; j < f->nrows; j++) {
			unsigned int wb;

			n = uw_fre_words(&f->rows[j], w, &info);
			wb = 1U << SFRAME_FRE_INFO_SIZE(info);
			buf[pos++] = f->rows[j].start;
			buf[pos++] = info;
			for (k = 0; k < n; k++, pos += wb)
				uw_put_le(buf, pos, w[k], wb);
		}
		nfres += f->nrows;

		if (s->narrow) {
			uw_put_le(buf, fde + SFRAME_V3N_FDE_START, func - (env->sec + fde), 4);
			uw_put_le(buf, fde + SFRAME_V3N_FDE_SIZE, UW_FUNC_SIZE, 4);
			uw_put_le(buf, fde + SFRAME_V3N_FDE_FRE_OFF, fre_rel, 4);
		} else if (v3) {
			/* PCREL: relative to the start field itself. */
			uw_put_le(buf, fde + SFRAME_V3_FDE_START, func - (env->sec + fde), 8);
			uw_put_le(buf, fde + SFRAME_V3_FDE_SIZE, UW_FUNC_SIZE, 4);
			uw_put_le(buf, fde + SFRAME_V3_FDE_FRE_OFF, fre_rel, 4);
		} else {
			uw_put_le(buf, fde + SFRAME_V2_FDE_START, func - env->sec, 4);
			uw_put_le(buf, fde + SFRAME_V2_FDE_SIZE, UW_FUNC_SIZE, 4);
			uw_put_le(buf, fde + SFRAME_V2_FDE_FRE_OFF, fre_rel, 4);
			uw_put_le(buf, fde + SFRAME_V2_FDE_NUM_FRES, f->nrows, 4);
			uw_put_le(buf, fde + SFRAME_V2_FDE_INFO, fde_info, 1);
		}
	}

	uw_put_le(buf, SFRAME_HDR_MAGIC, SFRAME_MAGIC, 2);
	uw_put_le(buf, SFRAME_HDR_VERSION, s->version, 1);
	uw_put_le(buf, SFRAME_HDR_FLAGS, SFRAME_F_FDE_SORTED |
		  (v3 ? SFRAME_F_FDE_FUNC_START_PCREL | SFRAME_F_SFU_CFA_ADDEND : 0) |
		  (s->saved_regs ? SFRAME_F_SFU_SAVED_REGS : 0) |
		  (s->injected ? SFRAME_F_SFU_INJECTED_CALLS : 0) |
		  (s->narrow ? SFRAME_F_SFU_NARROW_INDEX : 0), 1);
	uw_put_le(buf, SFRAME_HDR_ABI_ARCH, uw_arch.id == UW_ARCH_X86_64 ?
		  SFRAME_ABI_AMD64_ENDIAN_LITTLE : SFRAME_ABI_AARCH64_ENDIAN_LITTLE, 1);
	uw_put_le(buf, SFRAME_HDR_CFA_FIXED_RA, (u8)uw_arch.fixed_ra, 1);
	uw_put_le(buf, SFRAME_HDR_NUM_FDES, s->nfuncs, 4);
	uw_put_le(buf, SFRAME_HDR_NUM_FRES, nfres, 4);
	uw_put_le(buf, SFRAME_HDR_FRE_LEN, pos - fres, 4);
	uw_put_le(buf, SFRAME_HDR_FDEOFF, 0, 4);
	uw_put_le(buf, SFRAME_HDR_FREOFF, fres - SFRAME_HDR_SIZE, 4);
	return pos;
}

/* Map readable, writable memory with @prot, near @hint if not 0. */
/*
 * Map @len bytes near @hint.  Text (PROT_EXEC) is a file's, as a
 * program's or a library's is (a shmem file: its pages are not anonymous),
 * unless @jit: then anonymous memory, as a JIT compiler's code is, whose
 * frame records the fallback takes as perf does (sfu_fp_ra_check()).
 */
static unsigned long uw_map(struct uw_env *env, unsigned long hint, size_t len,
			    unsigned long prot, bool jit)
{
	struct sfu_user_ctx *u = &env->u;
	struct file *file = NULL;
	unsigned long addr;

	if (u->nmaps == SFU_USER_MAX_MAPS) {
		KUNIT_FAIL(env->test, "too many mappings");
		return 0;
	}
	len = PAGE_ALIGN(len);
	if ((prot & PROT_EXEC) && !jit) {
		file = shmem_file_setup("sfu-kunit-text", len, SFU_SHMEM_NO_FLAGS);
		if (IS_ERR(file)) {
			KUNIT_FAIL(env->test, "shmem_file_setup: %ld", PTR_ERR(file));
			return 0;
		}
	}
	addr = vm_mmap(file, hint, len, PROT_READ | PROT_WRITE | prot,
		       file ? MAP_SHARED : MAP_ANONYMOUS | MAP_PRIVATE, 0);
	if (file)
		fput(file);
	if (IS_ERR_VALUE(addr)) {
		KUNIT_FAIL(env->test, "vm_mmap(%zu) failed: %ld", len, (long)addr);
		return 0;
	}
	u->maps[u->nmaps].uaddr = addr;
	u->maps[u->nmaps].len = len;
	u->nmaps++;
	return addr;
}

static void uw_stack_put(struct uw_env *env, u32 at, unsigned long val)
{
	if (at > UW_STACK_SIZE - env->ws) {
		KUNIT_FAIL(env->test, "stack word at %#x outside the stack", at);
		return;
	}
	uw_put_le(env->stack_img, at, val, env->ws);
	__set_bit(at / PAGE_SIZE, env->touched);
}

/*
 * A call instruction ending at every function's + 0x40, the return
 * address the cases' stacks hold: the frame-pointer fallback takes no
 * other.  This also makes the text page present.
 */
static bool uw_write_calls(struct uw_env *env)
{
	unsigned long at;
	unsigned int fn;

	for (fn = 0; fn < PAGE_SIZE / UW_FUNC_SIZE; fn++) {
		at = env->text + fn * UW_FUNC_SIZE + 0x40 - uw_arch.call_len;
		if (copy_to_user((void __user *)at, uw_arch.call, uw_arch.call_len)) {
			KUNIT_FAIL(env->test, "cannot write the text");
			return false;
		}
	}
	return true;
}

/* Where the .eh_frame_hdr of a text with a function table is, in its ELF page. */
#define UW_EH_HDR	0x800

/*
 * The page of the file before the text: an ELF header whose
 * PT_GNU_EH_FRAME table lists every function of the text (the file's
 * starts, as sfu_fn_start() finds them in a linked file).
 */
static bool uw_write_fn_table(struct uw_env *env, unsigned long page)
{
	struct {
		struct elf64_hdr eh;
		struct elf64_phdr ph[2];
	} hdr = {};
	struct {
		u8 version, frame_enc, count_enc, table_enc;
		s32 frame;
		u32 count;
		s32 e[PAGE_SIZE / UW_FUNC_SIZE][2];
	} __packed tab = {
		.version = 1,
		.frame_enc = 0x1b,	/* pcrel | sdata4 */
		.count_enc = 0x03,	/* udata4 */
		.table_enc = 0x3b,	/* datarel | sdata4 */
		.count = PAGE_SIZE / UW_FUNC_SIZE,
	};
	unsigned int i;

	sfu_kunit_elf_header(&hdr.eh, ARRAY_SIZE(hdr.ph));
	hdr.ph[0].p_type = PT_LOAD;
	hdr.ph[0].p_flags = PF_R | PF_X;
	hdr.ph[0].p_filesz = 2 * PAGE_SIZE;
	hdr.ph[0].p_memsz = 2 * PAGE_SIZE;
	hdr.ph[0].p_align = PAGE_SIZE;
	hdr.ph[1].p_type = PT_GNU_EH_FRAME;
	hdr.ph[1].p_flags = PF_R;
	hdr.ph[1].p_offset = UW_EH_HDR;
	hdr.ph[1].p_vaddr = UW_EH_HDR;
	hdr.ph[1].p_filesz = sizeof(tab);
	hdr.ph[1].p_memsz = sizeof(tab);
	hdr.ph[1].p_align = 4;
	for (i = 0; i < ARRAY_SIZE(tab.e); i++) {
		tab.e[i][0] = PAGE_SIZE + i * UW_FUNC_SIZE - UW_EH_HDR;
		tab.e[i][1] = 0;	/* the FDEs: never read */
	}
	return !copy_to_user((void __user *)page, &hdr, sizeof(hdr)) &&
	       !copy_to_user((void __user *)(page + UW_EH_HDR), &tab, sizeof(tab));
}

/*
 * Map text (anonymous memory with @jit, else a file's, with @fn_table
 * after a page that lists its functions), stack (with an unmapped page
 * after it) and, for @sec, the section near @hint; build and register
 * the section.  Only pages with words written to them are touched: the
 * others are not present until something faults them in.  Runs with the
 * borrowed mm: no assertions.
 */
static bool uw_map_all(struct uw_env *env, const struct uw_sec *sec, unsigned long hint,
		       bool jit, bool fn_table)
{
	struct kunit *test = env->test;
	int err, serr;

	if (fn_table) {
		env->text = uw_map(env, hint, 2 * PAGE_SIZE, PROT_EXEC, false);
		if (env->text && !uw_write_fn_table(env, env->text)) {
			KUNIT_FAIL(test, "cannot write the function table");
			return false;
		}
		if (env->text)
			env->text += PAGE_SIZE;
	} else {
		env->text = uw_map(env, hint, PAGE_SIZE, PROT_EXEC, jit);
	}
	/* Not executable: a return address there is no text. */
	env->stack = uw_map(env, hint ? hint + PAGE_SIZE : 0, UW_STACK_SIZE + PAGE_SIZE, 0, false);
	if (sec)
		env->sec = sfu_user_map(&env->u, UW_SEC_CAP);
	/* The guard page last, so that no later mapping fills the hole. */
	if (!env->text || !env->stack || (sec && !env->sec) ||
	    !sfu_user_unmap(&env->u, env->stack + UW_STACK_SIZE, PAGE_SIZE) ||
	    !uw_write_calls(env))
		return false;
	if (!sec)
		return true;
	env->sec_len = uw_build_section(env, sec, env->sec_img);
	if (copy_to_user((void __user *)env->sec, env->sec_img, env->sec_len)) {
		KUNIT_FAIL(test, "cannot write the section");
		return false;
	}
	err = sfu_registry_add(current->mm, env->sec, env->sec_len, env->text,
			       env->text + PAGE_SIZE, &serr);
	KUNIT_EXPECT_EQ_MSG(test, err, 0, "registration refused, decoder error %d", serr);
	env->registered = !err;
	return !err;
}

static bool uw_write_stack(struct uw_env *env)
{
	unsigned int page;

	for_each_set_bit(page, env->touched, UW_STACK_SIZE / PAGE_SIZE) {
		if (copy_to_user((void __user *)(env->stack + page * PAGE_SIZE),
				 env->stack_img + page * PAGE_SIZE, PAGE_SIZE)) {
			KUNIT_FAIL(env->test, "cannot write stack page %u", page);
			return false;
		}
	}
	return true;
}

static void uw_unmap_all(struct uw_env *env)
{
	if (env->registered)
		KUNIT_EXPECT_EQ(env->test, sfu_registry_remove(current->mm, env->text), 0);
	sfu_user_end(&env->u);
}

/* Allocations made before the case borrows the mm (asserting is allowed). */
static struct uw_env *uw_env_alloc(struct kunit *test)
{
	struct uw_env *env = kunit_kzalloc(test, sizeof(*env), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, env);
	env->test = test;
	env->ws = sizeof(unsigned long);
	env->stack_img = kunit_kzalloc(test, UW_STACK_SIZE, GFP_KERNEL);
	env->sec_img = kunit_kzalloc(test, UW_SEC_CAP, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, env->stack_img);
	KUNIT_ASSERT_NOT_NULL(test, env->sec_img);
	return env;
}

/*
 * A consumer of sfu_unwind_user_walk() that behaves as the kernel's
 * stack_trace_consume_entry(): it stores up to @size IPs and says "no
 * more" with the call that fills the store.
 */
struct uw_walk {
	unsigned int size;
	unsigned int len;
	unsigned int calls;
	unsigned long ips[UW_MAX_FRAMES];
};

static bool uw_walk_consume(void *cookie, unsigned long ip)
{
	struct uw_walk *w = cookie;

	w->calls++;
	if (w->len >= w->size)
		return false;
	w->ips[w->len++] = ip;
	return w->len < w->size;
}

struct uw_result {
	int nr;
	int stop;
	struct sfu_uframe frames[UW_MAX_FRAMES + 1];
	struct sfu_uframe want[UW_MAX_FRAMES];
	int want_nr;
	/* sfu_unwind_user_walk() with room for @max frames, then for one */
	struct uw_walk walk, walk1;
	int walk_nr, walk_stop, walk1_nr;
};

/* A case's code and GOT word; false if they cannot be written. */
static bool uw_write_text(struct uw_env *env, const struct uw_case *c)
{
	u64 word = uw_value(env, &c->got.val);

	if (c->text.len &&
	    copy_to_user((void __user *)uw_value(env, &c->text.at), c->text.bytes, c->text.len))
		return false;
	if (c->stub.len &&
	    copy_to_user((void __user *)uw_value(env, &c->stub.at), c->stub.bytes, c->stub.len))
		return false;
	return !c->got.val.kind ||
	       !copy_to_user((void __user *)(env->text + c->got.at), &word, sizeof(word));
}

static void uw_run_case(struct kunit *test, const struct uw_case *c, unsigned int mode)
{
	struct uw_result *res = kunit_kzalloc(test, sizeof(*res), GFP_KERNEL);
	struct uw_env *env = uw_env_alloc(test);
	struct pt_regs *regs = kunit_kzalloc(test, sizeof(*regs), GFP_KERNEL);
	struct uw_user_regs r = {};
	unsigned int i;
	bool ok;

	KUNIT_ASSERT_NOT_NULL(test, res);
	KUNIT_ASSERT_NOT_NULL(test, regs);
	if (!sfu_user_begin(test, &env->u))
		return;

	ok = uw_map_all(env, c->sec, 0, c->jit, c->fn_table);
	for (i = 0; ok && i < UW_MAX_WORDS && c->stack[i].val.kind; i++)
		uw_stack_put(env, c->stack[i].at, uw_value(env, &c->stack[i].val));
	ok = ok && uw_write_stack(env);
	if (ok && !uw_write_text(env, c)) {
		KUNIT_FAIL(test, "cannot write the text");
		ok = false;
	}

	if (ok) {
		r.ip = uw_value(env, &c->ip);
		r.sp = uw_value(env, &c->sp);
		r.fp = uw_value(env, &c->fp);
		r.lr = uw_value(env, &c->lr);
		r.scratch = uw_value(env, &c->scratch);
		r.tracked = uw_value(env, &c->tracked);
		r.go_g = uw_value(env, &c->go_g);
		r.compat = c->compat;
		uw_arch_set_regs(regs, &r);
		if (c->caller == UW_CALLER_PREEMPT_OFF)
			preempt_disable();
		else if (c->caller == UW_CALLER_PAGEFAULT_OFF)
			pagefault_disable();
		res->nr = sfu_unwind_user_regs(regs, res->frames, c->max ?: UW_MAX_FRAMES,
					       c->flags | mode, &res->stop);
		res->walk.size = c->max ?: UW_MAX_FRAMES;
		res->walk_nr = sfu_unwind_user_walk(regs, uw_walk_consume, &res->walk,
						    c->flags | mode, &res->walk_stop);
		res->walk1.size = 1;
		res->walk1_nr = sfu_unwind_user_walk(regs, uw_walk_consume, &res->walk1,
						     c->flags | mode, NULL);
		if (c->caller == UW_CALLER_PREEMPT_OFF)
			preempt_enable();
		else if (c->caller == UW_CALLER_PAGEFAULT_OFF)
			pagefault_enable();
		for (i = 0; i < UW_MAX_FRAMES && c->frames[i].ip.kind; i++) {
			res->want[i].ip = uw_value(env, &c->frames[i].ip);
			res->want[i].cfa = uw_value(env, &c->frames[i].cfa);
			res->want[i].method = c->frames[i].method;
		}
		res->want_nr = i;
	}
	uw_unmap_all(env);
	if (!ok)
		return;

	KUNIT_EXPECT_EQ(test, res->nr, res->want_nr);
	KUNIT_EXPECT_STREQ(test, sfu_end_name(res->stop), sfu_end_name(c->stop));
	for (i = 0; i < min(res->nr, res->want_nr); i++) {
		KUNIT_EXPECT_EQ_MSG(test, res->frames[i].ip, res->want[i].ip, "frame %u ip", i);
		KUNIT_EXPECT_EQ_MSG(test, res->frames[i].cfa, res->want[i].cfa, "frame %u cfa", i);
		KUNIT_EXPECT_EQ_MSG(test, res->frames[i].method, res->want[i].method,
				    "frame %u method", i);
	}

	/*
	 * Frame by frame, the same IPs; the walk ends with the call that
	 * filled the consumer, never calling it again: a "depth" stop if the
	 * stack went on, the stack's own if it ended there too.
	 */
	KUNIT_EXPECT_EQ(test, res->walk_nr, res->nr);
	KUNIT_EXPECT_EQ(test, res->walk.calls, res->nr);
	KUNIT_EXPECT_STREQ(test, sfu_end_name(res->walk_stop),
			   sfu_end_name(res->walk.size < res->nr ?
						SFU_END_DEPTH : res->stop));
	for (i = 0; i < min_t(unsigned int, res->nr, res->walk.len); i++)
		KUNIT_EXPECT_EQ_MSG(test, res->walk.ips[i], res->frames[i].ip, "walk frame %u", i);
	KUNIT_EXPECT_EQ(test, res->walk1_nr, min(res->nr, 1));
	KUNIT_EXPECT_EQ(test, res->walk1.calls, min(res->nr, 1));
	if (res->nr)
		KUNIT_EXPECT_EQ(test, res->walk1.ips[0], res->frames[0].ip);
}

/* Parameters: the rows for this architecture. */
static const void *uw_case_gen(const void *prev, char *desc)
{
	const struct uw_case *c = prev ? (const struct uw_case *)prev + 1 : uw_cases;

	for (; c < uw_cases + ARRAY_SIZE(uw_cases); c++) {
		if (c->arch && !(c->arch & uw_arch.id))
			continue;
		snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s", c->name);
		return c;
	}
	return NULL;
}

/* Parameters: the rows that run in both read modes. */
static const void *uw_case_gen_both_modes(const void *prev, char *desc)
{
	const struct uw_case *c = prev;

	do {
		c = uw_case_gen(c, desc);
	} while (c && c->one_mode);
	return c;
}

static void unwind_matches_the_table(struct kunit *test)
{
	uw_run_case(test, test->param_value, 0);
}

static void nofault_unwind_matches_the_table(struct kunit *test)
{
	uw_run_case(test, test->param_value, SFU_UNWIND_NOFAULT);
}

/* Compat tasks: a 4-byte frame-pointer chain below 4 GiB, or a clean stop. */
static void compat_task_walks_its_frame_pointers_or_stops(struct kunit *test)
{
	struct uw_env *env = uw_env_alloc(test);
	struct pt_regs *regs = kunit_kzalloc(test, sizeof(*regs), GFP_KERNEL);
	struct sfu_uframe frames[UW_MAX_FRAMES];
	struct uw_user_regs r = { .compat = true };
	unsigned long want[3] = {};
	int nr = -1, nr_nofp = -1, stop = -1, stop_nofp = -1;
	bool ok;

	KUNIT_ASSERT_NOT_NULL(test, regs);
	env->ws = sizeof(u32);
	if (!sfu_user_begin(test, &env->u))
		return;
	ok = uw_map_all(env, NULL, 0x40000000UL, false, false);
	if (ok && env->stack + UW_STACK_SIZE > U32_MAX) {
		KUNIT_FAIL(test, "no mapping below 4 GiB (got %#lx)", env->stack);
		ok = false;
	}
	if (ok) {
		/* frame record at 0x1100: {caller's FP, RA} of 4-byte words */
		uw_stack_put(env, 0x1100, env->stack + 0x1200);
		uw_stack_put(env, 0x1104, env->text + 0x140);
		uw_stack_put(env, 0x1200, 0);
		uw_stack_put(env, 0x1204, env->text + 0x240);
		ok = uw_write_stack(env);
	}
	if (ok) {
		r.ip = env->text + 0x10;
		r.sp = env->stack + 0x1000;
		r.fp = env->stack + 0x1100;
		uw_arch_set_regs(regs, &r);
		nr = sfu_unwind_user_regs(regs, frames, UW_MAX_FRAMES, 0, &stop);
		want[0] = frames[0].ip;
		want[1] = nr > 1 ? frames[1].ip : 0;
		want[2] = nr > 2 ? frames[2].ip : 0;
		nr_nofp = sfu_unwind_user_regs(regs, frames, UW_MAX_FRAMES, SFU_UNWIND_NO_FP,
					       &stop_nofp);
	}
	uw_unmap_all(env);
	if (!ok)
		return;

	KUNIT_EXPECT_EQ(test, want[0], env->text + 0x10);
	KUNIT_EXPECT_EQ(test, nr_nofp, 1);
	KUNIT_EXPECT_EQ(test, stop_nofp, SFU_END_COMPAT);
	if (!uw_arch.compat_fp_walk) {
		KUNIT_EXPECT_EQ(test, nr, 1);
		KUNIT_EXPECT_EQ(test, stop, SFU_END_COMPAT);
		return;
	}
	KUNIT_EXPECT_EQ(test, nr, 3);
	KUNIT_EXPECT_EQ(test, stop, SFU_END_FP_END);
	KUNIT_EXPECT_EQ(test, want[1], env->text + 0x140);
	KUNIT_EXPECT_EQ(test, want[2], env->text + 0x240);
}

static void kernel_thread_has_no_user_stack(struct kunit *test)
{
	struct sfu_uframe frames[2];
	int stop = -1;

	KUNIT_EXPECT_EQ(test, sfu_unwind_user(frames, ARRAY_SIZE(frames), 0, &stop), 0);
	KUNIT_EXPECT_EQ(test, stop, SFU_END_NOT_USER);
}

static void kernel_mode_registers_are_not_unwound(struct kunit *test)
{
	struct pt_regs *regs = kunit_kzalloc(test, sizeof(*regs), GFP_KERNEL);
	struct uw_user_regs r = { .ip = 0x400000, .sp = 0x7ff000, .kernel = true };
	struct sfu_user_ctx u;
	struct sfu_uframe frames[2];
	int nr, stop = -1;

	KUNIT_ASSERT_NOT_NULL(test, regs);
	uw_arch_set_regs(regs, &r);
	if (!sfu_user_begin(test, &u))
		return;
	nr = sfu_unwind_user_regs(regs, frames, ARRAY_SIZE(frames), 0, &stop);
	sfu_user_end(&u);
	KUNIT_EXPECT_EQ(test, nr, 0);
	KUNIT_EXPECT_EQ(test, stop, SFU_END_NOT_USER);
}

static void invalid_arguments_are_refused(struct kunit *test)
{
	struct pt_regs *regs = kunit_kzalloc(test, sizeof(*regs), GFP_KERNEL);
	struct sfu_uframe frames[2];

	KUNIT_ASSERT_NOT_NULL(test, regs);
	KUNIT_EXPECT_EQ(test, sfu_unwind_user_regs(regs, frames, 0, 0, NULL), -EINVAL);
	KUNIT_EXPECT_EQ(test, sfu_unwind_user_regs(regs, NULL, 2, 0, NULL), -EINVAL);
	KUNIT_EXPECT_EQ(test, sfu_unwind_user_regs(regs, frames, 2, 0x80, NULL), -EINVAL);
	KUNIT_EXPECT_EQ(test, sfu_unwind_user_walk(regs, NULL, NULL, 0, NULL), -EINVAL);
	KUNIT_EXPECT_EQ(test, sfu_unwind_user_walk(regs, uw_walk_consume, NULL, 0x80, NULL),
			-EINVAL);
}

static void every_stop_reason_has_a_distinct_name(struct kunit *test)
{
	int i, j;

	for (i = 0; i < SFU_END_NR; i++) {
		KUNIT_EXPECT_STRNEQ(test, sfu_end_name(i), "unknown");
		for (j = 0; j < i; j++)
			KUNIT_EXPECT_STRNEQ(test, sfu_end_name(i), sfu_end_name(j));
	}
	KUNIT_EXPECT_STREQ(test, sfu_end_name(SFU_END_NR), "unknown");
	KUNIT_EXPECT_STREQ(test, sfu_end_name(-1), "unknown");
}

/*
 * The PAC cases sign their return addresses with the CPU's key where it has
 * one (uw_arch_sign_ra()), else set the PAC field's bits themselves: either
 * way the address changes, and the unwinder's strip gives it back on arm64,
 * where x86_64, which has no PAC, keeps every bit (and then refuses the
 * address as not a user one).  Skipped, after that, where the CPU signs
 * nothing: the real signature was not tried.
 */
static void pointer_authentication_signs_for_real_where_the_cpu_can(struct kunit *test)
{
	unsigned long ra = 0x400123, signed_ra;
	bool real;

	signed_ra = uw_arch_sign_ra(ra, &real);
	KUNIT_EXPECT_NE(test, signed_ra, ra);
	KUNIT_EXPECT_EQ(test, uw_arch_return_address(signed_ra),
			uw_arch.id == UW_ARCH_ARM64 ? ra : signed_ra);
	if (!real)
		kunit_skip(test, "no pointer authentication: PAC cases used synthetic bits");
	kunit_info(test, "signed %#lx as %#lx", ra, signed_ra);
}

/*
 * Native perf callchains leave a sample to perf's stock walk while a KVM
 * vCPU thread runs its guest: the stock walk records no user stack for
 * guest samples (perf_guest_state()), and the redirection must not record
 * the vCPU thread's instead.
 */
static void perf_leaves_samples_of_a_vcpu_in_its_guest_to_the_stock_walk(struct kunit *test)
{
	struct pt_regs *regs = kunit_kzalloc(test, sizeof(*regs), GFP_KERNEL);
	struct uw_user_regs r = { .ip = 0x400000, .sp = 0x7ff000 };
	bool native, in_guest;

	KUNIT_ASSERT_NOT_NULL(test, regs);
	uw_arch_set_regs(regs, &r);
	KUNIT_EXPECT_TRUE(test, sfu_perf_arch_native(regs));
	/* What guest_timing_enter_irqoff() does to the vCPU thread. */
	current->flags |= PF_VCPU;
	in_guest = sfu_perf_arch_native(regs);
	current->flags &= ~PF_VCPU;
	native = sfu_perf_arch_native(regs);
	KUNIT_EXPECT_FALSE(test, in_guest);
	KUNIT_EXPECT_TRUE(test, native);
}

/*
 * The sampler (trace.c) and the redirections ask the same question: a
 * vCPU thread in its guest run takes the guest's samples, not its own.
 */
static void samples_of_a_vcpu_in_its_guest_are_the_guests(struct kunit *test)
{
	bool in_guest, outside;

	current->flags |= PF_VCPU;
	in_guest = sfu_perf_arch_guest_sample();
	current->flags &= ~PF_VCPU;
	outside = sfu_perf_arch_guest_sample();
	KUNIT_EXPECT_TRUE(test, in_guest);
	KUNIT_EXPECT_FALSE(test, outside);
}

static int uw_suite_init(struct kunit_suite *suite)
{
	return sfu_kunit_mm_get();
}

static void uw_suite_exit(struct kunit_suite *suite)
{
	sfu_kunit_mm_put();
}

SFU_KUNIT_PARAM_GEN(uw_case_params, uw_case_gen)
SFU_KUNIT_PARAM_GEN(uw_case_params_both_modes, uw_case_gen_both_modes)

static struct kunit_case uw_test_cases[] = {
	KUNIT_CASE_PARAM(unwind_matches_the_table, uw_case_params),
	KUNIT_CASE_PARAM(nofault_unwind_matches_the_table, uw_case_params_both_modes),
	KUNIT_CASE(compat_task_walks_its_frame_pointers_or_stops),
	KUNIT_CASE(kernel_thread_has_no_user_stack),
	KUNIT_CASE(kernel_mode_registers_are_not_unwound),
	KUNIT_CASE(invalid_arguments_are_refused),
	KUNIT_CASE(every_stop_reason_has_a_distinct_name),
	KUNIT_CASE(pointer_authentication_signs_for_real_where_the_cpu_can),
	KUNIT_CASE(perf_leaves_samples_of_a_vcpu_in_its_guest_to_the_stock_walk),
	KUNIT_CASE(samples_of_a_vcpu_in_its_guest_are_the_guests),
	{}
};

static struct kunit_suite uw_suite = {
	.name = "sframe_unwind_user",
	.suite_init = uw_suite_init,
	.suite_exit = uw_suite_exit,
	.test_cases = uw_test_cases,
};

kunit_test_suites(&uw_suite);
