// SPDX-License-Identifier: GPL-2.0
/*
 * Hostile-input table for the SFrame decoder: every trap of the format
 * (docs: truncation, N = 15, unsorted FDEs, rep_size 0, offsets past the
 * FRE sub-section, trailing padding, zero-size functions, PC at a function
 * end, foreign byte order, unknown versions/flags/ABIs) and every header
 * field at its limits, on sections built from scratch and on mutated real
 * sections of each version.  Each case names the exact expected result.
 */
#include <linux/types.h>
#include <linux/kernel.h>
#include <linux/string.h>

#include "sframe/sframe.h"
#include "gen/sframe_fixtures.h"
#include "sframe_cases.h"

/* ---- sections built from a description ---------------------------- */

#define CASE_VADDR	0x20000ULL	/* sections sit above their functions */

#define FRE_SP		SFRAME_FRE_INFO_BASE_SP
#define FRE_FP		0
#define FRE_N(n)	((n) << 1)
#define FRE_S1		(SFRAME_FRE_DATAWORD_1B << 5)
#define FRE_S2		(SFRAME_FRE_DATAWORD_2B << 5)
#define FRE_S4		(SFRAME_FRE_DATAWORD_4B << 5)
#define FRE_S3		(3 << 5)

#define FDE_ADDR1	SFRAME_FRE_TYPE_ADDR1
#define FDE_ADDR2	SFRAME_FRE_TYPE_ADDR2
#define FDE_ADDR4	SFRAME_FRE_TYPE_ADDR4
#define FDE_MASK	SFRAME_FDE_INFO_PCMASK

/* FLEX control words */
#define CTRL_REG(r)	(((r) << 3) | SFRAME_FLEX_CTRL_REG_P)
#define CTRL_REG_DEREF(r) (CTRL_REG(r) | SFRAME_FLEX_CTRL_DEREF_P)
#define CTRL_CFA_DEREF	SFRAME_FLEX_CTRL_DEREF_P

struct case_fre {
	u32 start;
	u8 info;
	s32 word[15];
};

struct case_fde {
	u64 func;
	u32 size;
	u8 info;
	u8 info2;
	u8 rep_size;
	u8 num_fres;
	const struct case_fre *fres;
};

struct case_sec {
	u8 version;
	u8 flags;
	u8 abi;
	s8 fixed_ra;
	u8 auxhdr_len;
	u8 num_fdes;
	const struct case_fde *fdes;
};

static void put_le(u8 *buf, size_t cap, size_t off, u64 v, unsigned int bytes)
{
	unsigned int i;

	if (off > cap || bytes > cap - off)
		return;
	for (i = 0; i < bytes; i++)
		buf[off + i] = v >> (8 * i);
}

static u64 get_le(const u8 *p, unsigned int bytes)
{
	u64 v = 0;

	while (bytes--)
		v = (v << 8) | p[bytes];
	return v;
}

static unsigned int case_fde_size(u8 version, u8 flags)
{
	if (version == SFRAME_VERSION_1)
		return SFRAME_V1_FDE_BYTES;
	if (version == SFRAME_VERSION_2)
		return SFRAME_V2_FDE_BYTES;
	if (flags & SFRAME_F_SFU_NARROW_INDEX)
		return SFRAME_V3N_FDE_BYTES;
	return SFRAME_V3_FDE_BYTES;
}

static unsigned int case_addr_bytes(u8 fde_info)
{
	u8 type = SFRAME_FDE_INFO_FRE_TYPE(fde_info);

	return type == FDE_ADDR1 ? 1 : type == FDE_ADDR2 ? 2 : 4;
}

static unsigned int case_word_bytes(u8 fre_info)
{
	u8 code = SFRAME_FRE_INFO_SIZE(fre_info);

	return code == SFRAME_FRE_DATAWORD_1B ? 1 : code == SFRAME_FRE_DATAWORD_2B ? 2 : 4;
}

static size_t case_fre_bytes(u8 fde_info, const struct case_fre *fre)
{
	return case_addr_bytes(fde_info) + 1 +
	       SFRAME_FRE_INFO_COUNT(fre->info) * case_word_bytes(fre->info);
}

/* Section offset of FRE @j of FDE @i (or of its V3 attribute block, j = -1). */
static size_t case_fre_pos(const struct case_sec *s, unsigned int i, int j)
{
	size_t pos = SFRAME_HDR_SIZE + s->auxhdr_len +
		     s->num_fdes * case_fde_size(s->version, s->flags);
	unsigned int a, b;

	for (a = 0; a <= i; a++) {
		const struct case_fde *f = &s->fdes[a];

		if (a == i && j < 0)
			return pos;
		if (s->version == SFRAME_VERSION_3)
			pos += SFRAME_V3_ATTR_BYTES;
		for (b = 0; b < f->num_fres; b++) {
			if (a == i && b == (unsigned int)j)
				return pos;
			pos += case_fre_bytes(f->info, &f->fres[b]);
		}
	}
	return pos;
}

static size_t case_fde_pos(const struct case_sec *s, unsigned int i)
{
	return SFRAME_HDR_SIZE + s->auxhdr_len + i * case_fde_size(s->version, s->flags);
}

/*
 * Lay out header, FDE array (fdeoff 0) and the FRE sub-section right after
 * it, for a section mapped at @at.
 */
static size_t case_build_at(const struct case_sec *s, u64 at, u8 *buf, size_t cap, u64 *vaddr)
{
	size_t hdr = SFRAME_HDR_SIZE + s->auxhdr_len;
	size_t fres = hdr + s->num_fdes * case_fde_size(s->version, s->flags);
	size_t pos = fres, fde;
	u32 nfres = 0, fre_rel;
	unsigned int i, j, k;
	u64 rel;

	memset(buf, 0, cap);
	*vaddr = at;
	for (i = 0; i < s->num_fdes; i++) {
		const struct case_fde *f = &s->fdes[i];

		fde = case_fde_pos(s, i);
		fre_rel = pos - fres;
		if (s->version == SFRAME_VERSION_3) {
			put_le(buf, cap, pos + SFRAME_V3_ATTR_NUM_FRES, f->num_fres, 2);
			put_le(buf, cap, pos + SFRAME_V3_ATTR_INFO, f->info, 1);
			put_le(buf, cap, pos + SFRAME_V3_ATTR_INFO2, f->info2, 1);
			put_le(buf, cap, pos + SFRAME_V3_ATTR_REP_SIZE, f->rep_size, 1);
			pos += SFRAME_V3_ATTR_BYTES;
		}
		for (j = 0; j < f->num_fres; j++) {
			const struct case_fre *e = &f->fres[j];
			unsigned int ab = case_addr_bytes(f->info), wb = case_word_bytes(e->info);

			put_le(buf, cap, pos, e->start, ab);
			put_le(buf, cap, pos + ab, e->info, 1);
			pos += ab + 1;
			for (k = 0; k < SFRAME_FRE_INFO_COUNT(e->info); k++, pos += wb)
				put_le(buf, cap, pos, (u32)e->word[k], wb);
		}
		nfres += f->num_fres;

		rel = f->func - *vaddr;
		if (s->flags & SFRAME_F_FDE_FUNC_START_PCREL)
			rel -= fde;
		if (s->flags & SFRAME_F_SFU_NARROW_INDEX) {
			put_le(buf, cap, fde + SFRAME_V3N_FDE_START, rel, 4);
			put_le(buf, cap, fde + SFRAME_V3N_FDE_SIZE, f->size, 4);
			put_le(buf, cap, fde + SFRAME_V3N_FDE_FRE_OFF, fre_rel, 4);
		} else if (s->version == SFRAME_VERSION_3) {
			put_le(buf, cap, fde + SFRAME_V3_FDE_START, rel, 8);
			put_le(buf, cap, fde + SFRAME_V3_FDE_SIZE, f->size, 4);
			put_le(buf, cap, fde + SFRAME_V3_FDE_FRE_OFF, fre_rel, 4);
		} else {
			put_le(buf, cap, fde + SFRAME_V2_FDE_START, rel, 4);
			put_le(buf, cap, fde + SFRAME_V2_FDE_SIZE, f->size, 4);
			put_le(buf, cap, fde + SFRAME_V2_FDE_FRE_OFF, fre_rel, 4);
			put_le(buf, cap, fde + SFRAME_V2_FDE_NUM_FRES, f->num_fres, 4);
			put_le(buf, cap, fde + SFRAME_V2_FDE_INFO, f->info, 1);
			if (s->version == SFRAME_VERSION_2)
				put_le(buf, cap, fde + SFRAME_V2_FDE_REP_SIZE, f->rep_size, 1);
		}
	}

	put_le(buf, cap, SFRAME_HDR_MAGIC, SFRAME_MAGIC, 2);
	put_le(buf, cap, SFRAME_HDR_VERSION, s->version, 1);
	put_le(buf, cap, SFRAME_HDR_FLAGS, s->flags, 1);
	put_le(buf, cap, SFRAME_HDR_ABI_ARCH, s->abi, 1);
	put_le(buf, cap, SFRAME_HDR_CFA_FIXED_RA, (u8)s->fixed_ra, 1);
	put_le(buf, cap, SFRAME_HDR_AUXHDR_LEN, s->auxhdr_len, 1);
	put_le(buf, cap, SFRAME_HDR_NUM_FDES, s->num_fdes, 4);
	put_le(buf, cap, SFRAME_HDR_NUM_FRES, nfres, 4);
	put_le(buf, cap, SFRAME_HDR_FRE_LEN, pos - fres, 4);
	put_le(buf, cap, SFRAME_HDR_FDEOFF, 0, 4);
	put_le(buf, cap, SFRAME_HDR_FREOFF, fres - hdr, 4);
	return pos <= cap ? pos : 0;
}

static size_t case_build(const struct case_sec *s, u8 *buf, size_t cap, u64 *vaddr)
{
	return case_build_at(s, CASE_VADDR, buf, cap, vaddr);
}

/*
 * AMD64 base: two functions at 0x1000 (0x40 bytes) and 0x1040 (0x20 bytes).
 *   [0x1000,0x1004) sp+8 u f   [0x1004,0x103c) sp+16 u f   [0x103c,0x1040) sp+8 u f
 *   [0x1040,0x1041) sp+8 u f   [0x1041,0x1044) sp+16 c-16 f [0x1044,0x1060) fp+16 c-16 f
 */
static const struct case_fre amd64_f0[] = {
	{ 0x00, FRE_SP | FRE_N(1) | FRE_S1, { 8 } },
	{ 0x04, FRE_SP | FRE_N(1) | FRE_S1, { 16 } },
	{ 0x3c, FRE_SP | FRE_N(1) | FRE_S1, { 8 } },
};

static const struct case_fre amd64_f1[] = {
	{ 0x00, FRE_SP | FRE_N(1) | FRE_S1, { 8 } },
	{ 0x01, FRE_SP | FRE_N(2) | FRE_S1, { 16, -16 } },
	{ 0x04, FRE_FP | FRE_N(2) | FRE_S1, { 16, -16 } },
};

static const struct case_fde amd64_fdes[] = {
	{ 0x1000, 0x40, FDE_ADDR1, 0, 0, ARRAY_SIZE(amd64_f0), amd64_f0 },
	{ 0x1040, 0x20, FDE_ADDR1, 0, 0, ARRAY_SIZE(amd64_f1), amd64_f1 },
};

#define AMD64_SEC(ver, fl) { ver, fl, SFRAME_ABI_AMD64_ENDIAN_LITTLE, -8, 0, \
			     ARRAY_SIZE(amd64_fdes), amd64_fdes }

static const struct case_sec amd64_v1 = AMD64_SEC(1, SFRAME_F_FDE_SORTED);
static const struct case_sec amd64_v2 = AMD64_SEC(2, SFRAME_F_FDE_SORTED);
static const struct case_sec amd64_v2pcrel = AMD64_SEC(2, SFRAME_F_FDE_SORTED |
						       SFRAME_F_FDE_FUNC_START_PCREL);
static const struct case_sec amd64_v3 = AMD64_SEC(3, SFRAME_F_FDE_SORTED |
						  SFRAME_F_FDE_FUNC_START_PCREL);

static size_t b_amd64_v1(u8 *b, size_t cap, u64 *va)
{
	return case_build(&amd64_v1, b, cap, va);
}

static size_t b_amd64_v2(u8 *b, size_t cap, u64 *va)
{
	return case_build(&amd64_v2, b, cap, va);
}

static size_t b_amd64_v2pcrel(u8 *b, size_t cap, u64 *va)
{
	return case_build(&amd64_v2pcrel, b, cap, va);
}

static size_t b_amd64_v3(u8 *b, size_t cap, u64 *va)
{
	return case_build(&amd64_v3, b, cap, va);
}

/* sframe-gen's narrow FDE index (12-byte entries), PCREL and not. */
static const struct case_sec amd64_v3n = AMD64_SEC(3, SFRAME_F_FDE_SORTED |
						   SFRAME_F_FDE_FUNC_START_PCREL |
						   SFRAME_F_SFU_NARROW_INDEX);
static const struct case_sec amd64_v3n_abs = AMD64_SEC(3, SFRAME_F_FDE_SORTED |
						       SFRAME_F_SFU_NARROW_INDEX);

static size_t b_amd64_v3n(u8 *b, size_t cap, u64 *va)
{
	return case_build(&amd64_v3n, b, cap, va);
}

static size_t b_amd64_v3n_abs(u8 *b, size_t cap, u64 *va)
{
	return case_build(&amd64_v3n_abs, b, cap, va);
}

/* Patch one byte or field of a built section and return its length. */
static size_t patched(size_t len, u8 *b, size_t cap, size_t off, u64 v, unsigned int bytes)
{
	if (len)
		put_le(b, cap, off, v, bytes);
	return len;
}

/* The narrow flag on a V2 section: only V3 has it. */
static size_t b_v2_narrow_flag(u8 *b, size_t cap, u64 *va)
{
	return patched(b_amd64_v2pcrel(b, cap, va), b, cap, SFRAME_HDR_FLAGS,
		       SFRAME_F_FDE_SORTED | SFRAME_F_FDE_FUNC_START_PCREL |
		       SFRAME_F_SFU_NARROW_INDEX, 1);
}

/* Narrow entries whose FRE sub-section starts inside the last one. */
static size_t b_v3n_freoff_inside_index(u8 *b, size_t cap, u64 *va)
{
	return patched(b_amd64_v3n(b, cap, va), b, cap, SFRAME_HDR_FREOFF,
		       ARRAY_SIZE(amd64_fdes) * SFRAME_V3N_FDE_BYTES - 1, 4);
}

