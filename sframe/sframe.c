// SPDX-License-Identifier: GPL-2.0
/*
 * SFrame decoder: V1, V2, V2 + PCREL and V3 sections, AMD64 and AArch64.
 *
 * Three stages with different trust:
 *  - sframe_section_init() checks the header against the section size;
 *  - sframe_section_validate() walks every FDE and FRE once;
 *  - sframe_find_row() trusts neither: the bytes may have been rewritten
 *    since validation, so every read is bounds-checked again and every
 *    loop has a bound that does not depend on section bytes.
 * FDE and FRE decoding is shared by all three, so the checks live in one
 * place (sframe_fde_get(), sframe_fre_read(), sframe_fre_decode()); the FRE
 * scan of a lookup, which steps over FREs without copying them, makes the
 * checks of sframe_fre_read() with the sframe_fre_tail[] table.
 */
#include <linux/types.h>
#include <linux/kernel.h>
#include <linux/errno.h>
#include <linux/export.h>
#include <linux/string.h>
#include <linux/overflow.h>

#include "sframe.h"

/* Longest FRE: a 4-byte start offset, the info byte and six 4-byte words. */
#define SFRAME_FRE_MAX_BYTES	(4 + 1 + SFRAME_FRE_MAX_WORDS * 4)

/*
 * Bytes of an FRE after its start offset (the info byte and the data
 * words) by info byte, so that a lookup can step over an FRE without
 * decoding it; 0 for an invalid info byte (word size code 3, or more than
 * SFRAME_FRE_MAX_WORDS words).  Row n is info bytes 16n to 16n + 15: bits
 * 1-4 are the word count, 5-6 the word size; bit 0 (CFA base) and bit 7
 * (RA mangled) do not change the size.  sframe_fre_read() computes the
 * same sizes from the fields.
 */
static const u8 sframe_fre_tail[256] = {
	1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 0, 0,		/* 1-byte words */
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	1, 1, 3, 3, 5, 5, 7, 7, 9, 9, 11, 11, 13, 13, 0, 0,	/* 2-byte words */
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	1, 1, 5, 5, 9, 9, 13, 13, 17, 17, 21, 21, 25, 25, 0, 0,	/* 4-byte words */
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,		/* size code 3 */
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 0, 0,		/* RA mangled */
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	1, 1, 3, 3, 5, 5, 7, 7, 9, 9, 11, 11, 13, 13, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	1, 1, 5, 5, 9, 9, 13, 13, 17, 17, 21, 21, 25, 25, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
};

/*
 * Bytes a lookup copies at once from user memory: some 30 FREs of the
 * usual 3 to 5 bytes, or the FDEs left for the last probes of the binary
 * search.  A copy does not cross a 4 KiB boundary (the smallest page size):
 * an FRE just before one is read on its own, so that a no-fault lookup
 * does not fail on a page it would not have read one FRE at a time.
 */
#define SFRAME_WINDOW_BYTES	128
#define SFRAME_WINDOW_PAGE	4096

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
static u32 sframe_get_le(const u8 *p, unsigned int n)
{
	if (n == 1)
		return p[0];
	if (n == 2)
		return sframe_le16(p);
	return sframe_le32(p);
}

static bool sframe_is_amd64(const struct sframe_section *sec)
{
	return sec->abi == SFRAME_ABI_AMD64_ENDIAN_LITTLE;
}

/**
 * sframe_section_init() - check an SFrame header and set up @sec
 * @sec: filled on success
 * @r: the section bytes; copied into @sec
 * @sframe_vaddr: address at which the section is mapped
 * @expected_abi: SFRAME_ABI_* the caller can unwind, or 0 for either of
 *                AMD64 and AArch64 little-endian
 *
 * Checks magic and byte order, version, flags for that version, ABI, and
 * that every offset, length and count of the header fits the section and
 * the limits in sframe.h.  Reads only the header.
 *
 * Return: 0 or -SFRAME_E_xxx.
 */
