// SPDX-License-Identifier: GPL-2.0
/*
 * sframe-gen, the ELF side: which ABI a file is for, where its text is,
 * its build ID, and sfg_convert(), which ties the CFI walk to the emitter.
 * Everything works on an Elf handle, so a file and a buffer (elf_memory(),
 * as the fuzzer and --vdso use it) go the same way.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <gelf.h>
#include <linux/kernel.h>

#include "sframe/sframe.h"
#include "sframe_unwind/elf_digest.h"
#include "sframe_gen_internal.h"

#ifndef EM_AARCH64
#define EM_AARCH64 183
#endif

#define SFG_NT_GNU_BUILD_ID	3
#define SFG_MAX_BUILD_ID	64	/* bytes; SHA-1 ids are 20 */

static const struct sfg_arch sfg_amd64 = {
	.abi = SFRAME_ABI_AMD64_ENDIAN_LITTLE,
	.sp = SFRAME_AMD64_DWARF_SP,
	.fp = SFRAME_AMD64_DWARF_FP,
	.ra = 16,
	.fixed_ra = -8,
	.flex = true,
	.plt_mask = true,
	.saved_reg = SFRAME_AMD64_DWARF_RBX,
	.tracked_reg = SFRAME_AMD64_DWARF_RBX,
	.cfa_addend = true,
};

static const struct sfg_arch sfg_aarch64 = {
	.abi = SFRAME_ABI_AARCH64_ENDIAN_LITTLE,
	.sp = SFRAME_AARCH64_DWARF_SP,
	.fp = SFRAME_AARCH64_DWARF_FP,
	.ra = 30,
	.fixed_ra = 0,
	.pauth = true,
	.plt_insns = true,
	.cfa_addend = true,
};

static const char * const sfg_reason_names[SFG_REASON_NR] = {
	[SFG_NO_CFI]		= "no-cfi",
	[SFG_BAD_CFI]		= "bad-cfi",
	[SFG_CFA_UNDEFINED]	= "cfa-undefined",
	[SFG_CFA_EXPR]		= "cfa-expression",
	[SFG_CFA_REG]		= "cfa-register",
	[SFG_RA_RULE]		= "ra-rule",
	[SFG_FP_RULE]		= "fp-rule",
	[SFG_PAUTH]		= "ra-signing",
	[SFG_OFFSET]		= "offset-range",
	[SFG_TOO_BIG]		= "too-big",
	[SFG_OVERLAP]		= "overlapping-fde",
	[SFG_OWN_SFRAME]	= "own-sframe",
	[SFG_GO_SPWRITE]	= "go-spwrite",
	[SFG_GO_FP]		= "go-fp",
	[SFG_GO_PCSP]		= "go-bad-pcsp",
};

static const char * const sfg_error_names[SFG_E_NR] = {
	[0]			= "success",
	[SFG_E_NOT_ELF]		= "not an ELF file",
	[SFG_E_CLASS]		= "not a 64-bit little-endian ELF file (x86_64 and aarch64 only)",
	[SFG_E_MACHINE]		= "machine is neither x86_64 nor aarch64",
	[SFG_E_TYPE]		= "not an executable or shared object (no final addresses)",
	[SFG_E_NO_CFI]		= "no .eh_frame or .debug_frame",
	[SFG_E_LIMIT]		= "the section would exceed SFrame's or the decoder's limits",
	[SFG_E_NOMEM]		= "out of memory",
	[SFG_E_INTERNAL]	= "internal error: the output failed the SFrame decoder",
	[SFG_E_OWN_SFRAME]	= "its own SFrame section fails the SFrame decoder",
	[SFG_E_GO]		= "its Go function table (.gopclntab) is malformed",
	[SFG_E_DIGEST]		= "its content digest could not be taken",
};

/**
 * sfg_reason_name() - short name of a reason for uncovered text
 * @reason: enum sfg_reason
 *
 * Return: "no-cfi", "cfa-expression", ...
 */
const char *sfg_reason_name(enum sfg_reason reason)
{
	return reason < SFG_REASON_NR ? sfg_reason_names[reason] : "unknown";
}

/**
 * sfg_strerror() - message for an sfg_convert() result
 * @err: 0 or -SFG_E_xxx
 *
 * Return: a sentence fragment.
 */
