// SPDX-License-Identifier: GPL-2.0
/*
 * sframe-gen, Go side: rows from the pclntab of a Go program.
 *
 * Go programs carry little CFI (none at all once stripped) but always
 * their function table, the pclntab: per function its entry, name, flags
 * and the pcsp table, the SP delta at every PC, which is what the Go
 * runtime's own traceback unwinds with.  This file finds the pclntab
 * (section .gopclntab, the runtime.pclntab symbol, else a scan of the
 * read-only data for a valid pcHeader), checks every offset and count of
 * it, and turns the pcsp tables into rows for the emitter:
 *
 *   x86_64  CFA = SP + delta + 8, RA at CFA - 8, the caller's BP at
 *           CFA - 16 from the instruction after the prologue saved it
 *   aarch64 delta 0: CFA = SP, RA in LR; else CFA = SP + delta, RA at
 *           CFA - delta (0(RSP)) and FP at CFA - delta - 8 (-8(RSP))
 *
 * Where the saved frame pointer cannot be proven from the prologue's
 * bytes, the frame gets no rows (SFG_GO_FP).  TOPFRAME functions (goexit,
 * mstart, rt0_go, sigtramp) are outermost rows; SPWRITE functions, which
 * switch stacks, get none (SFG_GO_SPWRITE), as the Go traceback stops
 * there.  Layouts: Go 1.16/1.17 (magic 0xfffffffa), 1.18/1.19
 * (0xfffffff0), 1.20 and later (0xfffffff1); 64-bit little-endian only.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <gelf.h>
#include <linux/kernel.h>

#include "sframe/sframe.h"
#include "sframe_gen_go.h"

#define SFG_GO_MAGIC_116	0xfffffffaU
#define SFG_GO_MAGIC_118	0xfffffff0U
#define SFG_GO_MAGIC_120	0xfffffff1U
#define SFG_GO_MAX_NAME		4096
#define SFG_GO_MAX_SCAN		16	/* pcHeader candidates fully checked in a scan */
#define SFG_R_X86_64_RELATIVE	8
#define SFG_R_AARCH64_RELATIVE	1027

const char *sfg_go_fault;

static int sfg_go_rel_cmp(const void *a, const void *b)
{
	const struct sfg_go_rel *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static int sfg_go_text_cmp(const void *a, const void *b)
{
	const struct sfg_go_text *x = a, *y = b;

	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* A pointer-sized field at @off of the pclntab, as the loader leaves it. */
static u64 sfg_go_ptr(const struct sfg_go *go, u64 off)
{
	size_t a = 0, b = go->nrel;
	u64 addr = go->addr + off;

	/* A RELATIVE relocation (PIE) replaces the bytes with its addend. */
	while (a < b) {
		size_t m = a + (b - a) / 2;

		if (go->rel[m].addr < addr)
			a = m + 1;
		else
			b = m;
	}
	if (a < go->nrel && go->rel[a].addr == addr)
		return go->rel[a].addend;
	return sfg_le(go->d + off, 8);
}

/* The executable sections with their bytes, for prologue shapes. */
static int sfg_go_exec(Elf *elf, struct sfg_go *go)
{
	Elf_Scn *scn = NULL;
	size_t cap = 0;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(elf, scn))) {
		Elf_Data *data;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS ||
		    !(sh.sh_flags & SHF_EXECINSTR) || !(sh.sh_flags & SHF_ALLOC) ||
		    (sh.sh_flags & SHF_COMPRESSED) || sh.sh_addr + sh.sh_size <= sh.sh_addr)
			continue;
		data = elf_getdata(scn, NULL);
		if (!data || !data->d_buf || data->d_size != sh.sh_size)
			continue;
		if (go->nxs == cap) {
			struct sfg_go_text *v;

			cap = cap ? 2 * cap : 8;
			v = realloc(go->xs, cap * sizeof(*v));
			if (!v)
				return -SFG_E_NOMEM;
			go->xs = v;
		}
		go->xs[go->nxs++] = (struct sfg_go_text){ sh.sh_addr, sh.sh_addr + sh.sh_size,
							  data->d_buf };
	}
	if (go->nxs)
		qsort(go->xs, go->nxs, sizeof(*go->xs), sfg_go_text_cmp);
	return 0;
}

static bool sfg_go_in_text(const struct sfg_go *go, u64 lo, u64 hi)
{
	size_t i;

	for (i = 0; i < go->nxs; i++)
		if (lo >= go->xs[i].lo && hi <= go->xs[i].hi)
			return true;
	return false;
}

