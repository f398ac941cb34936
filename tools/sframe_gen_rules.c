// SPDX-License-Identifier: GPL-2.0
/*
 * sframe-gen, CFI side: the rows of one FDE.  libdw interprets the CFI:
 * dwarf_cfi_addrframe() gives the rules at a PC and the range they hold
 * for, so an FDE is walked row by row from its start, and each row's rules
 * are mapped onto what SFrame can say; a row it cannot say is kept with
 * the reason, never approximated.  The AArch64 RA signing state, which
 * libdw does not give, comes from sframe_gen_insns.c; the rows of the
 * AArch64 PLT blocks no FDE covers are written here from what the blocks
 * are known to do.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <dwarf.h>
#include <linux/kernel.h>

#include "sframe/sframe.h"
#include "sframe_gen_cfi.h"

/*
 * Bounds on the work (libdw runs an FDE's instructions again for each row,
 * so an FDE costs rows x instruction bytes): per FDE, far above any real
 * one (most have a few hundred rows of a few hundred bytes; the largest
 * seen, _PyEval_EvalFrameDefault of Debian 13's arm64 libpython3.13, has
 * 8,377 rows of 25 KB: 212 MB, 0.3 s), and per file.
 */
#define SFG_MAX_FDE_ROWS	(4U * SFRAME_MAX_FDE_FRES)
#define SFG_MAX_FDE_WORK	(1024ULL * 1024 * 1024)
#define SFG_MAX_WORK		(16ULL * 1024 * 1024 * 1024)

/* Offsets SFrame stores are 32-bit. */
static bool sfg_fits32(s64 v)
{
	return v >= INT32_MIN && v <= INT32_MAX;
}

/* DW_OP_bregN / DW_OP_bregx: register and offset. */
static bool sfg_op_breg(const Dwarf_Op *op, u64 *reg, s64 *off)
{
	if (op->atom >= DW_OP_breg0 && op->atom <= DW_OP_breg31) {
		*reg = op->atom - DW_OP_breg0;
		*off = (s64)op->number;
		return true;
	}
	if (op->atom == DW_OP_bregx) {
		*reg = op->number;
		*off = (s64)op->number2;
		return true;
	}
	return false;
}

/*
 * The CFA expression ld writes for x86_64 lazy-binding PLT entries:
 *   DW_OP_breg7 (rsp) A; DW_OP_breg16 (rip) 0; DW_OP_litM; DW_OP_and;
 *   DW_OP_litK; DW_OP_ge; DW_OP_litS; DW_OP_shl; DW_OP_plus
 * i.e. CFA = rsp + A + (((rip & M) >= K) << S), M + 1 a power of two.
 */
static bool sfg_plt_expr(const struct sfg_arch *arch, const Dwarf_Op *ops, size_t n,
			 struct sfg_rule *rule)
{
	u64 reg, mask, split, shift;
	s64 off, rip_off;

	if (!arch->plt_mask || n != 9)
		return false;
	if (!sfg_op_breg(&ops[0], &reg, &off) || reg != arch->sp ||
	    !sfg_op_breg(&ops[1], &reg, &rip_off) || reg != arch->ra || rip_off)
		return false;
	if (ops[2].atom < DW_OP_lit0 || ops[2].atom > DW_OP_lit31 || ops[3].atom != DW_OP_and ||
	    ops[4].atom < DW_OP_lit0 || ops[4].atom > DW_OP_lit31 || ops[5].atom != DW_OP_ge ||
	    ops[6].atom < DW_OP_lit0 || ops[6].atom > DW_OP_lit31 || ops[7].atom != DW_OP_shl ||
	    ops[8].atom != DW_OP_plus)
		return false;
	mask = ops[2].atom - DW_OP_lit0;
	split = ops[4].atom - DW_OP_lit0;
	shift = ops[6].atom - DW_OP_lit0;
	if (mask & (mask + 1) || split == 0 || split > mask || shift > 16 || !sfg_fits32(off) ||
	    !sfg_fits32(off + (1LL << shift)))
		return false;
	rule->cfa_reg = arch->sp;
	rule->cfa_off = (s32)off;
	rule->rep_size = (u8)(mask + 1);
	rule->mask_split = (u8)split;
	rule->mask_add = 1 << shift;
	return true;
}