const char *sfg_strerror(int err)
{
	unsigned int code = err < 0 ? -(unsigned int)err : (unsigned int)err;

	return code < SFG_E_NR ? sfg_error_names[code] : "unknown error";
}

/**
 * sfg_elf_machine_abi() - the SFrame ABI of an ELF file
 * @elf: handle
 *
 * Return: SFRAME_ABI_AMD64_ENDIAN_LITTLE or SFRAME_ABI_AARCH64_ENDIAN_LITTLE,
 * or -SFG_E_NOT_ELF, -SFG_E_CLASS, -SFG_E_MACHINE, -SFG_E_TYPE (a file no
 * process maps: only ET_EXEC and ET_DYN have final addresses).
 */
int sfg_elf_machine_abi(Elf *elf)
{
	const char *ident;
	GElf_Ehdr eh;

	if (elf_kind(elf) != ELF_K_ELF)
		return -SFG_E_NOT_ELF;
	ident = elf_getident(elf, NULL);
	if (!ident || ident[EI_CLASS] != ELFCLASS64 || ident[EI_DATA] != ELFDATA2LSB)
		return -SFG_E_CLASS;
	if (!gelf_getehdr(elf, &eh))
		return -SFG_E_NOT_ELF;
	if (eh.e_machine != EM_X86_64 && eh.e_machine != EM_AARCH64)
		return -SFG_E_MACHINE;
	if (eh.e_type != ET_EXEC && eh.e_type != ET_DYN)
		return -SFG_E_TYPE;
	return eh.e_machine == EM_X86_64 ? SFRAME_ABI_AMD64_ENDIAN_LITTLE :
					   SFRAME_ABI_AARCH64_ENDIAN_LITTLE;
}

/**
 * sfg_elf_has_sframe() - whether the file already carries SFrame
 * @elf: handle
 *
 * Return: true if it has a .sframe section or a PT_GNU_SFRAME segment.
 */
bool sfg_elf_has_sframe(Elf *elf)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx, i, phnum;
	GElf_Shdr sh;
	GElf_Phdr ph;

	if (!elf_getphdrnum(elf, &phnum)) {
		for (i = 0; i < phnum; i++)
			if (gelf_getphdr(elf, i, &ph) && ph.p_type == SFRAME_PT_GNU_SFRAME)
				return true;
	}
	if (elf_getshdrstrndx(elf, &shstrndx))
		return false;
	while ((scn = elf_nextscn(elf, scn))) {
		const char *n;

		if (!gelf_getshdr(scn, &sh))
			continue;
		n = elf_strptr(elf, shstrndx, sh.sh_name);
		if (n && !strcmp(n, ".sframe"))
			return true;
	}
	return false;
}

/**
 * sfg_elf_own_sframe() - the file's own SFrame section, as the module reads it
 * @elf: handle
 * @abi: the file's SFRAME_ABI_* (sfg_elf_machine_abi())
 * @sec: on 1, the section, initialized and validated; its bytes are @elf's
 *       and live as long as @elf
 *
 * The section is that of the first PT_GNU_SFRAME segment with file bytes
 * (the kernel module reads that one), else a .sframe section with file
 * contents, at its link-time address.
 *
 * Return: 1 found and valid, 0 the file has none, or the decoder's
 * -SFRAME_E_xxx (-SFRAME_E_TRUNCATED when its bytes lie outside the file).
 */
int sfg_elf_own_sframe(Elf *elf, int abi, struct sfu_sframe_section *sec)
{
	struct sfu_sframe_reader r = { .kind = SFRAME_READER_BUFFER };
	Elf_Data *data = NULL;
	size_t i, phnum;
	Elf_Scn *scn;
	GElf_Shdr sh;
	GElf_Phdr ph;
	u64 vaddr = 0;
	bool found = false;
	int err;

	if (!elf_getphdrnum(elf, &phnum)) {
		for (i = 0; i < phnum && !found; i++) {
			if (!gelf_getphdr(elf, i, &ph) || ph.p_type != SFRAME_PT_GNU_SFRAME ||
			    !ph.p_filesz)
				continue;
			found = true;
			vaddr = ph.p_vaddr;
			data = elf_getdata_rawchunk(elf, ph.p_offset, ph.p_filesz, ELF_T_BYTE);
		}
	}
	if (!found) {
		scn = sfg_find_section(elf, ".sframe");
		if (!scn || !gelf_getshdr(scn, &sh))
			return 0;
		vaddr = sh.sh_addr;
		data = (sh.sh_flags & SHF_COMPRESSED) ? NULL : elf_getdata(scn, NULL);
	}
	if (!data || !data->d_buf)
		return -SFRAME_E_TRUNCATED;
	r.buf = data->d_buf;
	r.size = data->d_size;
	err = sfu_sframe_section_init(sec, &r, vaddr, abi);
	if (!err)
		err = sfu_sframe_section_validate(sec);
	return err ? err : 1;
}