/* The RELATIVE relocations that patch the pclntab (PIE, Go 1.16/1.17 and textStart). */
static int sfg_go_relocs(Elf *elf, struct sfg_go *go)
{
	unsigned int type = go->arch.fixed_ra ? SFG_R_X86_64_RELATIVE : SFG_R_AARCH64_RELATIVE;
	Elf_Scn *scn = NULL;
	size_t cap = 0, i;
	GElf_Shdr sh;
	GElf_Rela r;

	while ((scn = elf_nextscn(elf, scn))) {
		Elf_Data *data;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_RELA || !sh.sh_entsize)
			continue;
		data = elf_getdata(scn, NULL);
		if (!data)
			continue;
		for (i = 0; i < sh.sh_size / sh.sh_entsize && gelf_getrela(data, i, &r); i++) {
			if (GELF_R_TYPE(r.r_info) != type || r.r_offset < go->addr ||
			    r.r_offset - go->addr >= go->size)
				continue;
			if (go->nrel == cap) {
				struct sfg_go_rel *v;

				cap = cap ? 2 * cap : 64;
				v = realloc(go->rel, cap * sizeof(*v));
				if (!v)
					return -SFG_E_NOMEM;
				go->rel = v;
			}
			go->rel[go->nrel++] = (struct sfg_go_rel){ r.r_offset, (u64)r.r_addend };
		}
	}
	if (go->nrel)
		qsort(go->rel, go->nrel, sizeof(*go->rel), sfg_go_rel_cmp);
	return 0;
}

/* A defined symbol of .symtab, by name. */
static bool sfg_go_sym(Elf *elf, const char *name, u64 *value)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	GElf_Sym s;
	size_t i;

	while ((scn = elf_nextscn(elf, scn))) {
		Elf_Data *data;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB || !sh.sh_entsize)
			continue;
		data = elf_getdata(scn, NULL);
		for (i = 0; data && i < sh.sh_size / sh.sh_entsize; i++) {
			const char *n;

			if (!gelf_getsym(data, i, &s))
				break;
			n = elf_strptr(elf, sh.sh_link, s.st_name);
			if (n && s.st_shndx != SHN_UNDEF && !strcmp(n, name)) {
				*value = s.st_value;
				return true;
			}
		}
	}
	return false;
}

/* A NUL-terminated name at @off, of at most SFG_GO_MAX_NAME bytes. */
static bool sfg_go_name_ok(const struct sfg_go *go, u64 off)
{
	u64 n = go->size - off;

	return off < go->size && memchr(go->d + off, 0, min_t(u64, n, SFG_GO_MAX_NAME));
}

/* The _func of function @i: entry, name, pcsp, funcID, flag, each checked. */
static bool sfg_go_func_parse(struct sfg_go *go, u64 i, u64 entry, u64 funcoff)
{
	bool v116 = go->version == 116;
	u64 f = go->pcln + funcoff, fsize = v116 || go->version == 120 ? 44 : 40;
	unsigned int id_at = go->version == 118 ? 36 : 40;
	struct sfg_go_fn *fn = &go->fn[i];
	u64 name;

	if (funcoff >= go->size || f < go->pcln || f > go->size - fsize)
		return false;
	/* The _func repeats the entry; a table that disagrees is not one. */
	if ((v116 ? sfg_go_ptr(go, f) : go->text_start + sfg_le(go->d + f, 4)) != entry)
		return false;
	name = go->names + sfg_le(go->d + f + (v116 ? 8 : 4), 4);
	if (!sfg_go_name_ok(go, name))
		return false;
	fn->entry = entry;
	fn->name = name;
	fn->pcsp = (u32)sfg_le(go->d + f + (v116 ? 20 : 16), 4);
	fn->id = go->d[f + id_at];
	fn->flag = go->d[f + id_at + 1];
	go->flags_used |= fn->flag != 0;
	return go->pctab + fn->pcsp < go->size;
}

/*
 * Check the pcHeader at go->d and the whole functab; fill go->fn.  Every
 * offset and count is bounded by go->size before it is used: the checks
 * of the header, textStart and the entries are kept in one place, which
 * makes this a little longer than most.
 */
