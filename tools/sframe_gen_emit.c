// SPDX-License-Identifier: GPL-2.0
/*
 * sframe-gen, SFrame side: rows of unwind rules in, an SFrame V3 section
 * out.  Each run of consecutive expressible rows of one FDE becomes one
 * SFrame FDE (DEFAULT, or FLEX when one of its rows needs it); a PLT rule
 * becomes a PC-mask FDE of its own.  On AArch64 each FDE says which key
 * signs its RAs and each FRE whether the RA is signed.  Consecutive identical rows are merged,
 * and each FDE gets the smallest FRE start-offset size that fits.  An
 * FDE whose block (attributes and FREs) is byte for byte one written
 * before points at that one instead (sfg_end_block()).
 *
 * The finished section goes through the project's own decoder
 * (sfu_sframe_section_validate()) before it is handed out.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <linux/kernel.h>

#include "sframe/sframe.h"
#include "sframe_gen_internal.h"

/* A growing byte buffer. */
struct sfg_buf {
	u8 *p;
	size_t len;
	size_t cap;
};

/* One SFrame FDE: its function range and where its attribute block is. */
struct sfg_fde_ent {
	u64 start;
	u32 size;
	u32 fre_off;
};

/* The data words of one FRE and the info byte that describes them. */
struct sfg_words {
	unsigned int n;
	bool base_sp;
	bool ra_mangled;
	s64 w[SFRAME_FRE_MAX_WORDS];
	bool ctrl[SFRAME_FRE_MAX_WORDS];	/* an unsigned FLEX control word */
};

/* A block written, in the table of sfg_end_block(): 0 length for none. */
struct sfg_block {
	u64 hash;
	u32 off;
	u32 len;
};

struct sfg_emit {
	const struct sfg_arch *arch;
	u64 vaddr;
	struct sfg_fde_ent *fdes;
	size_t nfdes;
	size_t cap_fdes;
	struct sfg_buf fres;
	u64 nfres;
	struct sfg_block *blocks;	/* open addressing, a power of two */
	size_t cap_blocks;
	size_t nblocks;
	u64 shared;		/* FDEs pointing at an earlier FDE's block */
	bool open;		/* the last FDE's block is still being written */
	/* With saved_reg: the functions that list saves, sorted; all if NULL. */
	const u64 *saves_fns;
	size_t saves_n;
	u64 saves_fdes;		/* FDEs that list saves */
	u64 no_saves_fdes;	/* FDEs marked SFRAME_V3_FDE_INFO2_SFU_NO_SAVES */
	u64 cfa_on_tracked;	/* rows whose CFA is based on arch->tracked_reg */
	bool cfa_addend;	/* a row uses SFRAME_F_SFU_CFA_ADDEND */
	bool injected;		/* an FDE uses SFRAME_F_SFU_INJECTED_CALLS */
};

static int sfg_buf_put(struct sfg_buf *b, const void *src, size_t len)
{
	if (len > b->cap - b->len) {
		size_t cap = b->cap ? b->cap : 4096;
		u8 *p;

		while (len > cap - b->len) {
			if (cap > SFRAME_MAX_SECTION_SIZE)
				return -SFG_E_LIMIT;
			cap *= 2;
		}
		p = realloc(b->p, cap);
		if (!p)
			return -SFG_E_NOMEM;
		b->p = p;
		b->cap = cap;
	}
	memcpy(b->p + b->len, src, len);
	b->len += len;
	return 0;
}

static void sfg_put_le(u8 *p, u64 v, unsigned int bytes)
{
	unsigned int i;

	for (i = 0; i < bytes; i++)
		p[i] = (u8)(v >> (8 * i));
}

struct sfg_emit *sfg_emit_new(const struct sfg_arch *arch, u64 vaddr)
{
	struct sfg_emit *em = calloc(1, sizeof(*em));

	if (!em)
		return NULL;
	em->arch = arch;
	em->vaddr = vaddr;
	return em;
}

