// SPDX-License-Identifier: GPL-2.0
/*
 * SFrame decoder: V1, V2, V2 + PCREL and V3 sections, AMD64 and AArch64.
 *
 * Three stages with different trust:
 *  - sfu_sframe_section_init() checks the header against the section size;
 *  - sfu_sframe_section_validate() walks every FDE and FRE once;
 *  - sfu_sframe_find_row() trusts neither: the bytes may have been rewritten
 *    since validation, so every read is bounds-checked again and every
 *    loop has a bound that does not depend on section bytes.
 * FDE and FRE decoding is shared by all three, so the checks live in one
 * place (sfu_sframe_fde_get(), sfu_sframe_fre_read(), sframe_fre_decode()); the FRE
 * scan of a lookup, which steps over FREs without copying them, makes the
 * checks of sfu_sframe_fre_read() with the sframe_fre_tail[] table.
 */
#include <linux/types.h>
#include <linux/kernel.h>
#include <linux/errno.h>
#include <linux/export.h>
#include <linux/string.h>
#include <linux/overflow.h>

#include "sframe_unwind/compat/export.h"

#include "decode.h"
#include "sframe.h"

/**
 * sfu_sframe_fre_read() - read the FRE at a section offset
 * @sec: initialized section
 * @fde: its function
 * @pos: section offset of the FRE, which must end inside the FRE sub-section
 * @fre: filled on success
 *
 * Return: 0 or -SFRAME_E_xxx.
 */
int sfu_sframe_fre_read(const struct sfu_sframe_section *sec, const struct sfu_sframe_fde *fde,
			u64 pos, struct sframe_fre_raw *fre)
{
	u8 buf[SFRAME_FRE_MAX_BYTES];
	unsigned int addr_bytes, word_bytes;
	u64 left;
	int err;

	/* @fde normally comes from sfu_sframe_fde_get(), which checked this. */
	if (fde->fre_type > SFRAME_FRE_TYPE_ADDR4 || pos > sec->fre_end)
		return -SFRAME_E_BAD_FDE;
	addr_bytes = 1U << fde->fre_type;
	left = sec->fre_end - pos;
	if (left < addr_bytes + 1)
		return -SFRAME_E_BAD_FDE;
	err = sfu_sframe_read(&sec->reader, pos, buf, addr_bytes + 1);
	if (err)
		return err;
	fre->start = sframe_get_le(buf, addr_bytes);
	fre->info = buf[addr_bytes];

	if (SFRAME_FRE_INFO_SIZE(fre->info) > SFRAME_FRE_DATAWORD_4B)
		return -SFRAME_E_BAD_FRE;
	word_bytes = 1U << SFRAME_FRE_INFO_SIZE(fre->info);
	fre->count = SFRAME_FRE_INFO_COUNT(fre->info);
	/* More than any section may have; sframe_fre_decode() checks this one's limit. */
	if (fre->count > SFRAME_FRE_MAX_WORDS)
		return -SFRAME_E_BAD_FRE;

	fre->bytes = addr_bytes + 1 + fre->count * word_bytes;
	if (left < fre->bytes)
		return -SFRAME_E_BAD_FDE;
	err = sfu_sframe_read(&sec->reader, pos + addr_bytes + 1, buf, fre->count * word_bytes);
	if (err)
		return err;
	sframe_fre_words(fre, buf);
	return 0;
}

/* The version, and the flags that version allows, from the preamble @h. */
static int sframe_hdr_version(struct sfu_sframe_section *sec, const u8 *h)
{
	u8 valid_flags;

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
	if (sec->flags & SFRAME_F_SFU_NARROW_INDEX)
		sec->fde_size = SFRAME_V3N_FDE_BYTES;
	return 0;
}

/*
 * The counts, offsets and lengths of the header @h: each within the limits
 * in sframe.h and the @size bytes of the section, the FDEs before the FREs.
 */