static int sfg_go_parse(Elf *elf, struct sfg_go *go)
{
	u64 magic, nf, hdr, fsz, i, prev = 0, w0;

	if (go->size < 72)
		return -SFG_E_GO;
	magic = sfg_le(go->d, 4);
	go->version = magic == SFG_GO_MAGIC_116 ? 116 : magic == SFG_GO_MAGIC_118 ? 118 :
		      magic == SFG_GO_MAGIC_120 ? 120 : 0;
	go->quantum = go->d[6];
	if (!go->version || go->d[4] || go->d[5] || go->d[7] != 8 ||
	    go->quantum != (go->arch.fixed_ra ? 1 : 4))
		return -SFG_E_GO;
	nf = sfg_le(go->d + 8, 8);
	w0 = go->version == 116 ? 24 : 32;	/* funcnameOffset */
	hdr = w0 + 5 * 8;
	fsz = go->version == 116 ? 8 : 4;
	go->names = sfg_le(go->d + w0, 8);
	go->pctab = sfg_le(go->d + w0 + 24, 8);
	go->pcln = sfg_le(go->d + w0 + 32, 8);
	if (!nf || go->names < hdr || go->names >= go->size || go->pctab >= go->size ||
	    go->pcln >= go->size || nf > (go->size - go->pcln) / (2 * fsz) ||
	    (2 * nf + 1) * fsz > go->size - go->pcln)
		return -SFG_E_GO;
	if (go->version != 116) {
		/*
		 * textStart: the runtime's moduledata.text.  A PIE has 0
		 * in the file and a RELATIVE relocation whose addend is
		 * it; failing both, runtime.text, else the start of .text
		 * (what debug/gosym assumes), both checked below by every
		 * entry having to lie in executable text.
		 */
		GElf_Shdr sh;
		Elf_Scn *text;

		go->text_start = sfg_go_ptr(go, 24);
		if (!go->text_start && !sfg_go_sym(elf, "runtime.text", &go->text_start)) {
			text = sfg_find_section(elf, ".text");
			if (text && gelf_getshdr(text, &sh))
				go->text_start = sh.sh_addr;
		}
	}
	go->nfunc = nf;
	go->fn = calloc(nf, sizeof(*go->fn));
	if (!go->fn)
		return -SFG_E_NOMEM;
	for (i = 0; i <= nf; i++) {
		const u8 *e = go->d + go->pcln + 2 * i * fsz;
		u64 entry = fsz == 8 ? sfg_go_ptr(go, go->pcln + 2 * i * fsz) :
				       go->text_start + sfg_le(e, 4);

		if ((i && entry <= prev) || entry < go->text_start)
			return -SFG_E_GO;
		if (i && !sfg_go_in_text(go, prev, entry))
			return -SFG_E_GO;
		if (i)
			go->fn[i - 1].end = entry;
		if (i < nf && !sfg_go_func_parse(go, i, entry, sfg_le(e + fsz, fsz)))
			return -SFG_E_GO;
		prev = entry;
	}
	return 0;
}

/* Try the pcHeader at [p, p + size), link-time address @addr. */
static int sfg_go_try(Elf *elf, struct sfg_go *go, const u8 *p, u64 size, u64 addr)
{
	int err;

	free(go->fn);
	free(go->rel);
	go->fn = NULL;
	go->rel = NULL;
	go->nrel = 0;
	go->flags_used = false;
	go->d = p;
	go->size = size;
	go->addr = addr;
	err = sfg_go_relocs(elf, go);
	return err ? err : sfg_go_parse(elf, go);
}

/* The section with file contents that holds @addr. */
static Elf_Scn *sfg_go_section_at(Elf *elf, u64 addr)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(elf, scn)))
		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_PROGBITS && addr >= sh.sh_addr &&
		    addr - sh.sh_addr < sh.sh_size)
			return scn;
	return NULL;
}

/* The pclntab in section @scn: at the symbol's address @sym if @have_sym. */
static int sfg_go_in_section(Elf *elf, struct sfg_go *go, Elf_Scn *scn, bool have_sym, u64 sym)
{
	Elf_Data *data;
	GElf_Shdr sh;
	u64 off = 0;
	int err;

	if (!gelf_getshdr(scn, &sh) || (sh.sh_flags & SHF_COMPRESSED))
		return -SFG_E_GO;
	if (have_sym && sym >= sh.sh_addr && sym - sh.sh_addr < sh.sh_size)
		off = sym - sh.sh_addr;
	data = elf_getdata(scn, NULL);
	if (!data || !data->d_buf || data->d_size != sh.sh_size)
		return -SFG_E_GO;
	err = sfg_go_try(elf, go, (const u8 *)data->d_buf + off, sh.sh_size - off,
			 sh.sh_addr + off);
	return err ? err : 1;
}

