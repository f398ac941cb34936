/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The decoder's private helpers, shared by its files: byte order, FDE and
 * FRE decoding with every check.  Included only from sframe/.
 */
#ifndef _SFU_SFRAME_DECODE_H
#define _SFU_SFRAME_DECODE_H

#include <linux/types.h>
#include <linux/kernel.h>
#include <linux/errno.h>
#include <linux/string.h>
#include <linux/overflow.h>

#include "sframe.h"

/*
 * Longest FRE: a 4-byte start offset, the info byte and SFRAME_FRE_MAX_WORDS
 * 4-byte words.
 */
#define SFRAME_FRE_MAX_BYTES	(4 + 1 + SFRAME_FRE_MAX_WORDS * 4)
/* One FRE as stored: start offset, info byte and its data words. */
struct sframe_fre_raw {
	u32 start;
	u8 info;
	u8 count;
	u32 bytes;
	u32 uword[SFRAME_FRE_MAX_WORDS];	/* FLEX control words */
	s32 sword[SFRAME_FRE_MAX_WORDS];	/* offsets, sign-extended */
};

/*
 * Sections are little-endian whatever the host: assemble bytes by hand.
 * The fixed-size forms compile to one (unaligned) load where the host is
 * little-endian, like get_unaligned_le32() but in the userspace build too.
 */
static __always_inline u16 sframe_le16(const u8 *p)
{
	return p[0] | (u16)p[1] << 8;
}

static __always_inline u32 sframe_le32(const u8 *p)
{
	return p[0] | (u32)p[1] << 8 | (u32)p[2] << 16 | (u32)p[3] << 24;
}

static __always_inline u64 sframe_le64(const u8 *p)
{
	return sframe_le32(p) | (u64)sframe_le32(p + 4) << 32;
}

/* A start offset or data word: @n is 1, 2 or 4. */
static inline u32 sframe_get_le(const u8 *p, unsigned int n)
{
	if (n == 1)
		return p[0];
	if (n == 2)
		return sframe_le16(p);
	return sframe_le32(p);
}

static inline bool sframe_is_amd64(const struct sfu_sframe_section *sec)
{
	return sec->abi == SFRAME_ABI_AMD64_ENDIAN_LITTLE;
}

/* Absolute address from a function start field at section offset @field. */
static inline int sframe_func_start(const struct sfu_sframe_section *sec, u64 field, s64 rel,
				    u64 *start)
{
	u64 base = sec->vaddr;

	if ((sec->flags & SFRAME_F_FDE_FUNC_START_PCREL) &&
	    check_add_overflow(base, field, &base))
		return -SFRAME_E_BAD_FDE;
	/* Exact signed + unsigned sum: fails if outside [0, 2^64). */
	if (check_add_overflow(base, rel, start))
		return -SFRAME_E_BAD_FDE;
	return 0;
}

/*
 * A V3 FDE's attribute block, where its index entry's FRE offset
 * @fre_rel points: its fields into @fde, and @fre_rel moved past it.
 */
static __always_inline int sframe_fde_v3_attrs(const struct sfu_sframe_section *sec,
					       struct sfu_sframe_fde *fde, u64 *fre_rel)
{
	u8 attr_tmp[SFRAME_V3_ATTR_BYTES];
	const u8 *attr;
	int err;

	if (*fre_rel > sec->fre_len || sec->fre_len - *fre_rel < SFRAME_V3_ATTR_BYTES)
		return -SFRAME_E_BAD_FDE;
	err = sfu_sframe_read_ptr(&sec->reader, sec->fre_off + *fre_rel,
				  SFRAME_V3_ATTR_BYTES, attr_tmp, &attr);
	if (err)
		return err;
	fde->num_fres = sframe_le16(attr + SFRAME_V3_ATTR_NUM_FRES);
	fde->info = attr[SFRAME_V3_ATTR_INFO];
	fde->info2 = attr[SFRAME_V3_ATTR_INFO2];
	fde->rep_size = attr[SFRAME_V3_ATTR_REP_SIZE];
	*fre_rel += SFRAME_V3_ATTR_BYTES;
	return 0;
}