int sframe_section_init(struct sframe_section *sec, const struct sframe_reader *r,
			unsigned long sframe_vaddr, int expected_abi)
{
	u8 h[SFRAME_HDR_SIZE];
	u64 hdr_len, fde_end, fre_min;
	u32 fdeoff, freoff;
	u16 magic;
	u8 valid_flags;
	int err;

	memset(sec, 0, sizeof(*sec));
	if (r->size > SFRAME_MAX_SECTION_SIZE)
		return -SFRAME_E_TOO_BIG;

	/* The preamble alone says whether this is an SFrame section at all. */
	err = sframe_read(r, 0, h, 4);
	if (err)
		return err;
	magic = sframe_le16(h + SFRAME_HDR_MAGIC);
	if (magic == SFRAME_MAGIC_SWAPPED)
		return -SFRAME_E_FOREIGN_ENDIAN;
	if (magic != SFRAME_MAGIC)
		return -SFRAME_E_BAD_MAGIC;

	sec->version = h[SFRAME_HDR_VERSION];
	switch (sec->version) {
	case SFRAME_VERSION_1:
		valid_flags = SFRAME_V1_F_ALL;
		sec->fde_size = SFRAME_V1_FDE_BYTES;
		break;
	case SFRAME_VERSION_2:
		valid_flags = SFRAME_V2_F_ALL;
		sec->fde_size = SFRAME_V2_FDE_BYTES;
		break;
	case SFRAME_VERSION_3:
		valid_flags = SFRAME_V3_F_ALL;
		sec->fde_size = SFRAME_V3_FDE_BYTES;
		break;
	default:
		return -SFRAME_E_VERSION;
	}
	sec->flags = h[SFRAME_HDR_FLAGS];
	if (sec->flags & ~valid_flags)
		return -SFRAME_E_FLAGS;

	err = sframe_read(r, 0, h, sizeof(h));
	if (err)
		return err;

	sec->abi = h[SFRAME_HDR_ABI_ARCH];
	if (sec->abi != SFRAME_ABI_AMD64_ENDIAN_LITTLE &&
	    sec->abi != SFRAME_ABI_AARCH64_ENDIAN_LITTLE)
		return -SFRAME_E_ABI;
	if (expected_abi && sec->abi != expected_abi)
		return -SFRAME_E_ABI_MISMATCH;

	/*
	 * No toolchain writes a fixed FP offset, and the RA is either at a
	 * fixed offset (AMD64) or tracked per FRE (AArch64): anything else
	 * would change how the data words are read.
	 */
	sec->cfa_fixed_fp_offset = (s8)h[SFRAME_HDR_CFA_FIXED_FP];
	sec->cfa_fixed_ra_offset = (s8)h[SFRAME_HDR_CFA_FIXED_RA];
	if (sec->cfa_fixed_fp_offset != SFRAME_CFA_FIXED_OFFSET_NONE)
		return -SFRAME_E_BAD_HEADER;
	if (sframe_is_amd64(sec) ?
	    sec->cfa_fixed_ra_offset == SFRAME_CFA_FIXED_OFFSET_NONE :
	    sec->cfa_fixed_ra_offset != SFRAME_CFA_FIXED_OFFSET_NONE)
		return -SFRAME_E_BAD_HEADER;

	sec->num_fdes = sframe_le32(h + SFRAME_HDR_NUM_FDES);
	sec->num_fres = sframe_le32(h + SFRAME_HDR_NUM_FRES);
	sec->fre_len = sframe_le32(h + SFRAME_HDR_FRE_LEN);
	fdeoff = sframe_le32(h + SFRAME_HDR_FDEOFF);
	freoff = sframe_le32(h + SFRAME_HDR_FREOFF);
	if (sec->num_fdes > SFRAME_MAX_FDES || sec->num_fres > SFRAME_MAX_FRES)
		return -SFRAME_E_TOO_BIG;

	/* All sums below are of 32-bit values in 64 bits: none can wrap. */
	hdr_len = SFRAME_HDR_SIZE + h[SFRAME_HDR_AUXHDR_LEN];
	if (hdr_len > r->size)
		return -SFRAME_E_TRUNCATED;
	if (fdeoff > freoff)
		return -SFRAME_E_BAD_HEADER;
	sec->fde_off = hdr_len + fdeoff;
	sec->fre_off = hdr_len + freoff;
	fde_end = sec->fde_off + (u64)sec->num_fdes * sec->fde_size;
	if (fde_end > sec->fre_off)
		return -SFRAME_E_BAD_HEADER;
	sec->fre_end = sec->fre_off + sec->fre_len;
	if (sec->fre_end > r->size)
		return -SFRAME_E_TRUNCATED;

	/* Every FRE takes at least 2 bytes, every V3 attribute block 5. */
	fre_min = 2ULL * sec->num_fres;
	if (sec->version == SFRAME_VERSION_3)
		fre_min += (u64)SFRAME_V3_ATTR_BYTES * sec->num_fdes;
	if (fre_min > sec->fre_len)
		return -SFRAME_E_BAD_HEADER;

	sec->reader = *r;
	sec->vaddr = sframe_vaddr;
	return 0;
}
EXPORT_SYMBOL_GPL(sframe_section_init);

/* Absolute address from a function start field at section offset @field. */
static int sframe_func_start(const struct sframe_section *sec, u64 field, s64 rel, u64 *start)
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

/* sframe_fde_get(), inlined into sframe_find_row(). */
static __always_inline int sframe_fde_read(const struct sframe_section *sec, u32 idx,
					   struct sframe_fde *fde)
{
	u8 tmp[SFRAME_V2_FDE_BYTES], attr_tmp[SFRAME_V3_ATTR_BYTES];
	const u8 *buf, *attr;
	u64 field, end, fre_rel;
	s64 rel;
	int err;

	if (idx >= sec->num_fdes)
		return -SFRAME_E_NO_FDE;
	memset(fde, 0, sizeof(*fde));
	fde->idx = idx;
	field = sec->fde_off + (u64)idx * sec->fde_size;
	err = sframe_read_ptr(&sec->reader, field, sec->fde_size, tmp, &buf);
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
		rel = (s64)sframe_le64(buf + SFRAME_V3_FDE_START);
		fde->func_size = sframe_le32(buf + SFRAME_V3_FDE_SIZE);
		fre_rel = sframe_le32(buf + SFRAME_V3_FDE_FRE_OFF);
		/* The attribute block sits where the index entry points. */
		if (fre_rel > sec->fre_len || sec->fre_len - fre_rel < SFRAME_V3_ATTR_BYTES)
			return -SFRAME_E_BAD_FDE;
		err = sframe_read_ptr(&sec->reader, sec->fre_off + fre_rel,
				      SFRAME_V3_ATTR_BYTES, attr_tmp, &attr);
		if (err)
			return err;
		fde->num_fres = sframe_le16(attr + SFRAME_V3_ATTR_NUM_FRES);
		fde->info = attr[SFRAME_V3_ATTR_INFO];
		fde->info2 = attr[SFRAME_V3_ATTR_INFO2];
		fde->rep_size = attr[SFRAME_V3_ATTR_REP_SIZE];
		fre_rel += SFRAME_V3_ATTR_BYTES;
		break;
	}

	fde->fre_type = SFRAME_FDE_INFO_FRE_TYPE(fde->info);
	if (fde->fre_type > SFRAME_FRE_TYPE_ADDR4 || (fde->info & SFRAME_FDE_INFO_UNUSED))
		return -SFRAME_E_BAD_FDE;
	if ((fde->info & SFRAME_V3_FDE_INFO_SIGNAL) && sec->version != SFRAME_VERSION_3)
		return -SFRAME_E_BAD_FDE;
	if ((fde->info & SFRAME_FDE_INFO_PAUTH_KEY_B) && sframe_is_amd64(sec))
		return -SFRAME_E_BAD_FDE;
	if (fde->info2 & SFRAME_V3_FDE_INFO2_UNUSED)
		return -SFRAME_E_BAD_FDE;
	fde->type = SFRAME_V3_FDE_INFO2_TYPE(fde->info2);
	if (fde->type != SFRAME_FDE_TYPE_DEFAULT && fde->type != SFRAME_FDE_TYPE_FLEX)
		return -SFRAME_E_BAD_FDE;

	fde->pcmask = fde->info & SFRAME_FDE_INFO_PCMASK;
	if (!fde->pcmask)
		fde->rep_size = 0;
	else if (!fde->rep_size)
		return -SFRAME_E_REP_SIZE;

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