/*
 * A stripped program's pclntab: the first pcHeader of its read-only data
 * that passes every check, of at most SFG_GO_MAX_SCAN candidates.
 */
static int sfg_go_scan(Elf *elf, struct sfg_go *go)
{
	Elf_Scn *scn = NULL;
	u64 off, tries = 0;
	size_t shstrndx;
	GElf_Shdr sh;
	int err;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return 0;
	while ((scn = elf_nextscn(elf, scn))) {
		const char *name;
		Elf_Data *data;
		const u8 *p;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS ||
		    (sh.sh_flags & (SHF_EXECINSTR | SHF_COMPRESSED)) ||
		    !(sh.sh_flags & SHF_ALLOC) || sh.sh_size < 72)
			continue;
		/* Read-only data; .data.rel.ro* is writable until RELRO protects it. */
		name = elf_strptr(elf, shstrndx, sh.sh_name);
		if ((sh.sh_flags & SHF_WRITE) && (!name || strncmp(name, ".data.rel.ro", 12)))
			continue;
		data = elf_getdata(scn, NULL);
		if (!data || !data->d_buf || data->d_size != sh.sh_size)
			continue;
		p = data->d_buf;
		for (off = 0; off + 72 <= sh.sh_size; off += 4) {
			u32 m = (u32)sfg_le(p + off, 4);

			if ((m != SFG_GO_MAGIC_116 && m != SFG_GO_MAGIC_118 &&
			     m != SFG_GO_MAGIC_120) || p[off + 4] || p[off + 5] || p[off + 7] != 8)
				continue;
			if (++tries > SFG_GO_MAX_SCAN)
				return 0;
			err = sfg_go_try(elf, go, p + off, sh.sh_size - off, sh.sh_addr + off);
			if (!err)
				return 1;
			if (err != -SFG_E_GO)
				return err;
		}
	}
	return 0;
}

/*
 * Where the pclntab is: section .gopclntab; the runtime.pclntab symbol
 * (PIE and externally linked programs put it in .data.rel.ro); else, for
 * stripped ones, a scan of the read-only data for a pcHeader that passes
 * every check.  Return 1 found, 0 none, or -SFG_E_xxx.
 */
static int sfg_go_find(Elf *elf, struct sfg_go *go)
{
	u64 sym = 0;
	bool have_sym = sfg_go_sym(elf, "runtime.pclntab", &sym);
	Elf_Scn *scn = sfg_find_section(elf, ".gopclntab");

	/* Without the section, the one holding the symbol. */
	if (!scn && have_sym)
		scn = sfg_go_section_at(elf, sym);
	if (scn)
		return sfg_go_in_section(elf, go, scn, have_sym, sym);
	return have_sym ? -SFG_E_GO : sfg_go_scan(elf, go);
}

/*
 * The functions the Go runtime's traceback takes for injected calls, whose
 * caller resumes at the PC the signal interrupted (traceback.go: the
 * funcIDs of sigpanic, asyncPreempt, and since Go 1.17 debugCallV2).
 */
static const char *const sfg_go_injected_names[] = {
	"runtime.asyncPreempt", "runtime.sigpanic", "runtime.debugCallV2",
};

/*
 * Mark them as the runtime knows them, by funcID: the funcIDs the
 * functions of those names carry in this table (the numbers differ
 * between Go versions), and by name where one carries none.
 */
static void sfg_go_mark_injected(struct sfg_go *go)
{
	u8 ids[ARRAY_SIZE(sfg_go_injected_names)] = { 0 };
	u64 i;
	u32 k;

	for (i = 0; i < go->nfunc; i++) {
		const char *name = (const char *)go->d + go->fn[i].name;

		for (k = 0; k < ARRAY_SIZE(ids); k++)
			if (!strcmp(name, sfg_go_injected_names[k])) {
				ids[k] = go->fn[i].id;
				go->fn[i].injected = true;
			}
	}
	for (i = 0; i < go->nfunc; i++)
		for (k = 0; k < ARRAY_SIZE(ids); k++)
			if (ids[k] && go->fn[i].id == ids[k])
				go->fn[i].injected = true;
}

/**
 * sfg_go_load() - read and check the Go function table of @elf
 * @elf: an x86_64 or aarch64 ELF64 file
 * @go: on 1, the table (free with sfg_go_free()); it points into @elf
 *
 * Return: 1 loaded, 0 the file has none, -SFG_E_GO when the table it has
 * fails a check, -SFG_E_NOMEM.
 */