/* An FDE's info and info2 bytes and repetition size, checked and decoded into @fde. */
static __always_inline int sframe_fde_info_check(const struct sfu_sframe_section *sec,
						 struct sfu_sframe_fde *fde)
{
	fde->fre_type = SFRAME_FDE_INFO_FRE_TYPE(fde->info);
	if (fde->fre_type > SFRAME_FRE_TYPE_ADDR4 || (fde->info & SFRAME_FDE_INFO_UNUSED))
		return -SFRAME_E_BAD_FDE;
	if ((fde->info & SFRAME_V3_FDE_INFO_SIGNAL) && sec->version != SFRAME_VERSION_3)
		return -SFRAME_E_BAD_FDE;
	if ((fde->info & SFRAME_FDE_INFO_PAUTH_KEY_B) && sframe_is_amd64(sec))
		return -SFRAME_E_BAD_FDE;
	if (fde->info2 & SFRAME_V3_FDE_INFO2_UNUSED &
	    ~(SFRAME_V3_FDE_INFO2_SFU_INJECTED | SFRAME_V3_FDE_INFO2_SFU_NO_SAVES))
		return -SFRAME_E_BAD_FDE;
	/* The extension's injected call: only where the header says so. */
	if ((fde->info2 & SFRAME_V3_FDE_INFO2_SFU_INJECTED) &&
	    !(sec->flags & SFRAME_F_SFU_INJECTED_CALLS))
		return -SFRAME_E_INJECTED_CALL;
	/* Rows that list no saves: only in a section whose rows list them. */
	if ((fde->info2 & SFRAME_V3_FDE_INFO2_SFU_NO_SAVES) &&
	    !(sec->flags & SFRAME_F_SFU_SAVED_REGS))
		return -SFRAME_E_NO_SAVES;
	fde->type = SFRAME_V3_FDE_INFO2_TYPE(fde->info2);
	if (fde->type != SFRAME_FDE_TYPE_DEFAULT && fde->type != SFRAME_FDE_TYPE_FLEX)
		return -SFRAME_E_BAD_FDE;

	fde->pcmask = fde->info & SFRAME_FDE_INFO_PCMASK;
	if (!fde->pcmask)
		fde->rep_size = 0;
	else if (!fde->rep_size)
		return -SFRAME_E_REP_SIZE;
	return 0;
}

/*
 * Where @fde's rows start, @fre_rel bytes into the FRE sub-section, and
 * its function's start from the field at section offset @field holding
 * @rel: checked against the section and the address space.
 */
static __always_inline int sframe_fde_place(const struct sfu_sframe_section *sec,
					    struct sfu_sframe_fde *fde, u64 field, s64 rel,
					    u64 fre_rel)
{
	u64 end;
	int err;

	/* The FREs must fit in what is left of the FRE sub-section. */
	if (fre_rel > sec->fre_len)
		return -SFRAME_E_BAD_FDE;
	fde->fres_off = sec->fre_off + fre_rel;
	if (fde->num_fres > SFRAME_MAX_FDE_FRES)
		return -SFRAME_E_TOO_BIG;
	if (fde->num_fres > sec->num_fres ||
	    2ULL * fde->num_fres > sec->fre_end - fde->fres_off)
		return -SFRAME_E_BAD_FDE;

	err = sframe_func_start(sec, field, rel, &fde->func_start);
	if (err)
		return err;
	if (check_add_overflow(fde->func_start, (u64)fde->func_size, &end))
		return -SFRAME_E_BAD_FDE;
	return 0;
}

/* sfu_sframe_fde_get(), inlined into sfu_sframe_find_row(). */
static __always_inline int sframe_fde_read(const struct sfu_sframe_section *sec, u32 idx,
					   struct sfu_sframe_fde *fde)
{
	u8 tmp[SFRAME_V2_FDE_BYTES];
	const u8 *buf;
	u64 field, fre_rel;
	s64 rel;
	int err;

	if (idx >= sec->num_fdes)
		return -SFRAME_E_NO_FDE;
	memset(fde, 0, sizeof(*fde));
	fde->idx = idx;
	field = sec->fde_off + (u64)idx * sec->fde_size;
	err = sfu_sframe_read_ptr(&sec->reader, field, sec->fde_size, tmp, &buf);
	if (err)
		return err;