/**
 * sfg_emit_saves_only() - list saves only in the FDEs of some functions
 * @em: emitter of a section with SFRAME_F_SFU_SAVED_REGS (arch->saved_reg)
 * @fns: addresses of the functions that may run above a frame whose CFA
 *	is based on the tracked register (IFUNC resolvers, which ld.so's
 *	lazy binding calls under its trampoline), sorted; kept, not copied
 * @n: entries of @fns
 *
 * An FDE holding none of them is written without its saves and marked
 * SFRAME_V3_FDE_INFO2_SFU_NO_SAVES: the unwinder loses the tracked
 * register after it, as after a row of a section without the flag.
 */
void sfg_emit_saves_only(struct sfg_emit *em, const u64 *fns, size_t n)
{
	em->saves_fns = fns;
	em->saves_n = n;
}

/* Whether an FDE of [lo, hi) lists saves. */
static bool sfg_lists_saves(const struct sfg_emit *em, u64 lo, u64 hi)
{
	size_t a = 0, b = em->saves_n, m;

	if (!em->arch->saved_reg)
		return false;
	if (!em->saves_fns)
		return true;
	/* The first function at or above @lo. */
	while (a < b) {
		m = a + (b - a) / 2;
		if (em->saves_fns[m] < lo)
			a = m + 1;
		else
			b = m;
	}
	return a < em->saves_n && em->saves_fns[a] < hi;
}

void sfg_emit_free(struct sfg_emit *em)
{
	if (!em)
		return;
	free(em->fdes);
	free(em->fres.p);
	free(em->blocks);
	free(em);
}

static bool sfg_loc_equal(const struct sfg_loc *a, const struct sfg_loc *b)
{
	return a->kind == b->kind && a->reg == b->reg && a->deref == b->deref && a->off == b->off;
}

static bool sfg_rule_equal(const struct sfg_rule *a, const struct sfg_rule *b)
{
	if (a->outermost || b->outermost)
		return a->outermost == b->outermost;
	return a->ra_signed == b->ra_signed &&
	       a->cfa_reg == b->cfa_reg && a->cfa_deref == b->cfa_deref &&
	       a->cfa_off == b->cfa_off && a->cfa_add == b->cfa_add &&
	       sfg_loc_equal(&a->ra, &b->ra) && sfg_loc_equal(&a->fp, &b->fp) &&
	       a->saved == b->saved && a->saved_off == b->saved_off &&
	       a->rep_size == b->rep_size &&
	       a->mask_split == b->mask_split && a->mask_add == b->mask_add;
}

/**
 * sfg_rule_ra_default() - whether @ra is where the ABI puts it by default
 * @arch: the ABI
 * @ra: the RA's location
 *
 * Return: true when an FRE need not say where RA is (AMD64: the header's
 * fixed slot; AArch64: still in the link register).
 */
bool sfg_rule_ra_default(const struct sfg_arch *arch, const struct sfg_loc *ra)
{
	if (arch->fixed_ra)
		return ra->kind == SFG_LOC_CFA && ra->off == arch->fixed_ra;
	return ra->kind == SFG_LOC_SAME;
}

/**
 * sfg_rule_needs_flex() - whether a DEFAULT FRE cannot hold @rule
 * @arch: the ABI
 * @rule: an expressible rule
 *
 * Return: true when the CFA is not SP/FP + offset, or RA or FP are not
 * where a DEFAULT FRE can say, or the row saves the tracked register (a
 * DEFAULT FRE says it is unchanged).
 */
bool sfg_rule_needs_flex(const struct sfg_arch *arch, const struct sfg_rule *rule)
{
	if (rule->outermost)
		return false;
	if (rule->saved != SFG_SAVED_NONE)
		return true;
	if ((rule->cfa_reg != arch->sp && rule->cfa_reg != arch->fp) || rule->cfa_deref)
		return true;
	if (arch->fixed_ra && !sfg_rule_ra_default(arch, &rule->ra))
		return true;
	return rule->ra.kind == SFG_LOC_REG || rule->fp.kind == SFG_LOC_REG;
}

static void sfg_word(struct sfg_words *w, s64 v, bool ctrl)
{
	w->w[w->n] = v;
	w->ctrl[w->n] = ctrl;
	w->n++;
}