static u8 sfg_classify_cfa(const struct sfg_arch *arch, Dwarf_Frame *frame,
			   struct sfg_rule *rule)
{
	Dwarf_Op *ops;
	size_t n;
	u64 reg;
	s64 off;

	if (dwarf_frame_cfa(frame, &ops, &n))
		return SFG_BAD_CFI;
	if (!n)
		return SFG_CFA_UNDEFINED;
	if (sfg_plt_expr(arch, ops, n, rule))
		return SFG_ROW_OK;
	/*
	 * reg + off; *(reg + off), a CFA saved on a realigned stack; and
	 * *(reg + off) + K, OpenSSL's form of it, whose saved value is the SP
	 * before the call's return address was pushed.
	 */
	if (n > 3 || !sfg_op_breg(&ops[0], &reg, &off) || (n >= 2 && ops[1].atom != DW_OP_deref) ||
	    (n == 3 && ops[2].atom != DW_OP_plus_uconst))
		return SFG_CFA_EXPR;
	if (reg > 0xff)
		return SFG_CFA_EXPR;
	if (!sfg_fits32(off) || (n == 3 && ops[2].number > INT32_MAX))
		return SFG_OFFSET;
	rule->cfa_reg = (u8)reg;
	rule->cfa_off = (s32)off;
	rule->cfa_deref = n >= 2;
	rule->cfa_add = n == 3 ? (s32)ops[2].number : 0;
	if (rule->cfa_add && !arch->cfa_addend)
		return SFG_CFA_EXPR;
	if (!arch->flex) {
		if (rule->cfa_deref)
			return SFG_CFA_EXPR;
		if (reg != arch->sp && reg != arch->fp)
			return SFG_CFA_REG;
	}
	return SFG_ROW_OK;
}

/* Where libdw says RA or FP of the caller is; @undefined if nowhere. */
static u8 sfg_classify_loc(Dwarf_Frame *frame, int regno, struct sfg_loc *loc, bool *undefined,
			   u8 reason)
{
	Dwarf_Op mem[3], *ops;
	u64 reg;
	size_t n;
	s64 off;

	*undefined = false;
	if (dwarf_frame_register(frame, regno, mem, &ops, &n))
		return SFG_BAD_CFI;
	if (!n) {
		/* ops == NULL: same value; ops == mem: undefined. */
		if (ops)
			*undefined = true;
		loc->kind = SFG_LOC_SAME;
		return SFG_ROW_OK;
	}
	if (ops[0].atom == DW_OP_call_frame_cfa && (n == 1 || ops[1].atom == DW_OP_plus_uconst)) {
		/* reg_offset: saved at CFA + off; with DW_OP_stack_value a value. */
		off = n > 1 ? (s64)ops[1].number : 0;
		if (n > 2)
			return reason;
		if (!sfg_fits32(off))
			return SFG_OFFSET;
		loc->kind = SFG_LOC_CFA;
		loc->off = (s32)off;
		return SFG_ROW_OK;
	}
	if (n == 1 && ops[0].atom == DW_OP_regx) {
		/* DW_CFA_register: the value is in another register. */
		if (ops[0].number > 0xff)
			return reason;
		loc->kind = SFG_LOC_REG;
		loc->reg = (u8)ops[0].number;
		return SFG_ROW_OK;
	}
	/*
	 * DW_CFA_expression (a slot at reg + off) or DW_CFA_val_expression
	 * (the value reg + off, DW_OP_stack_value last).  libdw puts the CFA
	 * the expression starts with on the stack first; a DW_OP_breg after
	 * it leaves it unused.
	 */
	if (ops[0].atom == DW_OP_call_frame_cfa) {
		ops++;
		n--;
	}
	if (sfg_op_breg(&ops[0], &reg, &off) && reg <= 0xff &&
	    (n == 1 || (n == 2 && ops[1].atom == DW_OP_stack_value))) {
		if (!sfg_fits32(off))
			return SFG_OFFSET;
		loc->kind = SFG_LOC_REG;
		loc->reg = (u8)reg;
		loc->off = (s32)off;
		loc->deref = n == 1;
		return SFG_ROW_OK;
	}
	return reason;
}

