// SPDX-License-Identifier: GPL-2.0
/*
 * sframe-gen, CFI side: every FDE of .eh_frame (and of .debug_frame where
 * .eh_frame says nothing) becomes rows of unwind rules.  libdw interprets
 * the CFI: dwarf_cfi_addrframe() gives the rules at a PC and the range they
 * hold for, so an FDE is walked row by row from its start.  This file only
 * lists the FDEs (their PC ranges) and maps libdw's answers onto what SFrame
 * can say; a row it cannot say is kept with the reason, never approximated.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <gelf.h>
#include <linux/kernel.h>

#include "sframe/sframe.h"
#include "sframe_gen_internal.h"

/* Pointer encodings of .eh_frame (LSB Core, "DWARF Exception Header Encoding"). */
#define SFG_PE_OMIT		0xff
#define SFG_PE_FORMAT(enc)	((enc) & 0x0f)
#define SFG_PE_APP(enc)		((enc) & 0x70)
#define SFG_PE_INDIRECT		0x80
#define SFG_PE_ABSPTR		0x00
#define SFG_PE_ULEB128		0x01
#define SFG_PE_UDATA2		0x02
#define SFG_PE_UDATA4		0x03
#define SFG_PE_UDATA8		0x04
#define SFG_PE_SLEB128		0x09
#define SFG_PE_SDATA2		0x0a
#define SFG_PE_SDATA4		0x0b
#define SFG_PE_SDATA8		0x0c
#define SFG_PE_PCREL		0x10

/* AArch64 DW_CFA_AARCH64_negate_ra_state shares its opcode with window_save. */
#define SFG_CFA_NEGATE_RA_STATE	0x2d

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

/* A cursor over bytes [p, end). */
struct sfg_cur {
	const u8 *p;
	const u8 *end;
};

static bool sfg_uleb(struct sfg_cur *c, u64 *v)
{
	unsigned int shift = 0;

	*v = 0;
	while (c->p < c->end) {
		u8 b = *c->p++;

		if (shift < 64)
			*v |= (u64)(b & 0x7f) << shift;
		shift += 7;
		if (!(b & 0x80))
			return true;
	}
	return false;
}

static bool sfg_skip(struct sfg_cur *c, u64 n)
{
	if (n > (u64)(c->end - c->p))
		return false;
	c->p += n;
	return true;
}

/* Read an encoded pointer; @field_addr is the address of its first byte. */
static bool sfg_read_encoded(struct sfg_cur *c, u8 enc, u64 field_addr, u64 *v)
{
	unsigned int bytes = 0, i;
	u64 x = 0;

	switch (SFG_PE_FORMAT(enc)) {
	case SFG_PE_ABSPTR:
	case SFG_PE_UDATA8:
	case SFG_PE_SDATA8:
		bytes = 8;
		break;
	case SFG_PE_UDATA4:
	case SFG_PE_SDATA4:
		bytes = 4;
		break;
	case SFG_PE_UDATA2:
	case SFG_PE_SDATA2:
		bytes = 2;
		break;
	case SFG_PE_ULEB128:
		if (!sfg_uleb(c, &x))
			return false;
		break;
	default:
		/* sleb128 and the rest: not used for code addresses. */
		return false;
	}
	if (bytes) {
		if ((u64)(c->end - c->p) < bytes)
			return false;
		for (i = 0; i < bytes; i++)
			x |= (u64)c->p[i] << (8 * i);
		c->p += bytes;
		if (SFG_PE_FORMAT(enc) == SFG_PE_SDATA4)
			x = (u64)(s64)(s32)x;
		else if (SFG_PE_FORMAT(enc) == SFG_PE_SDATA2)
			x = (u64)(s64)(s16)x;
	}
	if (enc & SFG_PE_INDIRECT)
		return false;
	switch (SFG_PE_APP(enc)) {
	case 0:
		break;
	case SFG_PE_PCREL:
		x += field_addr;
		break;
	default:
		return false;
	}
	*v = x;
	return true;
}

/* Size of an encoded value at @c, for skipping it. */
static bool sfg_skip_encoded(struct sfg_cur *c, u8 enc)
{
	u64 v;

	if (enc == SFG_PE_OMIT)
		return true;
	if (SFG_PE_FORMAT(enc) == SFG_PE_SLEB128)
		return sfg_uleb(c, &v);
	return sfg_read_encoded(c, enc & 0x0f, 0, &v);
}