/* The second narrow entry's start moved below the first's: unsorted. */
static size_t b_v3n_unsorted(u8 *b, size_t cap, u64 *va)
{
	size_t len = b_amd64_v3n(b, cap, va), f1 = case_fde_pos(&amd64_v3n, 1);

	return patched(len, b, cap, f1 + SFRAME_V3N_FDE_START,
		       (u32)(get_le(b + f1 + SFRAME_V3N_FDE_START, 4) - 0x80), 4);
}

/* ---- header stage ------------------------------------------------- */

static size_t b_empty(u8 *b, size_t cap, u64 *va)
{
	return b_amd64_v2(b, cap, va) ? 0 : 0;
}

static size_t b_three_bytes(u8 *b, size_t cap, u64 *va)
{
	return b_amd64_v2(b, cap, va) ? 3 : 0;
}

static size_t b_preamble_only(u8 *b, size_t cap, u64 *va)
{
	return b_amd64_v2(b, cap, va) ? 4 : 0;
}

static size_t b_header_27(u8 *b, size_t cap, u64 *va)
{
	return b_amd64_v2(b, cap, va) ? SFRAME_HDR_SIZE - 1 : 0;
}

static size_t b_bad_magic(u8 *b, size_t cap, u64 *va)
{
	return patched(b_amd64_v2(b, cap, va), b, cap, SFRAME_HDR_MAGIC, 0x7f45, 2);
}

static size_t b_foreign_endian(u8 *b, size_t cap, u64 *va)
{
	return patched(b_amd64_v2(b, cap, va), b, cap, SFRAME_HDR_MAGIC, SFRAME_MAGIC_SWAPPED, 2);
}

static size_t b_version0(u8 *b, size_t cap, u64 *va)
{
	return patched(b_amd64_v2(b, cap, va), b, cap, SFRAME_HDR_VERSION, 0, 1);
}

static size_t b_version4(u8 *b, size_t cap, u64 *va)
{
	return patched(b_amd64_v2(b, cap, va), b, cap, SFRAME_HDR_VERSION, 4, 1);
}

static size_t b_version255(u8 *b, size_t cap, u64 *va)
{
	return patched(b_amd64_v2(b, cap, va), b, cap, SFRAME_HDR_VERSION, 255, 1);
}

static size_t b_v1_flag8(u8 *b, size_t cap, u64 *va)
{
	return patched(b_amd64_v1(b, cap, va), b, cap, SFRAME_HDR_FLAGS, 0x09, 1);
}

static size_t b_v2_flag80(u8 *b, size_t cap, u64 *va)
{
	return patched(b_amd64_v2(b, cap, va), b, cap, SFRAME_HDR_FLAGS, 0x81, 1);
}

static size_t b_v3_frame_pointer(u8 *b, size_t cap, u64 *va)
{
	return patched(b_amd64_v3(b, cap, va), b, cap, SFRAME_HDR_FLAGS, 0x07, 1);
}

static size_t b_v2_frame_pointer(u8 *b, size_t cap, u64 *va)
{
	return patched(b_amd64_v2(b, cap, va), b, cap, SFRAME_HDR_FLAGS, 0x03, 1);
}

static size_t b_v2_no_sorted(u8 *b, size_t cap, u64 *va)
{
	return patched(b_amd64_v2(b, cap, va), b, cap, SFRAME_HDR_FLAGS, 0x00, 1);
}

static size_t b_abi0(u8 *b, size_t cap, u64 *va)
{
	return patched(b_amd64_v2(b, cap, va), b, cap, SFRAME_HDR_ABI_ARCH, 0, 1);
}

static size_t b_abi_aarch64_be(u8 *b, size_t cap, u64 *va)
{
	return patched(b_amd64_v2(b, cap, va), b, cap, SFRAME_HDR_ABI_ARCH,
		       SFRAME_ABI_AARCH64_ENDIAN_BIG, 1);
}

static size_t b_abi_s390x(u8 *b, size_t cap, u64 *va)
{
	return patched(b_amd64_v2(b, cap, va), b, cap, SFRAME_HDR_ABI_ARCH,
		       SFRAME_ABI_S390X_ENDIAN_BIG, 1);
}

static size_t b_abi5(u8 *b, size_t cap, u64 *va)
{
	return patched(b_amd64_v2(b, cap, va), b, cap, SFRAME_HDR_ABI_ARCH, 5, 1);
}

static size_t b_fixed_fp(u8 *b, size_t cap, u64 *va)
{
	return patched(b_amd64_v2(b, cap, va), b, cap, SFRAME_HDR_CFA_FIXED_FP, (u8)-16, 1);
}

static size_t b_amd64_no_fixed_ra(u8 *b, size_t cap, u64 *va)
{
	return patched(b_amd64_v2(b, cap, va), b, cap, SFRAME_HDR_CFA_FIXED_RA, 0, 1);
}

static size_t b_num_fdes_max(u8 *b, size_t cap, u64 *va)
{
	return patched(b_amd64_v2(b, cap, va), b, cap, SFRAME_HDR_NUM_FDES, 0xffffffff, 4);
}

static size_t b_num_fres_max(u8 *b, size_t cap, u64 *va)
{
	return patched(b_amd64_v2(b, cap, va), b, cap, SFRAME_HDR_NUM_FRES, 0xffffffff, 4);
}

static size_t b_num_fdes_limit_plus1(u8 *b, size_t cap, u64 *va)
{
	return patched(b_amd64_v2(b, cap, va), b, cap, SFRAME_HDR_NUM_FDES,
		       SFRAME_MAX_FDES + 1, 4);
}

static size_t b_num_fdes_limit(u8 *b, size_t cap, u64 *va)
{
	return patched(b_amd64_v2(b, cap, va), b, cap, SFRAME_HDR_NUM_FDES, SFRAME_MAX_FDES, 4);
}

static size_t b_num_fres_limit_plus1(u8 *b, size_t cap, u64 *va)
{
	return patched(b_amd64_v2(b, cap, va), b, cap, SFRAME_HDR_NUM_FRES,
		       SFRAME_MAX_FRES + 1, 4);
}

static size_t b_num_fres_limit(u8 *b, size_t cap, u64 *va)
{
	return patched(b_amd64_v2(b, cap, va), b, cap, SFRAME_HDR_NUM_FRES, SFRAME_MAX_FRES, 4);
}

static size_t b_fdeoff_max(u8 *b, size_t cap, u64 *va)
{
	return patched(b_amd64_v2(b, cap, va), b, cap, SFRAME_HDR_FDEOFF, 0xffffffff, 4);
}

static size_t b_auxhdr_past_end(u8 *b, size_t cap, u64 *va)
{
	size_t len = b_header_27(b, cap, va);

	return patched(len ? SFRAME_HDR_SIZE + 10 : 0, b, cap, SFRAME_HDR_AUXHDR_LEN, 255, 1);
}

static size_t b_fdeoff_gt_freoff(u8 *b, size_t cap, u64 *va)
{
	return patched(b_amd64_v2(b, cap, va), b, cap, SFRAME_HDR_FDEOFF, 0x1000, 4);
}

static size_t b_fdes_into_fres(u8 *b, size_t cap, u64 *va)
{
	/* FRE sub-section starts one byte into the last FDE. */
	return patched(b_amd64_v2(b, cap, va), b, cap, SFRAME_HDR_FREOFF,
		       2 * SFRAME_V2_FDE_BYTES - 1, 4);
}

static size_t b_fre_len_past_end(u8 *b, size_t cap, u64 *va)
{
	size_t len = b_amd64_v2(b, cap, va);

	return patched(len, b, cap, SFRAME_HDR_FRE_LEN,
		       get_le(b + SFRAME_HDR_FRE_LEN, 4) + 1, 4);
}

static size_t b_freoff_huge(u8 *b, size_t cap, u64 *va)
{
	return patched(b_amd64_v2(b, cap, va), b, cap, SFRAME_HDR_FREOFF, 0xffffffff, 4);
}

static size_t b_fre_len_huge(u8 *b, size_t cap, u64 *va)
{
	return patched(b_amd64_v2(b, cap, va), b, cap, SFRAME_HDR_FRE_LEN, 0xffffffff, 4);
}

static size_t b_fres_exceed_fre_len(u8 *b, size_t cap, u64 *va)
{
	/* 6 FREs of at least 2 bytes cannot fit in 11 bytes. */
	return patched(b_amd64_v2(b, cap, va), b, cap, SFRAME_HDR_FRE_LEN, 11, 4);
}

static size_t b_v3_fres_exceed_fre_len(u8 *b, size_t cap, u64 *va)
{
	/* V3 FDEs may share blocks; still at most one FRE per byte: 6 need 6. */
	return patched(b_amd64_v3(b, cap, va), b, cap, SFRAME_HDR_FRE_LEN, 5, 4);
}

/* Two functions of the same rows, the second pointing at the first's block. */
static const struct case_fde shared_fdes[] = {
	{ 0x9000, 0x10, FDE_ADDR1, 0, 0, ARRAY_SIZE(amd64_f1), amd64_f1 },
	{ 0x9010, 0x10, FDE_ADDR1, 0, 0, ARRAY_SIZE(amd64_f1), amd64_f1 },
};

static const struct case_sec shared_v3 = {
	3, SFRAME_F_FDE_SORTED | SFRAME_F_FDE_FUNC_START_PCREL,
	SFRAME_ABI_AMD64_ENDIAN_LITTLE, -8, 0, ARRAY_SIZE(shared_fdes), shared_fdes
};

static size_t b_v3_shared_block(u8 *b, size_t cap, u64 *va)
{
	size_t len = case_build(&shared_v3, b, cap, va);

	return patched(len, b, cap, case_fde_pos(&shared_v3, 1) + SFRAME_V3_FDE_FRE_OFF,
		       get_le(b + case_fde_pos(&shared_v3, 0) + SFRAME_V3_FDE_FRE_OFF, 4), 4);
}

/* The same, but the first function is shorter than the rows' last start. */
static size_t b_v3_shared_block_too_long(u8 *b, size_t cap, u64 *va)
{
	size_t len = b_v3_shared_block(b, cap, va);

	return patched(len, b, cap, case_fde_pos(&shared_v3, 1) + SFRAME_V3_FDE_SIZE, 2, 4);
}

static size_t b_no_fdes(u8 *b, size_t cap, u64 *va)
{
	static const struct case_sec s = { 2, SFRAME_F_FDE_SORTED | SFRAME_F_FDE_FUNC_START_PCREL,
					   SFRAME_ABI_AMD64_ENDIAN_LITTLE, -8, 0, 0, NULL };

	return case_build(&s, b, cap, va);
}

static size_t b_auxhdr(u8 *b, size_t cap, u64 *va)
{
	static const struct case_sec s = { 2, SFRAME_F_FDE_SORTED | SFRAME_F_FDE_FUNC_START_PCREL,
					   SFRAME_ABI_AMD64_ENDIAN_LITTLE, -8, 7,
					   ARRAY_SIZE(amd64_fdes), amd64_fdes };
	size_t len = case_build(&s, b, cap, va);

	/* Non-zero auxiliary header bytes are skipped, not interpreted. */
	if (len)
		memset(b + SFRAME_HDR_SIZE, 0xa5, 7);
	return len;
}

static size_t b_trailing_zeros(u8 *b, size_t cap, u64 *va)
{
	size_t len = b_amd64_v3(b, cap, va);

	return len && len + 64 <= cap ? len + 64 : 0;
}

static size_t b_trailing_garbage(u8 *b, size_t cap, u64 *va)
{
	size_t len = b_amd64_v3(b, cap, va);

	if (!len || len + 64 > cap)
		return 0;
	memset(b + len, 0xff, 64);
	return len + 64;
}

/* ---- FDE checks --------------------------------------------------- */

static size_t b_unsorted(u8 *b, size_t cap, u64 *va)
{
	static const struct case_fde fdes[] = {
		{ 0x1040, 0x20, FDE_ADDR1, 0, 0, ARRAY_SIZE(amd64_f1), amd64_f1 },
		{ 0x1000, 0x40, FDE_ADDR1, 0, 0, ARRAY_SIZE(amd64_f0), amd64_f0 },
	};
	static const struct case_sec s = { 2, SFRAME_F_FDE_SORTED, SFRAME_ABI_AMD64_ENDIAN_LITTLE,
					   -8, 0, ARRAY_SIZE(fdes), fdes };

	return case_build(&s, b, cap, va);
}

/* What gcc + gas emit for a function whose body is __builtin_unreachable(). */
static const struct case_fre empty_fres[] = {
	{ 0x00, FRE_SP | FRE_N(1) | FRE_S1, { 8 } },
};

static size_t b_empty_fde_first(u8 *b, size_t cap, u64 *va)
{
	static const struct case_fde fdes[] = {
		{ 0x1000, 0x00, FDE_ADDR1, 0, 0, ARRAY_SIZE(empty_fres), empty_fres },
		{ 0x1000, 0x40, FDE_ADDR1, 0, 0, ARRAY_SIZE(amd64_f0), amd64_f0 },
	};
	static const struct case_sec s = { 2, SFRAME_F_FDE_SORTED, SFRAME_ABI_AMD64_ENDIAN_LITTLE,
					   -8, 0, ARRAY_SIZE(fdes), fdes };

	return case_build(&s, b, cap, va);
}

static size_t b_empty_fde_after(u8 *b, size_t cap, u64 *va)
{
	static const struct case_fde fdes[] = {
		{ 0x1000, 0x40, FDE_ADDR1, 0, 0, ARRAY_SIZE(amd64_f0), amd64_f0 },
		{ 0x1000, 0x00, FDE_ADDR1, 0, 0, ARRAY_SIZE(empty_fres), empty_fres },
		{ 0x1010, 0x00, FDE_ADDR1, 0, 0, 0, NULL },
	};
	static const struct case_sec s = { 3, SFRAME_F_FDE_SORTED | SFRAME_F_FDE_FUNC_START_PCREL,
					   SFRAME_ABI_AMD64_ENDIAN_LITTLE, -8, 0,
					   ARRAY_SIZE(fdes), fdes };

	return case_build(&s, b, cap, va);
}

#define EMPTY_FDE	{ 0x1000, 0x00, FDE_ADDR1, 0, 0, 0, NULL }

static size_t b_too_many_empty_fdes_after(u8 *b, size_t cap, u64 *va)
{
	static const struct case_fde fdes[] = {
		{ 0x1000, 0x40, FDE_ADDR1, 0, 0, ARRAY_SIZE(amd64_f0), amd64_f0 },
		EMPTY_FDE, EMPTY_FDE, EMPTY_FDE, EMPTY_FDE, EMPTY_FDE, EMPTY_FDE,
		EMPTY_FDE, EMPTY_FDE, EMPTY_FDE, EMPTY_FDE, EMPTY_FDE, EMPTY_FDE,
		EMPTY_FDE, EMPTY_FDE, EMPTY_FDE, EMPTY_FDE, EMPTY_FDE,
	};
	static const struct case_sec s = { 2, SFRAME_F_FDE_SORTED, SFRAME_ABI_AMD64_ENDIAN_LITTLE,
					   -8, 0, ARRAY_SIZE(fdes), fdes };

	return case_build(&s, b, cap, va);
}