int sfg_go_load(Elf *elf, struct sfg_go **go)
{
	const struct sfg_arch *a;
	struct sfg_go *g;
	int abi, ret;

	*go = NULL;
	abi = sfg_elf_machine_abi(elf);
	if (abi < 0)
		return 0;
	g = calloc(1, sizeof(*g));
	if (!g)
		return -SFG_E_NOMEM;
	/* What reading the table needs; sfg_go_arch() sets the rest for rows. */
	a = sfg_arch_of(abi);
	g->arch.abi = a->abi;
	g->arch.sp = a->sp;
	g->arch.fp = a->fp;
	g->arch.fixed_ra = a->fixed_ra;
	ret = sfg_go_exec(elf, g);
	if (!ret)
		ret = sfg_go_find(elf, g);
	if (ret <= 0) {
		sfg_go_free(g);
		return ret;
	}
	sfg_go_mark_injected(g);
	*go = g;
	return 1;
}

/**
 * sfg_go_free() - release a table from sfg_go_load()
 * @go: the table, or NULL
 */
void sfg_go_free(struct sfg_go *go)
{
	if (!go)
		return;
	free(go->fn);
	free(go->rel);
	free(go->xs);
	free(go);
}

/**
 * sfg_go_version() - the pclntab layout
 * @go: the table
 *
 * Return: 116 (Go 1.16, 1.17), 118 (1.18, 1.19) or 120 (1.20 and later).
 */
u16 sfg_go_version(const struct sfg_go *go)
{
	return go->version;
}

/**
 * sfg_go_nfuncs() - number of functions
 * @go: the table
 *
 * Return: the functab's count.
 */
u64 sfg_go_nfuncs(const struct sfg_go *go)
{
	return go->nfunc;
}

/**
 * sfg_go_func() - one function, by index in address order
 * @go: the table
 * @i: index below sfg_go_nfuncs()
 * @entry: its first PC (link-time address)
 * @end: the next function's entry
 *
 * Return: its name, NUL-terminated inside the table.
 */
const char *sfg_go_func(const struct sfg_go *go, u64 i, u64 *entry, u64 *end)
{
	*entry = go->fn[i].entry;
	*end = go->fn[i].end;
	return (const char *)go->d + go->fn[i].name;
}

/**
 * sfg_go_func_at() - the function holding a PC, as the Go runtime's findfunc
 * @go: the table
 * @addr: link-time address
 * @entry: set to its entry
 *
 * Return: its name, or NULL outside [first entry, last end).
 */
const char *sfg_go_func_at(const struct sfg_go *go, u64 addr, u64 *entry)
{
	u64 a = 0, b = go->nfunc;

	while (a < b) {
		u64 m = a + (b - a) / 2;

		if (go->fn[m].end <= addr)
			a = m + 1;
		else
			b = m;
	}
	if (a == go->nfunc || addr < go->fn[a].entry)
		return NULL;
	*entry = go->fn[a].entry;
	return (const char *)go->d + go->fn[a].name;
}

/**
 * sfg_go_arch() - the ABI the rows are made for
 * @go: the table
 * @arch: sframe-gen's description of the file's ABI; its saved register
 *        (x86_64 rbx) makes every Go row say the caller's value is lost:
 *        Go's ABI saves no register but BP across a call
 *
 * Return: 0.
 */
int sfg_go_arch(struct sfg_go *go, const struct sfg_arch *arch)
{
	go->arch = *arch;
	return 0;
}

/**
 * sfg_go_ranges() - the text the pclntab describes, with @own
 * @go: the table
 * @own: sorted, disjoint ranges to add (the own SFrame section's), or NULL
 * @out: sorted, disjoint union of @own and every [entry, end); free its arrays
 *
 * Return: 0 or -SFG_E_NOMEM.
 */
int sfg_go_ranges(const struct sfg_go *go, const struct sfg_text *own, struct sfg_text *out)
{
	u32 n = 0, i, nown = own ? own->n : 0;
	struct sfg_range *r;
	int err;

	r = malloc(((u64)nown + 1) * sizeof(*r));
	if (!r)
		return -SFG_E_NOMEM;
	/* The functab is sorted and contiguous: one range. */
	r[n].lo = go->fn[0].entry;
	r[n++].hi = go->fn[go->nfunc - 1].end;
	for (i = 0; i < nown; i++, n++) {
		r[n].lo = own->lo[i];
		r[n].hi = own->hi[i];
	}
	err = sfg_text_merge(r, n, out);
	free(r);
	return err;
}