/*
 * Where the caller's tracked register is (SFRAME_F_SFU_SAVED_REGS): a slot
 * below the CFA, unchanged, or anywhere else, which the row says is lost.
 */
static void sfg_classify_saved(const struct sfg_arch *arch, Dwarf_Frame *frame,
			       bool saved_undef, struct sfg_rule *rule)
{
	struct sfg_loc loc = { 0 };
	bool undefined;
	u8 r;

	r = sfg_classify_loc(frame, arch->saved_reg, &loc, &undefined, SFG_BAD_CFI);
	/* libdw's "undefined" of a register the FDE never names: unchanged. */
	if (r == SFG_ROW_OK && loc.kind == SFG_LOC_SAME && (!undefined || !saved_undef)) {
		rule->saved = SFG_SAVED_NONE;
	} else if (r == SFG_ROW_OK && loc.kind == SFG_LOC_CFA && loc.off < 0 && !(loc.off % 8)) {
		rule->saved = SFG_SAVED_CFA;
		rule->saved_off = loc.off;
	} else {
		rule->saved = SFG_SAVED_LOST;
	}
}

/* Data words of a FLEX FRE for @rule, which must not exceed what its section allows. */
static unsigned int sfg_flex_words(const struct sfg_arch *arch, const struct sfg_rule *rule)
{
	bool ra_default = sfg_rule_ra_default(arch, &rule->ra);
	unsigned int n = 2 + !!rule->cfa_add;

	if (rule->saved != SFG_SAVED_NONE)
		return n + (ra_default ? 1 : 2) + (rule->fp.kind == SFG_LOC_SAME ? 1 : 2) + 2;
	if (rule->fp.kind != SFG_LOC_SAME)
		return n + (ra_default ? 1 : 2) + 2;
	return n + (ra_default ? 0 : 2);
}

/* The rules at one PC, as SFrame can say them, or why they cannot be. */
static u8 sfg_classify(const struct sfg_arch *arch, Dwarf_Frame *frame, int ra_regno,
		       bool saved_undef, struct sfg_rule *rule)
{
	bool undefined;
	u8 r;

	memset(rule, 0, sizeof(*rule));
	if (ra_regno != arch->ra)
		return SFG_RA_RULE;
	r = sfg_classify_loc(frame, arch->ra, &rule->ra, &undefined, SFG_RA_RULE);
	if (r != SFG_ROW_OK)
		return r;
	if (undefined) {
		/* DW_CFA_undefined of the RA column: the outermost frame. */
		memset(rule, 0, sizeof(*rule));
		rule->outermost = true;
		return SFG_ROW_OK;
	}
	r = sfg_classify_cfa(arch, frame, rule);
	if (r != SFG_ROW_OK)
		return r;

	if (arch->fixed_ra) {
		/* AMD64: RA is always saved somewhere. */
		if (rule->ra.kind == SFG_LOC_SAME)
			return SFG_RA_RULE;
	} else if (rule->ra.kind == SFG_LOC_REG ||
		   (rule->ra.kind == SFG_LOC_CFA && !rule->ra.off)) {
		/* AArch64 DEFAULT FREs: an RA word of 0 means "not saved". */
		return SFG_RA_RULE;
	}
	r = sfg_classify_loc(frame, arch->fp, &rule->fp, &undefined, SFG_FP_RULE);
	if (r != SFG_ROW_OK)
		return r;
	/* SFrame has no "FP undefined": "not saved" would claim it unchanged. */
	if (undefined || (!arch->flex && rule->fp.kind == SFG_LOC_REG))
		return SFG_FP_RULE;
	if (rule->rep_size &&
	    (rule->ra.kind != SFG_LOC_CFA || rule->ra.off != arch->fixed_ra ||
	     rule->fp.kind != SFG_LOC_SAME))
		return SFG_CFA_EXPR;
	if (arch->saved_reg)
		sfg_classify_saved(arch, frame, saved_undef, rule);
	/* A PLT block saves nothing; its PC-mask FDE is DEFAULT. */
	if (rule->rep_size && rule->saved != SFG_SAVED_NONE)
		return SFG_CFA_EXPR;
	/*
	 * An addend takes a word: with RA and FP pairs that is seven of six,
	 * and with a saved register too, nine of eight.
	 */
	if (sfg_flex_words(arch, rule) >
	    (rule->saved != SFG_SAVED_NONE ? SFRAME_FRE_MAX_WORDS : SFRAME_FRE_STD_MAX_WORDS))
		return SFG_CFA_EXPR;
	return SFG_ROW_OK;
}