/* A FLEX (control, offset) pair for RA or FP. */
static void sfg_flex_loc(struct sfg_words *w, const struct sfg_loc *loc)
{
	u32 ctrl;

	if (loc->kind == SFG_LOC_CFA) {
		ctrl = SFRAME_FLEX_CTRL_DEREF_P;
	} else {
		ctrl = ((u32)loc->reg << 3) | SFRAME_FLEX_CTRL_REG_P;
		if (loc->deref)
			ctrl |= SFRAME_FLEX_CTRL_DEREF_P;
	}
	sfg_word(w, ctrl, true);
	sfg_word(w, loc->off, false);
}

static void sfg_words_flex(const struct sfg_arch *arch, const struct sfg_rule *rule,
			   struct sfg_words *w)
{
	u32 ctrl = ((u32)rule->cfa_reg << 3) | SFRAME_FLEX_CTRL_REG_P;
	bool ra_default = sfg_rule_ra_default(arch, &rule->ra);

	if (rule->cfa_deref)
		ctrl |= SFRAME_FLEX_CTRL_DEREF_P;
	if (rule->cfa_add)
		ctrl |= SFRAME_FLEX_CTRL_SFU_ADDEND;
	sfg_word(w, ctrl, true);
	sfg_word(w, rule->cfa_off, false);
	if (rule->cfa_add)
		sfg_word(w, rule->cfa_add, false);
	if (!ra_default)
		sfg_flex_loc(w, &rule->ra);
	if (rule->fp.kind == SFG_LOC_SAME && rule->saved == SFG_SAVED_NONE)
		return;
	/* Layout 5: one padding word where the RA pair would be. */
	if (ra_default)
		sfg_word(w, SFRAME_FLEX_CTRL_PADDING, true);
	if (rule->fp.kind != SFG_LOC_SAME)
		sfg_flex_loc(w, &rule->fp);
	else
		sfg_word(w, SFRAME_FLEX_CTRL_PADDING, true);
	if (rule->saved == SFG_SAVED_NONE)
		return;
	/* SFRAME_F_SFU_SAVED_REGS: the tracked register, after RA and FP. */
	if (rule->saved == SFG_SAVED_CFA) {
		sfg_word(w, ((u32)arch->saved_reg << 3) | SFRAME_FLEX_CTRL_DEREF_P, true);
		sfg_word(w, rule->saved_off, false);
	} else {
		sfg_word(w, (u32)arch->saved_reg << 3, true);
		sfg_word(w, 0, false);
	}
}

static void sfg_words_default(const struct sfg_arch *arch, const struct sfg_rule *rule,
			      struct sfg_words *w)
{
	w->base_sp = rule->cfa_reg == arch->sp;
	sfg_word(w, rule->cfa_off, false);
	if (arch->fixed_ra) {
		/* AMD64: RA at the header's fixed offset; FP word optional. */
		if (rule->fp.kind == SFG_LOC_CFA)
			sfg_word(w, rule->fp.off, false);
		return;
	}
	/* AArch64: RA word (0: not saved), then the optional FP word. */
	if (rule->ra.kind == SFG_LOC_SAME && rule->fp.kind == SFG_LOC_SAME)
		return;
	sfg_word(w, rule->ra.kind == SFG_LOC_CFA ? rule->ra.off : SFRAME_FRE_RA_OFFSET_INVALID,
		 false);
	if (rule->fp.kind == SFG_LOC_CFA)
		sfg_word(w, rule->fp.off, false);
}

/* Size code of the smallest data words that hold every word of @w. */
static unsigned int sfg_word_size(const struct sfg_words *w)
{
	unsigned int i, code = SFRAME_FRE_DATAWORD_1B;

	for (i = 0; i < w->n; i++) {
		s64 v = w->w[i];
		unsigned int c;

		if (w->ctrl[i])
			c = v <= 0xff ? SFRAME_FRE_DATAWORD_1B :
			    v <= 0xffff ? SFRAME_FRE_DATAWORD_2B : SFRAME_FRE_DATAWORD_4B;
		else
			c = (v >= INT8_MIN && v <= INT8_MAX) ? SFRAME_FRE_DATAWORD_1B :
			    (v >= INT16_MIN && v <= INT16_MAX) ? SFRAME_FRE_DATAWORD_2B :
			    SFRAME_FRE_DATAWORD_4B;
		if (c > code)
			code = c;
	}
	return code;
}

