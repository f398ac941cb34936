// SPDX-License-Identifier: GPL-2.0
/*
 * sframe-gen, CFI side: the instructions of an FDE walked again, beside
 * libdw, for what it does not tell (the AArch64 RA signing state, below;
 * where a DW_CFA_undefined names x86_64 rbx) and what it must not see
 * (register numbers it would size its tables by).  It decodes the
 * operands with sframe_gen_ehframe.c and calls nothing else.
 */
#include <stdint.h>

#include <dwarf.h>
#include <linux/kernel.h>

#include "sframe_gen_cfi.h"

/* AArch64 DW_CFA_AARCH64_negate_ra_state shares its opcode with window_save. */
#define SFG_CFA_NEGATE_RA_STATE	0x2d

/*
 * AArch64 return address signing.  DW_CFA_AARCH64_negate_ra_state toggles
 * whether the RA (in x30, or in the slot it is saved to) carries a pointer
 * authentication code; DW_CFA_remember_state and DW_CFA_restore_state save
 * and restore that state with the rest of the row; an FDE starts with the
 * RA not signed, then its CIE's initial instructions may toggle it.  The
 * key is B where the CIE's augmentation has 'B', else A.
 *
 * libdw has no way to tell: a Dwarf_Frame gives the CFA and one rule per
 * register, dwarf_frame_info() the range, RA column and signal bit, and
 * the opcode (which DW_CFA_GNU_window_save shares) leaves nothing there a
 * caller could read.  So the instructions are walked again here, for that
 * one bit: every operand is stepped over and every location change
 * followed (advances scaled by the code alignment factor, DW_CFA_set_loc
 * in the FDE's pointer encoding), and the result is where the state
 * changes.  All other rules still come from libdw.
 */

/* x86_64 rbx, the register SFRAME_F_SFU_SAVED_REGS tracks. */
#define SFG_AMD64_RBX		3

/*
 * libdw sizes a frame's register table by the highest register number an
 * FDE names, so hostile CFI naming register 2^26 costs gigabytes; real
 * ones stay below 128 (x86_64) and 100 (aarch64).
 */
#define SFG_MAX_DWARF_REG	1024

/* AArch64 RA_SIGN_STATE pseudo-register: a rule for it is not followed. */
#define SFG_AARCH64_RA_SIGN_STATE	34

/* Nested DW_CFA_remember_state the RA signing state is followed through. */
#define SFG_MAX_REMEMBER	64

/* State of one walk over a struct sfg_prog. */
struct sfg_scan {
	unsigned int flags;
	u64 loc;		/* the location the instructions apply at */
	bool ra_on;		/* RA signed from @loc on */
	u64 ra_saved;		/* DW_CFA_remember_state's stack of ra_on, a bit each */
	u32 ra_depth;
	struct sfg_ra_change *changes;	/* NULL: not recorded */
	u64 nchanges;
	u64 undef_rbx;		/* first location of a DW_CFA_undefined of rbx */
};

static bool sfg_reg(struct sfg_cur *c, unsigned int *flags)
{
	u64 reg;

	if (!sfg_uleb(c, &reg))
		return false;
	if (reg > SFG_MAX_DWARF_REG)
		*flags |= SFG_SCAN_BIG_REG;
	if (reg == SFG_AARCH64_RA_SIGN_STATE)
		*flags |= SFG_SCAN_RA_REG;
	return true;
}

/*
 * The state reached at s->loc holds until the next location: record it
 * where it differs from the one before.  Called before each change of
 * location and at the end, so only the state after the last instruction
 * at a location counts (toggled twice there, it has not changed).
 */
static void sfg_scan_mark(struct sfg_scan *s)
{
	struct sfg_ra_change *last;

	if (!s->changes)
		return;
	last = s->nchanges ? &s->changes[s->nchanges - 1] : NULL;
	if (last && last->pc == s->loc) {
		/* An advance by 0: the later state wins. */
		last->on = s->ra_on;
		if (s->nchanges == 1 ? !last->on : last->on == last[-1].on)
			s->nchanges--;
		return;
	}
	if (s->ra_on == (last ? last->on : false))
		return;
	s->changes[s->nchanges].pc = s->loc;
	s->changes[s->nchanges].on = s->ra_on;
	s->nchanges++;
}