/*
 * The ranges of the non-empty FDEs of a validated section, merged: the
 * decoder has checked that their starts do not decrease and that they do
 * not overlap.
 */
static int sfg_own_ranges(const struct sfu_sframe_section *sec, struct sfg_text *own)
{
	struct sfu_sframe_fde fde;
	u32 i, n = sec->num_fdes ? sec->num_fdes : 1;

	own->n = 0;
	own->lo = malloc(n * sizeof(u64));
	own->hi = malloc(n * sizeof(u64));
	if (!own->lo || !own->hi)
		return -SFG_E_NOMEM;
	for (i = 0; i < sec->num_fdes; i++) {
		u64 lo, hi;

		if (sfu_sframe_fde_get(sec, i, &fde))
			return -SFG_E_INTERNAL;
		if (!fde.func_size)
			continue;
		lo = fde.func_start;
		hi = lo + fde.func_size;
		if (own->n && lo <= own->hi[own->n - 1]) {
			if (hi > own->hi[own->n - 1])
				own->hi[own->n - 1] = hi;
			continue;
		}
		own->lo[own->n] = lo;
		own->hi[own->n] = hi;
		own->n++;
	}
	return 0;
}

/* @rest = @text without @own; both sorted and disjoint. */
static int sfg_text_subtract(const struct sfg_text *text, const struct sfg_text *own,
			     struct sfg_text *rest)
{
	size_t n = (size_t)text->n + own->n + 1;
	u32 i, k = 0;

	rest->n = 0;
	rest->lo = malloc(n * sizeof(u64));
	rest->hi = malloc(n * sizeof(u64));
	if (!rest->lo || !rest->hi)
		return -SFG_E_NOMEM;
	for (i = 0; i < text->n; i++) {
		u64 lo = text->lo[i], hi = text->hi[i];

		while (k < own->n && own->hi[k] <= lo)
			k++;
		/* Each own range inside [lo, hi) cuts it once. */
		for (; k < own->n && own->lo[k] < hi; k++) {
			if (own->lo[k] > lo) {
				rest->lo[rest->n] = lo;
				rest->hi[rest->n] = own->lo[k];
				rest->n++;
			}
			if (own->hi[k] >= hi) {
				lo = hi;
				break;
			}
			lo = own->hi[k];
		}
		if (lo < hi) {
			rest->lo[rest->n] = lo;
			rest->hi[rest->n] = hi;
			rest->n++;
		}
	}
	return 0;
}

/* Look for NT_GNU_BUILD_ID in one block of notes. */
static int sfg_notes_build_id(Elf_Data *data, char *hex, size_t len)
{
	size_t off = 0, name_off, desc_off, next, i;
	GElf_Nhdr nh;

	while (off < data->d_size &&
	       (next = gelf_getnote(data, off, &nh, &name_off, &desc_off)) > off) {
		const u8 *d = (const u8 *)data->d_buf + desc_off;

		off = next;
		if (nh.n_type != SFG_NT_GNU_BUILD_ID || nh.n_namesz != 4 ||
		    memcmp((const char *)data->d_buf + name_off, "GNU", 4))
			continue;
		if (!nh.n_descsz || nh.n_descsz > SFG_MAX_BUILD_ID || len < 2 * nh.n_descsz + 1)
			return -1;
		for (i = 0; i < nh.n_descsz; i++)
			snprintf(hex + 2 * i, 3, "%02x", d[i]);
		return 0;
	}
	return -1;
}

/**
 * sfg_elf_build_id() - the GNU build ID as lower-case hex
 * @elf: handle
 * @hex: output, NUL-terminated
 * @len: size of @hex; 2 * SFG_MAX_BUILD_ID + 1 is always enough
 *
 * Return: 0, or -1 if the file has no usable build ID note.
 */