static size_t b_two_functions_same_start(u8 *b, size_t cap, u64 *va)
{
	static const struct case_fde fdes[] = {
		{ 0x1000, 0x40, FDE_ADDR1, 0, 0, ARRAY_SIZE(amd64_f0), amd64_f0 },
		{ 0x1000, 0x20, FDE_ADDR1, 0, 0, ARRAY_SIZE(amd64_f1), amd64_f1 },
	};
	static const struct case_sec s = { 2, SFRAME_F_FDE_SORTED, SFRAME_ABI_AMD64_ENDIAN_LITTLE,
					   -8, 0, ARRAY_SIZE(fdes), fdes };

	return case_build(&s, b, cap, va);
}

static size_t b_overlap(u8 *b, size_t cap, u64 *va)
{
	return patched(b_amd64_v2(b, cap, va), b, cap,
		       case_fde_pos(&amd64_v2, 0) + SFRAME_V2_FDE_SIZE, 0x41, 4);
}

static size_t b_fre_type3(u8 *b, size_t cap, u64 *va)
{
	return patched(b_amd64_v2(b, cap, va), b, cap,
		       case_fde_pos(&amd64_v2, 1) + SFRAME_V2_FDE_INFO, 3, 1);
}

static size_t b_fde_unused_bit(u8 *b, size_t cap, u64 *va)
{
	return patched(b_amd64_v2(b, cap, va), b, cap,
		       case_fde_pos(&amd64_v2, 1) + SFRAME_V2_FDE_INFO, SFRAME_FDE_INFO_UNUSED, 1);
}

static size_t b_v2_signal_bit(u8 *b, size_t cap, u64 *va)
{
	return patched(b_amd64_v2(b, cap, va), b, cap,
		       case_fde_pos(&amd64_v2, 1) + SFRAME_V2_FDE_INFO,
		       SFRAME_V3_FDE_INFO_SIGNAL, 1);
}

static size_t b_amd64_pauth_b(u8 *b, size_t cap, u64 *va)
{
	return patched(b_amd64_v2(b, cap, va), b, cap,
		       case_fde_pos(&amd64_v2, 1) + SFRAME_V2_FDE_INFO,
		       SFRAME_FDE_INFO_PAUTH_KEY_B, 1);
}

static size_t b_v3_fde_type2(u8 *b, size_t cap, u64 *va)
{
	return patched(b_amd64_v3(b, cap, va), b, cap,
		       case_fre_pos(&amd64_v3, 1, -1) + SFRAME_V3_ATTR_INFO2, 2, 1);
}

/* Bit 6: unused by any extension (bit 5 is the injected call's). */
static size_t b_v3_info2_unused(u8 *b, size_t cap, u64 *va)
{
	return patched(b_amd64_v3(b, cap, va), b, cap,
		       case_fre_pos(&amd64_v3, 1, -1) + SFRAME_V3_ATTR_INFO2, 0x80, 1);
}

static size_t b_v3_attr_past_fre_len(u8 *b, size_t cap, u64 *va)
{
	size_t len = b_amd64_v3(b, cap, va);

	/* Point FDE 1 at the last 4 bytes of the FRE sub-section. */
	return patched(len, b, cap, case_fde_pos(&amd64_v3, 1) + SFRAME_V3_FDE_FRE_OFF,
		       get_le(b + SFRAME_HDR_FRE_LEN, 4) - 4, 4);
}

static size_t b_fre_off_past_fre_len(u8 *b, size_t cap, u64 *va)
{
	return patched(b_amd64_v2(b, cap, va), b, cap,
		       case_fde_pos(&amd64_v2, 1) + SFRAME_V2_FDE_FRE_OFF, 0x10000, 4);
}

static size_t b_fde_num_fres_over_limit(u8 *b, size_t cap, u64 *va)
{
	return patched(b_amd64_v2(b, cap, va), b, cap,
		       case_fde_pos(&amd64_v2, 1) + SFRAME_V2_FDE_NUM_FRES, 0xffffffff, 4);
}

static size_t b_fde_num_fres_over_header(u8 *b, size_t cap, u64 *va)
{
	/* 7 FREs claimed by one FDE, 6 in the header. */
	return patched(b_amd64_v2(b, cap, va), b, cap,
		       case_fde_pos(&amd64_v2, 0) + SFRAME_V2_FDE_NUM_FRES, 7, 4);
}

static size_t b_fre_sum_over_header(u8 *b, size_t cap, u64 *va)
{
	return patched(b_amd64_v2(b, cap, va), b, cap, SFRAME_HDR_NUM_FRES, 5, 4);
}

static size_t b_fre_past_fre_len(u8 *b, size_t cap, u64 *va)
{
	size_t len = b_amd64_v2(b, cap, va);

	/* The last FRE's data word now ends one byte past the sub-section. */
	return patched(len, b, cap, SFRAME_HDR_FRE_LEN, get_le(b + SFRAME_HDR_FRE_LEN, 4) - 1, 4);
}

static size_t b_func_wraps(u8 *b, size_t cap, u64 *va)
{
	static const struct case_fde fdes[] = {
		{ 0xfffffffffffff000ULL, 0x2000, FDE_ADDR1, 0, 0, 1, amd64_f0 },
	};
	static const struct case_sec s = { 3, SFRAME_F_FDE_SORTED | SFRAME_F_FDE_FUNC_START_PCREL,
					   SFRAME_ABI_AMD64_ENDIAN_LITTLE, -8, 0, 1, fdes };

	/* The section sits in the last 64 KiB of the address space. */
	return case_build_at(&s, 0xffffffffffff0000ULL, b, cap, va);
}

static size_t b_func_below_zero(u8 *b, size_t cap, u64 *va)
{
	size_t len = b_amd64_v2(b, cap, va);

	/* start = section - 0x80000000: below address 0 for a section at 0x20000 */
	return patched(len, b, cap, case_fde_pos(&amd64_v2, 0) + SFRAME_V2_FDE_START,
		       0x80000000, 4);
}

/* ---- PC-mask FDEs (PLT) ------------------------------------------- */

static const struct case_fre plt_fres[] = {
	{ 0x00, FRE_SP | FRE_N(1) | FRE_S1, { 8 } },
	{ 0x0b, FRE_SP | FRE_N(1) | FRE_S1, { 16 } },
};

static const struct case_fde plt_fdes[] = {
	{ 0x4000, 0x40, FDE_ADDR1 | FDE_MASK, 0, 16, ARRAY_SIZE(plt_fres), plt_fres },
};

static const struct case_sec plt_v2 = { 2, SFRAME_F_FDE_SORTED, SFRAME_ABI_AMD64_ENDIAN_LITTLE,
					-8, 0, 1, plt_fdes };
static const struct case_sec plt_v3 = { 3, SFRAME_F_FDE_SORTED | SFRAME_F_FDE_FUNC_START_PCREL,
					SFRAME_ABI_AMD64_ENDIAN_LITTLE, -8, 0, 1, plt_fdes };

static size_t b_plt_v2(u8 *b, size_t cap, u64 *va)
{
	return case_build(&plt_v2, b, cap, va);
}

static size_t b_plt_v2_rep0(u8 *b, size_t cap, u64 *va)
{
	return patched(b_plt_v2(b, cap, va), b, cap,
		       case_fde_pos(&plt_v2, 0) + SFRAME_V2_FDE_REP_SIZE, 0, 1);
}

static size_t b_plt_v3_rep0(u8 *b, size_t cap, u64 *va)
{
	return patched(case_build(&plt_v3, b, cap, va), b, cap,
		       case_fre_pos(&plt_v3, 0, -1) + SFRAME_V3_ATTR_REP_SIZE, 0, 1);
}

static size_t b_plt_mask_start_past_rep(u8 *b, size_t cap, u64 *va)
{
	return patched(b_plt_v2(b, cap, va), b, cap, case_fre_pos(&plt_v2, 0, 1), 17, 1);
}

static size_t b_aarch64_v1_mask(u8 *b, size_t cap, u64 *va)
{
	static const struct case_sec s = { 1, SFRAME_F_FDE_SORTED,
					   SFRAME_ABI_AARCH64_ENDIAN_LITTLE, 0, 0, 1, plt_fdes };

	return case_build(&s, b, cap, va);
}

/* ---- FRE checks --------------------------------------------------- */

static size_t b_fre_size3(u8 *b, size_t cap, u64 *va)
{
	return patched(b_amd64_v2(b, cap, va), b, cap, case_fre_pos(&amd64_v2, 1, 1) + 1,
		       FRE_SP | FRE_N(1) | FRE_S3, 1);
}

static size_t b_fre_n15_s4(u8 *b, size_t cap, u64 *va)
{
	static const struct case_fre fres[] = {
		{ 0x00, FRE_SP | FRE_N(15) | FRE_S4, { 8, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11 } },
	};
	static const struct case_fde fdes[] = {
		{ 0x1000, 0x40, FDE_ADDR1, 0, 0, ARRAY_SIZE(fres), fres },
	};
	static const struct case_sec s = { 2, SFRAME_F_FDE_SORTED, SFRAME_ABI_AMD64_ENDIAN_LITTLE,
					   -8, 0, ARRAY_SIZE(fdes), fdes };

	return case_build(&s, b, cap, va);
}

static size_t b_amd64_n3(u8 *b, size_t cap, u64 *va)
{
	static const struct case_fre fres[] = {
		{ 0x00, FRE_SP | FRE_N(3) | FRE_S1, { 16, -16, -8 } },
	};
	static const struct case_fde fdes[] = {
		{ 0x1000, 0x40, FDE_ADDR1, 0, 0, ARRAY_SIZE(fres), fres },
	};
	static const struct case_sec s = { 2, SFRAME_F_FDE_SORTED, SFRAME_ABI_AMD64_ENDIAN_LITTLE,
					   -8, 0, ARRAY_SIZE(fdes), fdes };

	return case_build(&s, b, cap, va);
}

static size_t b_amd64_mangled(u8 *b, size_t cap, u64 *va)
{
	return patched(b_amd64_v2(b, cap, va), b, cap, case_fre_pos(&amd64_v2, 0, 1) + 1,
		       FRE_SP | FRE_N(1) | FRE_S1 | SFRAME_FRE_INFO_RA_MANGLED, 1);
}

static size_t b_fre_reversed(u8 *b, size_t cap, u64 *va)
{
	/* FRE 1 of function 0 starts at 0x3d, after FRE 2 (0x3c). */
	return patched(b_amd64_v2(b, cap, va), b, cap, case_fre_pos(&amd64_v2, 0, 1), 0x3d, 1);
}

static size_t b_fre_equal_starts(u8 *b, size_t cap, u64 *va)
{
	return patched(b_amd64_v2(b, cap, va), b, cap, case_fre_pos(&amd64_v2, 0, 2), 0x04, 1);
}

static size_t b_fre_past_func_end(u8 *b, size_t cap, u64 *va)
{
	return patched(b_amd64_v2(b, cap, va), b, cap, case_fre_pos(&amd64_v2, 1, 2), 0x21, 1);
}

static size_t b_first_fre_late(u8 *b, size_t cap, u64 *va)
{
	return patched(b_amd64_v2(b, cap, va), b, cap, case_fre_pos(&amd64_v2, 0, 0), 0x02, 1);
}

static size_t b_fre_at_func_end(u8 *b, size_t cap, u64 *va)
{
	return patched(b_amd64_v2(b, cap, va), b, cap, case_fre_pos(&amd64_v2, 1, 2), 0x20, 1);
}

static size_t b_fre_addr4_large(u8 *b, size_t cap, u64 *va)
{
	static const struct case_fre fres[] = {
		{ 0x00000, FRE_SP | FRE_N(1) | FRE_S1, { 8 } },
		{ 0x12345, FRE_SP | FRE_N(1) | FRE_S4, { 40016 } },
	};
	static const struct case_fde fdes[] = {
		{ 0x100000, 0x20000, FDE_ADDR4, 0, 0, ARRAY_SIZE(fres), fres },
	};
	static const struct case_sec s = { 3, SFRAME_F_FDE_SORTED | SFRAME_F_FDE_FUNC_START_PCREL,
					   SFRAME_ABI_AMD64_ENDIAN_LITTLE, -8, 0,
					   ARRAY_SIZE(fdes), fdes };

	return case_build(&s, b, cap, va);
}

/* ---- AArch64 ------------------------------------------------------ */

/*
 * [0x2000,0x2004) sp+0 u u   [0x2004,0x2008) sp+32 u c-24 (RA only, N=2)
 * [0x2008,0x200c) sp+32 c-32 c-24[s]   [0x200c,0x2010) sp+32 c-32 U (RA padding)
 * [0x2010,0x2020) fp+16 c-16 c-8[s]
 */
static const struct case_fre a64_fres[] = {
	{ 0x00, FRE_SP | FRE_N(1) | FRE_S1, { 0 } },
	{ 0x04, FRE_SP | FRE_N(2) | FRE_S1, { 32, -24 } },
	{ 0x08, FRE_SP | FRE_N(3) | FRE_S1 | SFRAME_FRE_INFO_RA_MANGLED, { 32, -24, -32 } },
	{ 0x0c, FRE_SP | FRE_N(3) | FRE_S1, { 32, 0, -32 } },
	{ 0x10, FRE_FP | FRE_N(3) | FRE_S2 | SFRAME_FRE_INFO_RA_MANGLED, { 16, -8, -16 } },
};

static const struct case_fde a64_fdes[] = {
	{ 0x2000, 0x20, FDE_ADDR1 | SFRAME_FDE_INFO_PAUTH_KEY_B, 0, 0,
	  ARRAY_SIZE(a64_fres), a64_fres },
};

static const struct case_sec a64_v1 = { 1, SFRAME_F_FDE_SORTED,
					SFRAME_ABI_AARCH64_ENDIAN_LITTLE, 0, 0, 1, a64_fdes };
static const struct case_sec a64_v3 = { 3, SFRAME_F_FDE_SORTED | SFRAME_F_FDE_FUNC_START_PCREL,
					SFRAME_ABI_AARCH64_ENDIAN_LITTLE, 0, 0, 1, a64_fdes };

static size_t b_a64_v1(u8 *b, size_t cap, u64 *va)
{
	return case_build(&a64_v1, b, cap, va);
}

static size_t b_a64_v3(u8 *b, size_t cap, u64 *va)
{
	return case_build(&a64_v3, b, cap, va);
}