/* Move to location @loc; a DW_CFA_set_loc backwards is not followed. */
static bool sfg_scan_advance(struct sfg_scan *s, bool in_cie, u64 loc)
{
	/* libdw runs a CIE's instructions whole, wherever they advance to. */
	if (in_cie)
		return true;
	if (loc < s->loc)
		return false;
	sfg_scan_mark(s);
	s->loc = loc;
	return true;
}

static bool sfg_scan_delta(struct sfg_scan *s, bool in_cie, const struct sfg_prog *prog,
			   u64 delta)
{
	u64 d = delta * prog->caf;

	if (prog->caf && d / prog->caf != delta)
		return false;
	if (d > UINT64_MAX - s->loc)
		return false;
	return sfg_scan_advance(s, in_cie, s->loc + d);
}

static bool sfg_scan_fixed(struct sfg_cur *c, unsigned int bytes, u64 *v)
{
	unsigned int i;

	if ((u64)(c->end - c->p) < bytes)
		return false;
	*v = 0;
	for (i = 0; i < bytes; i++)
		*v |= (u64)c->p[i] << (8 * i);
	c->p += bytes;
	return true;
}

/* DW_CFA_advance_loc, DW_CFA_offset and DW_CFA_restore: operands in the opcode. */
static bool sfg_scan_primary(const struct sfg_prog *prog, bool in_cie, struct sfg_scan *s,
			     u8 op, struct sfg_cur *c)
{
	u64 v;

	if ((op & 0xc0) == DW_CFA_advance_loc) {
		if (!sfg_scan_delta(s, in_cie, prog, op & 0x3f))
			s->flags |= SFG_SCAN_RA_LOST;
		return true;
	}
	if ((op & 0x3f) == SFG_AARCH64_RA_SIGN_STATE)
		s->flags |= SFG_SCAN_RA_REG;
	return (op & 0xc0) != DW_CFA_offset || sfg_uleb(c, &v);
}

/* The opcodes that change the RA signing state, or keep it for later. */
static void sfg_scan_state(struct sfg_scan *s, u8 op)
{
	switch (op) {
	case DW_CFA_remember_state:
		if (s->ra_depth >= SFG_MAX_REMEMBER) {
			s->flags |= SFG_SCAN_RA_LOST;
			break;
		}
		s->ra_saved = (s->ra_saved << 1) | s->ra_on;
		s->ra_depth++;
		break;
	case DW_CFA_restore_state:
		/* Without a state remembered libdw fails the row. */
		if (!s->ra_depth) {
			s->flags |= SFG_SCAN_RA_LOST;
			break;
		}
		s->ra_on = s->ra_saved & 1;
		s->ra_saved >>= 1;
		s->ra_depth--;
		break;
	case SFG_CFA_NEGATE_RA_STATE:
		s->flags |= SFG_SCAN_PAUTH;
		s->ra_on = !s->ra_on;
		break;
	}
}

/* DW_CFA_set_loc and DW_CFA_advance_loc1, 2 and 4: the location moves. */
static bool sfg_scan_loc(const struct sfg_prog *prog, bool in_cie, struct sfg_scan *s, u8 op,
			 struct sfg_cur *c)
{
	const u8 *field = c->p;
	bool ok;
	u64 v;

	if (op == DW_CFA_set_loc) {
		ok = sfg_read_encoded(c, prog->fde_enc, prog->sec_addr + (u64)(field - prog->sec),
				      &v);
		if (ok && !sfg_scan_advance(s, in_cie, v))
			s->flags |= SFG_SCAN_RA_LOST;
		return ok;
	}
	ok = sfg_scan_fixed(c, op == DW_CFA_advance_loc1 ? 1 : op == DW_CFA_advance_loc2 ? 2 : 4,
			    &v);
	if (ok && !sfg_scan_delta(s, in_cie, prog, v))
		s->flags |= SFG_SCAN_RA_LOST;
	return ok;
}

/* DW_CFA_undefined: a register number libdw would size a table by, or rbx. */
static bool sfg_scan_undefined(struct sfg_scan *s, struct sfg_cur *c)
{
	u64 v;

	if (!sfg_uleb(c, &v))
		return false;
	if (v > SFG_MAX_DWARF_REG)
		s->flags |= SFG_SCAN_BIG_REG;
	if (v == SFG_AMD64_RBX) {
		s->flags |= SFG_SCAN_UNDEF_RBX;
		s->undef_rbx = min(s->undef_rbx, s->loc);
	}
	return true;
}