int sfg_elf_build_id(Elf *elf, char *hex, size_t len)
{
	Elf_Scn *scn = NULL;
	size_t i, phnum;
	Elf_Data *data;
	GElf_Shdr sh;
	GElf_Phdr ph;

	while ((scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE)
			continue;
		data = elf_getdata(scn, NULL);
		if (data && data->d_buf && !sfg_notes_build_id(data, hex, len))
			return 0;
	}
	if (elf_getphdrnum(elf, &phnum))
		return -1;
	for (i = 0; i < phnum; i++) {
		if (!gelf_getphdr(elf, i, &ph) || ph.p_type != PT_NOTE)
			continue;
		data = elf_getdata_rawchunk(elf, ph.p_offset, ph.p_filesz, ELF_T_NHDR);
		if (data && data->d_buf && !sfg_notes_build_id(data, hex, len))
			return 0;
	}
	return -1;
}

static int sfg_range_cmp(const void *a, const void *b)
{
	const u64 *x = a, *y = b;

	return x[0] < y[0] ? -1 : x[0] > y[0];
}

/*
 * Executable ranges: SHF_EXECINSTR sections, or PF_X segments when the file
 * has no section headers.  Sorted and merged.
 */
static int sfg_text_ranges(Elf *elf, struct sfg_text *text, u64 *bytes)
{
	size_t n = 0, cap = 16, i, phnum;
	Elf_Scn *scn = NULL;
	u64 (*r)[2], (*nr)[2];
	GElf_Shdr sh;
	GElf_Phdr ph;

	r = malloc(cap * sizeof(*r));
	if (!r)
		return -SFG_E_NOMEM;
	for (;;) {
		u64 lo, hi;

		scn = elf_nextscn(elf, scn);
		if (!scn)
			break;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS ||
		    (sh.sh_flags & (SHF_ALLOC | SHF_EXECINSTR)) != (SHF_ALLOC | SHF_EXECINSTR))
			continue;
		lo = sh.sh_addr;
		hi = lo + sh.sh_size;
		if (hi <= lo)
			continue;
		if (n == cap) {
			nr = realloc(r, 2 * cap * sizeof(*r));
			if (!nr) {
				free(r);
				return -SFG_E_NOMEM;
			}
			r = nr;
			cap *= 2;
		}
		r[n][0] = lo;
		r[n][1] = hi;
		n++;
	}
	if (!n && !elf_getphdrnum(elf, &phnum)) {
		for (i = 0; i < phnum && n < cap; i++) {
			if (!gelf_getphdr(elf, i, &ph) || ph.p_type != PT_LOAD ||
			    !(ph.p_flags & PF_X) || ph.p_vaddr + ph.p_memsz <= ph.p_vaddr)
				continue;
			r[n][0] = ph.p_vaddr;
			r[n][1] = ph.p_vaddr + ph.p_memsz;
			n++;
		}
	}
	qsort(r, n, sizeof(*r), sfg_range_cmp);

	text->lo = malloc((n ? n : 1) * sizeof(u64));
	text->hi = malloc((n ? n : 1) * sizeof(u64));
	if (!text->lo || !text->hi) {
		free(r);
		return -SFG_E_NOMEM;
	}
	text->n = 0;
	*bytes = 0;
	for (i = 0; i < n; i++) {
		if (text->n && r[i][0] <= text->hi[text->n - 1]) {
			if (r[i][1] > text->hi[text->n - 1])
				text->hi[text->n - 1] = r[i][1];
			continue;
		}
		text->lo[text->n] = r[i][0];
		text->hi[text->n] = r[i][1];
		text->n++;
	}
	for (i = 0; i < text->n; i++)
		*bytes += text->hi[i] - text->lo[i];
	free(r);
	return 0;
}

/**
 * sfg_text_bytes_in() - executable bytes in [lo, hi)
 * @text: sorted, disjoint ranges
 * @lo: start
 * @hi: end
 *
 * Return: the number of bytes of [@lo, @hi) inside @text.
 */