/**
 * sframe_fde_get() - read and check one function descriptor
 * @sec: initialized section
 * @idx: FDE index, below @sec->num_fdes
 * @fde: filled on success
 *
 * Checks the info bits for version and ABI, the repeat size of PC-mask
 * FDEs, that the V3 attribute block and the first FRE lie inside the FRE
 * sub-section, that the FRE count fits the header, the fixed limit and the
 * bytes left, and that the function range does not wrap.
 *
 * Return: 0 or -SFRAME_E_xxx (-SFRAME_E_NO_FDE for an index out of range).
 */
int sframe_fde_get(const struct sframe_section *sec, u32 idx, struct sframe_fde *fde)
{
	return sframe_fde_read(sec, idx, fde);
}
EXPORT_SYMBOL_GPL(sframe_fde_get);

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

/* Read the FRE at section offset @pos; it must end inside the FRE sub-section. */
static int sframe_fre_read(const struct sframe_section *sec, const struct sframe_fde *fde,
			   u64 pos, struct sframe_fre_raw *fre)
{
	u8 buf[SFRAME_FRE_MAX_BYTES];
	unsigned int addr_bytes, word_bytes;
	u64 left;
	int err;

	/* @fde normally comes from sframe_fde_get(), which checked this. */
	if (fde->fre_type > SFRAME_FRE_TYPE_ADDR4 || pos > sec->fre_end)
		return -SFRAME_E_BAD_FDE;
	addr_bytes = 1U << fde->fre_type;
	left = sec->fre_end - pos;
	if (left < addr_bytes + 1)
		return -SFRAME_E_BAD_FDE;
	err = sframe_read(&sec->reader, pos, buf, addr_bytes + 1);
	if (err)
		return err;
	fre->start = sframe_get_le(buf, addr_bytes);
	fre->info = buf[addr_bytes];

	if (SFRAME_FRE_INFO_SIZE(fre->info) > SFRAME_FRE_DATAWORD_4B)
		return -SFRAME_E_BAD_FRE;
	word_bytes = 1U << SFRAME_FRE_INFO_SIZE(fre->info);
	fre->count = SFRAME_FRE_INFO_COUNT(fre->info);
	if (fre->count > SFRAME_FRE_MAX_WORDS)
		return -SFRAME_E_BAD_FRE;

	fre->bytes = addr_bytes + 1 + fre->count * word_bytes;
	if (left < fre->bytes)
		return -SFRAME_E_BAD_FDE;
	err = sframe_read(&sec->reader, pos + addr_bytes + 1, buf, fre->count * word_bytes);
	if (err)
		return err;
	sframe_fre_words(fre, buf);
	return 0;
}

static u8 sframe_reg_base(const struct sframe_section *sec, u32 regnum)
{
	bool amd64 = sframe_is_amd64(sec);

	if (regnum == (amd64 ? SFRAME_AMD64_DWARF_SP : SFRAME_AARCH64_DWARF_SP))
		return SFRAME_BASE_SP;
	if (regnum == (amd64 ? SFRAME_AMD64_DWARF_FP : SFRAME_AARCH64_DWARF_FP))
		return SFRAME_BASE_FP;
	return SFRAME_BASE_REG;
}

/* RA when an FRE says nothing about it: the ABI's default. */
static void sframe_default_ra(const struct sframe_section *sec, struct sframe_reg_rule *ra)
{
	if (sframe_is_amd64(sec)) {
		ra->kind = SFRAME_RULE_FIXED;
		ra->offset = sec->cfa_fixed_ra_offset;
	} else {
		ra->kind = SFRAME_RULE_SAME;
	}
}

/* An RA or FP (control, offset) pair of a FLEX FRE. */
static int sframe_flex_rule(const struct sframe_section *sec, u32 ctrl, s32 off,
			    struct sframe_reg_rule *rule)
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

static int sframe_decode_flex(const struct sframe_section *sec, const struct sframe_fre_raw *fre,
			      struct sframe_row *row)
{
	u32 ctrl = fre->uword[SFRAME_FLEX_CFA_CTRL];
	unsigned int fp_ctrl = 0;
	int err;

	row->flags |= SFRAME_ROW_FLEX;
	/* gas writes 0 in the base bit of FLEX FREs: the control word says it. */
	if (fre->info & SFRAME_FRE_INFO_BASE_SP)
		return -SFRAME_E_BAD_FRE;
	if (fre->count != 2 && fre->count != 4 && fre->count != 5 && fre->count != 6)
		return -SFRAME_E_BAD_FRE;

	/* The CFA is always computed from a register. */
	if (!(ctrl & SFRAME_FLEX_CTRL_REG_P) || (ctrl & SFRAME_FLEX_CTRL_RESERVED))
		return -SFRAME_E_BAD_FRE;
	row->cfa.regnum = SFRAME_FLEX_CTRL_REGNUM(ctrl);
	row->cfa.base = sframe_reg_base(sec, row->cfa.regnum);
	row->cfa.deref = ctrl & SFRAME_FLEX_CTRL_DEREF_P;
	row->cfa.offset = fre->sword[SFRAME_FLEX_CFA_OFF];

