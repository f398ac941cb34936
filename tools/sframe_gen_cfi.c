// SPDX-License-Identifier: GPL-2.0
/*
 * sframe-gen, CFI side: every FDE of .eh_frame (and of .debug_frame where
 * .eh_frame says nothing) becomes rows of unwind rules for the emitter.
 * This file lists the FDEs (their PC ranges, with sframe_gen_ehframe.c's
 * decoding and sframe_gen_insns.c's scan of their instructions), keeps
 * one of any that overlap, adds the AArch64 PLT blocks no FDE covers
 * (sframe_gen_plt.c), and has sframe_gen_rules.c walk each into rows.
 */
#include <stdint.h>
#include <stdlib.h>

#include <gelf.h>

#include "sframe/sframe.h"
#include "sframe_gen_cfi.h"

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

/* One CFI section, as sfg_list_fdes() walks it. */
struct sfg_cfi_sec {
	const unsigned char *ident;
	Elf_Data *data;
	GElf_Shdr sh;
	bool eh_frame;
};

/* What the scan of the instructions of @f says of it, on @arch. */
static void sfg_fde_scanned(const struct sfg_arch *arch, struct sfg_fde *f, unsigned int scan,
			    u64 undef_rbx, bool key_b)
{
	if (arch->pauth) {
		f->ra_signing = scan & SFG_SCAN_PAUTH;
		f->key_b = key_b;
		/*
		 * What the scan cannot step over may change RA
		 * signing; a state it cannot follow is unknown.
		 */
		if ((scan & (SFG_SCAN_UNKNOWN | SFG_SCAN_RA_REG)) ||
		    (f->ra_signing && (scan & SFG_SCAN_RA_LOST)))
			f->reason = SFG_PAUTH;
	}
	f->saved_undef = UINT64_MAX;
	if (arch->saved_reg)
		f->saved_undef = (scan & SFG_SCAN_UNKNOWN) ? f->lo : undef_rbx;
}

/*
 * The PC range and instructions of FDE @e, whose CIE is @ce, into @f.
 * Return: true for an FDE to list; false for one to leave out, with
 * *@unsafe set where it cannot be read here.  *@unsafe is set too for
 * an FDE listed whose instructions name a register above
 * SFG_MAX_DWARF_REG.
 */