static int sfg_put_fre(struct sfg_emit *em, u32 start_off, unsigned int addr_bytes,
		       const struct sfg_words *w)
{
	u8 fre[4 + 1 + SFRAME_FRE_MAX_WORDS * 4];
	unsigned int code = sfg_word_size(w), wb = 1U << code, i;
	u8 *p = fre;

	sfg_put_le(p, start_off, addr_bytes);
	p += addr_bytes;
	*p++ = (w->base_sp ? SFRAME_FRE_INFO_BASE_SP : 0) | (w->n << 1) | (code << 5) |
	       (w->ra_mangled ? SFRAME_FRE_INFO_RA_MANGLED : 0);
	for (i = 0; i < w->n; i++) {
		sfg_put_le(p, (u64)w->w[i], wb);
		p += wb;
	}
	em->nfres++;
	return sfg_buf_put(&em->fres, fre, p - fre);
}

/* FNV-1a, 64 bits. */
static u64 sfg_hash(const u8 *p, size_t len)
{
	u64 h = 0xcbf29ce484222325ULL;

	while (len--)
		h = (h ^ *p++) * 0x100000001b3ULL;
	return h;
}

static int sfg_blocks_grow(struct sfg_emit *em)
{
	size_t cap = em->cap_blocks ? em->cap_blocks * 2 : 1024, i, k;
	struct sfg_block *t = calloc(cap, sizeof(*t));

	if (!t)
		return -SFG_E_NOMEM;
	for (i = 0; i < em->cap_blocks; i++) {
		if (!em->blocks[i].len)
			continue;
		for (k = em->blocks[i].hash & (cap - 1); t[k].len; k = (k + 1) & (cap - 1))
			;
		t[k] = em->blocks[i];
	}
	free(em->blocks);
	em->blocks = t;
	em->cap_blocks = cap;
	return 0;
}

/*
 * The last FDE's block is complete: where one written before has the
 * same bytes, drop it and point the FDE at that one.  The decoder reads
 * each FDE's block at its offset and checks it against that FDE's own
 * range, so FDEs may share one; the header's FRE count stays the sum over
 * the FDEs, the bound of the decoder's walk, which V3 holds to at most one
 * per byte of the sub-section: a block is shared only while that holds.
 */
static int sfg_end_block(struct sfg_emit *em)
{
	struct sfg_fde_ent *e = &em->fdes[em->nfdes - 1];
	u32 len = (u32)(em->fres.len - e->fre_off);
	const u8 *p = em->fres.p + e->fre_off;
	u64 h = sfg_hash(p, len);
	size_t k;
	int err;

	em->open = false;
	if (2 * (em->nblocks + 1) > em->cap_blocks) {
		err = sfg_blocks_grow(em);
		if (err)
			return err;
	}
	for (k = h & (em->cap_blocks - 1); em->blocks[k].len; k = (k + 1) & (em->cap_blocks - 1)) {
		const struct sfg_block *b = &em->blocks[k];

		if (b->hash == h && b->len == len && !memcmp(em->fres.p + b->off, p, len) &&
		    em->nfres <= e->fre_off) {
			em->fres.len = e->fre_off;
			e->fre_off = b->off;
			em->shared++;
			return 0;
		}
	}
	em->blocks[k].hash = h;
	em->blocks[k].off = e->fre_off;
	em->blocks[k].len = len;
	em->nblocks++;
	return 0;
}