	switch (fre->count) {
	case 4:
	case 6:
		err = sframe_flex_rule(sec, fre->uword[SFRAME_FLEX_RA_CTRL],
				       fre->sword[SFRAME_FLEX_RA_OFF], &row->ra);
		if (err)
			return err;
		fp_ctrl = fre->count == 6 ? SFRAME_FLEX_FP_CTRL : 0;
		break;
	case 5:
		/* One padding word stands for "RA where the ABI puts it". */
		if (fre->uword[SFRAME_FLEX_RA_CTRL] != SFRAME_FLEX_CTRL_PADDING)
			return -SFRAME_E_BAD_FRE;
		sframe_default_ra(sec, &row->ra);
		row->flags |= SFRAME_ROW_RA_PADDING;
		fp_ctrl = SFRAME_FLEX_FP_CTRL_PADDED;
		break;
	default:
		sframe_default_ra(sec, &row->ra);
		break;
	}
	if (!fp_ctrl)
		return 0;
	return sframe_flex_rule(sec, fre->uword[fp_ctrl], fre->sword[fp_ctrl + 1], &row->fp);
}

static __always_inline int sframe_decode_default(const struct sframe_section *sec,
						 const struct sframe_fre_raw *fre,
						 struct sframe_row *row)
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

static bool sframe_rule_needs_topmost(const struct sframe_reg_rule *rule)
{
	return (rule->kind == SFRAME_RULE_REG || rule->kind == SFRAME_RULE_REG_DEREF) &&
	       rule->base == SFRAME_BASE_REG;
}

/* Turn one FRE of @fde into the rules of @row (not its PC range). */
static __always_inline int sframe_fre_decode(const struct sframe_section *sec,
					     const struct sframe_fde *fde,
					     const struct sframe_fre_raw *fre,
					     struct sframe_row *row)
{
	int err;

	memset(&row->cfa, 0, sizeof(row->cfa));
	memset(&row->ra, 0, sizeof(row->ra));
	memset(&row->fp, 0, sizeof(row->fp));
	row->fre_start = fre->start;
	row->flags = 0;
	if (fde->pcmask)
		row->flags |= SFRAME_ROW_PCMASK;
	if (fde->info & SFRAME_V3_FDE_INFO_SIGNAL)
		row->flags |= SFRAME_ROW_SIGNAL;
	if (fde->info & SFRAME_FDE_INFO_PAUTH_KEY_B)
		row->flags |= SFRAME_ROW_PAUTH_KEY_B;

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

static void sframe_row_set_func(struct sframe_row *row, const struct sframe_fde *fde)
{
	row->func_start = fde->func_start;
	row->func_size = fde->func_size;
	row->fde_idx = fde->idx;
}

/**
 * sframe_fre_next() - decode the FRE at *@pos and advance *@pos past it
 * @sec: initialized section
 * @fde: from sframe_fde_get()
 * @pos: section offset of the FRE; start with @fde->fres_off
 * @row: filled on success; @row->start is the FRE's start (in the first
 *       repeat block for PC-mask FDEs) and @row->end the most it can cover,
 *       the next FRE's start being the real end
 *
 * For dumping every row; the caller bounds the loop by @fde->num_fres.
 * Does not check the order of FREs (sframe_section_validate() does).
 *
 * Return: 0 or -SFRAME_E_xxx.
 */
int sframe_fre_next(const struct sframe_section *sec, const struct sframe_fde *fde, u64 *pos,
		    struct sframe_row *row)
{
	struct sframe_fre_raw fre;
	u64 limit = fde->pcmask ? min_t(u64, fde->rep_size, fde->func_size) : fde->func_size;
	int err;

