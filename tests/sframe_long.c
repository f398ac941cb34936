// SPDX-License-Identifier: GPL-2.0
/*
 * Sections with functions of many FREs, for the FRE index.
 *
 * One AMD64 section (V2 or V3) of seven functions: 5, 32 (the most a
 * lookup scans without an index), 33 (one index mark), 65 (two marks, a
 * last block of one FRE), 60000 (SFRAME_LONG_ROWS, 1874 marks, 4-byte
 * start offsets), a PC-mask function of 200 FREs with a repeat size of
 * 250, and 3 FREs.  FREs differ in size (1 or 2 data words of 1 or 2
 * bytes), which is why the index records where each mark lies.  Every
 * FRE's start and rules follow from its function and number, so a PC's
 * expected row comes from the model, not from the decoder: FRE j of a
 * function starts at 2j + (j & 1) (steps of 3 and 1 bytes, so there are
 * PCs between rows), or at j (+ 40 from FRE 100 on) in the PC-mask one.
 */
#include <linux/types.h>
#include <linux/kernel.h>
#include <linux/string.h>

#include "sframe/sframe.h"
#include "sframe_long.h"

#define LONG_VADDR	0x1000ULL
#define LONG_TEXT	0x100000ULL
#define LONG_FIXED_RA	(-8)

/**
 * struct long_fn - one function of the model
 * @num_fres: its FREs
 * @fre_type: SFRAME_FRE_TYPE_ADDR1/2/4
 * @rep_size: repeat size of a PC-mask function, else 0
 */
struct long_fn {
	u32 num_fres;
	u8 fre_type;
	u8 rep_size;
};

static const struct long_fn long_fns[] = {
	{ 5, SFRAME_FRE_TYPE_ADDR1, 0 },
	{ SFRAME_FRE_INDEX_STRIDE, SFRAME_FRE_TYPE_ADDR1, 0 },
	{ SFRAME_FRE_INDEX_STRIDE + 1, SFRAME_FRE_TYPE_ADDR1, 0 },
	{ 2 * SFRAME_FRE_INDEX_STRIDE + 1, SFRAME_FRE_TYPE_ADDR2, 0 },
	[SFRAME_LONG_FDE] = { SFRAME_LONG_ROWS, SFRAME_FRE_TYPE_ADDR4, 0 },
	{ 200, SFRAME_FRE_TYPE_ADDR1, 250 },
	{ 3, SFRAME_FRE_TYPE_ADDR1, 0 },
};

#define LONG_NUM_FNS	ARRAY_SIZE(long_fns)

/* ---- the model ------------------------------------------------------ */

static u32 long_fre_start(unsigned int fn, u32 j)
{
	if (long_fns[fn].rep_size)
		return j + (j >= 100 ? 40 : 0);
	return 2 * j + (j & 1);
}

static u32 long_fn_size(unsigned int fn)
{
	if (long_fns[fn].rep_size)
		return 3 * long_fns[fn].rep_size;
	return long_fre_start(fn, long_fns[fn].num_fres - 1) + 3;
}

static u64 long_fn_start(unsigned int fn)
{
	u64 pc = LONG_TEXT;
	unsigned int k;

	for (k = 0; k < fn; k++)
		pc = ((pc + long_fn_size(k) + 15) & ~15ULL) + 16;
	return pc;
}

static bool long_fre_sp(unsigned int fn, u32 j)
{
	return (j + fn) % 3 != 1;
}

static s32 long_fre_cfa(unsigned int fn, u32 j)
{
	return 16 + 8 * ((7 * j + fn) % 40);
}

static unsigned int long_fre_count(unsigned int fn, u32 j)
{
	return 1 + (j / 2 + fn) % 2;
}

static s32 long_fre_fp(unsigned int fn, u32 j)
{
	return -16 - 8 * (s32)((j + fn) % 5);
}

static unsigned int long_word_bytes(unsigned int fn, u32 j)
{
	return long_fre_cfa(fn, j) <= 127 ? 1 : 2;
}

static unsigned int long_addr_bytes(unsigned int fn)
{
	return 1U << long_fns[fn].fre_type;
}

