// SPDX-License-Identifier: GPL-2.0
/*
 * sframe-gen, what it reads of an ELF file besides the unwind tables:
 * which ABI the file is for, its sections by name, where its text is, its
 * own SFrame section, its build ID, its IFUNC resolvers and its content
 * digest.  Everything works on an Elf handle, so a file and a buffer
 * (elf_memory(), as the fuzzer and --vdso use it) go the same way.
 * Nothing here calls into another file of sframe-gen but the helpers of
 * sframe_gen_util.c.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gelf.h>

#include "sframe/sframe.h"
#include "sframe_unwind/elf_digest.h"
#include "sframe_gen_internal.h"

#ifndef EM_AARCH64
#define EM_AARCH64 183
#endif

#define SFG_NT_GNU_BUILD_ID	3
#define SFG_MAX_BUILD_ID	64	/* bytes; SHA-1 ids are 20 */
#define SFG_R_X86_64_IRELATIVE	37

/**
 * sfg_find_section() - a section with file contents, by name
 * @elf: the file
 * @name: ".eh_frame", ...
 *
 * Return: the first section of that name that is not SHT_NOBITS, or NULL.
 */
Elf_Scn *sfg_find_section(Elf *elf, const char *name)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	GElf_Shdr sh;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		const char *n;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS)
			continue;
		n = elf_strptr(elf, shstrndx, sh.sh_name);
		if (n && !strcmp(n, name))
			return scn;
	}
	return NULL;
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

/* The SHF_EXECINSTR sections' ranges, into *@r (grown); *@n of them. */
static int sfg_exec_sections(Elf *elf, struct sfg_range **r, size_t *n, size_t *cap)
{
	Elf_Scn *scn = NULL;
	struct sfg_range *nr;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(elf, scn))) {
		u64 lo, hi;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS ||
		    (sh.sh_flags & (SHF_ALLOC | SHF_EXECINSTR)) != (SHF_ALLOC | SHF_EXECINSTR))
			continue;
		lo = sh.sh_addr;
		hi = lo + sh.sh_size;
		if (hi <= lo)
			continue;
		if (*n == *cap) {
			nr = realloc(*r, 2 * *cap * sizeof(**r));
			if (!nr)
				return -SFG_E_NOMEM;
			*r = nr;
			*cap *= 2;
		}
		(*r)[*n].lo = lo;
		(*r)[*n].hi = hi;
		(*n)++;
	}
	return 0;
}

/* The PF_X segments' ranges, into @r: at most @cap of them; *@n of them. */
static void sfg_exec_segments(Elf *elf, struct sfg_range *r, size_t *n, size_t cap)
{
	size_t i, phnum;
	GElf_Phdr ph;

	if (elf_getphdrnum(elf, &phnum))
		return;
	for (i = 0; i < phnum && *n < cap; i++) {
		if (!gelf_getphdr(elf, i, &ph) || ph.p_type != PT_LOAD ||
		    !(ph.p_flags & PF_X) || ph.p_vaddr + ph.p_memsz <= ph.p_vaddr)
			continue;
		r[*n].lo = ph.p_vaddr;
		r[*n].hi = ph.p_vaddr + ph.p_memsz;
		(*n)++;
	}
}

/**
 * sfg_text_ranges() - the executable address ranges of a file
 * @elf: the file
 * @text: set to its SHF_EXECINSTR sections, or PF_X segments when it has
 *        none, sorted and merged; free its arrays
 * @bytes: set to the bytes they hold
 *
 * Return: 0 or -SFG_E_NOMEM.
 */
int sfg_text_ranges(Elf *elf, struct sfg_text *text, u64 *bytes)
{
	size_t n = 0, cap = 16, i;
	struct sfg_range *r;
	int err;

	r = malloc(cap * sizeof(*r));
	if (!r)
		return -SFG_E_NOMEM;
	err = sfg_exec_sections(elf, &r, &n, &cap);
	if (!err && !n)
		sfg_exec_segments(elf, r, &n, cap);
	if (!err)
		err = sfg_text_merge(r, n, text);
	free(r);
	if (err)
		return err;
	*bytes = 0;
	for (i = 0; i < text->n; i++)
		*bytes += text->hi[i] - text->lo[i];
	return 0;
}

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

/* Add the IFUNC symbols' values or IRELATIVE addends of one section to @f. */
static int sfg_ifunc_section(Elf_Scn *scn, const GElf_Shdr *sh, struct sfg_fns *f, size_t *cap)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	GElf_Rela r;
	GElf_Sym s;
	size_t i;
	int err = 0;

	for (i = 0; !err && data && i < sh->sh_size / sh->sh_entsize; i++) {
		if (sh->sh_type == SHT_RELA) {
			if (!gelf_getrela(data, i, &r))
				break;
			if (GELF_R_TYPE(r.r_info) == SFG_R_X86_64_IRELATIVE)
				err = sfg_fns_add(f, cap, (u64)r.r_addend);
			continue;
		}
		if (!gelf_getsym(data, i, &s))
			break;
		if (GELF_ST_TYPE(s.st_info) == STT_GNU_IFUNC && s.st_shndx != SHN_UNDEF)
			err = sfg_fns_add(f, cap, s.st_value);
	}
	return err;
}

/**
 * sfg_ifunc_resolvers() - the IFUNC resolvers of an x86_64 file
 * @elf: the file
 * @f: set to them, sorted and without repeats; free @f->fns
 *
 * The values of its STT_GNU_IFUNC symbols (.dynsym, .symtab) and the
 * addends of its R_X86_64_IRELATIVE relocations (local ones have no
 * symbol).  ld.so's lazy binding calls them from _dl_fixup(), under the
 * trampoline whose CFA is rbx + 32: the functions of another file that can
 * run above that frame.
 *
 * Return: 0 or -SFG_E_NOMEM.
 */
int sfg_ifunc_resolvers(Elf *elf, struct sfg_fns *f)
{
	size_t cap = 0, i, j;
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	int err = 0;

	f->fns = NULL;
	f->n = 0;
	while (!err && (scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, &sh) || !sh.sh_entsize)
			continue;
		if (sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM && sh.sh_type != SHT_RELA)
			continue;
		err = sfg_ifunc_section(scn, &sh, f, &cap);
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