/* Start an FDE: its index entry and its attribute block. */
static int sfg_begin_fde(struct sfg_emit *em, u64 start, u64 size, u32 nfres, u8 info,
			 u8 type, u8 rep_size)
{
	u8 attr[SFRAME_V3_ATTR_BYTES];
	struct sfg_fde_ent *e;
	int err;

	if (em->open) {
		err = sfg_end_block(em);
		if (err)
			return err;
	}
	if (size > UINT32_MAX || nfres > SFRAME_MAX_FDE_FRES || em->nfdes >= SFRAME_MAX_FDES)
		return -SFG_E_LIMIT;
	if (em->nfdes == em->cap_fdes) {
		size_t cap = em->cap_fdes ? em->cap_fdes * 2 : 256;

		e = realloc(em->fdes, cap * sizeof(*e));
		if (!e)
			return -SFG_E_NOMEM;
		em->fdes = e;
		em->cap_fdes = cap;
	}
	e = &em->fdes[em->nfdes++];
	e->start = start;
	e->size = (u32)size;
	e->fre_off = (u32)em->fres.len;

	sfg_put_le(attr + SFRAME_V3_ATTR_NUM_FRES, nfres, 2);
	attr[SFRAME_V3_ATTR_INFO] = info;
	attr[SFRAME_V3_ATTR_INFO2] = type;
	if (type & SFRAME_V3_FDE_INFO2_SFU_INJECTED)
		em->injected = true;
	attr[SFRAME_V3_ATTR_REP_SIZE] = rep_size;
	em->open = true;
	return sfg_buf_put(&em->fres, attr, sizeof(attr));
}

static void sfg_words_for(const struct sfg_arch *arch, const struct sfg_rule *rule, bool flex,
			  struct sfg_words *w)
{
	memset(w, 0, sizeof(*w));
	w->ra_mangled = rule->ra_signed;
	if (rule->outermost) {
		/* No words: RA undefined.  FLEX FREs keep the base bit 0. */
		w->base_sp = !flex;
		return;
	}
	if (flex)
		sfg_words_flex(arch, rule, w);
	else
		sfg_words_default(arch, rule, w);
}

/* One FDE for rows[0..n) (already merged), ending at @end. */
static int sfg_emit_run(struct sfg_emit *em, const struct sfg_row *const *rows, u32 n, u64 end,
			u8 fde_info, u8 info2, bool flex)
{
	u64 start = rows[0]->start, last = rows[n - 1]->start - start;
	unsigned int fre_type, addr_bytes;
	struct sfg_words w;
	u8 info;
	u32 i;
	int err;

	fre_type = last <= 0xff ? SFRAME_FRE_TYPE_ADDR1 :
		   last <= 0xffff ? SFRAME_FRE_TYPE_ADDR2 : SFRAME_FRE_TYPE_ADDR4;
	addr_bytes = 1U << fre_type;
	info = fre_type | fde_info;
	err = sfg_begin_fde(em, start, end - start, n, info,
			    (flex ? SFRAME_FDE_TYPE_FLEX : SFRAME_FDE_TYPE_DEFAULT) | info2, 0);
	for (i = 0; !err && i < n; i++) {
		sfg_words_for(em->arch, &rows[i]->rule, flex, &w);
		if (rows[i]->rule.cfa_add && !rows[i]->rule.outermost)
			em->cfa_addend = true;
		err = sfg_put_fre(em, (u32)(rows[i]->start - start), addr_bytes, &w);
	}
	return err;
}

/* A PLT row: a PC-mask FDE with two FREs per repeated block. */
static int sfg_emit_mask(struct sfg_emit *em, const struct sfg_row *row, u8 fde_info, u8 info2)
{
	const struct sfg_rule *r = &row->rule;
	struct sfg_rule second = *r;
	struct sfg_words w;
	u8 info;
	int err;

	info = SFRAME_FRE_TYPE_ADDR1 | SFRAME_FDE_INFO_PCMASK | fde_info;
	err = sfg_begin_fde(em, row->start, row->end - row->start, 2, info,
			    SFRAME_FDE_TYPE_DEFAULT | info2, r->rep_size);
	if (err)
		return err;
	sfg_words_for(em->arch, r, false, &w);
	err = sfg_put_fre(em, 0, 1, &w);
	if (err)
		return err;
	second.cfa_off += r->mask_add;
	sfg_words_for(em->arch, &second, false, &w);
	return sfg_put_fre(em, r->mask_split, 1, &w);
}

/*
 * Rows [first, last] of an FDE, contiguous and all expressible: merge
 * identical neighbours and write FDEs of at most SFRAME_MAX_FDE_FRES rows.
 */