static size_t long_fre_bytes(unsigned int fn, u32 j)
{
	return long_addr_bytes(fn) + 1 + long_fre_count(fn, j) * long_word_bytes(fn, j);
}

static unsigned int long_fde_size(u8 version)
{
	return version == SFRAME_VERSION_3 ? SFRAME_V3_FDE_BYTES : SFRAME_V2_FDE_BYTES;
}

/* Section offset of the FRE sub-section. */
static size_t long_fre_sub(u8 version)
{
	return SFRAME_HDR_SIZE + LONG_NUM_FNS * long_fde_size(version);
}

/* Section offset of FRE @j of @fn; @j = num_fres gives the end of its FREs. */
static size_t long_fre_pos(u8 version, unsigned int fn, u32 j)
{
	size_t pos = long_fre_sub(version);
	unsigned int k;
	u32 i;

	for (k = 0; k <= fn; k++) {
		if (version == SFRAME_VERSION_3)
			pos += SFRAME_V3_ATTR_BYTES;
		for (i = 0; i < (k == fn ? j : long_fns[k].num_fres); i++)
			pos += long_fre_bytes(k, i);
	}
	return pos;
}

static size_t long_fde_pos(u8 version, unsigned int fn)
{
	return SFRAME_HDR_SIZE + fn * long_fde_size(version);
}

static void put_le(u8 *buf, size_t cap, size_t off, u64 v, unsigned int bytes)
{
	unsigned int i;

	if (off > cap || bytes > cap - off)
		return;
	for (i = 0; i < bytes; i++)
		buf[off + i] = v >> (8 * i);
}

static u64 get_le(const u8 *buf, size_t cap, size_t off, unsigned int bytes)
{
	u64 v = 0;

	if (off > cap || bytes > cap - off)
		return 0;
	while (bytes--)
		v = (v << 8) | buf[off + bytes];
	return v;
}

/**
 * sframe_long_size() - bytes of the section
 * @version: SFRAME_VERSION_2 or SFRAME_VERSION_3
 *
 * Return: the length sframe_long_build() needs.
 */
size_t sframe_long_size(u8 version)
{
	return long_fre_pos(version, LONG_NUM_FNS - 1, long_fns[LONG_NUM_FNS - 1].num_fres);
}

/**
 * sframe_long_num_fns() - functions of the section
 *
 * Return: their number.
 */
unsigned int sframe_long_num_fns(void)
{
	return LONG_NUM_FNS;
}

/**
 * sframe_long_fres() - FREs of one function
 * @fn: its index
 *
 * Return: their number.
 */
u32 sframe_long_fres(unsigned int fn)
{
	return long_fns[fn].num_fres;
}

/**
 * sframe_long_pc() - where an FRE of a function starts
 * @fn: the function
 * @fre: the FRE
 *
 * Return: its first PC (in the first repeat block of a PC-mask function).
 */
u64 sframe_long_pc(unsigned int fn, u32 fre)
{
	return long_fn_start(fn) + long_fre_start(fn, fre);
}

/**
 * sframe_long_text() - the PCs worth looking up
 * @lo: set to 16 bytes before the first function
 * @hi: set to 16 bytes after the last
 */
void sframe_long_text(u64 *lo, u64 *hi)
{
	*lo = long_fn_start(0) - 16;
	*hi = long_fn_start(LONG_NUM_FNS - 1) + long_fn_size(LONG_NUM_FNS - 1) + 16;
}

/**
 * sframe_long_build() - write the section
 * @buf: where
 * @cap: bytes of @buf
 * @version: SFRAME_VERSION_2 or SFRAME_VERSION_3
 * @vaddr: set to the address the section is mapped at
 *
 * Return: its length, or 0 if @cap is too small.
 */