static size_t b_a64_fixed_ra(u8 *b, size_t cap, u64 *va)
{
	return patched(b_a64_v3(b, cap, va), b, cap, SFRAME_HDR_CFA_FIXED_RA, (u8)-8, 1);
}

static size_t b_a64_n4(u8 *b, size_t cap, u64 *va)
{
	return patched(b_a64_v3(b, cap, va), b, cap, case_fre_pos(&a64_v3, 0, 0) + 1,
		       FRE_SP | FRE_N(4) | FRE_S1, 1);
}

/* ---- V3 FLEX FDEs (AMD64) ----------------------------------------- */

/*
 * [0x3000,0x3004) sp+8 u f        CFA = rsp + 8
 * [0x3004,0x3008) r10+0 u f       DRAP: CFA = r10 (topmost frame only)
 * [0x3008,0x300c) (fp-8) c-16 U   CFA = *(rbp - 8), RA padding, FP at CFA-16
 * [0x300c,0x3010) sp+16 (fp+0) r3+0  RA in rbx, FP = *(rbp + 0)
 * [0x3010,0x3040) sp+16 u c-8     RA at CFA-8 spelled out
 * [0x3040,0x3050) RA undefined    signal frame FDE without rows
 */
static const struct case_fre flex_fres[] = {
	{ 0x00, FRE_N(2) | FRE_S1, { CTRL_REG(7), 8 } },
	{ 0x04, FRE_N(2) | FRE_S1, { CTRL_REG(10), 0 } },
	{ 0x08, FRE_N(5) | FRE_S1, { CTRL_REG_DEREF(6), -8, 0, CTRL_CFA_DEREF, -16 } },
	{ 0x0c, FRE_N(6) | FRE_S1, { CTRL_REG(7), 16, CTRL_REG(3), 0, CTRL_REG_DEREF(6), 0 } },
	{ 0x10, FRE_N(4) | FRE_S2, { CTRL_REG(7), 16, CTRL_CFA_DEREF, -8 } },
};

static const struct case_fde flex_fdes[] = {
	{ 0x3000, 0x40, FDE_ADDR1, SFRAME_FDE_TYPE_FLEX, 0, ARRAY_SIZE(flex_fres), flex_fres },
	{ 0x3040, 0x10, FDE_ADDR1 | SFRAME_V3_FDE_INFO_SIGNAL, 0, 0, 0, NULL },
};

static const struct case_sec flex_v3 = { 3, SFRAME_F_FDE_SORTED | SFRAME_F_FDE_FUNC_START_PCREL,
					 SFRAME_ABI_AMD64_ENDIAN_LITTLE, -8, 0,
					 ARRAY_SIZE(flex_fdes), flex_fdes };

static size_t b_flex(u8 *b, size_t cap, u64 *va)
{
	return case_build(&flex_v3, b, cap, va);
}

/* Replace FRE 0 of the FLEX function by @info and @w0..@w2 (same size). */
static size_t flex_fre0(u8 *b, size_t cap, u64 *va, u8 info, u8 w0, u8 w1)
{
	size_t len = b_flex(b, cap, va), pos = case_fre_pos(&flex_v3, 0, 0);

	if (len) {
		put_le(b, cap, pos + 1, info, 1);
		put_le(b, cap, pos + 2, w0, 1);
		put_le(b, cap, pos + 3, w1, 1);
	}
	return len;
}

static size_t b_flex_n3(u8 *b, size_t cap, u64 *va)
{
	/* N = 3 borrows the next FRE's start byte as its third word. */
	return flex_fre0(b, cap, va, FRE_N(3) | FRE_S1, CTRL_REG(7), 8);
}

static size_t b_flex_n1(u8 *b, size_t cap, u64 *va)
{
	return flex_fre0(b, cap, va, FRE_N(1) | FRE_S1, CTRL_REG(7), 8);
}

static size_t b_flex_cfa_not_reg(u8 *b, size_t cap, u64 *va)
{
	return flex_fre0(b, cap, va, FRE_N(2) | FRE_S1, CTRL_CFA_DEREF, 8);
}

static size_t b_flex_reserved_bit(u8 *b, size_t cap, u64 *va)
{
	return flex_fre0(b, cap, va, FRE_N(2) | FRE_S1, CTRL_REG(7) | SFRAME_FLEX_CTRL_RESERVED, 8);
}

static size_t b_flex_base_bit(u8 *b, size_t cap, u64 *va)
{
	return flex_fre0(b, cap, va, FRE_SP | FRE_N(2) | FRE_S1, CTRL_REG(7), 8);
}

static size_t b_flex_fp_pair_cut_short(u8 *b, size_t cap, u64 *va)
{
	/* N = 4 with an RA control word of 0: an FP control word without its offset. */
	size_t len = b_flex(b, cap, va);

	return patched(len, b, cap, case_fre_pos(&flex_v3, 0, 4) + 2 + 2 * 2, 0, 2);
}

static size_t b_flex_padding_not_zero(u8 *b, size_t cap, u64 *va)
{
	size_t len = b_flex(b, cap, va);

	return patched(len, b, cap, case_fre_pos(&flex_v3, 0, 2) + 2 + 2, CTRL_CFA_DEREF, 1);
}

static size_t b_flex_fp_regnum_without_reg_p(u8 *b, size_t cap, u64 *va)
{
	size_t len = b_flex(b, cap, va);

	return patched(len, b, cap, case_fre_pos(&flex_v3, 0, 2) + 2 + 3, (6 << 3), 1);
}

static size_t b_flex_n7(u8 *b, size_t cap, u64 *va)
{
	return patched(b_flex(b, cap, va), b, cap, case_fre_pos(&flex_v3, 0, 3) + 1,
		       FRE_N(7) | FRE_S1, 1);
}

static size_t b_flex_in_v2(u8 *b, size_t cap, u64 *va)
{
	/* V2 has no info2: a FLEX FDE can only come from V3 bytes. */
	static const struct case_sec s = { 2, SFRAME_F_FDE_SORTED, SFRAME_ABI_AMD64_ENDIAN_LITTLE,
					   -8, 0, 1, flex_fdes };

	return case_build(&s, b, cap, va);
}

/*
 * FLEX rows as libsframe's encoder writes them: an RA or FP control word
 * of 0 is the whole entry, "no further words for this entity", also at
 * the end of a row, and objdump and libsframe read them so.
 *
 * [0x5000,0x5004) sp+8 u U        CFA, RA 0 (N = 3)
 * [0x5004,0x5008) sp+16 u U       CFA, RA 0, FP 0 (N = 4)
 * [0x5008,0x500c) sp+16 u c-8     CFA, RA pair, FP 0 (N = 5)
 * [0x500c,0x5020) fp+16 c-16 U    CFA, RA 0, FP pair (N = 5, what gas writes)
 */
static const struct case_fre flex_zero_fres[] = {
	{ 0x00, FRE_N(3) | FRE_S1, { CTRL_REG(7), 8, 0 } },
	{ 0x04, FRE_N(4) | FRE_S1, { CTRL_REG(7), 16, 0, 0 } },
	{ 0x08, FRE_N(5) | FRE_S1, { CTRL_REG(7), 16, CTRL_CFA_DEREF, -8, 0 } },
	{ 0x0c, FRE_N(5) | FRE_S1, { CTRL_REG(6), 16, 0, CTRL_CFA_DEREF, -16 } },
};

static const struct case_fde flex_zero_fdes[] = {
	{ 0x5000, 0x20, FDE_ADDR1, SFRAME_FDE_TYPE_FLEX, 0, ARRAY_SIZE(flex_zero_fres),
	  flex_zero_fres },
};

static const struct case_sec flex_zero_v3 = {
	3, SFRAME_F_FDE_SORTED | SFRAME_F_FDE_FUNC_START_PCREL, SFRAME_ABI_AMD64_ENDIAN_LITTLE,
	-8, 0, ARRAY_SIZE(flex_zero_fdes), flex_zero_fdes
};

static size_t b_flex_zero(u8 *b, size_t cap, u64 *va)
{
	return case_build(&flex_zero_v3, b, cap, va);
}

static size_t b_flex_zero_word_left_over(u8 *b, size_t cap, u64 *va)
{
	/* N = 6 with RA 0: CFA, RA 0, FP pair, and one word nothing accounts for. */
	return patched(b_flex(b, cap, va), b, cap, case_fre_pos(&flex_v3, 0, 3) + 2 + 2, 0, 1);
}

/* ---- sframe-unwind's CFA addend (SFRAME_F_SFU_CFA_ADDEND) ------------ */

/*
 * The CFA's control word with the reserved bit: a third word, added after
 * the deref.  What sframe-gen writes for OpenSSL's realigned frames.
 *
 * [0x6000,0x6004) sp+8 u f          no addend in a flagged section
 * [0x6004,0x6008) (sp+24)+8 c-24 U  CFA = *(rsp + 24) + 8, RA padding, FP pair
 * [0x6008,0x6010) (fp+88)+56 u f    CFA = *(rbp + 88) + 56, nothing else
 */
#define CTRL_ADD(ctrl)	((ctrl) | SFRAME_FLEX_CTRL_SFU_ADDEND)
static const struct case_fre flex_add_fres[] = {
	{ 0x00, FRE_N(2) | FRE_S1, { CTRL_REG(7), 8 } },
	{ 0x04, FRE_N(6) | FRE_S1, { CTRL_ADD(CTRL_REG_DEREF(7)), 24, 8, 0, CTRL_CFA_DEREF, -24 } },
	{ 0x08, FRE_N(3) | FRE_S1, { CTRL_ADD(CTRL_REG_DEREF(6)), 88, 56 } },
};

static const struct case_fde flex_add_fdes[] = {
	{ 0x6000, 0x10, FDE_ADDR1, SFRAME_FDE_TYPE_FLEX, 0, ARRAY_SIZE(flex_add_fres),
	  flex_add_fres },
};

static const struct case_sec flex_add_v3 = {
	3, SFRAME_F_FDE_SORTED | SFRAME_F_FDE_FUNC_START_PCREL | SFRAME_F_SFU_CFA_ADDEND,
	SFRAME_ABI_AMD64_ENDIAN_LITTLE, -8, 0, ARRAY_SIZE(flex_add_fdes), flex_add_fdes
};

static size_t b_flex_add(u8 *b, size_t cap, u64 *va)
{
	return case_build(&flex_add_v3, b, cap, va);
}

static size_t b_flex_add_unflagged(u8 *b, size_t cap, u64 *va)
{
	struct case_sec s = flex_add_v3;

	s.flags &= ~SFRAME_F_SFU_CFA_ADDEND;
	return case_build(&s, b, cap, va);
}

static size_t b_flex_add_without_deref(u8 *b, size_t cap, u64 *va)
{
	return patched(b_flex_add(b, cap, va), b, cap, case_fre_pos(&flex_add_v3, 0, 2) + 2,
		       CTRL_ADD(CTRL_REG(6)), 1);
}

static size_t b_flex_add_word_missing(u8 *b, size_t cap, u64 *va)
{
	/* N = 2: the control word asks for an addend the FRE does not have. */
	size_t len = b_flex_add(b, cap, va), pos = case_fre_pos(&flex_add_v3, 0, 2);

	len = patched(len, b, cap, pos + 1, FRE_N(2) | FRE_S1, 1);
	return patched(len, b, cap, pos + 2, CTRL_ADD(CTRL_REG_DEREF(6)), 1);
}

static size_t b_flex_add_v2(u8 *b, size_t cap, u64 *va)
{
	return patched(b_flex_add(b, cap, va), b, cap, SFRAME_HDR_VERSION, 2, 1);
}

/* ---- sframe-unwind's injected calls (SFRAME_F_SFU_INJECTED_CALLS) ---- */

/*
 * A function entered by a call a signal handler faked (Go's asyncPreempt,
 * here at 0x8000), its FDE marked in info2, and an ordinary one after it:
 * what sframe-gen writes for a Go program.
 *
 * [0x8000,0x8001) sp+8 u f             injected
 * [0x8001,0x8010) sp+16 c-16 f         injected
 * [0x8010,0x8020) sp+8 u f
 */
static const struct case_fre inj_f0[] = {
	{ 0x00, FRE_SP | FRE_N(1) | FRE_S1, { 8 } },
	{ 0x01, FRE_SP | FRE_N(2) | FRE_S1, { 16, -16 } },
};

static const struct case_fre inj_f1[] = {
	{ 0x00, FRE_SP | FRE_N(1) | FRE_S1, { 8 } },
};

static const struct case_fde inj_fdes[] = {
	{ 0x8000, 0x10, FDE_ADDR1, SFRAME_V3_FDE_INFO2_SFU_INJECTED, 0, ARRAY_SIZE(inj_f0),
	  inj_f0 },
	{ 0x8010, 0x10, FDE_ADDR1, 0, 0, ARRAY_SIZE(inj_f1), inj_f1 },
};

static const struct case_sec inj_v3 = {
	3, SFRAME_F_FDE_SORTED | SFRAME_F_FDE_FUNC_START_PCREL | SFRAME_F_SFU_INJECTED_CALLS,
	SFRAME_ABI_AMD64_ENDIAN_LITTLE, -8, 0, ARRAY_SIZE(inj_fdes), inj_fdes
};

static size_t b_injected(u8 *b, size_t cap, u64 *va)
{
	return case_build(&inj_v3, b, cap, va);
}

static size_t b_injected_unflagged(u8 *b, size_t cap, u64 *va)
{
	struct case_sec s = inj_v3;

	s.flags &= ~SFRAME_F_SFU_INJECTED_CALLS;
	return case_build(&s, b, cap, va);
}

static size_t b_injected_v2(u8 *b, size_t cap, u64 *va)
{
	return patched(b_injected(b, cap, va), b, cap, SFRAME_HDR_VERSION, 2, 1);
}

/* ---- sframe-unwind's saved registers (SFRAME_F_SFU_SAVED_REGS) ---- */

/*
 * Where frames save rbx, after RA and FP: what sframe-gen writes for
 * x86_64 code.  A FLEX FDE of six rows and a DEFAULT one:
 *
 * [0x7000,0x7004) sp+8 u f               no pair: rbx unchanged
 * [0x7004,0x7008) sp+16 u U rbx=c-16     push %rbx: CFA, RA 0, FP 0, rbx
 * [0x7008,0x700c) sp+24 c-24 U rbx=c-16  then push %rbp: FP pair too
 * [0x700c,0x7010) r3+24 u U rbx=u        ld.so's trampoline: CFA on rbx, rbx lost
 * [0x7010,0x7018) (sp+24)+8 c-24 U rbx=c-32  addend and FP pair: eight words
 * [0x7018,0x7020) sp+16 c-16 U rbx=c-8000    2-byte words
 * [0x7020,0x7030) sp+16 c-16 f           DEFAULT FDE: rbx unchanged
 */