static int sfg_emit_rows(struct sfg_emit *em, const struct sfg_row *rows, u32 first, u32 last,
			 u8 fde_info, u8 info2)
{
	const struct sfg_row *r = rows + first, **kept;
	u32 i, n = 0, done, nr = last - first + 1;
	struct sfg_row *bare = NULL;
	bool flex = false;
	int err = 0;

	for (i = 0; i < nr; i++)
		if (em->arch->tracked_reg && !r[i].rule.outermost &&
		    r[i].rule.cfa_reg == em->arch->tracked_reg)
			em->cfa_on_tracked++;
	if (em->arch->saved_reg && sfg_lists_saves(em, r[0].start, r[nr - 1].end)) {
		em->saves_fdes++;
	} else if (em->arch->saved_reg) {
		/* The same rows without their saves. */
		bare = malloc(nr * sizeof(*bare));
		if (!bare)
			return -SFG_E_NOMEM;
		memcpy(bare, r, nr * sizeof(*bare));
		for (i = 0; i < nr; i++) {
			bare[i].rule.saved = SFG_SAVED_NONE;
			bare[i].rule.saved_off = 0;
		}
		r = bare;
		info2 |= SFRAME_V3_FDE_INFO2_SFU_NO_SAVES;
		em->no_saves_fdes++;
	}
	kept = malloc(nr * sizeof(*kept));
	if (!kept) {
		free(bare);
		return -SFG_E_NOMEM;
	}
	for (i = 0; i < nr; i++) {
		flex |= sfg_rule_needs_flex(em->arch, &r[i].rule);
		if (n && sfg_rule_equal(&kept[n - 1]->rule, &r[i].rule))
			continue;
		kept[n++] = &r[i];
	}
	for (done = 0; !err && done < n; done += i) {
		u64 end;

		i = min_t(u32, n - done, SFRAME_MAX_FDE_FRES);
		end = done + i < n ? kept[done + i]->start : r[nr - 1].end;
		err = sfg_emit_run(em, kept + done, i, end, fde_info, info2, flex);
	}
	free(kept);
	free(bare);
	return err;
}

/**
 * sfg_emit_fde() - add the rows of one DWARF FDE
 * @em: emitter
 * @rows: the FDE's rows in address order, contiguous; those with a reason
 *        are left out
 * @nrows: number of rows
 * @info: SFRAME_V3_FDE_INFO_SIGNAL (a signal frame) and
 *        SFRAME_FDE_INFO_PAUTH_KEY_B (AArch64 RAs signed with key B), for
 *        each SFrame FDE written
 * @info2: SFRAME_V3_FDE_INFO2_SFU_INJECTED (a function entered by an
 *         injected call: Go's asyncPreempt, sigpanic, debugCallV2), for
 *         each SFrame FDE written; the section then has
 *         SFRAME_F_SFU_INJECTED_CALLS
 *
 * FDEs must come in address order and must not overlap.
 *
 * Return: 0 or -SFG_E_xxx.
 */
int sfg_emit_fde(struct sfg_emit *em, const struct sfg_row *rows, u32 nrows, u8 info, u8 info2)
{
	u32 i = 0, j;
	int err;

	while (i < nrows) {
		if (rows[i].reason != SFG_ROW_OK) {
			i++;
			continue;
		}
		if (rows[i].rule.rep_size) {
			err = sfg_emit_mask(em, &rows[i], info, info2);
			if (err)
				return err;
			i++;
			continue;
		}
		for (j = i; j + 1 < nrows && rows[j + 1].reason == SFG_ROW_OK &&
		     !rows[j + 1].rule.rep_size && rows[j + 1].start == rows[j].end; j++)
			;
		err = sfg_emit_rows(em, rows, i, j, info, info2);
		if (err)
			return err;
		i = j + 1;
	}
	return 0;
}

/* The finished section must pass the decoder the kernel module uses. */
static int sfg_self_check(const struct sfg_emit *em, const u8 *buf, u64 len)
{
	struct sfu_sframe_reader r = {
		.kind = SFRAME_READER_BUFFER,
		.buf = buf,
		.size = len,
	};
	struct sfu_sframe_section sec;

	if (sfu_sframe_section_init(&sec, &r, em->vaddr, em->arch->abi) ||
	    sfu_sframe_section_validate(&sec))
		return -SFG_E_INTERNAL;
	return 0;
}