u64 sfg_text_bytes_in(const struct sfg_text *text, u64 lo, u64 hi)
{
	u32 a = 0, b = text->n;
	u64 sum = 0;

	/* First range ending after lo. */
	while (a < b) {
		u32 m = a + (b - a) / 2;

		if (text->hi[m] <= lo)
			a = m + 1;
		else
			b = m;
	}
	for (; a < text->n && text->lo[a] < hi; a++) {
		u64 s = lo > text->lo[a] ? lo : text->lo[a];
		u64 e = hi < text->hi[a] ? hi : text->hi[a];

		if (e > s)
			sum += e - s;
	}
	return sum;
}

/*
 * SFG_COMPLEMENT: the own section's FDE ranges, its figures, and the text
 * they leave to the CFI.  @own stays empty when the file has no section.
 */
static int sfg_complement(Elf *elf, int abi, const struct sfg_text *text, struct sfg_text *own,
			  struct sfg_text *rest, struct sfg_stats *st, int *own_error)
{
	struct sfu_sframe_section sec;
	u32 i;
	int ret;

	ret = sfg_elf_own_sframe(elf, abi, &sec);
	if (ret < 0) {
		*own_error = ret;
		return -SFG_E_OWN_SFRAME;
	}
	if (!ret)
		return 0;
	st->own_sframe = true;
	st->own_version = sec.version;
	st->own_fdes = sec.num_fdes;
	st->own_fres = sec.num_fres;
	st->own_bytes = sec.fre_end;
	ret = sfg_own_ranges(&sec, own);
	if (!ret)
		ret = sfg_text_subtract(text, own, rest);
	if (ret)
		return ret;
	for (i = 0; i < own->n; i++)
		st->own_covered_bytes += sfg_text_bytes_in(text, own->lo[i], own->hi[i]);
	return 0;
}

/*
 * The CFI's FDEs, then the pclntab's rows (Go programs), each through an
 * emitter of its own, in one section.  pclntab wins where both describe
 * a function: the CFI is walked as if the Go text were the own SFrame
 * section's, so that no FDE sharing a byte with it is used.  @own: the
 * own section's ranges or NULL; @rest: the text less @own.
 */
static int sfg_convert_all(Elf *elf, const struct sfg_arch *arch, struct sfg_go *go, bool cfi,
			   const struct sfg_text *text, const struct sfg_text *own,
			   const struct sfg_text *rest, u64 vaddr, const struct sfg_fns *saves,
			   struct sfg_output *out, struct sfg_stats *st)
{
	struct sfg_text skip = { 0 }, left = { 0 };
	struct sfg_output c = { 0 }, g = { 0 };
	struct sfg_arch go_arch = *arch;
	struct sfg_emit *em = NULL;
	int err = 0;

	if (go) {
		err = sfg_go_ranges(go, own, &skip);
		if (!err)
			err = sfg_text_subtract(text, &skip, &left);
	}
	if (!err && cfi) {
		em = sfg_emit_new(arch, vaddr);
		if (em && saves)
			sfg_emit_saves_only(em, saves->fns, saves->n);
		err = em ? sfg_cfi_convert(elf, arch, go ? &left : rest, go ? &skip : own, em, st) :
			   -SFG_E_NOMEM;
		if (!err)
			err = sfg_emit_finish(em, &c);
		sfg_emit_free(em);
	}
	if (!err && go) {
		/* Alone, Go rows need no rbx pairs: without the flag, rbx is lost. */
		if (!c.stats.fdes)
			go_arch.saved_reg = 0;
		sfg_go_arch(go, &go_arch);
		em = sfg_emit_new(&go_arch, vaddr);
		if (em && saves)
			sfg_emit_saves_only(em, saves->fns, saves->n);
		err = em ? sfg_go_convert(go, rest, own, em, st) : -SFG_E_NOMEM;
		if (!err)
			err = sfg_emit_finish(em, &g);
		sfg_emit_free(em);
		g.abi = arch->abi;
		c.abi = arch->abi;
		st->go_fdes = g.stats.fdes;
		st->go_fres = g.stats.fres;
	}
	st->cfa_on_saved_reg = c.stats.cfa_on_saved_reg + g.stats.cfa_on_saved_reg;
	st->saves_fdes = c.stats.saves_fdes + g.stats.saves_fdes;
	st->no_saves_fdes = c.stats.no_saves_fdes + g.stats.no_saves_fdes;
	st->shared_fdes = c.stats.shared_fdes + g.stats.shared_fdes;
	if (!err && go && c.stats.fdes) {
		err = sfg_section_merge(&c, &g, vaddr, out);
	} else if (!err) {
		*out = go ? g : c;
		if (go)
			g.buf = NULL;
		else
			c.buf = NULL;
	}
	sfg_output_free(&c);
	sfg_output_free(&g);
	free(skip.lo);
	free(skip.hi);
	free(left.lo);
	free(left.hi);
	return err;
}