	err = sframe_fre_read(sec, fde, *pos, &fre);
	if (err)
		return err;
	err = sframe_fre_decode(sec, fde, &fre, row);
	if (err)
		return err;
	sframe_row_set_func(row, fde);
	row->start = fde->func_start + min_t(u64, fre.start, limit);
	row->end = fde->func_start + limit;
	*pos += fre.bytes;
	return 0;
}
EXPORT_SYMBOL_GPL(sframe_fre_next);

/**
 * sframe_section_validate() - check every FDE and FRE of a section once
 * @sec: initialized section
 *
 * On top of what sframe_fde_get() checks per FDE: function starts not
 * decreasing and the ranges of non-empty functions not overlapping (gcc
 * puts zero-size functions at the start of the next one), FRE counts
 * adding up to no more than the header's, every FRE decodable for the ABI
 * and FDE type, FRE starts strictly ascending within a function and not
 * past its end (an FRE may start exactly at the end) or past the repeat
 * size of a PC-mask FDE.  Bytes after the FRE sub-section (segment
 * padding) are not looked at.
 *
 * Work is O(num_fdes + num_fres), both bounded by the limits in sframe.h.
 *
 * Return: 0 or -SFRAME_E_xxx.
 */
int sframe_section_validate(const struct sframe_section *sec)
{
	struct sframe_fre_raw fre;
	struct sframe_row row;
	struct sframe_fde fde;
	u64 prev_start = 0, prev_end = 0, pos, limit;
	u64 fres_seen = 0;
	u32 i, j, prev_fre;
	int err;

	for (i = 0; i < sec->num_fdes; i++) {
		err = sframe_fde_get(sec, i, &fde);
		if (err)
			return err;
		/*
		 * gcc emits zero-size functions (a body that is only
		 * __builtin_unreachable()) at the address of the next one:
		 * they may share a start, only real ranges must not overlap.
		 */
		if (fde.func_start < prev_start ||
		    (fde.func_size && fde.func_start < prev_end))
			return -SFRAME_E_UNSORTED;
		prev_start = fde.func_start;
		if (fde.func_size)
			prev_end = fde.func_start + fde.func_size;

		/* Bound the whole walk by the header's FRE count. */
		fres_seen += fde.num_fres;
		if (fres_seen > sec->num_fres)
			return -SFRAME_E_BAD_FDE;

		limit = fde.pcmask ? fde.rep_size : fde.func_size;
		pos = fde.fres_off;
		for (j = 0, prev_fre = 0; j < fde.num_fres; j++, prev_fre = fre.start) {
			err = sframe_fre_read(sec, &fde, pos, &fre);
			if (err)
				return err;
			if (j && fre.start <= prev_fre)
				return -SFRAME_E_FRE_ORDER;
			if (fre.start > limit)
				return -SFRAME_E_BAD_FRE;
			err = sframe_fre_decode(sec, &fde, &fre, &row);
			if (err)
				return err;
			pos += fre.bytes;
		}
	}
	return 0;
}
EXPORT_SYMBOL_GPL(sframe_section_validate);

/**
 * struct sframe_fde_batch - FDE entries copied from user memory at once
 * @first: index of the FDE at @buf[0]
 * @count: FDEs in @buf, 0 before the copy
 * @buf: their bytes
 *
 * The last probes of a binary search fall in a few neighbouring FDEs:
 * once those fit in @buf they are copied with one read instead of one per
 * probe.
 */
struct sframe_fde_batch {
	u32 first;
	u32 count;
	u8 buf[SFRAME_WINDOW_BYTES];
};

/*
 * Copy FDEs @first to @first + @count - 1 from user memory into @b, if they
 * fit and lie in one 4 KiB page: the page of the FDE the search ends at,
 * so that a no-fault lookup reads no page it would not read otherwise.
 */
static int sframe_fde_batch_fill(const struct sframe_section *sec, struct sframe_fde_batch *b,
				 u32 first, u32 count)
{
	u64 off = sec->fde_off + (u64)first * sec->fde_size;
	u64 len = (u64)count * sec->fde_size;
	u64 page = SFRAME_WINDOW_PAGE - ((sec->reader.uaddr + off) & (SFRAME_WINDOW_PAGE - 1));
	const u8 *p;
	int err;

	if (len > sizeof(b->buf) || len > page)
		return 0;
	err = sframe_read_ptr(&sec->reader, off, len, b->buf, &p);
	if (err)
		return err;
	b->first = first;
	b->count = count;
	return 0;
}

/*
 * Start address of FDE @i for the binary search, modulo 2^64: one that
 * would wrap (validation refuses it) only steers the search like an
 * unsorted FDE does, and the FDE the search ends at is checked in full by
 * sframe_fde_get().  The start field is read from @tab, the FDE array in
 * place, or if @user from @b or else user memory.
 */
static __always_inline int sframe_fde_probe(const struct sframe_section *sec, bool user,
					    const u8 *tab, struct sframe_fde_batch *b, u32 i,
					    u32 size, bool wide, bool pcrel, u64 *start)
{
	u64 off = (u64)i * size;
	const u8 *p;
	u8 buf[8];
	s64 rel;
	int err;

	if (!user) {
		p = tab + off;
	} else if (i - b->first < b->count) {
		p = b->buf + (u64)(i - b->first) * size;
	} else {
		err = sframe_read_ptr(&sec->reader, sec->fde_off + off, wide ? 8 : 4, buf, &p);
		if (err)
			return err;
	}
	rel = wide ? (s64)sframe_le64(p) : (s32)sframe_le32(p);
	*start = sec->vaddr + rel + (pcrel ? sec->fde_off + off : 0);
	return 0;
}

/*
 * Binary search for the first FDE that starts after @pc: *@idx FDEs start
 * at or before it if the FDEs are sorted.  Shar's form: a first probe
 * leaves a power-of-two range, then each probe halves it, so that a probe
 * of a buffer is a load, an add, a compare and a conditional move; 22
 * probes at most (SFRAME_MAX_FDES).  Inlined with a constant layout for
 * each version.  In user memory the FDEs left for the last probes are
 * copied at once.
 */
static __always_inline int sframe_fde_search(const struct sframe_section *sec, bool user,
					     const u8 *tab, u32 size, bool wide, bool pcrel, u64 pc,
					     u32 *idx)
{
	u32 n = sec->num_fdes, i = 0, k;
	struct sframe_fde_batch b;
	u64 start;
	int err;

	*idx = 0;
	if (!n)
		return 0;
	if (user) {
		b.first = 0;
		b.count = 0;
		err = sframe_fde_batch_fill(sec, &b, 0, n);
		if (err)
			return err;
	}
	/* The first FDE after pc is one of FDEs i to i + k. */
	k = 1U << (31 - __builtin_clz(n));
	err = sframe_fde_probe(sec, user, tab, &b, k - 1, size, wide, pcrel, &start);
	if (err)
		return err;
	if (start <= pc)
		i = n - k;
	for (k >>= 1; k; k >>= 1) {
		/* The probes left are of FDEs i to i + 2k - 1, all below n. */
		if (user && !b.count) {
			err = sframe_fde_batch_fill(sec, &b, i, 2 * k);
			if (err)
				return err;
		}
		err = sframe_fde_probe(sec, user, tab, &b, i + k - 1, size, wide, pcrel, &start);
		if (err)
			return err;
		if (start <= pc)
			i += k;
	}
	err = sframe_fde_probe(sec, user, tab, &b, i, size, wide, pcrel, &start);
	if (err)
		return err;
	*idx = i + (start <= pc);
	return 0;
}

/* Index of the first FDE that starts after @pc (if they are sorted). */
static int sframe_fde_find(const struct sframe_section *sec, u64 pc, u32 *idx)
{
	bool pcrel = sec->flags & SFRAME_F_FDE_FUNC_START_PCREL;
	const u8 *tab;
	int err;

	if (sec->reader.kind != SFRAME_READER_BUFFER)
		return sframe_fde_search(sec, true, NULL, sec->fde_size,
					 sec->version == SFRAME_VERSION_3, pcrel, pc, idx);

	/* The whole FDE array in place: one bounds check for every probe. */
	err = sframe_read_ptr(&sec->reader, sec->fde_off, (u64)sec->num_fdes * sec->fde_size,
			      NULL, &tab);
	if (err)
		return err;
	switch (sec->version) {
	case SFRAME_VERSION_1:
		return pcrel ? sframe_fde_search(sec, false, tab, SFRAME_V1_FDE_BYTES,
						 false, true, pc, idx) :
			       sframe_fde_search(sec, false, tab, SFRAME_V1_FDE_BYTES,
						 false, false, pc, idx);
	case SFRAME_VERSION_2:
		return pcrel ? sframe_fde_search(sec, false, tab, SFRAME_V2_FDE_BYTES,
						 false, true, pc, idx) :
			       sframe_fde_search(sec, false, tab, SFRAME_V2_FDE_BYTES,
						 false, false, pc, idx);
	default:
		return pcrel ? sframe_fde_search(sec, false, tab, SFRAME_V3_FDE_BYTES,
						 true, true, pc, idx) :
			       sframe_fde_search(sec, false, tab, SFRAME_V3_FDE_BYTES,
						 true, false, pc, idx);
	}
}

/*
 * Bytes from FRE sub-section offset @pos that one window read may take:
 * the rest of the sub-section for a buffer; for user memory at most
 * SFRAME_WINDOW_BYTES, and not past the next 4 KiB boundary.
 */
static u64 sframe_window_room(const struct sframe_section *sec, u64 pos)
{
	u64 room = sec->fre_end - pos, page;

	if (sec->reader.kind == SFRAME_READER_BUFFER)
		return room;
	page = SFRAME_WINDOW_PAGE - ((sec->reader.uaddr + pos) & (SFRAME_WINDOW_PAGE - 1));
	return min_t(u64, min(room, page), SFRAME_WINDOW_BYTES);
}

/* Take the FRE at @q, whose size was checked, as the one found so far. */
static __always_inline void sframe_fre_take(struct sframe_fre_raw *fre, const u8 *q,
					    unsigned long ab, u32 start, u8 info)
{
	fre->start = start;
	fre->info = info;
	fre->count = SFRAME_FRE_INFO_COUNT(info);
	sframe_fre_words(fre, q + ab + 1);
}

/*
 * sframe_fre_find() - the last FRE of @fde that starts at or before @target
 * @sec: the section
 * @fde: from sframe_fde_get(), with at least one FRE
 * @target: offset of the PC from the function start (from the repeat block
 *          start for a PC-mask FDE)
 * @fre: the FRE found, with its data words
 * @next_start: set to the start offset of the FRE after it, if there is one
 *
 * Reads the start offset and info byte of each FRE up to the first one
 * that starts after @target, with the checks of sframe_fre_read() and of
 * the FRE order, and steps over the data words; only the FRE found has its
 * words read.  Where the next FREs would fit in the bytes at hand whatever
 * their size -- the rest of a buffer, or a window of up to
 * SFRAME_WINDOW_BYTES copied from user memory -- a run of them is scanned
 * with the loop bounded by how many fit and no size checked per FRE; in
 * the last bytes of the FRE sub-section each size is checked.  In user
 * memory an FRE just before a page boundary is read on its own.
 *
 * Return: 1 if an FRE covers @target and the scan stopped at the next one,
 * 0 if the last FRE covers it, -SFRAME_E_NO_FRE if none does, or another
 * -SFRAME_E_xxx.
 */
static int sframe_fre_find(const struct sframe_section *sec, const struct sframe_fde *fde,
			   u32 target, struct sframe_fre_raw *fre, u32 *next_start)
{
	unsigned long ab = 1UL << fde->fre_type, tail;
	u32 mask = 0xffffffffU >> (32 - 8 * ab);
	u32 left = fde->num_fres, k, start = 0, next_min = 0;
	u8 buf[SFRAME_WINDOW_BYTES], info, found_info = 0;
	const u8 *q = NULL, *run, *found;
	struct sframe_fre_raw one;
	u64 pos = fde->fres_off, room = 0, avail;
	bool have = false;
	int ret = 0;

	if (fde->fre_type > SFRAME_FRE_TYPE_ADDR4 || pos > sec->fre_end)
		return -SFRAME_E_BAD_FDE;
	/* q points at the FRE at section offset pos, with room bytes at hand. */
	while (left) {
		if (room < SFRAME_FRE_MAX_BYTES) {
			avail = sframe_window_room(sec, pos);
			if (avail < SFRAME_FRE_MAX_BYTES && pos + avail < sec->fre_end) {
				/* User memory just before a page boundary: this FRE alone. */
				ret = sframe_fre_read(sec, fde, pos, &one);
				if (ret)
					return ret;
				start = one.start;
				if (start < next_min)
					return -SFRAME_E_FRE_ORDER;
				if (start > target) {
					ret = 1;
					break;
				}
				next_min = start + 1;
				*fre = one;
				have = true;
				pos += one.bytes;
				room = 0;
				left--;
				continue;
			}
			if (avail > room) {
				ret = sframe_read_ptr(&sec->reader, pos, avail, buf, &q);
				if (ret)
					return ret;
				room = avail;
			}
		}

		if (room < SFRAME_FRE_MAX_BYTES) {
			/* The last bytes of the FRE sub-section: check the size. */
			if (room < ab + 1)
				return -SFRAME_E_BAD_FDE;
			start = sframe_get_le(q, ab);
			info = q[ab];
			tail = sframe_fre_tail[info];
			if (!tail)
				return -SFRAME_E_BAD_FRE;
			if (ab + tail > room)
				return -SFRAME_E_BAD_FDE;
			if (start < next_min)
				return -SFRAME_E_FRE_ORDER;
			if (start > target) {
				ret = 1;
				break;
			}
			next_min = start + 1;
			sframe_fre_take(fre, q, ab, start, info);
			have = true;
			q += ab + tail;
			pos += ab + tail;
			room -= ab + tail;
			left--;
			continue;
		}

		/* Every one of the next k FREs lies wholly inside the bytes at hand. */
		k = left;
		if ((u64)k * SFRAME_FRE_MAX_BYTES > room)
			k = room / SFRAME_FRE_MAX_BYTES;
		left -= k;
		run = q;
		found = NULL;
		do {
			start = sframe_le32(q) & mask;
			info = q[ab];
			tail = sframe_fre_tail[info];
			if (!tail)
				return -SFRAME_E_BAD_FRE;
			if (start < next_min)
				return -SFRAME_E_FRE_ORDER;
			if (start > target) {
				ret = 1;
				break;
			}
			/* start <= target < func_size: no wrap */
			next_min = start + 1;
			found = q;
			found_info = info;
			q += ab + tail;
		} while (--k);
		if (found) {
			/* Its words are still at hand. */
			sframe_fre_take(fre, found, ab, next_min - 1, found_info);
			have = true;
		}
		if (ret)
			break;
		pos += q - run;
		room -= q - run;
	}
	if (!have)
		return -SFRAME_E_NO_FRE;
	if (ret)
		*next_start = start;
	return ret;
}

/**
 * sframe_find_row() - the row that describes @pc
 * @sec: initialized (and preferably validated) section
 * @pc: address to look up
 * @row: filled on success
 *
 * Binary search over the FDEs, then a scan of the function's FREs that
 * decodes only the row found.  Safe on its own even if the section bytes
 * changed after validation: every offset is re-checked, the search takes
 * at most 22 probes (plus at most SFRAME_MAX_EMPTY_FDE_SKIP zero-size FDEs
 * stepped over) and the scan at most SFRAME_MAX_FDE_FRES, and nothing
 * divides by a value read from the section without checking it.  A PC at
 * a function's end belongs to the next function or none; a zero-size
 * function matches nothing.  A V3 FDE without FREs describes an outermost
 * frame.
 *
 * Section bytes are read in runs: in place from a buffer; from user memory
 * with one copy per probed FDE start until the FDEs left to probe fit in
 * 128 bytes, one for those, one for the FDE found (two for V3) and one per
 * window of up to 128 bytes of FREs.
 *
 * Return: 0, -SFRAME_E_NO_FDE, -SFRAME_E_NO_FRE, or another -SFRAME_E_xxx
 * if the data is bad.
 */
int sframe_find_row(const struct sframe_section *sec, unsigned long pc, struct sframe_row *row)
{
	struct sframe_fre_raw fre;
	struct sframe_fde fde;
	u32 lo = 0, j, target, next_start = 0;
	u64 block = 0, end;
	int err, has_next;

	/* Last FDE starting at or before pc. */
	err = sframe_fde_find(sec, pc, &lo);
	if (err)
		return err;
	/*
	 * Only the last non-empty one of them can cover pc; zero-size FDEs
	 * sorted after it (same start) are stepped over, a bounded number.
	 */
	for (j = 0; ; j++) {
		if (!lo || j > SFRAME_MAX_EMPTY_FDE_SKIP)
			return -SFRAME_E_NO_FDE;
		err = sframe_fde_read(sec, --lo, &fde);
		if (err)
			return err;
		if (fde.func_size)
			break;
	}
	if (pc < fde.func_start || pc - fde.func_start >= fde.func_size)
		return -SFRAME_E_NO_FDE;

	/* Offsets from the function start from here on: below func_size, a u32. */
	target = pc - fde.func_start;
	if (fde.pcmask) {
		/* rep_size is non-zero: sframe_fde_get() refused 0. */
		block = target - target % fde.rep_size;
		target %= fde.rep_size;
	}

	if (!fde.num_fres) {
		if (sec->version != SFRAME_VERSION_3)
			return -SFRAME_E_NO_FRE;
		/* V3: a function without rows is an outermost frame. */
		memset(row, 0, sizeof(*row));
		row->flags = SFRAME_ROW_OUTERMOST;
		if (fde.info & SFRAME_V3_FDE_INFO_SIGNAL)
			row->flags |= SFRAME_ROW_SIGNAL;
		if (fde.type == SFRAME_FDE_TYPE_FLEX)
			row->flags |= SFRAME_ROW_FLEX;
		sframe_row_set_func(row, &fde);
		row->start = fde.func_start;
		row->end = fde.func_start + fde.func_size;
		return 0;
	}

	has_next = sframe_fre_find(sec, &fde, target, &fre, &next_start);
	if (has_next < 0)
		return has_next;

	err = sframe_fre_decode(sec, &fde, &fre, row);
	if (err)
		return err;
	sframe_row_set_func(row, &fde);
	row->start = fde.func_start + block + fre.start;
	if (has_next)
		end = block + next_start;
	else
		end = fde.pcmask ? block + fde.rep_size : fde.func_size;
	row->end = fde.func_start + min_t(u64, end, fde.func_size);
	return 0;
}
EXPORT_SYMBOL_GPL(sframe_find_row);

static void sframe_format_reg(char *buf, size_t len, u8 base, u32 regnum, bool deref, s64 off)
{
	char reg[16];
	const char *name = reg;

	if (base == SFRAME_BASE_SP)
		name = "sp";
	else if (base == SFRAME_BASE_FP)
		name = "fp";
	else
		snprintf(reg, sizeof(reg), "r%u", regnum);
	snprintf(buf, len, deref ? "(%s%+lld)" : "%s%+lld", name, off);
}

static void sframe_format_rule(char *buf, size_t len, const struct sframe_reg_rule *rule)
{
	switch (rule->kind) {
	case SFRAME_RULE_FIXED:
		snprintf(buf, len, "f");
		break;
	case SFRAME_RULE_CFA_DEREF:
		snprintf(buf, len, "c%+lld", rule->offset);
		break;
	case SFRAME_RULE_REG:
	case SFRAME_RULE_REG_DEREF:
		sframe_format_reg(buf, len, rule->base, rule->regnum,
				  rule->kind == SFRAME_RULE_REG_DEREF, rule->offset);
		break;
	default:
		snprintf(buf, len, "u");
		break;
	}
}

/**
 * sframe_row_format() - "CFA FP RA" of a row in objdump --sframe notation
 * @row: a row from sframe_find_row() or sframe_fre_next()
 * @buf: output
 * @len: size of @buf; SFRAME_ROW_FORMAT_MAX is always enough
 *
 * The notation of binutils trunk: "sp+16", "fp+16" (FLEX: "sp+8",
 * "(r6-8)", "r10+0"), "c-16" for a slot at CFA-16, "u" for not saved,
 * "f" for the fixed AMD64 RA slot, "U" for an RA padding word, "[s]" after
 * a signed RA; "RA undefined" for an outermost row.  Columns are separated
 * by one space.
 *
 * Return: what snprintf() returns: the length of the full text.
 */
int sframe_row_format(const struct sframe_row *row, char *buf, size_t len)
{
	char cfa[32], fp[32], ra[32];

	if (row->flags & SFRAME_ROW_OUTERMOST)
		return snprintf(buf, len, "RA undefined");

	if (row->flags & SFRAME_ROW_FLEX)
		sframe_format_reg(cfa, sizeof(cfa), row->cfa.base, row->cfa.regnum,
				  row->cfa.deref, row->cfa.offset);
	else
		snprintf(cfa, sizeof(cfa), "%s+%lld",
			 row->cfa.base == SFRAME_BASE_SP ? "sp" : "fp", row->cfa.offset);
	sframe_format_rule(fp, sizeof(fp), &row->fp);
	if (row->flags & SFRAME_ROW_RA_PADDING)
		snprintf(ra, sizeof(ra), "U");
	else
		sframe_format_rule(ra, sizeof(ra), &row->ra);

	return snprintf(buf, len, "%s %s %s%s", cfa, fp, ra,
			(row->flags & SFRAME_ROW_RA_MANGLED) ? "[s]" : "");
}
EXPORT_SYMBOL_GPL(sframe_row_format);

static const char * const sframe_error_names[SFRAME_E_NR] = {
	[0]			= "OK",
	[SFRAME_E_TRUNCATED]	= "TRUNCATED",
	[SFRAME_E_BAD_MAGIC]	= "BAD_MAGIC",
	[SFRAME_E_FOREIGN_ENDIAN] = "FOREIGN_ENDIAN",
	[SFRAME_E_VERSION]	= "VERSION",
	[SFRAME_E_FLAGS]	= "FLAGS",
	[SFRAME_E_ABI]		= "ABI",
	[SFRAME_E_ABI_MISMATCH]	= "ABI_MISMATCH",
	[SFRAME_E_BAD_HEADER]	= "BAD_HEADER",
	[SFRAME_E_TOO_BIG]	= "TOO_BIG",
	[SFRAME_E_UNSORTED]	= "UNSORTED",
	[SFRAME_E_BAD_FDE]	= "BAD_FDE",
	[SFRAME_E_REP_SIZE]	= "REP_SIZE",
	[SFRAME_E_BAD_FRE]	= "BAD_FRE",
	[SFRAME_E_FRE_ORDER]	= "FRE_ORDER",
	[SFRAME_E_NO_FDE]	= "NO_FDE",
	[SFRAME_E_NO_FRE]	= "NO_FRE",
	[SFRAME_E_FAULT]	= "FAULT",
};

static unsigned int sframe_err_code(int err)
{
	return err < 0 ? -(unsigned int)err : (unsigned int)err;
}

/**
 * sframe_strerror() - name of an error code
 * @err: 0, SFRAME_E_xxx or -SFRAME_E_xxx
 *
 * Return: "TRUNCATED", "NO_FDE", ... ("OK" for 0, "UNKNOWN" otherwise).
 */
const char *sframe_strerror(int err)
{
	unsigned int code = sframe_err_code(err);

	if (code >= ARRAY_SIZE(sframe_error_names))
		return "UNKNOWN";
	return sframe_error_names[code];
}
EXPORT_SYMBOL_GPL(sframe_strerror);

/**
 * sframe_err_to_errno() - the -errno for a decoder result
 * @err: 0, SFRAME_E_xxx or -SFRAME_E_xxx
 *
 * FAULT -> -EFAULT; NO_FDE, NO_FRE -> -ENOENT (nothing describes the PC);
 * TOO_BIG -> -E2BIG; BAD_MAGIC, FOREIGN_ENDIAN, VERSION, FLAGS, ABI,
 * ABI_MISMATCH -> -ENOEXEC (not a section this decoder can use); the other
 * codes (corrupt data) -> -EINVAL.
 *
 * Return: 0 for 0, a negative errno otherwise.
 */
int sframe_err_to_errno(int err)
{
	switch (sframe_err_code(err)) {
	case 0:
		return 0;
	case SFRAME_E_FAULT:
		return -EFAULT;
	case SFRAME_E_NO_FDE:
	case SFRAME_E_NO_FRE:
		return -ENOENT;
	case SFRAME_E_TOO_BIG:
		return -E2BIG;
	case SFRAME_E_BAD_MAGIC:
	case SFRAME_E_FOREIGN_ENDIAN:
	case SFRAME_E_VERSION:
	case SFRAME_E_FLAGS:
	case SFRAME_E_ABI:
	case SFRAME_E_ABI_MISMATCH:
		return -ENOEXEC;
	default:
		return -EINVAL;
	}
}
EXPORT_SYMBOL_GPL(sframe_err_to_errno);