/* The section header, for an FDE index of @fde_bytes, into @buf. */
static void sfg_put_header(const struct sfg_emit *em, u8 *buf, u64 fde_bytes)
{
	sfg_put_le(buf + SFRAME_HDR_MAGIC, SFRAME_MAGIC, 2);
	buf[SFRAME_HDR_VERSION] = SFRAME_VERSION_3;
	buf[SFRAME_HDR_FLAGS] = SFRAME_F_FDE_SORTED | SFRAME_F_FDE_FUNC_START_PCREL |
				(em->cfa_addend ? SFRAME_F_SFU_CFA_ADDEND : 0) |
				(em->arch->saved_reg ? SFRAME_F_SFU_SAVED_REGS : 0) |
				(em->injected ? SFRAME_F_SFU_INJECTED_CALLS : 0);
	buf[SFRAME_HDR_ABI_ARCH] = em->arch->abi;
	buf[SFRAME_HDR_CFA_FIXED_FP] = SFRAME_CFA_FIXED_OFFSET_NONE;
	buf[SFRAME_HDR_CFA_FIXED_RA] = (u8)em->arch->fixed_ra;
	buf[SFRAME_HDR_AUXHDR_LEN] = 0;
	sfg_put_le(buf + SFRAME_HDR_NUM_FDES, em->nfdes, 4);
	sfg_put_le(buf + SFRAME_HDR_NUM_FRES, em->nfres, 4);
	sfg_put_le(buf + SFRAME_HDR_FRE_LEN, em->fres.len, 4);
	sfg_put_le(buf + SFRAME_HDR_FDEOFF, 0, 4);
	sfg_put_le(buf + SFRAME_HDR_FREOFF, fde_bytes, 4);
}

/**
 * sfg_emit_finish() - lay out header, FDE index and FRE sub-section
 * @em: emitter
 * @out: receives the section bytes and the FDE/FRE counts
 *
 * Return: 0 or -SFG_E_xxx.
 */
int sfg_emit_finish(struct sfg_emit *em, struct sfg_output *out)
{
	u64 fde_bytes = (u64)em->nfdes * SFRAME_V3_FDE_BYTES;
	u8 *buf, *p;
	size_t i;
	int err;
	u64 len;

	if (em->open) {
		err = sfg_end_block(em);
		if (err)
			return err;
	}
	len = SFRAME_HDR_SIZE + fde_bytes + em->fres.len;
	if (len > SFRAME_MAX_SECTION_SIZE || em->nfres > SFRAME_MAX_FRES ||
	    em->fres.len > UINT32_MAX)
		return -SFG_E_LIMIT;
	buf = calloc(1, len);
	if (!buf)
		return -SFG_E_NOMEM;

	sfg_put_header(em, buf, fde_bytes);
	p = buf + SFRAME_HDR_SIZE;
	for (i = 0; i < em->nfdes; i++, p += SFRAME_V3_FDE_BYTES) {
		/* PCREL: relative to this start field's own address. */
		u64 field = em->vaddr + SFRAME_HDR_SIZE + i * SFRAME_V3_FDE_BYTES;

		sfg_put_le(p + SFRAME_V3_FDE_START, em->fdes[i].start - field, 8);
		sfg_put_le(p + SFRAME_V3_FDE_SIZE, em->fdes[i].size, 4);
		sfg_put_le(p + SFRAME_V3_FDE_FRE_OFF, em->fdes[i].fre_off, 4);
	}
	if (em->fres.len)
		memcpy(p, em->fres.p, em->fres.len);

	err = sfg_self_check(em, buf, len);
	if (err) {
		free(buf);
		return err;
	}
	out->buf = buf;
	out->len = len;
	out->stats.fdes = em->nfdes;
	out->stats.fres = em->nfres;
	out->stats.sframe_bytes = len;
	out->stats.cfa_on_saved_reg = em->cfa_on_tracked;
	out->stats.saves_fdes = em->saves_fdes;
	out->stats.no_saves_fdes = em->no_saves_fdes;
	out->stats.shared_fdes = em->shared;
	return 0;
}