#define SFG_R_X86_64_IRELATIVE	37

static int sfg_u64_cmp(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return (x > y) - (x < y);
}

static int sfg_fns_add(struct sfg_fns *f, size_t *cap, u64 addr)
{
	u64 *v;

	if (f->n == *cap) {
		*cap = *cap ? 2 * *cap : 64;
		v = realloc(f->fns, *cap * sizeof(*v));
		if (!v)
			return -SFG_E_NOMEM;
		f->fns = v;
	}
	f->fns[f->n++] = addr;
	return 0;
}

/*
 * The IFUNC resolvers of an x86_64 file, sorted and without repeats: the
 * values of its STT_GNU_IFUNC symbols (.dynsym, .symtab) and the addends
 * of its R_X86_64_IRELATIVE relocations (local ones have no symbol).
 * ld.so's lazy binding calls them from _dl_fixup(), under the trampoline
 * whose CFA is rbx + 32: the functions of another file that can run above
 * that frame.
 */
static int sfg_ifunc_resolvers(Elf *elf, struct sfg_fns *f)
{
	size_t cap = 0, i, j;
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	GElf_Rela r;
	GElf_Sym s;
	int err = 0;

	f->fns = NULL;
	f->n = 0;
	while (!err && (scn = elf_nextscn(elf, scn))) {
		Elf_Data *data;

		if (!gelf_getshdr(scn, &sh) || !sh.sh_entsize)
			continue;
		if (sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM && sh.sh_type != SHT_RELA)
			continue;
		data = elf_getdata(scn, NULL);
		for (i = 0; !err && data && i < sh.sh_size / sh.sh_entsize; i++) {
			if (sh.sh_type == SHT_RELA) {
				if (!gelf_getrela(data, i, &r))
					break;
				if (GELF_R_TYPE(r.r_info) == SFG_R_X86_64_IRELATIVE)
					err = sfg_fns_add(f, &cap, (u64)r.r_addend);
				continue;
			}
			if (!gelf_getsym(data, i, &s))
				break;
			if (GELF_ST_TYPE(s.st_info) == STT_GNU_IFUNC && s.st_shndx != SHN_UNDEF)
				err = sfg_fns_add(f, &cap, s.st_value);
		}
	}
	if (err) {
		free(f->fns);
		f->fns = NULL;
		f->n = 0;
		return err;
	}
	if (f->n)
		qsort(f->fns, f->n, sizeof(*f->fns), sfg_u64_cmp);
	for (i = j = 0; i < f->n; i++)
		if (!j || f->fns[j - 1] != f->fns[i])
			f->fns[j++] = f->fns[i];
	f->n = j;
	return 0;
}

struct sfg_image {
	const u8 *p;
	size_t size;
};

static int sfg_image_read(void *ctx, u64 off, void *buf, size_t len)
{
	const struct sfg_image *m = ctx;

	if (off > m->size || len > m->size - off)
		return -EIO;
	memcpy(buf, m->p + off, len);
	return 0;
}

/**
 * sfg_elf_digest() - a content digest of @elf (include/uapi/sframe_sidecar.h)
 * @elf: the file
 * @kind: SFU_SIDECAR_DIGEST_CFI or SFU_SIDECAR_DIGEST_FILE
 * @out: SFU_SIDECAR_DIGEST_LEN bytes
 *
 * Return: 0, sfu_elf_digest()'s negative errno, or -ENOMEM.
 */
int sfg_elf_digest(Elf *elf, u32 kind, u8 *out)
{
	struct sfg_image m;
	struct sfu_digest_src src = { .read = sfg_image_read, .ctx = &m };
	int err;

	m.p = (const u8 *)elf_rawfile(elf, &m.size);
	if (!m.p)
		return -EIO;
	src.size = m.size;
	src.buf = malloc(SFU_DIGEST_CHUNK);
	if (!src.buf)
		return -ENOMEM;
	err = sfu_elf_digest(&src, kind, out);
	free(src.buf);
	return err;
}