#define CTRL_SAVED(r)	(((r) << 3) | SFRAME_FLEX_CTRL_DEREF_P)
#define CTRL_LOST(r)	((r) << 3)
#define RBX		SFRAME_AMD64_DWARF_RBX
static const struct case_fre saved_fres[] = {
	{ 0x00, FRE_N(2) | FRE_S1, { CTRL_REG(7), 8 } },
	{ 0x04, FRE_N(6) | FRE_S1, { CTRL_REG(7), 16, 0, 0, CTRL_SAVED(RBX), -16 } },
	{ 0x08, FRE_N(7) | FRE_S1, { CTRL_REG(7), 24, 0, CTRL_CFA_DEREF, -24,
				     CTRL_SAVED(RBX), -16 } },
	{ 0x0c, FRE_N(6) | FRE_S1, { CTRL_REG(RBX), 24, 0, 0, CTRL_LOST(RBX), 0 } },
	{ 0x10, FRE_N(8) | FRE_S1, { CTRL_ADD(CTRL_REG_DEREF(7)), 24, 8, 0, CTRL_CFA_DEREF, -24,
				     CTRL_SAVED(RBX), -32 } },
};

static const struct case_fre saved_fres_2b[] = {
	{ 0x00, FRE_N(7) | FRE_S2, { CTRL_REG(7), 16, 0, CTRL_CFA_DEREF, -16,
				     CTRL_SAVED(RBX), -8000 } },
};

static const struct case_fre saved_default_fres[] = {
	{ 0x00, FRE_SP | FRE_N(2) | FRE_S1, { 16, -16 } },
};

static const struct case_fde saved_fdes[] = {
	{ 0x7000, 0x18, FDE_ADDR1, SFRAME_FDE_TYPE_FLEX, 0, ARRAY_SIZE(saved_fres), saved_fres },
	{ 0x7018, 0x08, FDE_ADDR1, SFRAME_FDE_TYPE_FLEX, 0, ARRAY_SIZE(saved_fres_2b),
	  saved_fres_2b },
	{ 0x7020, 0x10, FDE_ADDR1, 0, 0, ARRAY_SIZE(saved_default_fres), saved_default_fres },
};

static const struct case_sec saved_v3 = {
	3, SFRAME_F_FDE_SORTED | SFRAME_F_FDE_FUNC_START_PCREL | SFRAME_F_SFU_CFA_ADDEND |
	SFRAME_F_SFU_SAVED_REGS,
	SFRAME_ABI_AMD64_ENDIAN_LITTLE, -8, 0, ARRAY_SIZE(saved_fdes), saved_fdes
};

static size_t b_saved(u8 *b, size_t cap, u64 *va)
{
	return case_build(&saved_v3, b, cap, va);
}

static size_t b_saved_unflagged(u8 *b, size_t cap, u64 *va)
{
	struct case_sec s = saved_v3;

	s.flags &= ~SFRAME_F_SFU_SAVED_REGS;
	return case_build(&s, b, cap, va);
}

/* Word @w of row 1 (CFA, RA 0, FP 0, rbx at CFA-16) rewritten to @v. */
static size_t b_saved_word(u8 *b, size_t cap, u64 *va, unsigned int w, u8 v)
{
	return patched(b_saved(b, cap, va), b, cap, case_fre_pos(&saved_v3, 0, 1) + 2 + w, v, 1);
}

static size_t b_saved_untracked_reg(u8 *b, size_t cap, u64 *va)
{
	return b_saved_word(b, cap, va, 4, CTRL_SAVED(12));	/* r12 */
}

static size_t b_saved_reg_p(u8 *b, size_t cap, u64 *va)
{
	return b_saved_word(b, cap, va, 4, CTRL_SAVED(RBX) | SFRAME_FLEX_CTRL_REG_P);
}

static size_t b_saved_reserved_bit(u8 *b, size_t cap, u64 *va)
{
	return b_saved_word(b, cap, va, 4, CTRL_SAVED(RBX) | SFRAME_FLEX_CTRL_RESERVED);
}

static size_t b_saved_offset_zero(u8 *b, size_t cap, u64 *va)
{
	return b_saved_word(b, cap, va, 5, 0);
}

static size_t b_saved_offset_positive(u8 *b, size_t cap, u64 *va)
{
	return b_saved_word(b, cap, va, 5, 16);
}

static size_t b_saved_offset_unaligned(u8 *b, size_t cap, u64 *va)
{
	return b_saved_word(b, cap, va, 5, (u8)-12);
}

static size_t b_saved_lost_with_offset(u8 *b, size_t cap, u64 *va)
{
	return b_saved_word(b, cap, va, 4, CTRL_LOST(RBX));	/* offset stays -16 */
}

static size_t b_saved_twice(u8 *b, size_t cap, u64 *va)
{
	/* Row 1 as CFA, RA 0, FP 0, rbx, rbx: eight words. */
	static const struct case_fre fres[] = {
		{ 0x00, FRE_N(8) | FRE_S1, { CTRL_REG(7), 16, 0, 0, CTRL_SAVED(RBX), -16,
					     CTRL_LOST(RBX), 0 } },
	};
	static const struct case_fde fdes[] = {
		{ 0x7000, 0x10, FDE_ADDR1, SFRAME_FDE_TYPE_FLEX, 0, ARRAY_SIZE(fres), fres },
	};
	struct case_sec s = saved_v3;

	s.num_fdes = ARRAY_SIZE(fdes);
	s.fdes = fdes;
	return case_build(&s, b, cap, va);
}

static size_t b_saved_odd_word(u8 *b, size_t cap, u64 *va)
{
	/* Row 1 cut to CFA, RA 0, FP 0, rbx's control word: no offset. */
	return patched(b_saved(b, cap, va), b, cap, case_fre_pos(&saved_v3, 0, 1) + 1,
		       FRE_N(5) | FRE_S1, 1);
}

static size_t b_saved_nine_words(u8 *b, size_t cap, u64 *va)
{
	/* Row 4 (eight words) claims nine: more than a flagged section allows. */
	return patched(b_saved(b, cap, va), b, cap, case_fre_pos(&saved_v3, 0, 4) + 1,
		       FRE_N(9) | FRE_S1, 1);
}

static size_t b_saved_fp_absent(u8 *b, size_t cap, u64 *va)
{
	/* CFA, RA 0 and the rbx pair where FP belongs: read as an FP rule. */
	return b_saved_word(b, cap, va, 3, CTRL_SAVED(RBX));
}

/*
 * The FDEs of functions that cannot run above a frame whose CFA is on
 * rbx list no saves (SFRAME_V3_FDE_INFO2_SFU_NO_SAVES): a FLEX one of
 * two rows, a DEFAULT one, and a FLEX one that lists a save anyway.
 */
static const struct case_fre no_saves_fres[] = {
	{ 0x00, FRE_N(2) | FRE_S1, { CTRL_REG(7), 8 } },
	{ 0x04, FRE_N(5) | FRE_S1, { CTRL_REG(7), 24, 0, CTRL_CFA_DEREF, -24 } },
};

static const struct case_fre no_saves_listed_fres[] = {
	{ 0x00, FRE_N(6) | FRE_S1, { CTRL_REG(7), 16, 0, 0, CTRL_SAVED(RBX), -16 } },
};

#define NO_SAVES	SFRAME_V3_FDE_INFO2_SFU_NO_SAVES
static const struct case_fde no_saves_fdes[] = {
	{ 0x7000, 0x18, FDE_ADDR1, SFRAME_FDE_TYPE_FLEX, 0, ARRAY_SIZE(saved_fres), saved_fres },
	{ 0x7100, 0x10, FDE_ADDR1, SFRAME_FDE_TYPE_FLEX | NO_SAVES, 0,
	  ARRAY_SIZE(no_saves_fres), no_saves_fres },
	{ 0x7200, 0x10, FDE_ADDR1, NO_SAVES, 0, ARRAY_SIZE(saved_default_fres),
	  saved_default_fres },
};

static const struct case_sec no_saves_v3 = {
	3, SFRAME_F_FDE_SORTED | SFRAME_F_FDE_FUNC_START_PCREL | SFRAME_F_SFU_CFA_ADDEND |
	SFRAME_F_SFU_SAVED_REGS,
	SFRAME_ABI_AMD64_ENDIAN_LITTLE, -8, 0, ARRAY_SIZE(no_saves_fdes), no_saves_fdes
};

static size_t b_no_saves(u8 *b, size_t cap, u64 *va)
{
	return case_build(&no_saves_v3, b, cap, va);
}

static size_t b_no_saves_unflagged(u8 *b, size_t cap, u64 *va)
{
	struct case_sec s = no_saves_v3;
	static const struct case_fde fdes[] = {
		{ 0x7200, 0x10, FDE_ADDR1, NO_SAVES, 0, ARRAY_SIZE(saved_default_fres),
		  saved_default_fres },
	};

	s.flags &= ~SFRAME_F_SFU_SAVED_REGS;
	s.num_fdes = ARRAY_SIZE(fdes);
	s.fdes = fdes;
	return case_build(&s, b, cap, va);
}

static size_t b_no_saves_listed(u8 *b, size_t cap, u64 *va)
{
	static const struct case_fde fdes[] = {
		{ 0x7000, 0x10, FDE_ADDR1, SFRAME_FDE_TYPE_FLEX | NO_SAVES, 0,
		  ARRAY_SIZE(no_saves_listed_fres), no_saves_listed_fres },
	};
	struct case_sec s = no_saves_v3;

	s.num_fdes = ARRAY_SIZE(fdes);
	s.fdes = fdes;
	return case_build(&s, b, cap, va);
}

#undef NO_SAVES

static size_t b_saved_v2(u8 *b, size_t cap, u64 *va)
{
	return patched(b_saved(b, cap, va), b, cap, SFRAME_HDR_VERSION, 2, 1);
}

static size_t b_saved_aarch64(u8 *b, size_t cap, u64 *va)
{
	return patched(b_a64_v3(b, cap, va), b, cap, SFRAME_HDR_FLAGS,
		       a64_v3.flags | SFRAME_F_SFU_SAVED_REGS, 1);
}

#undef RBX

/* ---- functions of many rows -------------------------------------- */

/*
 * One function of SFRAME_FRE_INDEX_STRIDE rows (the most a lookup scans
 * without an FRE index) or one more (the fewest it refuses without one):
 * row n at offset n, CFA sp + 8, 16 or 24.
 */
#define ROW(start, cfa) { start, FRE_SP | FRE_N(1) | FRE_S1, { cfa } }
static const struct case_fre rows33[] = {
	ROW(0, 8), ROW(1, 16), ROW(2, 24), ROW(3, 8), ROW(4, 16), ROW(5, 24), ROW(6, 8),
	ROW(7, 16), ROW(8, 24), ROW(9, 8), ROW(10, 16), ROW(11, 24), ROW(12, 8), ROW(13, 16),
	ROW(14, 24), ROW(15, 8), ROW(16, 16), ROW(17, 24), ROW(18, 8), ROW(19, 16),
	ROW(20, 24), ROW(21, 8), ROW(22, 16), ROW(23, 24), ROW(24, 8), ROW(25, 16),
	ROW(26, 24), ROW(27, 8), ROW(28, 16), ROW(29, 24), ROW(30, 8), ROW(31, 16),
	ROW(32, 24)
};

#undef ROW

static size_t b_rows(u8 *b, size_t cap, u64 *va, u8 n)
{
	const struct case_fde fdes[] = { { 0x1000, 0x40, FDE_ADDR1, 0, 0, n, rows33 } };
	const struct case_sec s = { 3, SFRAME_F_FDE_SORTED, SFRAME_ABI_AMD64_ENDIAN_LITTLE, -8, 0,
				    ARRAY_SIZE(fdes), fdes };

	return case_build(&s, b, cap, va);
}

static size_t b_rows_stride(u8 *b, size_t cap, u64 *va)
{
	return b_rows(b, cap, va, SFRAME_FRE_INDEX_STRIDE);
}

static size_t b_rows_stride_plus_1(u8 *b, size_t cap, u64 *va)
{
	return b_rows(b, cap, va, SFRAME_FRE_INDEX_STRIDE + 1);
}

/* ---- outermost rows ----------------------------------------------- */

static size_t b_outermost(u8 *b, size_t cap, u64 *va)
{
	static const struct case_fre fres[] = {
		{ 0x00, 0, { 0 } },
		{ 0x02, FRE_SP | FRE_N(1) | FRE_S1, { 16 } },
	};
	static const struct case_fde fdes[] = {
		{ 0x1000, 0x40, FDE_ADDR1, 0, 0, ARRAY_SIZE(fres), fres },
		{ 0x1040, 0x10, FDE_ADDR1, 0, 0, 0, NULL },
		{ 0x1050, 0x00, FDE_ADDR1, 0, 0, 0, NULL },
		{ 0x1060, 0x10, FDE_ADDR1, 0, 0, ARRAY_SIZE(fres), fres },
	};
	static const struct case_sec s = { 2, SFRAME_F_FDE_SORTED, SFRAME_ABI_AMD64_ENDIAN_LITTLE,
					   -8, 0, ARRAY_SIZE(fdes), fdes };

	return case_build(&s, b, cap, va);
}

/* ---- real sections, mutated --------------------------------------- */

static const struct sframe_fixture *fixture(const char *name)
{
	unsigned int i;

	for (i = 0; i < sframe_num_fixtures; i++)
		if (!strcmp(sframe_fixtures[i].name, name))
			return &sframe_fixtures[i];
	return NULL;
}

static size_t fx_copy(const char *name, u8 *b, size_t cap, u64 *va)
{
	const struct sframe_fixture *f = fixture(name);

	if (!f || f->size > cap)
		return 0;
	memset(b, 0, cap);
	memcpy(b, f->data, f->size);
	*va = f->vaddr;
	return f->size;
}

/* Section offset of FDE @i of a real section. */
static size_t fx_fde(const u8 *b, u32 i)
{
	return SFRAME_HDR_SIZE + b[SFRAME_HDR_AUXHDR_LEN] + get_le(b + SFRAME_HDR_FDEOFF, 4) +
	       i * case_fde_size(b[SFRAME_HDR_VERSION], b[SFRAME_HDR_FLAGS]);
}

/* Section offset of the first FRE of FDE @i (V3: of its attribute block). */
static size_t fx_fre(const u8 *b, u32 i)
{
	unsigned int field = b[SFRAME_HDR_VERSION] == SFRAME_VERSION_3 ? SFRAME_V3_FDE_FRE_OFF :
									  SFRAME_V2_FDE_FRE_OFF;

	return SFRAME_HDR_SIZE + b[SFRAME_HDR_AUXHDR_LEN] + get_le(b + SFRAME_HDR_FREOFF, 4) +
	       get_le(b + fx_fde(b, i) + field, 4);
}