size_t sframe_long_build(u8 *buf, size_t cap, u8 version, u64 *vaddr)
{
	size_t len = sframe_long_size(version), fre_sub = long_fre_sub(version), pos, fde;
	unsigned int fn, w, addr;
	u32 j, total = 0;
	u8 info, fde_info;
	u64 rel;

	*vaddr = LONG_VADDR;
	if (len > cap)
		return 0;
	memset(buf, 0, len);
	put_le(buf, cap, SFRAME_HDR_MAGIC, SFRAME_MAGIC, 2);
	buf[SFRAME_HDR_VERSION] = version;
	buf[SFRAME_HDR_FLAGS] = SFRAME_F_FDE_SORTED;
	buf[SFRAME_HDR_ABI_ARCH] = SFRAME_ABI_AMD64_ENDIAN_LITTLE;
	buf[SFRAME_HDR_CFA_FIXED_RA] = (u8)LONG_FIXED_RA;
	put_le(buf, cap, SFRAME_HDR_NUM_FDES, LONG_NUM_FNS, 4);
	put_le(buf, cap, SFRAME_HDR_FDEOFF, 0, 4);
	put_le(buf, cap, SFRAME_HDR_FREOFF, fre_sub - SFRAME_HDR_SIZE, 4);
	put_le(buf, cap, SFRAME_HDR_FRE_LEN, len - fre_sub, 4);

	pos = fre_sub;
	for (fn = 0; fn < LONG_NUM_FNS; fn++) {
		const struct long_fn *f = &long_fns[fn];

		fde = long_fde_pos(version, fn);
		fde_info = f->fre_type | (f->rep_size ? SFRAME_FDE_INFO_PCMASK : 0);
		rel = long_fn_start(fn) - LONG_VADDR;
		if (version == SFRAME_VERSION_3) {
			put_le(buf, cap, fde + SFRAME_V3_FDE_START, rel, 8);
			put_le(buf, cap, fde + SFRAME_V3_FDE_SIZE, long_fn_size(fn), 4);
			put_le(buf, cap, fde + SFRAME_V3_FDE_FRE_OFF, pos - fre_sub, 4);
			put_le(buf, cap, pos + SFRAME_V3_ATTR_NUM_FRES, f->num_fres, 2);
			buf[pos + SFRAME_V3_ATTR_INFO] = fde_info;
			buf[pos + SFRAME_V3_ATTR_REP_SIZE] = f->rep_size;
			pos += SFRAME_V3_ATTR_BYTES;
		} else {
			put_le(buf, cap, fde + SFRAME_V2_FDE_START, rel, 4);
			put_le(buf, cap, fde + SFRAME_V2_FDE_SIZE, long_fn_size(fn), 4);
			put_le(buf, cap, fde + SFRAME_V2_FDE_FRE_OFF, pos - fre_sub, 4);
			put_le(buf, cap, fde + SFRAME_V2_FDE_NUM_FRES, f->num_fres, 4);
			buf[fde + SFRAME_V2_FDE_INFO] = fde_info;
			buf[fde + SFRAME_V2_FDE_REP_SIZE] = f->rep_size;
		}
		addr = long_addr_bytes(fn);
		for (j = 0; j < f->num_fres; j++) {
			w = long_word_bytes(fn, j);
			info = (long_fre_sp(fn, j) ? SFRAME_FRE_INFO_BASE_SP : 0) |
			       long_fre_count(fn, j) << 1 |
			       (w == 1 ? SFRAME_FRE_DATAWORD_1B : SFRAME_FRE_DATAWORD_2B) << 5;
			put_le(buf, cap, pos, long_fre_start(fn, j), addr);
			buf[pos + addr] = info;
			put_le(buf, cap, pos + addr + 1, (u32)long_fre_cfa(fn, j), w);
			if (long_fre_count(fn, j) > 1)
				put_le(buf, cap, pos + addr + 1 + w, (u32)long_fre_fp(fn, j), w);
			pos += long_fre_bytes(fn, j);
		}
		total += f->num_fres;
	}
	put_le(buf, cap, SFRAME_HDR_NUM_FRES, total, 4);
	return len;
}

/* ---- checks --------------------------------------------------------- */