/**
 * sfg_sidecar_name() - a sidecar's file name in its build-id subdirectory
 * @id: the build-id, in hex (its first two digits name the subdirectory)
 * @digest: the digest the sidecar is bound to, for the name of a second
 *	sidecar of that build-id; NULL for the build-id's own name
 * @name: filled in: "<rest>.sframe" or "<rest>.<32 hex>.sframe"
 * @len: bytes of @name
 *
 * Return: 0, or -ENAMETOOLONG.
 */
int sfg_sidecar_name(const char *id, const u8 *digest, char *name, size_t len)
{
	size_t n = snprintf(name, len, "%s", id + 2);
	unsigned int i;

	for (i = 0; digest && i < SFU_SIDECAR_NAME_DIGEST && n < len; i++)
		n += snprintf(name + n, len - n, "%s%02x", i ? "" : ".", digest[i]);
	if (n < len)
		n += snprintf(name + n, len - n, ".sframe");
	return n < len ? 0 : -ENAMETOOLONG;
}

/**
 * sfg_sidecar_bound_to() - is a sidecar on disk bound to this content
 * @dir: a directory file descriptor
 * @name: the sidecar's name in @dir (not followed if a link)
 * @kind: the digest's kind (SFU_SIDECAR_DIGEST_*)
 * @digest: SFU_SIDECAR_DIGEST_LEN bytes
 *
 * Return: true if @name is a sidecar whose header names that digest.
 */