/* Section offset of the first FRE of FDE @i. */
static size_t fx_fre0(const u8 *b, u32 i)
{
	bool v3 = b[SFRAME_HDR_VERSION] == SFRAME_VERSION_3;

	return fx_fre(b, i) + (v3 ? SFRAME_V3_ATTR_BYTES : 0);
}

/* Info byte of FDE @i. */
static u8 fx_info(const u8 *b, u32 i)
{
	if (b[SFRAME_HDR_VERSION] == SFRAME_VERSION_3)
		return b[fx_fre(b, i) + SFRAME_V3_ATTR_INFO];
	return b[fx_fde(b, i) + SFRAME_V2_FDE_INFO];
}

/* Section offset of the info byte of the first FRE of FDE @i. */
static size_t fx_fre0_info(const u8 *b, u32 i)
{
	return fx_fre0(b, i) + case_addr_bytes(fx_info(b, i));
}

#define FX_V1		"x86_64/v1/uselib-O2"
#define FX_V2		"x86_64/v2/uselib-O2"
#define FX_V2PCREL	"x86_64/v2pcrel/uselib-O2"
#define FX_V3		"x86_64/v3/uselib-O2"
#define FX_A64_V3	"aarch64/v3/uselib-O2"
#define FX_A64_PAC	"aarch64/v2/chain-O2-pac-static"

static size_t b_fx_v1(u8 *b, size_t cap, u64 *va)
{
	return fx_copy(FX_V1, b, cap, va);
}

static size_t b_fx_v2(u8 *b, size_t cap, u64 *va)
{
	return fx_copy(FX_V2, b, cap, va);
}

static size_t b_fx_v2pcrel(u8 *b, size_t cap, u64 *va)
{
	return fx_copy(FX_V2PCREL, b, cap, va);
}

static size_t b_fx_v3(u8 *b, size_t cap, u64 *va)
{
	return fx_copy(FX_V3, b, cap, va);
}

static size_t b_fx_a64_v3(u8 *b, size_t cap, u64 *va)
{
	return fx_copy(FX_A64_V3, b, cap, va);
}

static size_t b_fx_a64_pac(u8 *b, size_t cap, u64 *va)
{
	return fx_copy(FX_A64_PAC, b, cap, va);
}

static size_t b_fx_v1_truncated(u8 *b, size_t cap, u64 *va)
{
	size_t len = b_fx_v1(b, cap, va);

	return len ? len - 1 : 0;
}

static size_t b_fx_v2_swapped_fdes(u8 *b, size_t cap, u64 *va)
{
	size_t len = b_fx_v2(b, cap, va);
	u8 tmp[SFRAME_V2_FDE_BYTES];

	if (len) {
		memcpy(tmp, b + fx_fde(b, 3), sizeof(tmp));
		memcpy(b + fx_fde(b, 3), b + fx_fde(b, 4), sizeof(tmp));
		memcpy(b + fx_fde(b, 4), tmp, sizeof(tmp));
	}
	return len;
}

static size_t b_fx_v2pcrel_flag_cleared(u8 *b, size_t cap, u64 *va)
{
	/* PCREL starts read as section-relative: every function moves. */
	return patched(b_fx_v2pcrel(b, cap, va), b, cap, SFRAME_HDR_FLAGS, SFRAME_F_FDE_SORTED, 1);
}

static size_t b_fx_v2_plt_rep0(u8 *b, size_t cap, u64 *va)
{
	size_t len = b_fx_v2(b, cap, va);

	return patched(len, b, cap, fx_fde(b, 1) + SFRAME_V2_FDE_REP_SIZE, 0, 1);
}

static size_t b_fx_v3_plt_rep0(u8 *b, size_t cap, u64 *va)
{
	size_t len = b_fx_v3(b, cap, va);

	return patched(len, b, cap, fx_fre(b, 1) + SFRAME_V3_ATTR_REP_SIZE, 0, 1);
}

static size_t b_fx_v3_fre_size3(u8 *b, size_t cap, u64 *va)
{
	size_t len = b_fx_v3(b, cap, va);

	/* FDE 3 is main, its first FRE's info byte. */
	return patched(len, b, cap, len ? fx_fre0_info(b, 3) : 0, FRE_SP | FRE_N(1) | FRE_S3, 1);
}

static size_t b_fx_v3_n15(u8 *b, size_t cap, u64 *va)
{
	size_t len = b_fx_v3(b, cap, va);

	return patched(len, b, cap, len ? fx_fre0_info(b, 3) : 0, FRE_SP | FRE_N(15) | FRE_S4, 1);
}

static size_t b_fx_v3_frame_pointer(u8 *b, size_t cap, u64 *va)
{
	return patched(b_fx_v3(b, cap, va), b, cap, SFRAME_HDR_FLAGS, 0x07, 1);
}

static size_t b_fx_v1_num_fdes_max(u8 *b, size_t cap, u64 *va)
{
	return patched(b_fx_v1(b, cap, va), b, cap, SFRAME_HDR_NUM_FDES, 0xffffffff, 4);
}

static size_t b_fx_v1_fre_off_past(u8 *b, size_t cap, u64 *va)
{
	size_t len = b_fx_v1(b, cap, va);

	return patched(len, b, cap, fx_fde(b, 2) + SFRAME_V1_FDE_FRE_OFF,
		       get_le(b + SFRAME_HDR_FRE_LEN, 4) + 1, 4);
}

static size_t b_fx_a64_v3_unsorted(u8 *b, size_t cap, u64 *va)
{
	size_t len = b_fx_a64_v3(b, cap, va);

	/* Function 1 moved 0x400 bytes down, below function 0 (PCREL). */
	return patched(len, b, cap, fx_fde(b, 1) + SFRAME_V3_FDE_START,
		       get_le(b + fx_fde(b, 1), 8) - 0x400, 8);
}

static size_t b_fx_a64_fres_reversed(u8 *b, size_t cap, u64 *va)
{
	size_t len = b_fx_a64_v3(b, cap, va), pos;
	unsigned int ab;
	u8 info;

	/* FDE 1, FRE 1: start 0x0c -> 0x70, past FRE 2 at 0x68. */
	if (!len)
		return 0;
	ab = case_addr_bytes(fx_info(b, 1));
	pos = fx_fre0(b, 1);
	info = b[pos + ab];
	pos += ab + 1 + SFRAME_FRE_INFO_COUNT(info) * case_word_bytes(info);
	return patched(len, b, cap, pos, 0x70, ab);
}

/* ---- rewritten after validation ----------------------------------- */

static void av_all_starts_huge(u8 *b, size_t len)
{
	u32 i, n = get_le(b + SFRAME_HDR_NUM_FDES, 4);

	for (i = 0; i < n; i++)
		put_le(b, len, fx_fde(b, i) + SFRAME_V2_FDE_START, 0x7fffffff, 4);
}

static void av_fde_num_fres_huge(u8 *b, size_t len)
{
	put_le(b, len, fx_fde(b, 3) + SFRAME_V2_FDE_NUM_FRES, 0xffffffff, 4);
}

static void av_fde_num_fres_65535(u8 *b, size_t len)
{
	put_le(b, len, fx_fde(b, 3) + SFRAME_V2_FDE_NUM_FRES, 0xffff, 4);
}

static void av_plt_rep0(u8 *b, size_t len)
{
	put_le(b, len, fx_fde(b, 1) + SFRAME_V2_FDE_REP_SIZE, 0, 1);
}

static void av_fre_off_huge(u8 *b, size_t len)
{
	put_le(b, len, fx_fde(b, 3) + SFRAME_V2_FDE_FRE_OFF, 0xffffffff, 4);
}

static void av_fre_size3(u8 *b, size_t len)
{
	put_le(b, len, fx_fre0_info(b, 3), FRE_SP | FRE_N(1) | FRE_S3, 1);
}

static void av_fre_starts_descending(u8 *b, size_t len)
{
	/* FDE 3's first FRE now starts at 0x10, after its second (0x02). */
	put_le(b, len, fx_fre0(b, 3), 0x10, case_addr_bytes(fx_info(b, 3)));
}

static void av_header_counts(u8 *b, size_t len)
{
	/* The header was copied at init: changing it later changes nothing. */
	put_le(b, len, SFRAME_HDR_NUM_FDES, 0xffffffff, 4);
	put_le(b, len, SFRAME_HDR_FRE_LEN, 0xffffffff, 4);
}

static void av_v3_attr_off_huge(u8 *b, size_t len)
{
	put_le(b, len, fx_fde(b, 3) + SFRAME_V3_FDE_FRE_OFF, 0xfffffffe, 4);
}

static void av_wipe(u8 *b, size_t len)
{
	memset(b, 0xff, len);
}

/* ---- the table ---------------------------------------------------- */

#define AMD64	SFRAME_ABI_AMD64_ENDIAN_LITTLE
#define A64	SFRAME_ABI_AARCH64_ENDIAN_LITTLE
#define E(x)	(-SFRAME_E_##x)

#define INIT(n, b, want, e) \
	{ .name = n, .stage = SFRAME_CASE_INIT, .abi = want, .expect = e, .build = b }
#define VALID(n, b, want, e) \
	{ .name = n, .stage = SFRAME_CASE_VALIDATE, .abi = want, .expect = e, .build = b }
#define FIND(n, b, want, addr, e, r) \
	{ .name = n, .stage = SFRAME_CASE_FIND, .abi = want, .expect = e, .pc = addr, .row = r, \
	  .build = b }
#define FIND_RAW(n, b, want, addr, e, r) \
	{ .name = n, .stage = SFRAME_CASE_FIND_RAW, .abi = want, .expect = e, .pc = addr, \
	  .row = r, .build = b }
#define FIND_AFTER(n, b, av, want, addr, e, r) \
	{ .name = n, .stage = SFRAME_CASE_FIND, .abi = want, .expect = e, .pc = addr, .row = r, \
	  .build = b, .after_validate = av }