/* A PLT rule needs its repeated blocks aligned like the PCs it tests. */
static u8 sfg_check_mask(const struct sfg_row *row)
{
	u64 rep = row->rule.rep_size;

	if (row->start % rep)
		return SFG_CFA_EXPR;
	return SFG_ROW_OK;
}

/* Where the RA signing state of @f changes, into w->ra[0, *n). */
static int sfg_walk_ra(const struct sfg_fde *f, struct sfg_walk *w, u64 *n)
{
	u64 need = (u64)(f->prog.fde_end - f->prog.fde) + 1;

	*n = 0;
	if (!f->ra_signing)
		return 0;
	if (need > w->ra_cap) {
		struct sfg_ra_change *v = realloc(w->ra, need * sizeof(*v));

		if (!v)
			return -SFG_E_NOMEM;
		w->ra = v;
		w->ra_cap = need;
	}
	sfg_prog_scan(&f->prog, f->lo, w->ra, n, NULL);
	return 0;
}

/*
 * Rows of one FDE, from libdw, until its end or the first failure.  On
 * AArch64 a row also ends where the RA signing state changes, and carries
 * that state.
 */
int sfg_walk_fde(Dwarf_CFI *cfi, const struct sfg_arch *arch, const struct sfg_fde *f,
		 struct sfg_walk *w, bool *signal)
{
	u64 addr = f->lo, work = 0;
	bool ra_on = false;
	u64 nra, k = 0;
	int err;

	*signal = false;
	w->rows.n = 0;
	err = sfg_walk_ra(f, w, &nra);
	if (err)
		return err;
	while (addr < f->hi) {
		Dwarf_Addr start, end;
		struct sfg_rule rule;
		Dwarf_Frame *frame;
		bool sig;
		int ra;
		u8 r;

		if (w->rows.n >= SFG_MAX_FDE_ROWS || work > SFG_MAX_FDE_WORK ||
		    w->work > SFG_MAX_WORK)
			return sfg_rows_add(&w->rows, addr, f->hi, SFG_TOO_BIG, NULL);
		work += f->insn_bytes;
		w->work += f->insn_bytes;
		if (dwarf_cfi_addrframe(cfi, addr, &frame))
			return sfg_rows_add(&w->rows, addr, f->hi, SFG_BAD_CFI, NULL);
		ra = dwarf_frame_info(frame, &start, &end, &sig);
		/* The row must hold at addr and end after it. */
		if (ra < 0 || start > addr || end <= addr) {
			free(frame);
			return sfg_rows_add(&w->rows, addr, f->hi, SFG_BAD_CFI, NULL);
		}
		if (end > f->hi)
			end = f->hi;
		/* The state at addr, and the row ends where it next changes. */
		while (k < nra && w->ra[k].pc <= addr)
			ra_on = w->ra[k++].on;
		if (k < nra && w->ra[k].pc < end)
			end = w->ra[k].pc;
		if (sig)
			*signal = true;
		r = sfg_classify(arch, frame, ra, addr >= f->saved_undef, &rule);
		free(frame);
		/* An outermost frame has no RA to be signed. */
		if (r == SFG_ROW_OK && !rule.outermost)
			rule.ra_signed = ra_on;
		err = sfg_rows_add(&w->rows, addr, end, r, r == SFG_ROW_OK ? &rule : NULL);
		if (err)
			return err;
		if (r == SFG_ROW_OK && rule.rep_size) {
			struct sfg_row *last = &w->rows.v[w->rows.n - 1];

			last->reason = sfg_check_mask(last);
		}
		addr = end;
	}
	return 0;
}