bool sfg_sidecar_bound_to(int dir, const char *name, u32 kind, const u8 *digest)
{
	int fd = openat(dir, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	struct sfu_sidecar_header hdr;
	bool same;

	if (fd < 0)
		return false;
	same = pread(fd, &hdr, sizeof(hdr), 0) == sizeof(hdr) &&
	       !memcmp(hdr.magic, SFU_SIDECAR_MAGIC, sizeof(hdr.magic)) &&
	       hdr.digest_kind == kind && !memcmp(hdr.digest, digest, sizeof(hdr.digest));
	close(fd);
	return same;
}

/*
 * The content digest that binds the sidecar to @elf: of the whole file
 * where @whole (rows from a Go pclntab, which depend on its code too) or
 * where the file has no section headers, else of its CFI and layout.
 */
static int sfg_digest(Elf *elf, bool whole, struct sfg_output *out)
{
	int err;

	out->digest_kind = whole ? SFU_SIDECAR_DIGEST_FILE : SFU_SIDECAR_DIGEST_CFI;
	err = sfg_elf_digest(elf, out->digest_kind, out->digest);
	if (err == -ENOEXEC && !whole) {
		out->digest_kind = SFU_SIDECAR_DIGEST_FILE;
		err = sfg_elf_digest(elf, out->digest_kind, out->digest);
	}
	if (err == -ENOMEM)
		return -SFG_E_NOMEM;
	return err ? -SFG_E_DIGEST : 0;
}

/**
 * sfg_convert() - make an SFrame V3 section from the CFI of @elf
 * @elf: an ELF64 little-endian x86_64 or aarch64 file
 * @vaddr: the address the section is placed at (0 for a sidecar)
 * @flags: SFG_COMPLEMENT: leave out every FDE that shares a byte with an
 *         FDE of the file's own SFrame section (sfg_elf_own_sframe()), for
 *         a sidecar the module consults where that section has no FDE;
 *         SFG_NO_SAVED_REGS: an x86_64 section without the rbx saves
 *         (SFRAME_F_SFU_SAVED_REGS), as before the extension;
 *         SFG_SAVED_REGS: every x86_64 function lists them; neither: a
 *         file with a CFA based on rbx lists them in every function, as
 *         its own functions may run above such a frame (ld.so, static
 *         programs), another its IFUNC resolvers only (ld.so's lazy
 *         binding calls them under its trampoline), and a file with
 *         neither has no flag: found by a first pass without saves;
 *         SFG_NO_CFA_ADDEND: rows of a CFA *(reg + off) + K left
 *         uncovered (no SFRAME_F_SFU_CFA_ADDEND), as before that one
 * @out: receives the section and the figures; free with sfg_output_free()
 *
 * A Go program's functions get their rows from its pclntab instead
 * (sframe_gen_go.c), merged with the CFI's in address order.  (The steps
 * and their cleanup make this a little over 60 lines.)
 *
 * Return: 0 or -SFG_E_xxx (see sfg_strerror(); with -SFG_E_OWN_SFRAME,
 * @out->own_error says what the decoder found wrong).
 */
int sfg_convert(Elf *elf, u64 vaddr, unsigned int flags, struct sfg_output *out)
{
	struct sfg_text text = { 0 }, own = { 0 }, rest = { 0 };
	struct sfg_fns resolvers = { 0 };
	struct sfg_arch arch_copy;
	struct sfg_stats st0;
	bool auto_saves;
	const struct sfg_arch *arch;
	struct sfg_stats st = { 0 };
	struct sfg_go *go = NULL;
	int abi, err, own_error = 0;
	bool cfi;
	u64 sum;
	int i;

	memset(out, 0, sizeof(*out));
	abi = sfg_elf_machine_abi(elf);
	if (abi < 0)
		return abi;
	arch_copy = abi == SFRAME_ABI_AMD64_ENDIAN_LITTLE ? sfg_amd64 : sfg_aarch64;
	if (flags & SFG_NO_SAVED_REGS)
		arch_copy.saved_reg = 0;
	/* First without saves: whether a CFA is based on rbx decides. */
	auto_saves = arch_copy.saved_reg && !(flags & SFG_SAVED_REGS);
	if (auto_saves)
		arch_copy.saved_reg = 0;
	if (flags & SFG_NO_CFA_ADDEND)
		arch_copy.cfa_addend = false;
	arch = &arch_copy;

	err = sfg_text_ranges(elf, &text, &st.text_bytes);
	if (err)
		goto out;
	err = sfg_go_load(elf, &go);
	if (err < 0)
		goto out;
	/* Without CFI or a Go pclntab there is nothing to complement. */
	cfi = sfg_find_section(elf, ".eh_frame") || sfg_find_section(elf, ".debug_frame");
	if (!cfi && !go) {
		err = -SFG_E_NO_CFI;
		goto out;
	}
	if (flags & SFG_COMPLEMENT) {
		err = sfg_complement(elf, abi, &text, &own, &rest, &st, &own_error);
		if (err)
			goto out;
	}
	st0 = st;
	err = sfg_convert_all(elf, arch, go, cfi, &text, st.own_sframe ? &own : NULL,
			      st.own_sframe ? &rest : &text, vaddr, NULL, out, &st);
	if (!err && auto_saves && !st.cfa_on_saved_reg)
		err = sfg_ifunc_resolvers(elf, &resolvers);
	if (!err && auto_saves && (st.cfa_on_saved_reg || resolvers.n)) {
		sfg_output_free(out);
		st = st0;
		st.ifunc_resolvers = resolvers.n;
		arch_copy.saved_reg = arch_copy.tracked_reg;
		err = sfg_convert_all(elf, arch, go, cfi, &text, st.own_sframe ? &own : NULL,
				      st.own_sframe ? &rest : &text, vaddr,
				      resolvers.n ? &resolvers : NULL, out, &st);
	}
	if (!err) {
		err = sfg_digest(elf, go, out);
		if (err)
			sfg_output_free(out);
	}
	if (err)
		goto out;

	/* What no FDE reached. */
	sum = st.covered_bytes + st.own_covered_bytes;
	for (i = 0; i < SFG_REASON_NR; i++)
		sum += st.uncovered[i];
	st.uncovered[SFG_NO_CFI] += st.text_bytes > sum ? st.text_bytes - sum : 0;
	st.fdes = out->stats.fdes;
	st.fres = out->stats.fres;
	st.sframe_bytes = out->stats.sframe_bytes;
	out->stats = st;
	out->abi = arch->abi;
out:
	out->own_error = own_error;
	free(resolvers.fns);
	sfg_go_free(go);
	free(text.lo);
	free(text.hi);
	free(own.lo);
	free(own.hi);
	free(rest.lo);
	free(rest.hi);
	return err;
}

/**
 * sfg_output_free() - release a converted section
 * @out: from sfg_convert()
 */
void sfg_output_free(struct sfg_output *out)
{
	free(out->buf);
	out->buf = NULL;
	out->len = 0;
}