/* Does @row hold the rules of FRE @j of @fn, for a PC in repeat block @block? */
static bool long_row_is(const struct sfu_sframe_row *row, unsigned int fn, u32 j, u64 block)
{
	const struct long_fn *f = &long_fns[fn];
	u64 fs = long_fn_start(fn), size = long_fn_size(fn), end;
	bool sp = long_fre_sp(fn, j), fp = long_fre_count(fn, j) > 1;

	if (j + 1 < f->num_fres)
		end = block + long_fre_start(fn, j + 1);
	else
		end = f->rep_size ? block + f->rep_size : size;
	return row->func_start == fs && row->func_size == size && row->fde_idx == fn &&
	       row->fre_start == long_fre_start(fn, j) &&
	       row->start == fs + block + long_fre_start(fn, j) &&
	       row->end == fs + min_t(u64, end, size) &&
	       row->flags == (f->rep_size ? SFRAME_ROW_PCMASK : 0) &&
	       row->cfa.base == (sp ? SFRAME_BASE_SP : SFRAME_BASE_FP) &&
	       row->cfa.regnum == (sp ? SFRAME_AMD64_DWARF_SP : SFRAME_AMD64_DWARF_FP) &&
	       !row->cfa.deref && row->cfa.offset == long_fre_cfa(fn, j) &&
	       row->ra.kind == SFRAME_RULE_FIXED && row->ra.offset == LONG_FIXED_RA &&
	       row->fp.kind == (fp ? SFRAME_RULE_CFA_DEREF : SFRAME_RULE_SAME) &&
	       row->fp.offset == (fp ? long_fre_fp(fn, j) : 0);
}

static void long_count(struct sframe_long_result *res, u64 pc, int err, u32 fres, bool ok)
{
	res->pcs++;
	if (fres > res->max_fres)
		res->max_fres = fres;
	if (fres > SFRAME_FRE_SCAN_MAX)
		ok = false;
	if (ok)
		return;
	if (!res->wrong++) {
		res->bad_pc = pc;
		res->bad_err = err;
	}
}

/*
 * PCs in no function must give NO_FDE; any other the row of the model's
 * last FRE at or before it, with the row's exact range, or if @unindexed
 * and its function has more than SFRAME_FRE_INDEX_STRIDE FREs, NO_INDEX
 * without an FRE read.  A lookup that reads more than SFRAME_FRE_SCAN_MAX
 * FREs is wrong too.  The model's FRE for a PC is found by walking the
 * FREs along with the PCs, so the whole check is linear in the PCs and
 * FREs.
 */
static void long_check(const struct sfu_sframe_section *sec, u64 lo, u64 hi, u32 step,
		       bool unindexed, struct sframe_long_result *res)
{
	struct sfu_sframe_row row;
	unsigned int fn = 0, cur = LONG_NUM_FNS;
	u64 pc, fs = 0, off, block;
	u32 j = 0, fres, rep;
	bool ok;
	int err;

	memset(res, 0, sizeof(*res));
	for (pc = lo; pc < hi; pc += step) {
		while (fn < LONG_NUM_FNS && pc >= long_fn_start(fn) + long_fn_size(fn))
			fn++;
		err = sfu_sframe_find_row_counted(sec, pc, &row, &fres);
		if (fn == LONG_NUM_FNS || pc < long_fn_start(fn)) {
			long_count(res, pc, err, fres, err == -SFRAME_E_NO_FDE);
			continue;
		}
		if (unindexed && long_fns[fn].num_fres > SFRAME_FRE_INDEX_STRIDE) {
			long_count(res, pc, err, fres, err == -SFRAME_E_NO_INDEX && !fres);
			continue;
		}
		if (fn != cur) {
			cur = fn;
			fs = long_fn_start(fn);
			j = 0;
		}
		off = pc - fs;
		block = 0;
		rep = long_fns[fn].rep_size;
		if (rep) {
			block = off - off % rep;
			off %= rep;
		}
		if (off < long_fre_start(fn, j))
			j = 0;
		while (j + 1 < long_fns[fn].num_fres && long_fre_start(fn, j + 1) <= off)
			j++;
		ok = !err && long_row_is(&row, fn, j, block);
		long_count(res, pc, err, fres, ok);
	}
}