const struct sframe_case sframe_cases[] = {
	/* header */
	INIT("empty_section_is_truncated", b_empty, 0, E(TRUNCATED)),
	INIT("three_bytes_are_truncated", b_three_bytes, 0, E(TRUNCATED)),
	INIT("preamble_without_header_is_truncated", b_preamble_only, 0, E(TRUNCATED)),
	INIT("header_one_byte_short_is_truncated", b_header_27, 0, E(TRUNCATED)),
	INIT("elf_magic_is_bad_magic", b_bad_magic, 0, E(BAD_MAGIC)),
	INIT("byte_swapped_magic_is_foreign_endian", b_foreign_endian, 0, E(FOREIGN_ENDIAN)),
	INIT("version_0_is_refused", b_version0, 0, E(VERSION)),
	INIT("version_4_is_refused", b_version4, 0, E(VERSION)),
	INIT("version_255_is_refused", b_version255, 0, E(VERSION)),
	INIT("v1_unknown_flag_0x8_is_refused", b_v1_flag8, 0, E(FLAGS)),
	INIT("v2_unknown_flag_0x80_is_refused", b_v2_flag80, 0, E(FLAGS)),
	INIT("v3_frame_pointer_flag_is_refused", b_v3_frame_pointer, 0, E(FLAGS)),
	INIT("v2_narrow_index_flag_is_refused", b_v2_narrow_flag, 0, E(FLAGS)),
	INIT("v3_narrow_index_overlapping_the_fres_is_bad_header", b_v3n_freoff_inside_index,
	     0, E(BAD_HEADER)),
	VALID("v3_narrow_index", b_amd64_v3n, AMD64, 0),
	VALID("v3_narrow_index_unsorted_is_refused", b_v3n_unsorted, AMD64, E(UNSORTED)),
	INIT("real_v3_with_frame_pointer_flag_is_refused", b_fx_v3_frame_pointer, AMD64,
	     E(FLAGS)),
	VALID("v2_frame_pointer_flag_is_accepted", b_v2_frame_pointer, AMD64, 0),
	FIND("v2_without_sorted_flag_but_sorted_is_accepted", b_v2_no_sorted, AMD64, 0x1044, 0,
	     "fp+16 c-16 f"),
	INIT("abi_0_is_unknown", b_abi0, 0, E(ABI)),
	INIT("abi_aarch64_big_endian_is_unsupported", b_abi_aarch64_be, 0, E(ABI)),
	INIT("abi_s390x_is_unsupported", b_abi_s390x, 0, E(ABI)),
	INIT("abi_5_is_unknown", b_abi5, AMD64, E(ABI)),
	INIT("amd64_section_for_aarch64_task_is_mismatch", b_fx_v2, A64, E(ABI_MISMATCH)),
	INIT("aarch64_section_for_amd64_task_is_mismatch", b_fx_a64_v3, AMD64, E(ABI_MISMATCH)),
	INIT("expected_abi_0_accepts_aarch64", b_fx_a64_v3, 0, 0),
	INIT("fixed_fp_offset_is_refused", b_fixed_fp, AMD64, E(BAD_HEADER)),
	INIT("amd64_without_fixed_ra_offset_is_refused", b_amd64_no_fixed_ra, AMD64,
	     E(BAD_HEADER)),
	INIT("aarch64_with_fixed_ra_offset_is_refused", b_a64_fixed_ra, A64, E(BAD_HEADER)),
	INIT("num_fdes_2pow32_minus_1_is_too_big", b_num_fdes_max, AMD64, E(TOO_BIG)),
	INIT("num_fres_2pow32_minus_1_is_too_big", b_num_fres_max, AMD64, E(TOO_BIG)),
	INIT("num_fdes_one_over_limit_is_too_big", b_num_fdes_limit_plus1, AMD64, E(TOO_BIG)),
	INIT("num_fdes_at_limit_overlapping_fres_is_bad_header", b_num_fdes_limit, AMD64,
	     E(BAD_HEADER)),
	INIT("num_fres_one_over_limit_is_too_big", b_num_fres_limit_plus1, AMD64, E(TOO_BIG)),
	INIT("num_fres_at_limit_beyond_fre_len_is_bad_header", b_num_fres_limit, AMD64,
	     E(BAD_HEADER)),
	INIT("fdeoff_2pow32_minus_1_is_bad_header", b_fdeoff_max, AMD64, E(BAD_HEADER)),
	INIT("real_v1_num_fdes_2pow32_minus_1_is_too_big", b_fx_v1_num_fdes_max, AMD64,
	     E(TOO_BIG)),
	{ .name = "section_over_256_mib_is_too_big", .stage = SFRAME_CASE_INIT, .abi = AMD64,
	  .expect = E(TOO_BIG), .reader_size = SFRAME_MAX_SECTION_SIZE + 1,
	  .build = b_amd64_v2 },
	INIT("auxhdr_past_section_end_is_truncated", b_auxhdr_past_end, AMD64, E(TRUNCATED)),
	FIND("auxhdr_bytes_are_skipped", b_auxhdr, AMD64, 0x1010, 0, "sp+16 u f"),
	INIT("fdeoff_beyond_freoff_is_bad_header", b_fdeoff_gt_freoff, AMD64, E(BAD_HEADER)),
	INIT("fde_array_running_into_fres_is_bad_header", b_fdes_into_fres, AMD64,
	     E(BAD_HEADER)),
	INIT("fre_len_one_past_end_is_truncated", b_fre_len_past_end, AMD64, E(TRUNCATED)),
	INIT("freoff_2pow32_minus_1_is_truncated", b_freoff_huge, AMD64, E(TRUNCATED)),
	INIT("fre_len_2pow32_minus_1_is_truncated", b_fre_len_huge, AMD64, E(TRUNCATED)),
	INIT("real_v1_missing_last_byte_is_truncated", b_fx_v1_truncated, AMD64, E(TRUNCATED)),
	INIT("fre_count_beyond_fre_len_is_bad_header", b_fres_exceed_fre_len, AMD64,
	     E(BAD_HEADER)),
	INIT("v3_fre_count_beyond_fre_len_bytes_is_bad_header", b_v3_fres_exceed_fre_len,
	     AMD64, E(BAD_HEADER)),
	{ .name = "user_reader_at_address_0_faults", .stage = SFRAME_CASE_INIT, .abi = AMD64,
	  .expect = E(FAULT), .reader = SFRAME_READER_USER, .build = b_amd64_v2 },
	{ .name = "nofault_user_reader_at_address_0_faults", .stage = SFRAME_CASE_INIT,
	  .abi = AMD64, .expect = E(FAULT), .reader = SFRAME_READER_USER_NOFAULT,
	  .build = b_amd64_v2 },
	{ .name = "unknown_reader_kind_faults", .stage = SFRAME_CASE_INIT, .abi = AMD64,
	  .expect = E(FAULT), .reader = 99, .build = b_amd64_v2 },

	/* whole-section validation */
	VALID("v1_section_from_scratch_is_valid", b_amd64_v1, AMD64, 0),
	VALID("real_v1_section_is_valid", b_fx_v1, AMD64, 0),
	VALID("real_v2_pcrel_section_is_valid", b_fx_v2pcrel, AMD64, 0),
	VALID("real_v3_section_is_valid", b_fx_v3, AMD64, 0),
	VALID("trailing_zero_padding_is_accepted", b_trailing_zeros, AMD64, 0),
	FIND("trailing_garbage_is_ignored", b_trailing_garbage, AMD64, 0x1041, 0, "sp+16 c-16 f"),
	VALID("unsorted_fdes_are_refused", b_unsorted, AMD64, E(UNSORTED)),
	VALID("real_v2_with_two_fdes_swapped_is_unsorted", b_fx_v2_swapped_fdes, AMD64,
	      E(UNSORTED)),
	VALID("real_aarch64_v3_with_fde_moved_down_is_unsorted", b_fx_a64_v3_unsorted, A64,
	      E(UNSORTED)),
	VALID("two_functions_at_the_same_start_are_unsorted", b_two_functions_same_start, AMD64,
	      E(UNSORTED)),
	FIND("zero_size_fde_at_next_function_start_is_accepted", b_empty_fde_first, AMD64,
	     0x1000, 0, "sp+8 u f"),
	FIND("zero_size_fdes_sorted_after_their_function_are_stepped_over", b_empty_fde_after,
	     AMD64, 0x1010, 0, "sp+16 u f"),
	FIND("zero_size_fdes_stepped_over_are_bounded", b_too_many_empty_fdes_after, AMD64,
	     0x1010, E(NO_FDE), NULL),
	VALID("overlapping_functions_are_unsorted", b_overlap, AMD64, E(UNSORTED)),
	VALID("fre_type_3_is_bad_fde", b_fre_type3, AMD64, E(BAD_FDE)),
	VALID("fde_info_unused_bit_is_bad_fde", b_fde_unused_bit, AMD64, E(BAD_FDE)),
	VALID("v2_fde_signal_bit_is_bad_fde", b_v2_signal_bit, AMD64, E(BAD_FDE)),
	VALID("amd64_pauth_key_b_is_bad_fde", b_amd64_pauth_b, AMD64, E(BAD_FDE)),
	VALID("v3_fde_type_2_is_bad_fde", b_v3_fde_type2, AMD64, E(BAD_FDE)),
	VALID("v3_info2_unused_bit_is_bad_fde", b_v3_info2_unused, AMD64, E(BAD_FDE)),
	VALID("v3_functions_sharing_a_block", b_v3_shared_block, AMD64, 0),
	VALID("v3_shared_block_past_a_sharers_end_is_bad_fre", b_v3_shared_block_too_long,
	      AMD64, E(BAD_FRE)),
	VALID("flex_fde_in_v2_cannot_be_expressed_and_decodes_as_default", b_flex_in_v2, AMD64,
	      E(BAD_FRE)),
	VALID("v3_attribute_block_past_fre_len_is_bad_fde", b_v3_attr_past_fre_len, AMD64,
	      E(BAD_FDE)),
	VALID("first_fre_offset_past_fre_len_is_bad_fde", b_fre_off_past_fre_len, AMD64,
	      E(BAD_FDE)),
	VALID("real_v1_first_fre_offset_past_fre_len_is_bad_fde", b_fx_v1_fre_off_past, AMD64,
	      E(BAD_FDE)),
	VALID("fde_fre_count_2pow32_minus_1_is_too_big", b_fde_num_fres_over_limit, AMD64,
	      E(TOO_BIG)),
	VALID("fde_fre_count_over_header_count_is_bad_fde", b_fde_num_fres_over_header, AMD64,
	      E(BAD_FDE)),
	VALID("fre_counts_adding_up_over_header_is_bad_fde", b_fre_sum_over_header, AMD64,
	      E(BAD_FDE)),
	VALID("fre_data_one_byte_past_fre_len_is_bad_fde", b_fre_past_fre_len, AMD64,
	      E(BAD_FDE)),
	VALID("function_range_wrapping_2pow64_is_bad_fde", b_func_wraps, AMD64, E(BAD_FDE)),
	VALID("function_start_below_address_0_is_bad_fde", b_func_below_zero, AMD64, E(BAD_FDE)),
	VALID("mask_fde_rep_size_0_is_refused", b_plt_v2_rep0, AMD64, E(REP_SIZE)),
	VALID("v3_mask_fde_rep_size_0_is_refused", b_plt_v3_rep0, AMD64, E(REP_SIZE)),
	VALID("real_v2_plt_rep_size_0_is_refused", b_fx_v2_plt_rep0, AMD64, E(REP_SIZE)),
	VALID("real_v3_plt_rep_size_0_is_refused", b_fx_v3_plt_rep0, AMD64, E(REP_SIZE)),
	VALID("v1_aarch64_mask_fde_has_no_rep_size", b_aarch64_v1_mask, A64, E(REP_SIZE)),
	VALID("mask_fre_starting_past_rep_size_is_bad_fre", b_plt_mask_start_past_rep, AMD64,
	      E(BAD_FRE)),
	VALID("fre_offset_size_3_is_bad_fre", b_fre_size3, AMD64, E(BAD_FRE)),
	VALID("real_v3_fre_offset_size_3_is_bad_fre", b_fx_v3_fre_size3, AMD64, E(BAD_FRE)),
	VALID("fre_with_15_words_of_4_bytes_is_bad_fre", b_fre_n15_s4, AMD64, E(BAD_FRE)),
	VALID("real_v3_fre_with_15_words_is_bad_fre", b_fx_v3_n15, AMD64, E(BAD_FRE)),
	VALID("amd64_fre_with_3_words_is_bad_fre", b_amd64_n3, AMD64, E(BAD_FRE)),
	VALID("aarch64_fre_with_4_words_is_bad_fre", b_a64_n4, A64, E(BAD_FRE)),
	VALID("amd64_mangled_ra_bit_is_bad_fre", b_amd64_mangled, AMD64, E(BAD_FRE)),
	VALID("fres_out_of_order_are_refused", b_fre_reversed, AMD64, E(FRE_ORDER)),
	VALID("real_aarch64_fres_out_of_order_are_refused", b_fx_a64_fres_reversed, A64,
	      E(FRE_ORDER)),
	VALID("two_fres_at_the_same_start_are_refused", b_fre_equal_starts, AMD64, E(FRE_ORDER)),
	VALID("fre_starting_past_function_end_is_bad_fre", b_fre_past_func_end, AMD64,
	      E(BAD_FRE)),
	VALID("flex_fre_with_3_words_is_bad_fre", b_flex_n3, AMD64, E(BAD_FRE)),
	VALID("flex_fre_with_1_word_is_bad_fre", b_flex_n1, AMD64, E(BAD_FRE)),
	VALID("flex_fre_with_7_words_is_bad_fre", b_flex_n7, AMD64, E(BAD_FRE)),
	VALID("flex_cfa_without_register_is_bad_fre", b_flex_cfa_not_reg, AMD64, E(BAD_FRE)),
	VALID("flex_control_reserved_bit_is_bad_fre", b_flex_reserved_bit, AMD64, E(BAD_FRE)),
	VALID("flex_fre_base_bit_is_bad_fre", b_flex_base_bit, AMD64, E(BAD_FRE)),
	VALID("flex_fp_pair_cut_short_after_ra_zero_is_bad_fre", b_flex_fp_pair_cut_short, AMD64,
	      E(BAD_FRE)),
	VALID("flex_word_left_over_after_ra_zero_is_bad_fre", b_flex_zero_word_left_over, AMD64,
	      E(BAD_FRE)),
	VALID("flex_zero_control_words_as_libsframe_writes_them", b_flex_zero, AMD64, 0),
	VALID("flex_padding_word_not_zero_is_bad_fre", b_flex_padding_not_zero, AMD64,
	      E(BAD_FRE)),
	VALID("flex_register_number_without_reg_p_is_bad_fre", b_flex_fp_regnum_without_reg_p,
	      AMD64, E(BAD_FRE)),
	VALID("flex_cfa_addend_in_flagged_section", b_flex_add, AMD64, 0),
	VALID("flex_cfa_addend_without_the_flag_is_bad_fre", b_flex_add_unflagged, AMD64,
	      E(BAD_FRE)),
	VALID("flex_cfa_addend_without_deref_is_bad_fre", b_flex_add_without_deref, AMD64,
	      E(BAD_FRE)),
	VALID("flex_cfa_addend_word_missing_is_bad_fre", b_flex_add_word_missing, AMD64,
	      E(BAD_FRE)),
	INIT("v2_with_the_cfa_addend_flag_is_refused", b_flex_add_v2, 0, E(FLAGS)),
	VALID("injected_call_in_flagged_section", b_injected, AMD64, 0),
	VALID("injected_call_without_the_flag_is_injected_call", b_injected_unflagged, AMD64,
	      E(INJECTED_CALL)),
	INIT("v2_with_the_injected_calls_flag_is_refused", b_injected_v2, 0, E(FLAGS)),
	VALID("saved_registers_in_flagged_section", b_saved, AMD64, 0),
	VALID("no_saves_fdes_in_flagged_section", b_no_saves, AMD64, 0),
	VALID("no_saves_without_the_flag_is_no_saves", b_no_saves_unflagged, AMD64,
	      E(NO_SAVES)),
	VALID("no_saves_fde_with_a_saved_register_pair_is_bad_fre", b_no_saves_listed, AMD64,
	      E(BAD_FRE)),
	VALID("saved_register_pair_without_the_flag_is_bad_fre", b_saved_unflagged, AMD64,
	      E(BAD_FRE)),
	VALID("saved_register_not_tracked_is_saved_reg", b_saved_untracked_reg, AMD64,
	      E(SAVED_REG)),
	VALID("saved_register_control_with_reg_p_is_saved_reg", b_saved_reg_p, AMD64,
	      E(SAVED_REG)),
	VALID("saved_register_control_reserved_bit_is_saved_reg", b_saved_reserved_bit, AMD64,
	      E(SAVED_REG)),
	VALID("saved_register_at_cfa_is_saved_reg", b_saved_offset_zero, AMD64, E(SAVED_REG)),
	VALID("saved_register_above_cfa_is_saved_reg", b_saved_offset_positive, AMD64,
	      E(SAVED_REG)),
	VALID("saved_register_unaligned_slot_is_saved_reg", b_saved_offset_unaligned, AMD64,
	      E(SAVED_REG)),
	VALID("saved_register_lost_with_an_offset_is_saved_reg", b_saved_lost_with_offset, AMD64,
	      E(SAVED_REG)),
	VALID("saved_register_twice_is_saved_reg", b_saved_twice, AMD64, E(SAVED_REG)),
	VALID("saved_register_without_offset_word_is_saved_reg", b_saved_odd_word, AMD64,
	      E(SAVED_REG)),
	VALID("saved_registers_nine_words_is_bad_fre", b_saved_nine_words, AMD64, E(BAD_FRE)),
	VALID("saved_register_in_place_of_fp_is_bad_fre", b_saved_fp_absent, AMD64,
	      E(BAD_FRE)),
	INIT("v2_with_the_saved_registers_flag_is_refused", b_saved_v2, 0, E(FLAGS)),
	INIT("aarch64_with_the_saved_registers_flag_is_refused", b_saved_aarch64, 0, E(FLAGS)),

	/* lookups */
	FIND("pc_before_first_function_has_no_fde", b_amd64_v2, AMD64, 0xfff, E(NO_FDE), NULL),
	FIND("pc_0_has_no_fde", b_amd64_v2, AMD64, 0, E(NO_FDE), NULL),
	FIND("pc_at_last_function_end_has_no_fde", b_amd64_v2, AMD64, 0x1060, E(NO_FDE), NULL),
	FIND("pc_max_has_no_fde", b_amd64_v2, AMD64, ~0UL, E(NO_FDE), NULL),
	FIND("pc_at_function_end_finds_next_function", b_amd64_v2, AMD64, 0x1040, 0,
	     "sp+8 u f"),
	FIND("pc_one_before_function_end_is_its_last_row", b_amd64_v2, AMD64, 0x103f, 0,
	     "sp+8 u f"),
	FIND("v1_lookup_finds_fp_based_row", b_amd64_v1, AMD64, 0x105f, 0, "fp+16 c-16 f"),
	FIND("v2_lookup_finds_row", b_amd64_v2, AMD64, 0x1041, 0, "sp+16 c-16 f"),
	FIND("v2_pcrel_lookup_finds_the_same_row", b_amd64_v2pcrel, AMD64, 0x1041, 0,
	     "sp+16 c-16 f"),
	FIND("v3_lookup_finds_the_same_row", b_amd64_v3, AMD64, 0x1041, 0, "sp+16 c-16 f"),
	FIND("v3_narrow_index_lookup_finds_the_same_row", b_amd64_v3n, AMD64, 0x1041, 0,
	     "sp+16 c-16 f"),
	FIND("v3_narrow_index_first_function", b_amd64_v3n, AMD64, 0x1000, 0, "sp+8 u f"),
	FIND("v3_narrow_index_past_the_last_function_is_no_fde", b_amd64_v3n, AMD64, 0x1060,
	     E(NO_FDE), NULL),
	FIND("v3_narrow_index_without_pcrel_finds_the_same_row", b_amd64_v3n_abs, AMD64,
	     0x1041, 0, "sp+16 c-16 f"),
	FIND_RAW("v3_narrow_index_found_without_validation", b_amd64_v3n, AMD64, 0x1041, 0,
		 "sp+16 c-16 f"),
	FIND("empty_section_has_no_fde", b_no_fdes, AMD64, 0x1000, E(NO_FDE), NULL),
	FIND("fre_starting_at_function_end_is_accepted_and_never_matches", b_fre_at_func_end,
	     AMD64, 0x105f, 0, "sp+16 c-16 f"),
	FIND("fre_start_beyond_64k_with_4_byte_offsets", b_fre_addr4_large, AMD64, 0x112345, 0,
	     "sp+40016 u f"),
	FIND("pc_before_first_fre_has_no_fre", b_first_fre_late, AMD64, 0x1001, E(NO_FRE), NULL),
	FIND("pc_at_late_first_fre", b_first_fre_late, AMD64, 0x1002, 0, "sp+8 u f"),
	FIND("zero_fre_v2_function_has_no_fre", b_outermost, AMD64, 0x1048, E(NO_FRE), NULL),
	FIND("zero_size_function_never_matches", b_outermost, AMD64, 0x1050, E(NO_FDE), NULL),
	FIND("fre_without_words_is_outermost", b_outermost, AMD64, 0x1061, 0, "RA undefined"),
	FIND("row_after_outermost_row", b_outermost, AMD64, 0x1062, 0, "sp+16 u f"),
	FIND("mask_fde_repeats_every_rep_size_bytes", b_plt_v2, AMD64, 0x402c, 0, "sp+16 u f"),
	FIND("mask_fde_block_start", b_plt_v2, AMD64, 0x4030, 0, "sp+8 u f"),
	FIND("real_v1_plt_uses_rep_size_16", b_fx_v1, AMD64, 0x105c, 0, "sp+16 u f"),
	FIND("real_v1_plt_entry_start", b_fx_v1, AMD64, 0x1050, 0, "sp+8 u f"),
	FIND("real_v2_plt_got", b_fx_v2, AMD64, 0x1077, 0, "sp+16 u f"),
	FIND("real_v2_gap_after_plt_got_has_no_fde", b_fx_v2, AMD64, 0x1078, E(NO_FDE), NULL),
	FIND("real_v2_pcrel_main", b_fx_v2pcrel, AMD64, 0x1100, 0, "sp+96 c-24 f"),
	FIND("real_v3_main", b_fx_v3, AMD64, 0x1204, 0, "sp+8 c-24 f"),
	VALID("real_v2_pcrel_read_without_pcrel_flag_is_unsorted", b_fx_v2pcrel_flag_cleared,
	      AMD64, E(UNSORTED)),
	FIND("aarch64_v1_ra_still_in_link_register", b_a64_v1, A64, 0x2000, 0, "sp+0 u u"),
	FIND("aarch64_ra_saved_without_fp", b_a64_v3, A64, 0x2005, 0, "sp+32 u c-24"),
	FIND("aarch64_signed_ra", b_a64_v3, A64, 0x200b, 0, "sp+32 c-32 c-24[s]"),
	FIND("aarch64_ra_padding_word", b_a64_v3, A64, 0x200c, 0, "sp+32 c-32 U"),
	FIND("aarch64_fp_based_cfa_with_2_byte_words", b_a64_v3, A64, 0x201f, 0,
	     "fp+16 c-16 c-8[s]"),
	FIND("real_aarch64_ra_saved_without_fp", b_fx_a64_v3, A64, 0x7c8, 0, "sp+96 u c-80"),
	FIND("real_aarch64_pac_signed_ra", b_fx_a64_pac, A64, 0x400830, 0, "sp+16 c-16 c-8[s]"),
	FIND("flex_cfa_from_rsp", b_flex, AMD64, 0x3003, 0, "sp+8 u f"),
	FIND("flex_cfa_from_drap_register", b_flex, AMD64, 0x3004, 0, "r10+0 u f"),
	FIND("flex_cfa_dereferenced_with_ra_padding", b_flex, AMD64, 0x3008, 0,
	     "(fp-8) c-16 U"),
	FIND("flex_ra_in_register_and_fp_dereferenced", b_flex, AMD64, 0x300c, 0,
	     "sp+16 (fp+0) r3+0"),
	FIND("flex_ra_at_cfa_minus_8", b_flex, AMD64, 0x303f, 0, "sp+16 u c-8"),
	FIND("v3_signal_fde_without_rows_is_outermost", b_flex, AMD64, 0x3040, 0,
	     "RA undefined"),
	FIND("flex_ra_zero_ends_the_row", b_flex_zero, AMD64, 0x5003, 0, "sp+8 u U"),
	FIND("flex_ra_zero_and_fp_zero", b_flex_zero, AMD64, 0x5004, 0, "sp+16 u U"),
	FIND("flex_fp_zero_after_ra_pair", b_flex_zero, AMD64, 0x500b, 0, "sp+16 u c-8"),
	FIND("flex_cfa_addend_flagged_but_unused", b_flex_add, AMD64, 0x6003, 0, "sp+8 u f"),
	FIND("flex_cfa_deref_plus_addend_ra_padding_fp", b_flex_add, AMD64, 0x6004, 0,
	     "(sp+24)+8 c-24 U"),
	FIND("flex_cfa_deref_plus_addend_alone", b_flex_add, AMD64, 0x600f, 0, "(fp+88)+56 u f"),
	FIND("injected_call_at_its_first_byte", b_injected, AMD64, 0x8000, 0, "sp+8 u f injected"),
	FIND("injected_call_row", b_injected, AMD64, 0x800f, 0, "sp+16 c-16 f injected"),
	FIND("injected_call_not_the_next_function", b_injected, AMD64, 0x8010, 0, "sp+8 u f"),
	FIND_RAW("injected_call_without_the_flag_on_lookup", b_injected_unflagged, AMD64, 0x8004,
		 E(INJECTED_CALL), NULL),
	FIND("flex_ra_zero_then_fp_pair", b_flex_zero, AMD64, 0x501f, 0, "fp+16 c-16 U"),
	FIND("saved_registers_none_listed_in_flex_row", b_saved, AMD64, 0x7003, 0, "sp+8 u f"),
	FIND("saved_register_pushed_rbx", b_saved, AMD64, 0x7004, 0, "sp+16 u U rbx=c-16"),
	FIND("saved_register_after_fp_pair", b_saved, AMD64, 0x700b, 0,
	     "sp+24 c-24 U rbx=c-16"),
	FIND("saved_register_lost_cfa_on_it", b_saved, AMD64, 0x700c, 0, "r3+24 u U rbx=u"),
	FIND("saved_register_with_cfa_addend_eight_words", b_saved, AMD64, 0x7017, 0,
	     "(sp+24)+8 c-24 U rbx=c-32"),
	FIND("saved_register_two_byte_words", b_saved, AMD64, 0x7018, 0,
	     "sp+16 c-16 U rbx=c-8000"),
	FIND("saved_registers_default_fde_in_flagged_section", b_saved, AMD64, 0x7020, 0,
	     "sp+16 c-16 f"),
	FIND("v3_second_sharer_of_a_block", b_v3_shared_block, AMD64, 0x9014, 0, "fp+16 c-16 f"),
	FIND("v3_first_sharer_of_a_block", b_v3_shared_block, AMD64, 0x9001, 0, "sp+16 c-16 f"),
	FIND("no_saves_neighbour_lists_its_saves", b_no_saves, AMD64, 0x7004, 0,
	     "sp+16 u U rbx=c-16"),
	FIND("no_saves_flex_fde", b_no_saves, AMD64, 0x7105, 0, "sp+24 c-24 U no-saves"),
	FIND("no_saves_default_fde", b_no_saves, AMD64, 0x7200, 0, "sp+16 c-16 f no-saves"),
	FIND_RAW("no_saves_without_the_flag_on_lookup", b_no_saves_unflagged, AMD64, 0x7200,
		 E(NO_SAVES), NULL),
	FIND("function_of_32_rows_is_scanned_without_an_index", b_rows_stride, AMD64, 0x101e, 0,
	     "sp+8 u f"),
	FIND("function_of_33_rows_without_an_index_is_no_index", b_rows_stride_plus_1, AMD64,
	     0x1000, E(NO_INDEX), NULL),

	/* lookups that must stay safe when the bytes change after validation */
	FIND_AFTER("fde_starts_rewritten_after_validation", b_fx_v2, av_all_starts_huge, AMD64,
		   0x1100, E(NO_FDE), NULL),
	FIND_AFTER("fde_fre_count_rewritten_huge_after_validation", b_fx_v2,
		   av_fde_num_fres_huge, AMD64, 0x1100, E(TOO_BIG), NULL),
	FIND_AFTER("fde_fre_count_rewritten_past_fre_len_after_validation", b_fx_v2,
		   av_fde_num_fres_65535, AMD64, 0x1100, E(BAD_FDE), NULL),
	FIND_AFTER("plt_rep_size_rewritten_to_0_after_validation", b_fx_v2, av_plt_rep0, AMD64,
		   0x1035, E(REP_SIZE), NULL),
	FIND_AFTER("fre_offset_rewritten_huge_after_validation", b_fx_v2, av_fre_off_huge, AMD64,
		   0x1100, E(BAD_FDE), NULL),
	FIND_AFTER("v3_attribute_offset_rewritten_after_validation", b_fx_v3,
		   av_v3_attr_off_huge, AMD64, 0x1100, E(BAD_FDE), NULL),
	FIND_AFTER("fre_info_rewritten_after_validation", b_fx_v2, av_fre_size3, AMD64, 0x1081,
		   E(BAD_FRE), NULL),
	FIND_AFTER("fre_order_rewritten_after_validation", b_fx_v2, av_fre_starts_descending,
		   AMD64, 0x1100, E(FRE_ORDER), NULL),
	FIND_AFTER("header_rewritten_after_init_is_not_reread", b_fx_v2, av_header_counts, AMD64,
		   0x1100, 0, "sp+96 c-24 f"),
	FIND_AFTER("section_wiped_after_validation", b_fx_v3, av_wipe, AMD64, 0x3000,
		   E(BAD_FDE), NULL),
	FIND_RAW("unvalidated_fre_with_15_words_is_bad_fre", b_fre_n15_s4, AMD64, 0x1000,
		 E(BAD_FRE), NULL),
	FIND_RAW("unvalidated_unsorted_fdes_do_not_loop", b_unsorted, AMD64, 0x1041, E(NO_FDE),
		 NULL),
	FIND_RAW("unvalidated_wrapping_function_is_bad_fde", b_func_wraps, AMD64,
		 0xfffffffffffff800ULL, E(BAD_FDE), NULL),
	FIND_RAW("unvalidated_function_of_33_rows_is_no_index", b_rows_stride_plus_1, AMD64,
		 0x1020, E(NO_INDEX), NULL),
};