/**
 * sfg_section_narrow() - rewrite a section with the narrow FDE index
 * @out: a section sfg_emit_finish() or sfg_section_merge() made (16-byte
 *       index entries, PCREL); replaced by the same section with 12-byte
 *       entries and SFRAME_F_SFU_NARROW_INDEX, if every function start
 *       fits 32 bits from its entry's field, else left as it is
 * @vaddr: the address the section was made for
 *
 * The FRE sub-section is copied unchanged: its offsets count from its own
 * start.  The result is checked with the decoder, as every section is.
 *
 * Return: 0, -SFG_E_NOMEM or -SFG_E_INTERNAL.
 */
int sfg_section_narrow(struct sfg_output *out, u64 vaddr)
{
	u64 n = sfg_le(out->buf + SFRAME_HDR_NUM_FDES, 4), i;
	u64 fre_len = sfg_le(out->buf + SFRAME_HDR_FRE_LEN, 4);
	u64 wide = SFRAME_HDR_SIZE + n * SFRAME_V3_FDE_BYTES;
	u64 narrow = SFRAME_HDR_SIZE + n * SFRAME_V3N_FDE_BYTES;
	struct sfu_sframe_reader r = { .kind = SFRAME_READER_BUFFER };
	struct sfu_sframe_section sec;
	u8 *buf;

	if (out->buf[SFRAME_HDR_FLAGS] & SFRAME_F_SFU_NARROW_INDEX)
		return 0;
	if (out->buf[SFRAME_HDR_AUXHDR_LEN] || sfg_le(out->buf + SFRAME_HDR_FDEOFF, 4) ||
	    out->len != wide + fre_len)
		return -SFG_E_INTERNAL;
	for (i = 0; i < n; i++) {
		u8 *e = out->buf + SFRAME_HDR_SIZE + i * SFRAME_V3_FDE_BYTES;
		s64 rel = (s64)sfg_le(e + SFRAME_V3_FDE_START, 8) +
			  (s64)(i * (SFRAME_V3_FDE_BYTES - SFRAME_V3N_FDE_BYTES));

		if (rel != (s32)rel)
			return 0;
	}
	buf = calloc(1, narrow + fre_len);
	if (!buf)
		return -SFG_E_NOMEM;
	memcpy(buf, out->buf, SFRAME_HDR_SIZE);
	buf[SFRAME_HDR_FLAGS] |= SFRAME_F_SFU_NARROW_INDEX;
	sfg_put_le(buf + SFRAME_HDR_FREOFF, n * SFRAME_V3N_FDE_BYTES, 4);
	for (i = 0; i < n; i++) {
		const u8 *e = out->buf + SFRAME_HDR_SIZE + i * SFRAME_V3_FDE_BYTES;
		u8 *d = buf + SFRAME_HDR_SIZE + i * SFRAME_V3N_FDE_BYTES;
		/* PCREL: the same start, from a field 4 bytes nearer per entry. */
		u64 rel = sfg_le(e + SFRAME_V3_FDE_START, 8) +
			  i * (SFRAME_V3_FDE_BYTES - SFRAME_V3N_FDE_BYTES);

		sfg_put_le(d + SFRAME_V3N_FDE_START, rel, 4);
		memcpy(d + SFRAME_V3N_FDE_SIZE, e + SFRAME_V3_FDE_SIZE, 4);
		memcpy(d + SFRAME_V3N_FDE_FRE_OFF, e + SFRAME_V3_FDE_FRE_OFF, 4);
	}
	memcpy(buf + narrow, out->buf + wide, fre_len);
	r.buf = buf;
	r.size = narrow + fre_len;
	if (sfu_sframe_section_init(&sec, &r, vaddr, out->buf[SFRAME_HDR_ABI_ARCH]) ||
	    sfu_sframe_section_validate(&sec)) {
		free(buf);
		return -SFG_E_INTERNAL;
	}
	free(out->buf);
	out->buf = buf;
	out->len = narrow + fre_len;
	out->stats.sframe_bytes = out->len;
	return 0;
}