/**
 * sframe_long_check() - look PCs up and compare with the model
 * @sec: the section, unchanged since sframe_long_build(), with its FRE index
 * @lo: first PC
 * @hi: first PC not looked up
 * @step: distance between the PCs looked up (1: every PC)
 * @res: what happened: the PCs whose lookup did not give the model's row
 *       (or NO_FDE outside the functions) are wrong
 */
void sframe_long_check(const struct sfu_sframe_section *sec, u64 lo, u64 hi, u32 step,
		       struct sframe_long_result *res)
{
	long_check(sec, lo, hi, step, false, res);
}

/**
 * sframe_long_check_unindexed() - sframe_long_check() without the FRE index
 * @sec: the section, unchanged since sframe_long_build(), without an index
 * @lo: first PC
 * @hi: first PC not looked up
 * @step: distance between the PCs looked up
 * @res: what happened: in a function of more than SFRAME_FRE_INDEX_STRIDE
 *       FREs, anything but NO_INDEX with no FRE read is wrong
 */
void sframe_long_check_unindexed(const struct sfu_sframe_section *sec, u64 lo, u64 hi, u32 step,
				 struct sframe_long_result *res)
{
	long_check(sec, lo, hi, step, true, res);
}

/**
 * sframe_long_check_bounded() - look PCs up in a section changed after indexing
 * @sec: the section, rewritten since its FRE index was built
 * @lo: first PC
 * @hi: first PC not looked up
 * @step: distance between the PCs looked up
 * @res: what happened
 *
 * Any error is fine (counted in @res->refused); a row must still cover
 * the PC and lie inside its function, and no lookup may read more than
 * SFRAME_FRE_SCAN_MAX FREs.  Reads outside the section are the
 * sanitizers' (KASAN's) to catch.
 */
void sframe_long_check_bounded(const struct sfu_sframe_section *sec, u64 lo, u64 hi, u32 step,
			       struct sframe_long_result *res)
{
	struct sfu_sframe_row row;
	u32 fres;
	bool ok;
	u64 pc;
	int err;

	memset(res, 0, sizeof(*res));
	for (pc = lo; pc < hi; pc += step) {
		err = sfu_sframe_find_row_counted(sec, pc, &row, &fres);
		if (err)
			res->refused++;
		ok = err || (row.start <= pc && pc < row.end && row.func_start <= row.start &&
			     row.end - row.func_start <= row.func_size);
		long_count(res, pc, err, fres, ok);
	}
}

/* ---- rewrites after indexing ------------------------------------------ */

static void long_set_fres(u8 *buf, size_t len, u8 version, unsigned int fn, u32 n)
{
	if (version == SFRAME_VERSION_3)
		put_le(buf, len, long_fre_pos(version, fn, 0) - SFRAME_V3_ATTR_BYTES +
		       SFRAME_V3_ATTR_NUM_FRES, n, 2);
	else
		put_le(buf, len, long_fde_pos(version, fn) + SFRAME_V2_FDE_NUM_FRES, n, 4);
}

/* The start offset of FRE @j of the long function, moved by @delta. */
static void long_move_start(u8 *buf, size_t len, u8 version, u32 j, s32 delta)
{
	size_t pos = long_fre_pos(version, SFRAME_LONG_FDE, j);

	put_le(buf, len, pos, get_le(buf, len, pos, 4) + delta, 4);
}

static void mark_start_raised(u8 *buf, size_t len, u8 version)
{
	long_move_start(buf, len, version, 100 * SFRAME_FRE_INDEX_STRIDE, 1);
}

static void mark_start_lowered(u8 *buf, size_t len, u8 version)
{
	long_move_start(buf, len, version, 100 * SFRAME_FRE_INDEX_STRIDE, -2);
}

/* The FRE before a mark takes two 4-byte words: the FREs after it shift. */
static void fre_before_mark_grown(u8 *buf, size_t len, u8 version)
{
	size_t pos = long_fre_pos(version, SFRAME_LONG_FDE, 50 * SFRAME_FRE_INDEX_STRIDE - 1);

	put_le(buf, len, pos + 4,
	       SFRAME_FRE_INFO_BASE_SP | 2 << 1 | SFRAME_FRE_DATAWORD_4B << 5, 1);
}