/* The CIE facts sframe-gen needs: FDE pointer encoding, 'z' and 'B' augmentation. */
struct sfg_cie {
	u8 fde_enc;
	bool sized_aug;
	bool key_b;		/* AArch64: RAs signed with key B */
	const u8 *insns;
	const u8 *insns_end;
};

static bool sfg_cie_parse(const Dwarf_CIE *cie, bool eh_frame, struct sfg_cie *out)
{
	struct sfg_cur c = {
		cie->augmentation_data,
		cie->augmentation_data + cie->augmentation_data_size,
	};
	const char *a = cie->augmentation;

	out->fde_enc = eh_frame ? SFG_PE_ABSPTR : SFG_PE_UDATA8;
	out->sized_aug = false;
	out->key_b = false;
	out->insns = cie->initial_instructions;
	out->insns_end = cie->initial_instructions_end;
	if (*a != 'z') {
		/* Without 'z' (as in .debug_frame) only 'S', which has no data. */
		return strspn(a, "S") == strlen(a);
	}
	out->sized_aug = true;
	for (a++; *a; a++) {
		switch (*a) {
		case 'R':
			if (c.p >= c.end)
				return false;
			out->fde_enc = *c.p++;
			break;
		case 'L':
			if (!sfg_skip(&c, 1))
				return false;
			break;
		case 'P':
			if (c.p >= c.end)
				return false;
			if (!sfg_skip_encoded(&c, *c.p++))
				return false;
			break;
		case 'B':	/* AArch64 B key */
			out->key_b = true;
			break;
		case 'S':	/* signal frame: libdw reports it */
		case 'G':	/* AArch64 MTE tagged frames */
			break;
		default:
			return false;
		}
	}
	return true;
}

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

/* What sfg_insns_scan() found. */
#define SFG_SCAN_PAUTH		0x1	/* DW_CFA_AARCH64_negate_ra_state */
#define SFG_SCAN_UNKNOWN	0x2	/* an opcode or operand it cannot step over */
#define SFG_SCAN_BIG_REG	0x4	/* a register number above SFG_MAX_DWARF_REG */
#define SFG_SCAN_RA_LOST	0x8	/* a location or remembered state not followed */
#define SFG_SCAN_RA_REG		0x10	/* a rule for AArch64 RA_SIGN_STATE */
#define SFG_SCAN_UNDEF_RBX	0x20	/* DW_CFA_undefined of x86_64 rbx (3) */

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

/* Where the RA signing state changes: from @pc on, the RA is signed or not. */
struct sfg_ra_change {
	u64 pc;
	bool on;
};