	switch (sec->version) {
	case SFRAME_VERSION_1:
		rel = (s32)sframe_le32(buf + SFRAME_V1_FDE_START);
		fde->func_size = sframe_le32(buf + SFRAME_V1_FDE_SIZE);
		fre_rel = sframe_le32(buf + SFRAME_V1_FDE_FRE_OFF);
		fde->num_fres = sframe_le32(buf + SFRAME_V1_FDE_NUM_FRES);
		fde->info = buf[SFRAME_V1_FDE_INFO];
		/* Only x86_64 ld 2.40 wrote V1 PC-mask FDEs, for 16-byte PLT entries. */
		if (sframe_is_amd64(sec))
			fde->rep_size = SFRAME_V1_AMD64_REP_SIZE;
		break;
	case SFRAME_VERSION_2:
		rel = (s32)sframe_le32(buf + SFRAME_V2_FDE_START);
		fde->func_size = sframe_le32(buf + SFRAME_V2_FDE_SIZE);
		fre_rel = sframe_le32(buf + SFRAME_V2_FDE_FRE_OFF);
		fde->num_fres = sframe_le32(buf + SFRAME_V2_FDE_NUM_FRES);
		fde->info = buf[SFRAME_V2_FDE_INFO];
		fde->rep_size = buf[SFRAME_V2_FDE_REP_SIZE];
		break;
	default:
		if (sec->flags & SFRAME_F_SFU_NARROW_INDEX) {
			rel = (s32)sframe_le32(buf + SFRAME_V3N_FDE_START);
			fde->func_size = sframe_le32(buf + SFRAME_V3N_FDE_SIZE);
			fre_rel = sframe_le32(buf + SFRAME_V3N_FDE_FRE_OFF);
		} else {
			rel = (s64)sframe_le64(buf + SFRAME_V3_FDE_START);
			fde->func_size = sframe_le32(buf + SFRAME_V3_FDE_SIZE);
			fre_rel = sframe_le32(buf + SFRAME_V3_FDE_FRE_OFF);
		}
		err = sframe_fde_v3_attrs(sec, fde, &fre_rel);
		if (err)
			return err;
		break;
	}

	err = sframe_fde_info_check(sec, fde);
	if (err)
		return err;

	return sframe_fde_place(sec, fde, field, rel, fre_rel);
}

/* The @fre->count data words at @p, of the size @fre->info gives. */
static __always_inline void sframe_fre_words(struct sframe_fre_raw *fre, const u8 *p)
{
	unsigned int i;

	switch (SFRAME_FRE_INFO_SIZE(fre->info)) {
	case SFRAME_FRE_DATAWORD_1B:
		for (i = 0; i < fre->count; i++) {
			fre->uword[i] = p[i];
			fre->sword[i] = (s8)p[i];
		}
		break;
	case SFRAME_FRE_DATAWORD_2B:
		for (i = 0; i < fre->count; i++) {
			fre->uword[i] = sframe_le16(p + 2 * i);
			fre->sword[i] = (s16)fre->uword[i];
		}
		break;
	default:
		for (i = 0; i < fre->count; i++) {
			fre->uword[i] = sframe_le32(p + 4 * i);
			fre->sword[i] = (s32)fre->uword[i];
		}
		break;
	}
}

int sfu_sframe_fre_read(const struct sfu_sframe_section *sec, const struct sfu_sframe_fde *fde,
			u64 pos, struct sframe_fre_raw *fre);

static inline u8 sframe_reg_base(const struct sfu_sframe_section *sec, u32 regnum)
{
	bool amd64 = sframe_is_amd64(sec);

	if (regnum == (amd64 ? SFRAME_AMD64_DWARF_SP : SFRAME_AARCH64_DWARF_SP))
		return SFRAME_BASE_SP;
	if (regnum == (amd64 ? SFRAME_AMD64_DWARF_FP : SFRAME_AARCH64_DWARF_FP))
		return SFRAME_BASE_FP;
	return SFRAME_BASE_REG;
}

/* RA when an FRE says nothing about it: the ABI's default. */
static inline void sframe_default_ra(const struct sfu_sframe_section *sec,
				     struct sfu_sframe_reg_rule *ra)
{
	if (sframe_is_amd64(sec)) {
		ra->kind = SFRAME_RULE_FIXED;
		ra->offset = sec->cfa_fixed_ra_offset;
	} else {
		ra->kind = SFRAME_RULE_SAME;
	}
}