const unsigned int sframe_num_cases = ARRAY_SIZE(sframe_cases);

/**
 * sframe_case_build() - write a case's section into @buf
 * @c: the case
 * @buf: at least @cap bytes
 * @cap: size of @buf (SFRAME_CASE_BUF_SIZE)
 * @vaddr: set to the address the section is mapped at
 *
 * Return: length of the section (0 for an empty one, or if it did not fit).
 */
size_t sframe_case_build(const struct sframe_case *c, u8 *buf, size_t cap, u64 *vaddr)
{
	*vaddr = CASE_VADDR;
	return c->build(buf, cap, vaddr);
}

/**
 * sframe_case_run() - run a built case against the decoder
 * @c: the case
 * @buf: its section, from sframe_case_build()
 * @len: length of the section
 * @vaddr: from sframe_case_build()
 * @res: what happened
 *
 * Uses a buffer reader over @buf, or a user reader at address 0 if the case
 * asks for one.  Stops at the first stage that fails.
 */
void sframe_case_run(const struct sframe_case *c, u8 *buf, size_t len, u64 vaddr,
		     struct sframe_case_result *res)
{
	struct sfu_sframe_reader r = { .kind = c->reader, .buf = buf, .uaddr = 0, .size = len };
	struct sfu_sframe_section sec;
	struct sfu_sframe_row row;

	if (c->reader_size)
		r.size = c->reader_size;
	memset(res, 0, sizeof(*res));

	res->stage = SFRAME_CASE_INIT;
	res->err = sfu_sframe_section_init(&sec, &r, vaddr, c->abi);
	if (res->err || c->stage == SFRAME_CASE_INIT)
		return;

	if (c->stage != SFRAME_CASE_FIND_RAW) {
		res->stage = SFRAME_CASE_VALIDATE;
		res->err = sfu_sframe_section_validate(&sec);
		if (res->err || c->stage == SFRAME_CASE_VALIDATE)
			return;
		if (c->after_validate)
			c->after_validate(buf, len);
	}

	res->stage = c->stage;
	res->err = sfu_sframe_find_row(&sec, c->pc, &row);
	if (res->err)
		return;
	sfu_sframe_row_format(&row, res->row, sizeof(res->row));
	/* As sframe-check --lookup prints it: the row's function is entered so. */
	if (row.flags & SFRAME_ROW_INJECTED_CALL)
		snprintf(res->row + strlen(res->row), sizeof(res->row) - strlen(res->row),
			 " injected");
	/* A row of a flagged section that lists no saves: rbx is lost after it. */
	if ((sec.flags & SFRAME_F_SFU_SAVED_REGS) && !(row.flags & SFRAME_ROW_SAVED_REGS))
		snprintf(res->row + strlen(res->row), sizeof(res->row) - strlen(res->row),
			 " no-saves");
}

/**
 * sframe_case_passed() - whether a result is exactly what the case expects
 * @c: the case
 * @res: from sframe_case_run()
 *
 * Return: true if the expected stage gave the expected code and, for a
 * successful lookup, the expected row.
 */
bool sframe_case_passed(const struct sframe_case *c, const struct sframe_case_result *res)
{
	if (res->stage != c->stage || res->err != c->expect)
		return false;
	if (!res->err && c->row && strcmp(res->row, c->row))
		return false;
	return true;
}