/* The instructions of one FDE: its CIE's initial ones, then its own. */
struct sfg_prog {
	const u8 *cie;
	const u8 *cie_end;
	const u8 *fde;
	const u8 *fde_end;
	const u8 *sec;		/* the section's first byte ... */
	u64 sec_addr;		/* ... and its address, for PC-relative set_loc */
	u64 caf;		/* code alignment factor */
	u8 fde_enc;		/* pointer encoding of DW_CFA_set_loc */
};

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
	u64 v;

	while (c.p < c.end) {
		const u8 *field;
		u8 op = *c.p++;
		bool ok = true;

		switch (op & 0xc0) {
		case DW_CFA_advance_loc:
			if (!sfg_scan_delta(s, in_cie, prog, op & 0x3f))
				s->flags |= SFG_SCAN_RA_LOST;
			continue;
		case DW_CFA_restore:
		case DW_CFA_offset:
			if ((op & 0x3f) == SFG_AARCH64_RA_SIGN_STATE)
				s->flags |= SFG_SCAN_RA_REG;
			if ((op & 0xc0) == DW_CFA_offset && !sfg_uleb(&c, &v))
				return false;
			continue;
		}
		switch (op) {
		case DW_CFA_nop:
			break;
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
		case DW_CFA_set_loc:
			field = c.p;
			ok = sfg_read_encoded(&c, prog->fde_enc,
					      prog->sec_addr + (u64)(field - prog->sec), &v);
			if (ok && !sfg_scan_advance(s, in_cie, v))
				s->flags |= SFG_SCAN_RA_LOST;
			break;
		case DW_CFA_advance_loc1:
		case DW_CFA_advance_loc2:
		case DW_CFA_advance_loc4:
			ok = sfg_scan_fixed(&c, op == DW_CFA_advance_loc1 ? 1 :
					    op == DW_CFA_advance_loc2 ? 2 : 4, &v);
			if (ok && !sfg_scan_delta(s, in_cie, prog, v))
				s->flags |= SFG_SCAN_RA_LOST;
			break;
		case DW_CFA_def_cfa_offset:
		case DW_CFA_def_cfa_offset_sf:
		case DW_CFA_GNU_args_size:
			ok = sfg_uleb(&c, &v);
			break;
		case DW_CFA_undefined:
			ok = sfg_uleb(&c, &v);
			if (ok && v > SFG_MAX_DWARF_REG)
				s->flags |= SFG_SCAN_BIG_REG;
			if (ok && v == SFG_AMD64_RBX) {
				s->flags |= SFG_SCAN_UNDEF_RBX;
				s->undef_rbx = min(s->undef_rbx, s->loc);
			}
			break;
		case DW_CFA_restore_extended:
		case DW_CFA_same_value:
		case DW_CFA_def_cfa_register:
			ok = sfg_reg(&c, &s->flags);
			break;
		case DW_CFA_register:
			ok = sfg_reg(&c, &s->flags) && sfg_reg(&c, &s->flags);
			break;
		case DW_CFA_offset_extended:
		case DW_CFA_def_cfa:
		case DW_CFA_offset_extended_sf:
		case DW_CFA_def_cfa_sf:
		case DW_CFA_val_offset:
		case DW_CFA_val_offset_sf:
		case DW_CFA_GNU_negative_offset_extended:
			ok = sfg_reg(&c, &s->flags) && sfg_uleb(&c, &v);
			break;
		case DW_CFA_def_cfa_expression:
			ok = sfg_uleb(&c, &v) && sfg_skip(&c, v);
			break;
		case DW_CFA_expression:
		case DW_CFA_val_expression:
			ok = sfg_reg(&c, &s->flags) && sfg_uleb(&c, &v) && sfg_skip(&c, v);
			break;
		default:
			/*
			 * Including DW_CFA_AARCH64_negate_ra_state_with_pc
			 * (0x2c, -mbranch-protection=pac-ret+pc), which
			 * SFrame has no bit for.
			 */
			ok = false;
			break;
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
static unsigned int sfg_prog_scan(const struct sfg_prog *prog, u64 lo,
				  struct sfg_ra_change *changes, u64 *nchanges, u64 *undef_rbx)
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

/* One FDE: its PC range and which CFI describes it. */
struct sfg_fde {
	u64 lo;
	u64 hi;
	u64 insn_bytes;		/* CIE + FDE instruction bytes: the cost of one row */
	bool debug_frame;
	bool ra_signing;	/* AArch64: the RA signing state changes */
	bool key_b;		/* AArch64: with key B */
	/*
	 * From where the CFI may say the tracked register is undefined (the
	 * FDE's start if the scan could not tell; UINT64_MAX: nowhere): libdw
	 * answers "undefined" for rbx where the CFI says nothing, its ABI
	 * default, so only after a DW_CFA_undefined naming it is it believed.
	 */
	u64 saved_undef;
	u8 reason;		/* SFG_ROW_OK, or why the FDE cannot be used */
	struct sfg_prog prog;	/* its instructions, for ra_signing */
	/*
	 * Not CFI: AArch64 PLT blocks [plt_first, plt_first + plt_n) of the
	 * struct sfg_plt, adjacent, where no FDE of the CFI is.
	 */
	bool plt;
	size_t plt_first;
	size_t plt_n;
};

struct sfg_fde_list {
	struct sfg_fde *v;
	size_t n;
	size_t cap;
};

static int sfg_fde_add(struct sfg_fde_list *l, const struct sfg_fde *f)
{
	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 1024;
		struct sfg_fde *v = realloc(l->v, cap * sizeof(*v));

		if (!v)
			return -SFG_E_NOMEM;
		l->v = v;
		l->cap = cap;
	}
	l->v[l->n++] = *f;
	return 0;
}

/*
 * List the FDEs of one CFI section with their PC ranges.  Entries libdw
 * cannot parse are skipped (their bytes count as "no CFI").
 *
 * libdw finds the FDE for an address by its own lookup, which need not
 * pick the FDE listed here where FDEs overlap, or where it reads an FDE
 * this parser cannot.  So when an FDE of the section, with its CIE, names
 * a register above SFG_MAX_DWARF_REG, or has a CIE or range that cannot be
 * read here, no FDE of the section is walked with libdw at all.
 */
static int sfg_list_fdes(Elf *elf, Elf_Scn *scn, bool eh_frame, const struct sfg_arch *arch,
			 struct sfg_fde_list *l)
{
	const unsigned char *ident;
	Dwarf_Off off = 0, next, cnext;
	size_t first = l->n, i;
	Dwarf_CFI_Entry e, ce;
	bool unsafe = false;
	Elf_Data *data;
	GElf_Shdr sh;
	int err;

	ident = (const unsigned char *)elf_getident(elf, NULL);
	data = elf_getdata(scn, NULL);
	if (!ident || !data || !data->d_buf || !gelf_getshdr(scn, &sh))
		return 0;

	while (off < data->d_size) {
		struct sfg_fde f = { .debug_frame = !eh_frame, .reason = SFG_ROW_OK };
		unsigned int scan;
		u64 undef_rbx = UINT64_MAX;
		struct sfg_cie cie;
		u64 range, alen = 0;
		struct sfg_cur c;
		int ret;

		ret = dwarf_next_cfi(ident, data, eh_frame, off, &next, &e);
		if (ret > 0)
			break;
		/* No progress: the rest of the section cannot be walked. */
		if (next == (Dwarf_Off)-1 || next <= off)
			break;
		off = next;
		if (ret < 0 || dwarf_cfi_cie_p(&e))
			continue;
		if (dwarf_next_cfi(ident, data, eh_frame, e.fde.CIE_pointer, &cnext, &ce) ||
		    !dwarf_cfi_cie_p(&ce))
			continue;
		if (!sfg_cie_parse(&ce.cie, eh_frame, &cie)) {
			unsafe = true;
			continue;
		}

		c.p = e.fde.start;
		c.end = e.fde.end;
		if (!sfg_read_encoded(&c, cie.fde_enc,
				      sh.sh_addr + (u64)(e.fde.start - (const u8 *)data->d_buf),
				      &f.lo) ||
		    !sfg_read_encoded(&c, cie.fde_enc & 0x0f, 0, &range)) {
			unsafe = true;
			continue;
		}
		if (!range)
			continue;
		f.hi = f.lo + range;
		if (f.hi < f.lo) {
			unsafe = true;
			continue;
		}
		if (range > UINT32_MAX)
			f.reason = SFG_TOO_BIG;
		f.insn_bytes = (u64)(cie.insns_end - cie.insns) + (u64)(c.end - c.p) + 1;
		if (cie.sized_aug && !(sfg_uleb(&c, &alen) && sfg_skip(&c, alen))) {
			scan = SFG_SCAN_UNKNOWN;
		} else {
			f.prog = (struct sfg_prog){
				.cie = cie.insns,
				.cie_end = cie.insns_end,
				.fde = c.p,
				.fde_end = c.end,
				.sec = data->d_buf,
				.sec_addr = sh.sh_addr,
				.caf = ce.cie.code_alignment_factor,
				.fde_enc = cie.fde_enc,
			};
			scan = sfg_prog_scan(&f.prog, f.lo, NULL, NULL, &undef_rbx);
		}
		if (arch->pauth) {
			f.ra_signing = scan & SFG_SCAN_PAUTH;
			f.key_b = cie.key_b;
			/*
			 * What the scan cannot step over may change RA
			 * signing; a state it cannot follow is unknown.
			 */
			if ((scan & (SFG_SCAN_UNKNOWN | SFG_SCAN_RA_REG)) ||
			    (f.ra_signing && (scan & SFG_SCAN_RA_LOST)))
				f.reason = SFG_PAUTH;
		}
		f.saved_undef = UINT64_MAX;
		if (arch->saved_reg)
			f.saved_undef = (scan & SFG_SCAN_UNKNOWN) ? f.lo : undef_rbx;
		if (scan & SFG_SCAN_BIG_REG)
			unsafe = true;
		err = sfg_fde_add(l, &f);
		if (err)
			return err;
	}
	if (unsafe)
		for (i = first; i < l->n; i++)
			l->v[i].reason = SFG_BAD_CFI;
	return 0;
}

static int sfg_fde_cmp(const void *a, const void *b)
{
	const struct sfg_fde *x = a, *y = b;

	if (x->lo != y->lo)
		return x->lo < y->lo ? -1 : 1;
	if (x->debug_frame != y->debug_frame)
		return x->debug_frame ? 1 : -1;
	return x->hi < y->hi ? -1 : x->hi > y->hi;
}

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

struct sfg_walk {
	struct sfg_row *rows;
	u32 n;
	u32 cap;
	u64 work;
	struct sfg_ra_change *ra;	/* where the FDE's RA signing state changes */
	u64 ra_cap;
};

static int sfg_row_add(struct sfg_walk *w, u64 start, u64 end, u8 reason,
		       const struct sfg_rule *rule)
{
	struct sfg_row *r;

	if (w->n == w->cap) {
		u32 cap = w->cap ? w->cap * 2 : 64;

		r = realloc(w->rows, cap * sizeof(*r));
		if (!r)
			return -SFG_E_NOMEM;
		w->rows = r;
		w->cap = cap;
	}
	r = &w->rows[w->n++];
	memset(r, 0, sizeof(*r));
	r->start = start;
	r->end = end;
	r->reason = reason;
	if (rule)
		r->rule = *rule;
	return 0;
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
static int sfg_walk_fde(Dwarf_CFI *cfi, const struct sfg_arch *arch, const struct sfg_fde *f,
			struct sfg_walk *w, bool *signal)
{
	u64 addr = f->lo, work = 0;
	bool ra_on = false;
	u64 nra, k = 0;
	int err;

	*signal = false;
	w->n = 0;
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

		if (w->n >= SFG_MAX_FDE_ROWS || work > SFG_MAX_FDE_WORK || w->work > SFG_MAX_WORK)
			return sfg_row_add(w, addr, f->hi, SFG_TOO_BIG, NULL);
		work += f->insn_bytes;
		w->work += f->insn_bytes;
		if (dwarf_cfi_addrframe(cfi, addr, &frame))
			return sfg_row_add(w, addr, f->hi, SFG_BAD_CFI, NULL);
		ra = dwarf_frame_info(frame, &start, &end, &sig);
		/* The row must hold at addr and end after it. */
		if (ra < 0 || start > addr || end <= addr) {
			free(frame);
			return sfg_row_add(w, addr, f->hi, SFG_BAD_CFI, NULL);
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
		err = sfg_row_add(w, addr, end, r, r == SFG_ROW_OK ? &rule : NULL);
		if (err)
			return err;
		if (r == SFG_ROW_OK && rule.rep_size)
			w->rows[w->n - 1].reason = sfg_check_mask(&w->rows[w->n - 1]);
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
static void sfg_fix_pushed_ra(const struct sfg_arch *arch, struct sfg_walk *w)
{
	s32 max = -1, d;
	u32 i;

	if (arch->fixed_ra)
		return;
	for (i = 0; i < w->n; i++) {
		const struct sfg_rule *r = &w->rows[i].rule;

		if (w->rows[i].reason == SFG_ROW_OK && !r->outermost &&
		    r->cfa_reg == arch->sp && !r->cfa_deref &&
		    r->ra.kind == SFG_LOC_CFA && r->ra.off > max)
			max = r->ra.off;
	}
	if (max < 0 || max > 4096)
		return;
	d = (max + 8 + 15) & ~15;
	for (i = 0; i < w->n; i++) {
		struct sfg_rule *r = &w->rows[i].rule;

		if (w->rows[i].reason != SFG_ROW_OK || r->outermost)
			continue;
		if (r->cfa_off > INT32_MAX - d) {
			w->rows[i].reason = SFG_OFFSET;
			continue;
		}
		r->cfa_off += d;
		if (r->ra.kind == SFG_LOC_CFA)
			r->ra.off -= d;
		if (r->fp.kind == SFG_LOC_CFA)
			r->fp.off -= d;
	}
}

static void sfg_account(const struct sfg_text *text, const struct sfg_walk *w,
			struct sfg_stats *st)
{
	u32 i;

	for (i = 0; i < w->n; i++) {
		const struct sfg_row *r = &w->rows[i];
		u64 b = sfg_text_bytes_in(text, r->start, r->end);

		if (r->reason == SFG_ROW_OK)
			st->covered_bytes += b;
		else
			st->uncovered[r->reason] += b;
	}
}

/* A PLT row [lo, hi), merged into the row before when it says the same. */
static int sfg_plt_row(struct sfg_walk *w, u64 lo, u64 hi, const struct sfg_rule *rule)
{
	struct sfg_row *last = w->n ? &w->rows[w->n - 1] : NULL;

	if (last && last->end == lo && last->rule.cfa_off == rule->cfa_off) {
		last->end = hi;
		return 0;
	}
	return sfg_row_add(w, lo, hi, SFG_ROW_OK, rule);
}

/*
 * The rows of the PLT blocks of @f: CFA = SP, or SP + 16 after PLT0's
 * push; RA in LR and FP unchanged throughout, the rules of a leaf
 * function's CFI before it saves anything.
 */
static int sfg_walk_plt(const struct sfg_arch *arch, const struct sfg_plt *plt,
			const struct sfg_fde *f, struct sfg_walk *w)
{
	struct sfg_rule entry = { .cfa_reg = arch->sp }, pushed = entry;
	size_t i;
	int err = 0;

	pushed.cfa_off = SFG_PLT0_PUSH;
	w->n = 0;
	for (i = f->plt_first; !err && i < f->plt_first + f->plt_n; i++) {
		const struct sfg_plt_block *b = &plt->v[i];

		if (b->pushed) {
			err = sfg_plt_row(w, b->lo, b->pushed, &entry);
			if (!err)
				err = sfg_plt_row(w, b->pushed, b->hi, &pushed);
		} else {
			err = sfg_plt_row(w, b->lo, b->hi, &entry);
		}
	}
	return err;
}

/* Index of the first of the sorted, disjoint FDEs v[0, n) that ends after @lo. */
static size_t sfg_first_ending_after(const struct sfg_fde *v, size_t n, u64 lo)
{
	size_t a = 0, b = n;

	while (a < b) {
		size_t m = a + (b - a) / 2;

		if (v[m].hi <= lo)
			a = m + 1;
		else
			b = m;
	}
	return a;
}

/* Whether [lo, hi) overlaps one of the sorted, disjoint FDEs v[0, n). */
static bool sfg_overlaps(const struct sfg_fde *v, size_t n, u64 lo, u64 hi)
{
	size_t a = sfg_first_ending_after(v, n, lo);

	return a < n && v[a].lo < hi;
}

/*
 * Sort FDEs [0, n) of @l and keep those that start at or after the end of
 * the one before.  What a dropped FDE describes beyond that end goes to
 * @tails, to be counted once the kept FDEs are known.
 */
static int sfg_drop_overlaps(struct sfg_fde_list *l, size_t *n, struct sfg_fde_list *tails)
{
	size_t i, kept = 0;
	u64 end = 0;
	int err;

	qsort(l->v, *n, sizeof(*l->v), sfg_fde_cmp);
	for (i = 0; i < *n; i++) {
		struct sfg_fde f = l->v[i];

		if (kept && f.lo < end) {
			if (f.hi > end) {
				f.lo = end;
				err = sfg_fde_add(tails, &f);
				if (err)
					return err;
			}
			continue;
		}
		end = f.hi;
		l->v[kept++] = f;
	}
	*n = kept;
	return 0;
}

/* Text bytes of the tails of dropped FDEs that no kept FDE describes. */
static void sfg_count_overlaps(const struct sfg_fde_list *l, struct sfg_fde_list *tails,
			       const struct sfg_text *text, struct sfg_stats *st)
{
	size_t i, j, k;

	if (!tails->n)
		return;
	qsort(tails->v, tails->n, sizeof(*tails->v), sfg_fde_cmp);
	for (i = 0; i < tails->n; i = j) {
		u64 lo = tails->v[i].lo, hi = tails->v[i].hi, b;

		/* Merge overlapping tails into [lo, hi). */
		for (j = i + 1; j < tails->n && tails->v[j].lo <= hi; j++)
			if (tails->v[j].hi > hi)
				hi = tails->v[j].hi;
		b = sfg_text_bytes_in(text, lo, hi);
		for (k = sfg_first_ending_after(l->v, l->n, lo); k < l->n && l->v[k].lo < hi && b;
		     k++) {
			u64 s = l->v[k].lo > lo ? l->v[k].lo : lo;
			u64 e = l->v[k].hi < hi ? l->v[k].hi : hi;

			if (e > s)
				b -= sfg_text_bytes_in(text, s, e);
		}
		st->uncovered[SFG_OVERLAP] += b;
	}
}

/*
 * Sorted, disjoint FDEs: those of .eh_frame, then those of .debug_frame
 * where .eh_frame says nothing (a file built with both describes the same
 * functions twice).
 */
static int sfg_sort_fdes(struct sfg_fde_list *l, const struct sfg_text *text,
			 struct sfg_stats *st)
{
	struct sfg_fde_list tails = { 0 };
	size_t i, neh = 0, n, out;
	int err = 0;

	if (!l->n)
		return 0;
	/* .eh_frame entries first: .debug_frame ones sort after equal starts. */
	for (i = 0; i < l->n; i++) {
		if (!l->v[i].debug_frame) {
			struct sfg_fde t = l->v[neh];

			l->v[neh++] = l->v[i];
			l->v[i] = t;
		}
	}
	n = neh;
	if (neh)
		err = sfg_drop_overlaps(l, &neh, &tails);
	/* Move the .debug_frame FDEs that .eh_frame leaves alone after them. */
	for (i = n, out = neh; !err && i < l->n; i++)
		if (!sfg_overlaps(l->v, neh, l->v[i].lo, l->v[i].hi))
			l->v[out++] = l->v[i];
	if (!err)
		err = sfg_drop_overlaps(l, &out, &tails);
	if (!err) {
		l->n = out;
		sfg_count_overlaps(l, &tails, text, st);
	}
	free(tails.v);
	return err;
}

static int sfg_range_lo_cmp(const void *a, const void *b)
{
	const u64 *x = a, *y = b;

	return x[0] < y[0] ? -1 : x[0] > y[0];
}

/*
 * AArch64: keep the PLT blocks of @plt that share no byte with any FDE of
 * @l, the FDEs as read, before those overlapping others are dropped (one
 * that is still says the CFI describes its bytes).  The CFI wins: a block
 * an FDE shares a single byte with gets no rows of its own.
 */
static int sfg_plt_keep_uncovered(const struct sfg_fde_list *l, struct sfg_plt *plt)
{
	size_t i, k, a, b;
	u64 (*r)[2];

	if (!plt->n || !l->n)
		return 0;
	/* The FDEs by start, each with the highest end up to it. */
	r = malloc(l->n * sizeof(*r));
	if (!r)
		return -SFG_E_NOMEM;
	for (i = 0; i < l->n; i++) {
		r[i][0] = l->v[i].lo;
		r[i][1] = l->v[i].hi;
	}
	qsort(r, l->n, sizeof(*r), sfg_range_lo_cmp);
	for (i = 1; i < l->n; i++)
		if (r[i][1] < r[i - 1][1])
			r[i][1] = r[i - 1][1];
	for (i = 0, k = 0; i < plt->n; i++) {
		const struct sfg_plt_block *blk = &plt->v[i];

		/* FDEs starting before the block's end: does one end after its start? */
		for (a = 0, b = l->n; a < b;) {
			size_t m = a + (b - a) / 2;

			if (r[m][0] < blk->hi)
				a = m + 1;
			else
				b = m;
		}
		if ((a && r[a - 1][1] > blk->lo) || blk->hi - blk->lo > UINT32_MAX)
			continue;
		plt->v[k++] = *blk;
	}
	plt->n = k;
	free(r);
	return 0;
}

/*
 * AArch64: an FDE for each run of adjacent blocks of @plt, added to the
 * sorted, disjoint FDEs of @l, in order; no block shares a byte with one
 * of them (sfg_plt_keep_uncovered()).
 */
static int sfg_add_plt_fdes(struct sfg_fde_list *l, const struct sfg_plt *plt)
{
	size_t ncfi = l->n, i;
	int err;

	for (i = 0; i < plt->n; i++) {
		const struct sfg_plt_block *b = &plt->v[i];
		struct sfg_fde f = {
			.lo = b->lo,
			.hi = b->hi,
			.saved_undef = UINT64_MAX,
			.reason = SFG_ROW_OK,
			.plt = true,
			.plt_first = i,
			.plt_n = 1,
		};
		struct sfg_fde *last = l->n > ncfi ? &l->v[l->n - 1] : NULL;

		/* One FDE per run, within what an SFrame FDE can span. */
		if (last && last->hi == b->lo && b->hi - last->lo <= UINT32_MAX) {
			last->hi = b->hi;
			last->plt_n++;
			continue;
		}
		err = sfg_fde_add(l, &f);
		if (err)
			return err;
	}
	if (l->n > ncfi)
		qsort(l->v, l->n, sizeof(*l->v), sfg_fde_cmp);
	return 0;
}

/**
 * sfg_cfi_convert() - walk every FDE and feed its rows to the emitter
 * @elf: the file
 * @arch: its ABI
 * @text: the executable ranges the coverage figures count (without what
 *        @own covers)
 * @own: the sorted, disjoint ranges of the FDEs of the file's own SFrame
 *       section, or NULL: an FDE sharing a byte with them is left out whole
 * @em: emitter
 * @st: statistics to fill (CFI sizes, rows, coverage by reason)
 *
 * Return: 0, -SFG_E_NO_CFI when the file has no CFI section, or another
 * -SFG_E_xxx.
 */
int sfg_cfi_convert(Elf *elf, const struct sfg_arch *arch, const struct sfg_text *text,
		    const struct sfg_text *own, struct sfg_emit *em, struct sfg_stats *st)
{
	Dwarf_CFI *eh_cfi = NULL, *dbg_cfi = NULL;
	struct sfg_fde_list l = { 0 };
	struct sfg_plt plt = { 0 };
	struct sfg_walk w = { 0 };
	GElf_Shdr eh_sh, dbg_sh;
	Elf_Scn *eh, *dbg;
	Dwarf *dw = NULL;
	int err = 0;
	size_t i;

	eh = sfg_find_section(elf, ".eh_frame");
	dbg = sfg_find_section(elf, ".debug_frame");
	if (eh && !gelf_getshdr(eh, &eh_sh))
		eh = NULL;
	if (dbg && !gelf_getshdr(dbg, &dbg_sh))
		dbg = NULL;
	if (eh)
		st->eh_frame_bytes = eh_sh.sh_size;
	if (dbg)
		st->debug_frame_bytes = dbg_sh.sh_size;
	if (eh) {
		eh_cfi = dwarf_getcfi_elf(elf);
		if (eh_cfi)
			err = sfg_list_fdes(elf, eh, true, arch, &l);
	}
	if (!err && dbg) {
		dw = dwarf_begin_elf(elf, DWARF_C_READ, NULL);
		dbg_cfi = dw ? dwarf_getcfi(dw) : NULL;
		/* A compressed .debug_frame: libdw reads it, the FDE list cannot. */
		if (dbg_cfi && !(dbg_sh.sh_flags & SHF_COMPRESSED))
			err = sfg_list_fdes(elf, dbg, false, arch, &l);
	}
	if (!err && !eh_cfi && !dbg_cfi)
		err = -SFG_E_NO_CFI;
	if (err)
		goto out;

	if (arch->plt_insns) {
		err = sfg_plt_find(elf, &plt);
		if (!err)
			err = sfg_plt_keep_uncovered(&l, &plt);
		if (err)
			goto out;
	}
	err = sfg_sort_fdes(&l, text, st);
	if (err)
		goto out;
	st->dwarf_fdes = l.n;
	err = sfg_add_plt_fdes(&l, &plt);
	if (err)
		goto out;
	for (i = 0; i < l.n; i++) {
		const struct sfg_fde *f = &l.v[i];
		bool signal = false;
		u8 info;

		w.n = 0;
		/*
		 * The own section wins wherever it has an FDE.  An FDE that
		 * shares only some bytes with it disagrees with it on where a
		 * function lies: none of it is used.
		 */
		if (own && sfg_text_bytes_in(own, f->lo, f->hi))
			err = sfg_row_add(&w, f->lo, f->hi, SFG_OWN_SFRAME, NULL);
		else if (f->plt)
			err = sfg_walk_plt(arch, &plt, f, &w);
		else if (f->reason != SFG_ROW_OK)
			err = sfg_row_add(&w, f->lo, f->hi, f->reason, NULL);
		else
			err = sfg_walk_fde(f->debug_frame ? dbg_cfi : eh_cfi, arch, f, &w, &signal);
		if (err)
			break;
		if (!f->plt) {
			sfg_fix_pushed_ra(arch, &w);
			st->dwarf_rows += w.n;
		}
		sfg_account(text, &w, st);
		info = (signal ? SFRAME_V3_FDE_INFO_SIGNAL : 0) |
		       (f->key_b ? SFRAME_FDE_INFO_PAUTH_KEY_B : 0);
		err = sfg_emit_fde(em, w.rows, w.n, info, 0);
		if (err)
			break;
	}
out:
	free(w.ra);
	free(w.rows);
	free(l.v);
	free(plt.v);
	if (eh_cfi)
		dwarf_cfi_end(eh_cfi);
	if (dw)
		dwarf_end(dw);
	return err;
}