/* An RA or FP (control, offset) pair of a FLEX FRE. */
static inline int sframe_flex_rule(const struct sfu_sframe_section *sec, u32 ctrl, s32 off,
				   struct sfu_sframe_reg_rule *rule)
{
	if (ctrl & SFRAME_FLEX_CTRL_RESERVED)
		return -SFRAME_E_BAD_FRE;
	if (ctrl & SFRAME_FLEX_CTRL_REG_P) {
		rule->kind = (ctrl & SFRAME_FLEX_CTRL_DEREF_P) ? SFRAME_RULE_REG_DEREF :
								 SFRAME_RULE_REG;
		rule->regnum = SFRAME_FLEX_CTRL_REGNUM(ctrl);
		rule->base = sframe_reg_base(sec, rule->regnum);
	} else if (ctrl == SFRAME_FLEX_CTRL_DEREF_P) {
		rule->kind = SFRAME_RULE_CFA_DEREF;
	} else {
		/* Padding where a pair belongs, or a register number without reg_p. */
		return -SFRAME_E_BAD_FRE;
	}
	rule->offset = off;
	return 0;
}

/*
 * The RA or FP entry of a FLEX FRE at word *@w: a control word of 0 is the
 * whole entry ("no further words for this entity": the ABI default, or no
 * saved FP), any other is followed by its offset.  Nothing left: absent.
 */
static inline int sframe_flex_entry(const struct sfu_sframe_section *sec,
				    const struct sframe_fre_raw *fre, unsigned int *w,
				    struct sfu_sframe_reg_rule *rule, bool *padding)
{
	int err;

	*padding = false;
	if (*w >= fre->count)
		return 0;
	if (fre->uword[*w] == SFRAME_FLEX_CTRL_PADDING) {
		*padding = true;
		*w += 1;
		return 0;
	}
	if (*w + 1 >= fre->count)
		return -SFRAME_E_BAD_FRE;
	err = sframe_flex_rule(sec, fre->uword[*w], fre->sword[*w + 1], rule);
	*w += 2;
	return err;
}

/* Whether SFRAME_F_SFU_SAVED_REGS tracks DWARF register @regnum in @sec's ABI. */
static inline bool sframe_saved_reg_tracked(const struct sfu_sframe_section *sec, u32 regnum)
{
	return sframe_is_amd64(sec) && regnum == SFRAME_AMD64_DWARF_RBX;
}

/*
 * The saved-register pairs after a FLEX FRE's FP entry, from word @w
 * (SFRAME_F_SFU_SAVED_REGS): each a tracked register, once, saved at a
 * word-aligned slot below the CFA or lost; anything else is
 * -SFRAME_E_SAVED_REG.  Without the flag, or in an FDE whose rows list no
 * saves, a word here belongs to no entity, as in any V3 section:
 * -SFRAME_E_BAD_FRE.
 */
static inline int sframe_decode_saved(const struct sfu_sframe_section *sec,
				      const struct sframe_fre_raw *fre, unsigned int w,
				      struct sfu_sframe_row *row)
{
	struct sfu_sframe_saved_reg *sr;
	u32 ctrl, regnum, i;
	s32 off;

	if (w < fre->count && !(row->flags & SFRAME_ROW_SAVED_REGS))
		return -SFRAME_E_BAD_FRE;
	for (; w < fre->count; w += 2) {
		if (w + 1 >= fre->count)
			return -SFRAME_E_SAVED_REG;
		ctrl = fre->uword[w];
		off = fre->sword[w + 1];
		regnum = SFRAME_FLEX_CTRL_REGNUM(ctrl);
		if ((ctrl & ~SFRAME_FLEX_SAVED_CTRL_MASK) || !sframe_saved_reg_tracked(sec, regnum))
			return -SFRAME_E_SAVED_REG;
		for (i = 0; i < row->nr_saved; i++)
			if (row->saved[i].regnum == regnum)
				return -SFRAME_E_SAVED_REG;
		/* Not reached while every tracked register is one of a kind. */
		if (row->nr_saved >= SFRAME_SFU_MAX_SAVED_REGS)
			return -SFRAME_E_SAVED_REG;
		if (ctrl & SFRAME_FLEX_CTRL_DEREF_P) {
			/* A slot of the frame's own, below the CFA (8-byte words: AMD64). */
			if (off >= 0 || (off & 7))
				return -SFRAME_E_SAVED_REG;
		} else if (off) {
			return -SFRAME_E_SAVED_REG;
		}
		sr = &row->saved[row->nr_saved++];
		sr->kind = (ctrl & SFRAME_FLEX_CTRL_DEREF_P) ? SFRAME_SAVED_CFA_DEREF :
							      SFRAME_SAVED_LOST;
		sr->regnum = regnum;
		sr->offset = off;
	}
	return 0;
}