/* Step over the operands of any other opcode, its registers checked. */
static bool sfg_scan_operands(struct sfg_scan *s, u8 op, struct sfg_cur *c)
{
	u64 v;

	switch (op) {
	case DW_CFA_def_cfa_offset:
	case DW_CFA_def_cfa_offset_sf:
	case DW_CFA_GNU_args_size:
		return sfg_uleb(c, &v);
	case DW_CFA_undefined:
		return sfg_scan_undefined(s, c);
	case DW_CFA_restore_extended:
	case DW_CFA_same_value:
	case DW_CFA_def_cfa_register:
		return sfg_reg(c, &s->flags);
	case DW_CFA_register:
		return sfg_reg(c, &s->flags) && sfg_reg(c, &s->flags);
	case DW_CFA_offset_extended:
	case DW_CFA_def_cfa:
	case DW_CFA_offset_extended_sf:
	case DW_CFA_def_cfa_sf:
	case DW_CFA_val_offset:
	case DW_CFA_val_offset_sf:
	case DW_CFA_GNU_negative_offset_extended:
		return sfg_reg(c, &s->flags) && sfg_uleb(c, &v);
	case DW_CFA_def_cfa_expression:
		return sfg_uleb(c, &v) && sfg_skip(c, v);
	case DW_CFA_expression:
	case DW_CFA_val_expression:
		return sfg_reg(c, &s->flags) && sfg_uleb(c, &v) && sfg_skip(c, v);
	default:
		/*
		 * Including DW_CFA_AARCH64_negate_ra_state_with_pc
		 * (0x2c, -mbranch-protection=pac-ret+pc), which
		 * SFrame has no bit for.
		 */
		return false;
	}
}

/*
 * Step over the CIE's (@in_cie) or the FDE's instructions of @prog: report
 * in s->flags what libdw must not see or cannot tell (register numbers
 * libdw would allocate gigabytes for, a state that cannot be followed) and
 * follow the AArch64 RA signing state.  No other rule is interpreted here:
 * libdw does that.  Return false at an opcode or operand it cannot step
 * over.
 */
static bool sfg_insns_scan(const struct sfg_prog *prog, bool in_cie, struct sfg_scan *s)
{
	struct sfg_cur c = in_cie ? (struct sfg_cur){ prog->cie, prog->cie_end } :
				    (struct sfg_cur){ prog->fde, prog->fde_end };

	while (c.p < c.end) {
		u8 op = *c.p++;
		bool ok = true;

		if (op & 0xc0) {
			ok = sfg_scan_primary(prog, in_cie, s, op, &c);
		} else if (op == DW_CFA_remember_state || op == DW_CFA_restore_state ||
			   op == SFG_CFA_NEGATE_RA_STATE) {
			sfg_scan_state(s, op);
		} else if (op == DW_CFA_set_loc || op == DW_CFA_advance_loc1 ||
			   op == DW_CFA_advance_loc2 || op == DW_CFA_advance_loc4) {
			ok = sfg_scan_loc(prog, in_cie, s, op, &c);
		} else if (op != DW_CFA_nop) {
			ok = sfg_scan_operands(s, op, &c);
		}
		if (!ok)
			return false;
	}
	return true;
}

/**
 * sfg_prog_scan() - walk the CIE's and the FDE's instructions
 * @prog: the instructions
 * @lo: the FDE's first PC
 * @changes: NULL, or room for (FDE instruction bytes + 1) entries: where the
 *           RA signing state changes, in increasing PC order, the first
 *           one a change to "signed"
 * @nchanges: entries written to @changes
 * @undef_rbx: NULL, or set to the first PC from which a DW_CFA_undefined
 *             names x86_64 rbx (UINT64_MAX: none)
 *
 * Return: SFG_SCAN_* flags.
 */
unsigned int sfg_prog_scan(const struct sfg_prog *prog, u64 lo, struct sfg_ra_change *changes,
			   u64 *nchanges, u64 *undef_rbx)
{
	struct sfg_scan s = { .loc = lo, .changes = changes, .undef_rbx = UINT64_MAX };
	bool ok;

	ok = sfg_insns_scan(prog, true, &s);
	/* libdw drops what a CIE remembered. */
	s.ra_depth = 0;
	ok = ok && sfg_insns_scan(prog, false, &s);
	sfg_scan_mark(&s);
	if (nchanges)
		*nchanges = s.nchanges;
	if (undef_rbx)
		*undef_rbx = s.undef_rbx;
	return ok ? s.flags : s.flags | SFG_SCAN_UNKNOWN;
}