static int sframe_hdr_layout(struct sfu_sframe_section *sec, const u8 *h, u64 size)
{
	u64 hdr_len, fde_end, fre_min;
	u32 fdeoff, freoff;

	sec->num_fdes = sframe_le32(h + SFRAME_HDR_NUM_FDES);
	sec->num_fres = sframe_le32(h + SFRAME_HDR_NUM_FRES);
	sec->fre_len = sframe_le32(h + SFRAME_HDR_FRE_LEN);
	fdeoff = sframe_le32(h + SFRAME_HDR_FDEOFF);
	freoff = sframe_le32(h + SFRAME_HDR_FREOFF);
	if (sec->num_fdes > SFRAME_MAX_FDES || sec->num_fres > SFRAME_MAX_FRES)
		return -SFRAME_E_TOO_BIG;

	/* All sums below are of 32-bit values in 64 bits: none can wrap. */
	hdr_len = SFRAME_HDR_SIZE + h[SFRAME_HDR_AUXHDR_LEN];
	if (hdr_len > size)
		return -SFRAME_E_TRUNCATED;
	if (fdeoff > freoff)
		return -SFRAME_E_BAD_HEADER;
	sec->fde_off = hdr_len + fdeoff;
	sec->fre_off = hdr_len + freoff;
	fde_end = sec->fde_off + (u64)sec->num_fdes * sec->fde_size;
	if (fde_end > sec->fre_off)
		return -SFRAME_E_BAD_HEADER;
	sec->fre_end = sec->fre_off + sec->fre_len;
	if (sec->fre_end > size)
		return -SFRAME_E_TRUNCATED;

	/*
	 * Every FRE takes at least 2 bytes.  V3's FDEs may share a block
	 * (attributes and FREs) written once, and the header counts the FREs
	 * of every FDE, shared ones each time: at most one for every byte of
	 * the sub-section, which bounds the work and the index any walk of
	 * the FDEs does by the section's size.
	 */
	fre_min = sec->version == SFRAME_VERSION_3 ? sec->num_fres : 2ULL * sec->num_fres;
	if (fre_min > sec->fre_len)
		return -SFRAME_E_BAD_HEADER;
	return 0;
}

/**
 * sfu_sframe_section_init() - check an SFrame header and set up @sec
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
int sfu_sframe_section_init(struct sfu_sframe_section *sec, const struct sfu_sframe_reader *r,
			    unsigned long sframe_vaddr, int expected_abi)
{
	u8 h[SFRAME_HDR_SIZE];
	u16 magic;
	int err;

	memset(sec, 0, sizeof(*sec));
	if (r->size > SFRAME_MAX_SECTION_SIZE)
		return -SFRAME_E_TOO_BIG;

	/* The preamble alone says whether this is an SFrame section at all. */
	err = sfu_sframe_read(r, 0, h, 4);
	if (err)
		return err;
	magic = sframe_le16(h + SFRAME_HDR_MAGIC);
	if (magic == SFRAME_MAGIC_SWAPPED)
		return -SFRAME_E_FOREIGN_ENDIAN;
	if (magic != SFRAME_MAGIC)
		return -SFRAME_E_BAD_MAGIC;

	err = sframe_hdr_version(sec, h);
	if (err)
		return err;

	err = sfu_sframe_read(r, 0, h, sizeof(h));
	if (err)
		return err;

	sec->abi = h[SFRAME_HDR_ABI_ARCH];
	if (sec->abi != SFRAME_ABI_AMD64_ENDIAN_LITTLE &&
	    sec->abi != SFRAME_ABI_AARCH64_ENDIAN_LITTLE)
		return -SFRAME_E_ABI;
	if (expected_abi && sec->abi != expected_abi)
		return -SFRAME_E_ABI_MISMATCH;
	/* AArch64 tracks no saved register: the flag would promise nothing. */
	if ((sec->flags & SFRAME_F_SFU_SAVED_REGS) && !sframe_is_amd64(sec))
		return -SFRAME_E_FLAGS;

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

	err = sframe_hdr_layout(sec, h, r->size);
	if (err)
		return err;

	sec->reader = *r;
	sec->vaddr = sframe_vaddr;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(sfu_sframe_section_init);

/**
 * sfu_sframe_fde_get() - read and check one function descriptor
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
int sfu_sframe_fde_get(const struct sfu_sframe_section *sec, u32 idx, struct sfu_sframe_fde *fde)
{
	return sframe_fde_read(sec, idx, fde);
}
EXPORT_SYMBOL_IF_KUNIT(sfu_sframe_fde_get);

#if SFRAME_TOOLS
/**
 * sfu_sframe_fre_next() - decode the FRE at *@pos and advance *@pos past it
 * @sec: initialized section
 * @fde: from sfu_sframe_fde_get()
 * @pos: section offset of the FRE; start with @fde->fres_off
 * @row: filled on success; @row->start is the FRE's start (in the first
 *       repeat block for PC-mask FDEs) and @row->end the most it can cover,
 *       the next FRE's start being the real end
 *
 * For dumping every row; the caller bounds the loop by @fde->num_fres.
 * Does not check the order of FREs (sfu_sframe_section_validate() does).
 *
 * Return: 0 or -SFRAME_E_xxx.
 */