static inline int sframe_decode_flex(const struct sfu_sframe_section *sec,
				     const struct sframe_fre_raw *fre, struct sfu_sframe_row *row)
{
	u32 ctrl = fre->uword[SFRAME_FLEX_CFA_CTRL];
	unsigned int w = SFRAME_FLEX_RA_CTRL;
	bool padding;
	int err;

	row->flags |= SFRAME_ROW_FLEX;
	/* gas writes 0 in the base bit of FLEX FREs: the control word says it. */
	if (fre->info & SFRAME_FRE_INFO_BASE_SP)
		return -SFRAME_E_BAD_FRE;
	if (fre->count < SFRAME_FLEX_RA_CTRL)
		return -SFRAME_E_BAD_FRE;

	/* The CFA is always computed from a register. */
	if (!(ctrl & SFRAME_FLEX_CTRL_REG_P))
		return -SFRAME_E_BAD_FRE;
	row->cfa.regnum = SFRAME_FLEX_CTRL_REGNUM(ctrl);
	row->cfa.base = sframe_reg_base(sec, row->cfa.regnum);
	row->cfa.deref = ctrl & SFRAME_FLEX_CTRL_DEREF_P;
	row->cfa.offset = fre->sword[SFRAME_FLEX_CFA_OFF];
	/* The extension's addend: only after a deref, only where flagged. */
	if (ctrl & SFRAME_FLEX_CTRL_SFU_ADDEND) {
		if (!(sec->flags & SFRAME_F_SFU_CFA_ADDEND) || !row->cfa.deref ||
		    fre->count <= SFRAME_FLEX_CFA_ADDEND)
			return -SFRAME_E_BAD_FRE;
		row->cfa.addend = fre->sword[SFRAME_FLEX_CFA_ADDEND];
		w = SFRAME_FLEX_CFA_ADDEND + 1;
	}

	/* Then RA and FP, each a (control, offset) pair or one padding word. */
	sframe_default_ra(sec, &row->ra);
	err = sframe_flex_entry(sec, fre, &w, &row->ra, &padding);
	if (err)
		return err;
	if (padding)
		row->flags |= SFRAME_ROW_RA_PADDING;
	err = sframe_flex_entry(sec, fre, &w, &row->fp, &padding);
	if (err)
		return err;
	/* Words after FP: saved registers, RA and FP present so their place is known. */
	return sframe_decode_saved(sec, fre, w, row);
}

static __always_inline int sframe_decode_default(const struct sfu_sframe_section *sec,
						 const struct sframe_fre_raw *fre,
						 struct sfu_sframe_row *row)
{
	bool amd64 = sframe_is_amd64(sec);

	if (fre->count > (amd64 ? SFRAME_AMD64_MAX_WORDS : SFRAME_AARCH64_MAX_WORDS))
		return -SFRAME_E_BAD_FRE;

	if (fre->info & SFRAME_FRE_INFO_BASE_SP) {
		row->cfa.base = SFRAME_BASE_SP;
		row->cfa.regnum = amd64 ? SFRAME_AMD64_DWARF_SP : SFRAME_AARCH64_DWARF_SP;
	} else {
		row->cfa.base = SFRAME_BASE_FP;
		row->cfa.regnum = amd64 ? SFRAME_AMD64_DWARF_FP : SFRAME_AARCH64_DWARF_FP;
	}
	row->cfa.offset = fre->sword[SFRAME_FRE_CFA_WORD];

	if (amd64) {
		sframe_default_ra(sec, &row->ra);
		if (fre->count > SFRAME_AMD64_FP_WORD) {
			row->fp.kind = SFRAME_RULE_CFA_DEREF;
			row->fp.offset = fre->sword[SFRAME_AMD64_FP_WORD];
		}
		return 0;
	}