/*
 * AArch64: an RA saved above the CFA.  glibc's _dl_runtime_resolve and
 * _dl_runtime_profile are entered from PLT0, which has pushed 16 bytes
 * (&PLTGOT[n] and the caller's LR: stp x16, x30, [sp, #-16]!); their CFI
 * keeps the CIE's CFA, the SP at their entry, and says the RA is at
 * CFA+8.  Taken as it is, that CFA is the caller's SP 16 bytes short, and
 * the caller's rows then read its RA and FP from the wrong slots: the
 * chain breaks in the caller of every lazily bound function.  No frame
 * saves its RA in its caller's frame, so an RA at or above the CFA means
 * the frame began above the CFA the CFI names: every row of the FDE gets
 * its CFA that much higher (16-byte aligned, to cover the RA's slot) and
 * the offsets from it that much lower.  Rows of the same FDE all get the
 * same shift, which is what PLT0's push is.  Only rows with the CFA on SP
 * say so: where it is on another register (setcontext's on x0, the
 * ucontext) the registers are saved above it by design.
 */
void sfg_fix_pushed_ra(const struct sfg_arch *arch, struct sfg_rows *rows)
{
	s32 max = -1, d;
	u32 i;

	if (arch->fixed_ra)
		return;
	for (i = 0; i < rows->n; i++) {
		const struct sfg_rule *r = &rows->v[i].rule;

		if (rows->v[i].reason == SFG_ROW_OK && !r->outermost &&
		    r->cfa_reg == arch->sp && !r->cfa_deref &&
		    r->ra.kind == SFG_LOC_CFA && r->ra.off > max)
			max = r->ra.off;
	}
	if (max < 0 || max > 4096)
		return;
	d = (max + 8 + 15) & ~15;
	for (i = 0; i < rows->n; i++) {
		struct sfg_rule *r = &rows->v[i].rule;

		if (rows->v[i].reason != SFG_ROW_OK || r->outermost)
			continue;
		if (r->cfa_off > INT32_MAX - d) {
			rows->v[i].reason = SFG_OFFSET;
			continue;
		}
		r->cfa_off += d;
		if (r->ra.kind == SFG_LOC_CFA)
			r->ra.off -= d;
		if (r->fp.kind == SFG_LOC_CFA)
			r->fp.off -= d;
	}
}

/* A PLT row [lo, hi), merged into the row before when it says the same. */
static int sfg_plt_row(struct sfg_rows *rows, u64 lo, u64 hi, const struct sfg_rule *rule)
{
	struct sfg_row *last = rows->n ? &rows->v[rows->n - 1] : NULL;

	if (last && last->end == lo && last->rule.cfa_off == rule->cfa_off) {
		last->end = hi;
		return 0;
	}
	return sfg_rows_add(rows, lo, hi, SFG_ROW_OK, rule);
}

/*
 * The rows of the PLT blocks of @f: CFA = SP, or SP + 16 after PLT0's
 * push; RA in LR and FP unchanged throughout, the rules of a leaf
 * function's CFI before it saves anything.
 */
int sfg_walk_plt(const struct sfg_arch *arch, const struct sfg_plt *plt,
		 const struct sfg_fde *f, struct sfg_rows *rows)
{
	struct sfg_rule entry = { .cfa_reg = arch->sp }, pushed = entry;
	size_t i;
	int err = 0;

	pushed.cfa_off = SFG_PLT0_PUSH;
	rows->n = 0;
	for (i = f->plt_first; !err && i < f->plt_first + f->plt_n; i++) {
		const struct sfg_plt_block *b = &plt->v[i];

		if (b->pushed) {
			err = sfg_plt_row(rows, b->lo, b->pushed, &entry);
			if (!err)
				err = sfg_plt_row(rows, b->pushed, b->hi, &pushed);
		} else {
			err = sfg_plt_row(rows, b->lo, b->hi, &entry);
		}
	}
	return err;
}