int sfu_sframe_fre_next(const struct sfu_sframe_section *sec, const struct sfu_sframe_fde *fde,
			u64 *pos, struct sfu_sframe_row *row)
{
	struct sframe_fre_raw fre;
	u64 limit = fde->pcmask ? min_t(u64, fde->rep_size, fde->func_size) : fde->func_size;
	int err;

	err = sfu_sframe_fre_read(sec, fde, *pos, &fre);
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
EXPORT_SYMBOL_IF_KUNIT(sfu_sframe_fre_next);
#endif

/**
 * sfu_sframe_fde_validate() - check the FREs of one function
 * @sec: initialized section
 * @fde: from sfu_sframe_fde_get()
 *
 * What sfu_sframe_section_validate() checks of a function's FREs: each
 * decodable for the ABI and FDE type, their starts strictly ascending and
 * not past the function's end (or a PC-mask FDE's repeat size).  Work is
 * O(@fde->num_fres).
 *
 * Return: 0 or -SFRAME_E_xxx.
 */
int sfu_sframe_fde_validate(const struct sfu_sframe_section *sec, const struct sfu_sframe_fde *fde)
{
	struct sframe_fre_raw fre;
	struct sfu_sframe_row row;
	u64 limit = fde->pcmask ? fde->rep_size : fde->func_size, pos = fde->fres_off;
	u32 j, prev_fre;
	int err;

	for (j = 0, prev_fre = 0; j < fde->num_fres; j++, prev_fre = fre.start) {
		err = sfu_sframe_fre_read(sec, fde, pos, &fre);
		if (err)
			return err;
		if (j && fre.start <= prev_fre)
			return -SFRAME_E_FRE_ORDER;
		if (fre.start > limit)
			return -SFRAME_E_BAD_FRE;
		err = sframe_fre_decode(sec, fde, &fre, &row);
		if (err)
			return err;
		pos += fre.bytes;
	}
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(sfu_sframe_fde_validate);

/* FDE @i, of @num_fres FREs, into @c if the FRE index takes it. */
static void sframe_ix_count_add(struct sfu_sframe_ix_count *c, u32 i, u32 num_fres)
{
	if (num_fres <= SFRAME_FRE_INDEX_STRIDE)
		return;
	if (!c->fdes++)
		c->first = i;
	c->end = i + 1;
	c->marks += (num_fres - 1) / SFRAME_FRE_INDEX_STRIDE;
}

/*
 * Every FDE, and with @fres every FRE: sfu_sframe_section_validate().
 * With @ix, what the FRE index takes, counted on the way (written only
 * if the walk passed).
 */
static int sframe_validate(const struct sfu_sframe_section *sec, bool fres,
			   struct sfu_sframe_ix_count *ix)
{
	struct sfu_sframe_ix_count count = {};
	struct sfu_sframe_fde fde;
	u64 prev_start = 0, prev_end = 0;
	u64 fres_seen = 0;
	u32 i;
	int err;

	for (i = 0; i < sec->num_fdes; i++) {
		err = sfu_sframe_fde_get(sec, i, &fde);
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
		sframe_ix_count_add(&count, i, fde.num_fres);
		if (fres) {
			err = sfu_sframe_fde_validate(sec, &fde);
			if (err)
				return err;
		}
	}
	if (ix)
		*ix = count;
	return 0;
}

/**
 * sfu_sframe_section_validate() - check every FDE and FRE of a section once
 * @sec: initialized section
 *
 * On top of what sfu_sframe_fde_get() checks per FDE: function starts not
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
int sfu_sframe_section_validate(const struct sfu_sframe_section *sec)
{
	return sframe_validate(sec, true, NULL);
}
EXPORT_SYMBOL_IF_KUNIT(sfu_sframe_section_validate);

/**
 * sfu_sframe_section_validate_fdes() - check every FDE now, their FREs on use
 * @sec: initialized section
 *
 * What sfu_sframe_section_validate() checks of the FDEs (each one, their
 * order, the FRE counts against the header's), in O(num_fdes); each
 * function's FREs are checked by sfu_sframe_fde_validate() the first time
 * a lookup needs them, or with the FRE index for a function of more
 * FREs than a lookup may read (sfu_sframe_fre_index_build(), which is
 * then required: it takes the bytes that record what was checked).  So
 * the first mapping of a large section costs what its functions used
 * cost, and a function whose FREs do not pass fails its lookups alone.
 * Sets @sec->lazy.
 *
 * Return: 0 or -SFRAME_E_xxx.
 */
int sfu_sframe_section_validate_fdes(struct sfu_sframe_section *sec)
{
	int err = sframe_validate(sec, false, &sec->ix);

	sec->lazy = !err;
	sec->ix_counted = !err;
	return err;
}
EXPORT_SYMBOL_IF_KUNIT(sfu_sframe_section_validate_fdes);

/* Bytes of an FRE index of @nr_fdes functions with @nr_marks marks in all. */
static size_t sframe_fre_index_bytes(u32 nr_fdes, u32 nr_marks)
{
	return sizeof(struct sfu_sframe_fre_index) +
	       ((size_t)nr_fdes + 1) * sizeof(struct sfu_sframe_fre_index_fde) +
	       (size_t)nr_marks * sizeof(struct sfu_sframe_fre_mark);
}

/*
 * The next function from FDE *@idx on, before FDE @end, with more than
 * SFRAME_FRE_INDEX_STRIDE FREs: its FDE in @fde, its index in *@idx.  The
 * FREs of every FDE read are added to *@fres, and a total past the
 * header's is refused, as validation does: both passes over the FDEs stay
 * within it.  Return: 1, 0 when no such function is left, or
 * -SFRAME_E_xxx.
 */
static int sframe_fre_index_next(const struct sfu_sframe_section *sec, u32 *idx, u32 end,
				 struct sfu_sframe_fde *fde, u64 *fres)
{
	int err;

	for (; *idx < end; (*idx)++) {
		err = sfu_sframe_fde_get(sec, *idx, fde);
		if (err)
			return err;
		*fres += fde->num_fres;
		if (*fres > sec->num_fres)
			return -SFRAME_E_BAD_FDE;
		if (fde->num_fres > SFRAME_FRE_INDEX_STRIDE)
			return 1;
	}
	return 0;
}

/*
 * What the FRE index of @sec takes: what validation counted
 * (@sec->ix_counted), else counted here.  FRE counts adding up past the
 * header's total are refused, as validation does, so that the index stays
 * below num_fres / SFRAME_FRE_INDEX_STRIDE marks.
 */
static int sframe_fre_index_count(const struct sfu_sframe_section *sec,
				  struct sfu_sframe_ix_count *c)
{
	struct sfu_sframe_fde fde;
	u64 fres = 0;
	u32 i;
	int err;

	if (sec->ix_counted) {
		*c = sec->ix;
		return 0;
	}
	memset(c, 0, sizeof(*c));
	for (i = 0; (err = sframe_fre_index_next(sec, &i, sec->num_fdes, &fde, &fres)) > 0; i++)
		sframe_ix_count_add(c, i, fde.num_fres);
	/*
	 * Bytes that may change between the count and the build (user
	 * memory): the build walks every FDE, so that a function made long
	 * anywhere since is refused.
	 */
	c->first = 0;
	c->end = sec->num_fdes;
	return err;
}

/**
 * sfu_sframe_fre_index_size() - the memory the FRE index of a section takes
 * @sec: initialized (and preferably validated) section
 * @bytes: set to the bytes sfu_sframe_fre_index_build() needs, 0 if no
 *         function has more than SFRAME_FRE_INDEX_STRIDE FREs
 *
 * 8 bytes per indexed function and per mark, a mark per
 * SFRAME_FRE_INDEX_STRIDE FREs of those functions: at most a quarter of a
 * byte per FRE of the section and 8 bytes per function with more than
 * SFRAME_FRE_INDEX_STRIDE FREs, plus 32.  Reads every FDE once, none of a
 * section sfu_sframe_section_validate_fdes() passed (it counted them).
 *
 * Return: 0 or -SFRAME_E_xxx.
 */
int sfu_sframe_fre_index_size(const struct sfu_sframe_section *sec, size_t *bytes)
{
	struct sfu_sframe_ix_count c;
	int err;

	*bytes = 0;
	err = sframe_fre_index_count(sec, &c);
	if (err)
		return err;
	if (c.fdes)
		*bytes = sframe_fre_index_bytes(c.fdes, c.marks);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(sfu_sframe_fre_index_size);

/*
 * The marks of the indexed function @fde, every SFRAME_FRE_INDEX_STRIDE-th
 * FRE, into @marks from *@m on (@nr_marks in all); its FREs must start in
 * strictly ascending order.
 */
static int sframe_fre_index_marks(const struct sfu_sframe_section *sec,
				  const struct sfu_sframe_fde *fde,
				  struct sfu_sframe_fre_mark *marks, u32 nr_marks, u32 *m)
{
	struct sframe_fre_raw fre;
	u64 pos = fde->fres_off;
	u32 j, prev = 0;
	int err;

	for (j = 0; j < fde->num_fres; j++) {
		err = sfu_sframe_fre_read(sec, fde, pos, &fre);
		if (err)
			return err;
		if (j && fre.start <= prev)
			return -SFRAME_E_FRE_ORDER;
		prev = fre.start;
		if (j && !(j % SFRAME_FRE_INDEX_STRIDE)) {
			if (*m == nr_marks)
				return -SFRAME_E_BAD_FDE;
			marks[*m].start = fre.start;
			marks[*m].off = pos - fde->fres_off;
			(*m)++;
		}
		pos += fre.bytes;
	}
	return 0;
}

/**
 * sfu_sframe_fre_index_build() - index the functions of many FREs of a section
 * @sec: initialized and (preferably) validated section; its @fre_index is
 *       set on success
 * @mem: at least the bytes sfu_sframe_fre_index_size() gave, aligned for a
 *       pointer; the caller keeps it until no lookup can use @sec (or a
 *       copy of it) any more, then frees it
 * @bytes: size of @mem
 * @fde_checked: for a section validated per function
 *               (sfu_sframe_section_validate_fdes()): @sec->num_fdes zeroed
 *               bytes, kept as @mem is; the indexed functions' FREs are
 *               checked here (sfu_sframe_fde_validate()) and marked, and
 *               @sec->fde_checked set on success.  NULL otherwise.
 *
 * Walks the FREs of every function of more than SFRAME_FRE_INDEX_STRIDE
 * FREs and marks every SFRAME_FRE_INDEX_STRIDE-th: its start offset and
 * where it lies.  Every read is bounds-checked and the FREs must start in
 * strictly ascending order, so the marks are sorted; counts that changed
 * since sfu_sframe_fre_index_size() are refused.  Without such a function
 * nothing is written and @sec keeps no index: it needs none.  Work is
 * O(num_fdes + num_fres), like validation's.
 *
 * Return: 0, -SFRAME_E_TOO_BIG if @bytes is too small, -SFRAME_E_NO_INDEX
 * for a section validated per function without @fde_checked, or another
 * -SFRAME_E_xxx (of an indexed function's FREs, too).
 */
int sfu_sframe_fre_index_build(struct sfu_sframe_section *sec, void *mem, size_t bytes,
			       u8 *fde_checked)
{
	struct sfu_sframe_fre_index *ix = mem;
	struct sfu_sframe_fre_index_fde *fdes;
	struct sfu_sframe_fre_mark *marks;
	struct sfu_sframe_ix_count c;
	u32 f = 0, m = 0, i;
	struct sfu_sframe_fde fde;
	u64 fres = 0;
	int err;

	if (sec->lazy && !fde_checked)
		return -SFRAME_E_NO_INDEX;
	err = sframe_fre_index_count(sec, &c);
	if (err || !c.fdes) {
		if (!err && sec->lazy)
			sec->fde_checked = fde_checked;
		return err;
	}
	if (bytes < sframe_fre_index_bytes(c.fdes, c.marks))
		return -SFRAME_E_TOO_BIG;
	fdes = (struct sfu_sframe_fre_index_fde *)(ix + 1);
	marks = (struct sfu_sframe_fre_mark *)(fdes + c.fdes + 1);

	for (i = c.first; (err = sframe_fre_index_next(sec, &i, c.end, &fde, &fres)) > 0; i++) {
		if (f == c.fdes)
			return -SFRAME_E_BAD_FDE;
		fdes[f].fde_idx = i;
		fdes[f].first = m;
		f++;
		if (sec->lazy) {
			err = sfu_sframe_fde_validate(sec, &fde);
			if (err)
				return err;
			fde_checked[i] = 1;
		}
		err = sframe_fre_index_marks(sec, &fde, marks, c.marks, &m);
		if (err)
			return err;
	}
	if (err)
		return err;
	if (f != c.fdes || m != c.marks)
		return -SFRAME_E_BAD_FDE;
	fdes[f].fde_idx = ~0U;
	fdes[f].first = m;
	ix->nr_fdes = c.fdes;
	ix->nr_marks = c.marks;
	ix->fdes = fdes;
	ix->marks = marks;
	sec->fre_index = ix;
	if (sec->lazy)
		sec->fde_checked = fde_checked;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(sfu_sframe_fre_index_build);