	if (fre->count > SFRAME_AARCH64_RA_WORD) {
		if (fre->sword[SFRAME_AARCH64_RA_WORD] == SFRAME_FRE_RA_OFFSET_INVALID) {
			row->flags |= SFRAME_ROW_RA_PADDING;
		} else {
			row->ra.kind = SFRAME_RULE_CFA_DEREF;
			row->ra.offset = fre->sword[SFRAME_AARCH64_RA_WORD];
		}
	}
	if (fre->count > SFRAME_AARCH64_FP_WORD) {
		row->fp.kind = SFRAME_RULE_CFA_DEREF;
		row->fp.offset = fre->sword[SFRAME_AARCH64_FP_WORD];
	}
	return 0;
}

static inline bool sframe_rule_needs_topmost(const struct sfu_sframe_reg_rule *rule)
{
	return (rule->kind == SFRAME_RULE_REG || rule->kind == SFRAME_RULE_REG_DEREF) &&
	       rule->base == SFRAME_BASE_REG;
}

/* Turn one FRE of @fde into the rules of @row (not its PC range). */
static __always_inline int sframe_fre_decode(const struct sfu_sframe_section *sec,
					     const struct sfu_sframe_fde *fde,
					     const struct sframe_fre_raw *fre,
					     struct sfu_sframe_row *row)
{
	int err;

	memset(&row->cfa, 0, sizeof(row->cfa));
	memset(&row->ra, 0, sizeof(row->ra));
	memset(&row->fp, 0, sizeof(row->fp));
	row->nr_saved = 0;
	row->fre_start = fre->start;
	row->flags = 0;
	if (fde->pcmask)
		row->flags |= SFRAME_ROW_PCMASK;
	if (fde->info & SFRAME_V3_FDE_INFO_SIGNAL)
		row->flags |= SFRAME_ROW_SIGNAL;
	if (fde->info & SFRAME_FDE_INFO_PAUTH_KEY_B)
		row->flags |= SFRAME_ROW_PAUTH_KEY_B;
	if (fde->info2 & SFRAME_V3_FDE_INFO2_SFU_INJECTED)
		row->flags |= SFRAME_ROW_INJECTED_CALL;

	if (fre->info & SFRAME_FRE_INFO_RA_MANGLED) {
		/* Pointer authentication is an AArch64 thing. */
		if (sframe_is_amd64(sec))
			return -SFRAME_E_BAD_FRE;
		row->flags |= SFRAME_ROW_RA_MANGLED;
	}

	/* No data words: RA undefined, the outermost frame (not an error). */
	if (!fre->count) {
		row->flags |= SFRAME_ROW_OUTERMOST;
		return 0;
	}
	/* Rows of other sections hold at most the CFA, RA and FP pairs. */
	/* A row of such a section lists every tracked register the frame saved. */
	if ((sec->flags & SFRAME_F_SFU_SAVED_REGS) &&
	    !(fde->info2 & SFRAME_V3_FDE_INFO2_SFU_NO_SAVES))
		row->flags |= SFRAME_ROW_SAVED_REGS;
	if (fre->count > SFRAME_FRE_STD_MAX_WORDS &&
	    (fde->type != SFRAME_FDE_TYPE_FLEX || !(row->flags & SFRAME_ROW_SAVED_REGS)))
		return -SFRAME_E_BAD_FRE;

	if (fde->type == SFRAME_FDE_TYPE_FLEX)
		err = sframe_decode_flex(sec, fre, row);
	else
		err = sframe_decode_default(sec, fre, row);
	if (err)
		return err;

	if (row->cfa.base == SFRAME_BASE_REG || row->ra.kind == SFRAME_RULE_SAME ||
	    sframe_rule_needs_topmost(&row->ra) || sframe_rule_needs_topmost(&row->fp))
		row->flags |= SFRAME_ROW_TOPMOST_ONLY;
	return 0;
}

static inline void sframe_row_set_func(struct sfu_sframe_row *row, const struct sfu_sframe_fde *fde)
{
	row->func_start = fde->func_start;
	row->func_size = fde->func_size;
	row->fde_idx = fde->idx;
}

#endif /* _SFU_SFRAME_DECODE_H */