static bool sfg_fde_parse(const struct sfg_cfi_sec *sec, const struct sfg_arch *arch,
			  const Dwarf_CFI_Entry *e, const Dwarf_CFI_Entry *ce, struct sfg_fde *f,
			  bool *unsafe)
{
	struct sfg_cur c = { e->fde.start, e->fde.end };
	u64 range, alen = 0, undef_rbx = UINT64_MAX;
	struct sfg_cie cie;
	unsigned int scan;

	if (!sfg_cie_parse(&ce->cie, sec->eh_frame, &cie) ||
	    !sfg_read_encoded(&c, cie.fde_enc,
			      sec->sh.sh_addr + (u64)(e->fde.start - (const u8 *)sec->data->d_buf),
			      &f->lo) ||
	    !sfg_read_encoded(&c, cie.fde_enc & 0x0f, 0, &range)) {
		*unsafe = true;
		return false;
	}
	if (!range)
		return false;
	f->hi = f->lo + range;
	if (f->hi < f->lo) {
		*unsafe = true;
		return false;
	}
	if (range > UINT32_MAX)
		f->reason = SFG_TOO_BIG;
	f->insn_bytes = (u64)(cie.insns_end - cie.insns) + (u64)(c.end - c.p) + 1;
	if (cie.sized_aug && !(sfg_uleb(&c, &alen) && sfg_skip(&c, alen))) {
		scan = SFG_SCAN_UNKNOWN;
	} else {
		f->prog = (struct sfg_prog){
			.cie = cie.insns,
			.cie_end = cie.insns_end,
			.fde = c.p,
			.fde_end = c.end,
			.sec = sec->data->d_buf,
			.sec_addr = sec->sh.sh_addr,
			.caf = ce->cie.code_alignment_factor,
			.fde_enc = cie.fde_enc,
		};
		scan = sfg_prog_scan(&f->prog, f->lo, NULL, NULL, &undef_rbx);
	}
	sfg_fde_scanned(arch, f, scan, undef_rbx, cie.key_b);
	if (scan & SFG_SCAN_BIG_REG)
		*unsafe = true;
	return true;
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
	struct sfg_cfi_sec sec = { .eh_frame = eh_frame };
	Dwarf_Off off = 0, next, cnext;
	size_t first = l->n, i;
	Dwarf_CFI_Entry e, ce;
	bool unsafe = false;
	int ret;

	sec.ident = (const unsigned char *)elf_getident(elf, NULL);
	sec.data = elf_getdata(scn, NULL);
	if (!sec.ident || !sec.data || !sec.data->d_buf || !gelf_getshdr(scn, &sec.sh))
		return 0;

	while (off < sec.data->d_size) {
		struct sfg_fde f = { .debug_frame = !eh_frame, .reason = SFG_ROW_OK };

		ret = dwarf_next_cfi(sec.ident, sec.data, eh_frame, off, &next, &e);
		if (ret > 0)
			break;
		/* No progress: the rest of the section cannot be walked. */
		if (next == (Dwarf_Off)-1 || next <= off)
			break;
		off = next;
		if (ret < 0 || dwarf_cfi_cie_p(&e))
			continue;
		if (dwarf_next_cfi(sec.ident, sec.data, eh_frame, e.fde.CIE_pointer, &cnext, &ce) ||
		    !dwarf_cfi_cie_p(&ce))
			continue;
		if (!sfg_fde_parse(&sec, arch, &e, &ce, &f, &unsafe))
			continue;
		ret = sfg_fde_add(l, &f);
		if (ret)
			return ret;
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

static void sfg_account(const struct sfg_text *text, const struct sfg_rows *rows,
			struct sfg_stats *st)
{
	u32 i;

	for (i = 0; i < rows->n; i++) {
		const struct sfg_row *r = &rows->v[i];
		u64 b = sfg_text_bytes_in(text, r->start, r->end);

		if (r->reason == SFG_ROW_OK)
			st->covered_bytes += b;
		else
			st->uncovered[r->reason] += b;
	}
}

/* What sfg_cfi_convert() works with. */
struct sfg_cfi {
	Elf *elf;
	const struct sfg_arch *arch;
	const struct sfg_text *text;
	const struct sfg_text *own;
	Dwarf_CFI *eh_cfi;		/* libdw's .eh_frame, or NULL */
	Dwarf_CFI *dbg_cfi;		/* libdw's .debug_frame, or NULL */
	Dwarf *dw;			/* what @dbg_cfi belongs to */
	struct sfg_fde_list l;
	struct sfg_plt plt;
	struct sfg_walk w;
	struct sfg_emit *em;
	struct sfg_stats *st;
};

/* libdw's CFI of each section and its FDEs, into c->l; their sizes. */
static int sfg_cfi_open(struct sfg_cfi *c)
{
	GElf_Shdr eh_sh, dbg_sh;
	Elf_Scn *eh, *dbg;
	int err = 0;

	eh = sfg_find_section(c->elf, ".eh_frame");
	dbg = sfg_find_section(c->elf, ".debug_frame");
	if (eh && !gelf_getshdr(eh, &eh_sh))
		eh = NULL;
	if (dbg && !gelf_getshdr(dbg, &dbg_sh))
		dbg = NULL;
	if (eh)
		c->st->eh_frame_bytes = eh_sh.sh_size;
	if (dbg)
		c->st->debug_frame_bytes = dbg_sh.sh_size;
	if (eh) {
		c->eh_cfi = dwarf_getcfi_elf(c->elf);
		if (c->eh_cfi)
			err = sfg_list_fdes(c->elf, eh, true, c->arch, &c->l);
	}
	if (!err && dbg) {
		c->dw = dwarf_begin_elf(c->elf, DWARF_C_READ, NULL);
		c->dbg_cfi = c->dw ? dwarf_getcfi(c->dw) : NULL;
		/* A compressed .debug_frame: libdw reads it, the FDE list cannot. */
		if (c->dbg_cfi && !(dbg_sh.sh_flags & SHF_COMPRESSED))
			err = sfg_list_fdes(c->elf, dbg, false, c->arch, &c->l);
	}
	if (!err && !c->eh_cfi && !c->dbg_cfi)
		err = -SFG_E_NO_CFI;
	return err;
}

/* The FDEs to walk, sorted and disjoint, with the AArch64 PLT's. */
static int sfg_cfi_fdes(struct sfg_cfi *c)
{
	int err;

	if (c->arch->plt_insns) {
		err = sfg_plt_find(c->elf, &c->plt);
		if (!err)
			err = sfg_plt_keep_uncovered(&c->l, &c->plt);
		if (err)
			return err;
	}
	err = sfg_sort_fdes(&c->l, c->text, c->st);
	if (err)
		return err;
	c->st->dwarf_fdes = c->l.n;
	return sfg_add_plt_fdes(&c->l, &c->plt);
}

/* The rows of FDE @f, counted and handed to the emitter. */
static int sfg_cfi_fde(struct sfg_cfi *c, const struct sfg_fde *f)
{
	struct sfg_rows *rows = &c->w.rows;
	bool signal = false;
	int err;
	u8 info;

	rows->n = 0;
	/*
	 * The own section wins wherever it has an FDE.  An FDE that
	 * shares only some bytes with it disagrees with it on where a
	 * function lies: none of it is used.
	 */
	if (c->own && sfg_text_bytes_in(c->own, f->lo, f->hi))
		err = sfg_rows_add(rows, f->lo, f->hi, SFG_OWN_SFRAME, NULL);
	else if (f->plt)
		err = sfg_walk_plt(c->arch, &c->plt, f, rows);
	else if (f->reason != SFG_ROW_OK)
		err = sfg_rows_add(rows, f->lo, f->hi, f->reason, NULL);
	else
		err = sfg_walk_fde(f->debug_frame ? c->dbg_cfi : c->eh_cfi, c->arch, f, &c->w,
				   &signal);
	if (err)
		return err;
	if (!f->plt) {
		sfg_fix_pushed_ra(c->arch, rows);
		c->st->dwarf_rows += rows->n;
	}
	sfg_account(c->text, rows, c->st);
	info = (signal ? SFRAME_V3_FDE_INFO_SIGNAL : 0) |
	       (f->key_b ? SFRAME_FDE_INFO_PAUTH_KEY_B : 0);
	return sfg_emit_fde(c->em, rows->v, rows->n, info, 0);
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
	struct sfg_cfi c = {
		.elf = elf, .arch = arch, .text = text, .own = own, .em = em, .st = st,
	};
	size_t i;
	int err;

	err = sfg_cfi_open(&c);
	if (!err)
		err = sfg_cfi_fdes(&c);
	for (i = 0; !err && i < c.l.n; i++)
		err = sfg_cfi_fde(&c, &c.l.v[i]);
	free(c.w.ra);
	free(c.w.rows.v);
	free(c.l.v);
	free(c.plt.v);
	if (c.eh_cfi)
		dwarf_cfi_end(c.eh_cfi);
	if (c.dw)
		dwarf_end(c.dw);
	return err;
}