/* Every mark one byte off: the long function's FREs move up a byte. */
static void long_fres_shifted(u8 *buf, size_t len, u8 version)
{
	size_t from = long_fre_pos(version, SFRAME_LONG_FDE, 0);
	size_t to = long_fre_pos(version, SFRAME_LONG_FDE, SFRAME_LONG_ROWS);

	if (to > len)
		return;
	memmove(buf + from + 1, buf + from, to - from - 1);
	buf[from] = 0;
}

static void long_fres_zeroed(u8 *buf, size_t len, u8 version)
{
	size_t from = long_fre_pos(version, SFRAME_LONG_FDE, 0);
	size_t to = long_fre_pos(version, SFRAME_LONG_FDE, SFRAME_LONG_ROWS);

	if (to <= len)
		memset(buf + from, 0, to - from);
}

static void long_count_cut_to_100(u8 *buf, size_t len, u8 version)
{
	long_set_fres(buf, len, version, SFRAME_LONG_FDE, 100);
}

static void long_count_cut_to_stride(u8 *buf, size_t len, u8 version)
{
	long_set_fres(buf, len, version, SFRAME_LONG_FDE, SFRAME_FRE_INDEX_STRIDE);
}

static void long_count_raised(u8 *buf, size_t len, u8 version)
{
	/* Within the header's total, which the FDE read checks. */
	long_set_fres(buf, len, version, SFRAME_LONG_FDE, SFRAME_LONG_ROWS + 300);
}

/* A function the index does not know grows long: NO_INDEX, not a long scan. */
static void short_count_raised(u8 *buf, size_t len, u8 version)
{
	long_set_fres(buf, len, version, 0, 1000);
}

/* The index is keyed by FDE number: two FDEs trade places. */
static void fdes_swapped(u8 *buf, size_t len, u8 version)
{
	size_t a = long_fde_pos(version, SFRAME_LONG_FDE), b = a + long_fde_size(version);
	u8 tmp[SFRAME_V2_FDE_BYTES];

	if (b + long_fde_size(version) > len)
		return;
	memcpy(tmp, buf + a, long_fde_size(version));
	memcpy(buf + a, buf + b, long_fde_size(version));
	memcpy(buf + b, tmp, long_fde_size(version));
}

/* @n bytes between @from and @to set to pseudo-random values. */
static void long_scribble(u8 *buf, size_t len, size_t from, size_t to, u32 seed, unsigned int n)
{
	u32 x = seed;

	if (to > len || from >= to)
		return;
	while (n--) {
		/* xorshift32 */
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		buf[from + x % (to - from)] = x >> 24;
	}
}

static void long_fres_scribbled(u8 *buf, size_t len, u8 version)
{
	long_scribble(buf, len, long_fre_pos(version, SFRAME_LONG_FDE, 0),
		      long_fre_pos(version, SFRAME_LONG_FDE, SFRAME_LONG_ROWS), 0x12345678, 256);
}

static void fre_sub_scribbled(u8 *buf, size_t len, u8 version)
{
	long_scribble(buf, len, long_fre_sub(version), len, 0x9e3779b9, 1024);
}

const struct sframe_long_mutation sframe_long_mutations[] = {
	{ "mark_start_raised", mark_start_raised },
	{ "mark_start_lowered", mark_start_lowered },
	{ "fre_before_mark_grown", fre_before_mark_grown },
	{ "long_fres_shifted_by_a_byte", long_fres_shifted },
	{ "long_fres_zeroed", long_fres_zeroed },
	{ "long_fre_count_cut_to_100", long_count_cut_to_100 },
	{ "long_fre_count_cut_to_stride", long_count_cut_to_stride },
	{ "long_fre_count_raised_by_300", long_count_raised },
	{ "short_fre_count_raised_to_1000", short_count_raised },
	{ "long_fde_swapped_with_the_next", fdes_swapped },
	{ "long_fres_scribbled", long_fres_scribbled },
	{ "fre_sub_section_scribbled", fre_sub_scribbled },
};

const unsigned int sframe_long_num_mutations = ARRAY_SIZE(sframe_long_mutations);
