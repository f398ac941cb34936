// SPDX-License-Identifier: GPL-2.0
/*
 * sframe-gen --publish: a sidecar wrapped in a small ELF file that an
 * unmodified debuginfod (elfutils 0.188 and later) indexes as the
 * *debuginfo* of the sidecar's build-id and serves by it, whole
 * (/buildid/ID/debuginfo) or as the one section
 * (/buildid/ID/section/.sframe_unwind.sidecar).
 *
 * debuginfod's scan (elf_classify() in debuginfod.cxx) takes the build-id
 * from the file's SHT_NOTE sections (dwelf_elf_gnu_build_id()), calls an
 * ET_EXEC or ET_DYN file an executable only if one of its sections is
 * SHT_PROGBITS with SHF_ALLOC, and debuginfo if a section is named
 * .debug_* (or .zdebug_*), or if it has an SHT_SYMTAB and no section that
 * is allocated and has file bytes other than notes (what "strip -s"
 * leaves of a separate debuginfo file).  The file written here is the
 * last kind:
 *
 *   [1] .note.gnu.build-id      SHT_NOTE, SHF_ALLOC, the original's note
 *   [2] .sframe_unwind.sidecar  SHT_PROGBITS, no flags: the sidecar file
 *   [3] .symtab                 SHT_SYMTAB, the null symbol only
 *   [4] .strtab, [5] .shstrtab
 *
 * with one PT_NOTE program header over the note, and the original's
 * machine and type.  No .debug_* section, which tools would take for
 * DWARF; nothing allocated but the note, so nothing calls it an
 * executable.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gelf.h>
#include <linux/kernel.h>

#include "sframe_gen.h"

#define SFG_NT_GNU_BUILD_ID	3

enum {
	SCN_NOTE = 1,
	SCN_SIDECAR,
	SCN_SYMTAB,
	SCN_STRTAB,
	SCN_SHSTRTAB,
};

/* The section names, NUL-separated, and where each starts. */
static const char sfg_shstrtab[] =
	"\0.note.gnu.build-id\0" SFG_PUBLISH_SECTION "\0.symtab\0.strtab\0.shstrtab";
static const size_t sfg_shname[] = {
	[SCN_NOTE]	= 1,
	[SCN_SIDECAR]	= 1 + sizeof(".note.gnu.build-id"),
	[SCN_SYMTAB]	= 1 + sizeof(".note.gnu.build-id") + sizeof(SFG_PUBLISH_SECTION),
	[SCN_STRTAB]	= 1 + sizeof(".note.gnu.build-id") + sizeof(SFG_PUBLISH_SECTION) +
			  sizeof(".symtab"),
	[SCN_SHSTRTAB]	= 1 + sizeof(".note.gnu.build-id") + sizeof(SFG_PUBLISH_SECTION) +
			  sizeof(".symtab") + sizeof(".strtab"),
};

static void put_le32(u8 *p, u32 v)
{
	p[0] = v;
	p[1] = v >> 8;
	p[2] = v >> 16;
	p[3] = v >> 24;
}

/* A section of type @type, flags @flags, holding @len bytes at @buf. */
static Elf_Scn *new_section(Elf *elf, u32 name, u32 type, u64 flags, void *buf, size_t len,
			    Elf_Type dtype, size_t align)
{
	Elf_Scn *scn = elf_newscn(elf);
	Elf_Data *d;
	GElf_Shdr sh;

	if (!scn || !gelf_getshdr(scn, &sh))
		return NULL;
	d = elf_newdata(scn);
	if (!d)
		return NULL;
	d->d_buf = buf;
	d->d_size = len;
	d->d_type = dtype;
	d->d_align = align;
	d->d_version = EV_CURRENT;
	sh.sh_name = name;
	sh.sh_type = type;
	sh.sh_flags = flags;
	sh.sh_addralign = align;
	return gelf_update_shdr(scn, &sh) ? scn : NULL;
}

/* The NT_GNU_BUILD_ID note of @hdr's build-id into @note, zeroed; Return: its bytes. */
static size_t build_id_note(u8 *note, const struct sfu_sidecar_header *hdr)
{
	size_t desc = (hdr->build_id_len + 3) & ~3U;

	put_le32(note, 4);
	put_le32(note + 4, hdr->build_id_len);
	put_le32(note + 8, SFG_NT_GNU_BUILD_ID);
	memcpy(note + 12, "GNU", 4);
	memcpy(note + 16, hdr->build_id, hdr->build_id_len);
	return 16 + desc;
}

/* The ELF header, of @src's type and machine, after the program header table. */
static bool new_ehdr(Elf *elf, const GElf_Ehdr *src)
{
	GElf_Ehdr eh;

	/* The header after the program header table: it counts its entries. */
	if (!gelf_newehdr(elf, ELFCLASS64) || !gelf_newphdr(elf, 1) || !gelf_getehdr(elf, &eh))
		return false;
	eh.e_ident[EI_DATA] = ELFDATA2LSB;
	eh.e_ident[EI_VERSION] = EV_CURRENT;
	eh.e_ident[EI_OSABI] = ELFOSABI_NONE;
	eh.e_type = src->e_type;
	eh.e_machine = src->e_machine;
	eh.e_version = EV_CURRENT;
	eh.e_shstrndx = SCN_SHSTRTAB;
	return gelf_update_ehdr(elf, &eh);
}

/*
 * The sections: the note of @note_len bytes, the sidecar, an empty symbol
 * table and its strings, the section names.  Return: the note's section,
 * or NULL.
 */
static Elf_Scn *new_sections(Elf *elf, u8 *note, size_t note_len, u8 *sidecar, u64 len)
{
	static Elf64_Sym null_sym;
	static char strtab[1];
	Elf_Scn *scn, *note_scn;
	GElf_Shdr sh;

	note_scn = new_section(elf, sfg_shname[SCN_NOTE], SHT_NOTE, SHF_ALLOC, note, note_len,
			       ELF_T_BYTE, 4);
	if (!note_scn ||
	    !new_section(elf, sfg_shname[SCN_SIDECAR], SHT_PROGBITS, 0, sidecar, len, ELF_T_BYTE,
			 8))
		return NULL;
	scn = new_section(elf, sfg_shname[SCN_SYMTAB], SHT_SYMTAB, 0, &null_sym, sizeof(null_sym),
			  ELF_T_SYM, 8);
	if (!scn || !gelf_getshdr(scn, &sh))
		return NULL;
	sh.sh_entsize = sizeof(null_sym);
	sh.sh_link = SCN_STRTAB;
	sh.sh_info = 1;
	if (!gelf_update_shdr(scn, &sh) ||
	    !new_section(elf, sfg_shname[SCN_STRTAB], SHT_STRTAB, 0, strtab, sizeof(strtab),
			 ELF_T_BYTE, 1) ||
	    !new_section(elf, sfg_shname[SCN_SHSTRTAB], SHT_STRTAB, 0, (void *)sfg_shstrtab,
			 sizeof(sfg_shstrtab), ELF_T_BYTE, 1))
		return NULL;
	return note_scn;
}

/* The file's sections and program header, laid out by libelf, written to @fd. */
static int write_image(int fd, const GElf_Ehdr *src, const struct sfu_sidecar_header *hdr,
		       u8 *sidecar, u64 len)
{
	u8 note[12 + 4 + SFU_SIDECAR_BUILD_ID_MAX];
	Elf_Scn *note_scn;
	size_t note_len;
	GElf_Phdr ph;
	GElf_Shdr sh;
	int err = -EIO;
	Elf *elf;

	memset(note, 0, sizeof(note));
	note_len = build_id_note(note, hdr);
	elf = elf_begin(fd, ELF_C_WRITE, NULL);
	if (!elf)
		return -EIO;
	if (!new_ehdr(elf, src))
		goto out;
	note_scn = new_sections(elf, note, note_len, sidecar, len);
	/* Offsets first; then the PT_NOTE over the note where it landed. */
	if (!note_scn || elf_update(elf, ELF_C_NULL) < 0 || !gelf_getshdr(note_scn, &sh))
		goto out;
	memset(&ph, 0, sizeof(ph));
	ph.p_type = PT_NOTE;
	ph.p_flags = PF_R;
	ph.p_offset = sh.sh_offset;
	ph.p_filesz = sh.sh_size;
	ph.p_memsz = sh.sh_size;
	ph.p_align = 4;
	if (!gelf_update_phdr(elf, 0, &ph) || elf_update(elf, ELF_C_WRITE) < 0)
		goto out;
	err = 0;
out:
	elf_end(elf);
	return err;
}

/**
 * sfg_publish_elf() - a sidecar as a file debuginfod serves as debuginfo
 * @src: the ELF file the sidecar was made from (its machine and type)
 * @sidecar: the sidecar: struct sfu_sidecar_header, then the section
 * @len: bytes of @sidecar
 * @out: set to a malloc'd image of the file
 * @out_len: set to its bytes
 *
 * The file carries the build-id of the sidecar's header as its own
 * NT_GNU_BUILD_ID note and the sidecar, byte for byte, as the section
 * SFG_PUBLISH_SECTION; the same sidecar makes the same bytes.
 *
 * Return: 0, or -errno.
 */
int sfg_publish_elf(Elf *src, const u8 *sidecar, u64 len, u8 **out, u64 *out_len)
{
	struct sfu_sidecar_header hdr;
	GElf_Ehdr eh;
	struct stat st;
	u8 *copy, *img = NULL;
	int fd, err;

	if (len < sizeof(hdr) || !gelf_getehdr(src, &eh))
		return -EINVAL;
	memcpy(&hdr, sidecar, sizeof(hdr));
	if (!hdr.build_id_len || hdr.build_id_len > SFU_SIDECAR_BUILD_ID_MAX)
		return -EINVAL;
	/* libelf takes the buffers as writable. */
	copy = malloc(len);
	if (!copy)
		return -ENOMEM;
	memcpy(copy, sidecar, len);
	fd = memfd_create("sframe-gen-publish", MFD_CLOEXEC);
	if (fd < 0) {
		free(copy);
		return -errno;
	}
	err = write_image(fd, &eh, &hdr, copy, len);
	if (!err && fstat(fd, &st))
		err = -errno;
	if (!err) {
		img = malloc(st.st_size ?: 1);
		if (!img)
			err = -ENOMEM;
		else if (pread(fd, img, st.st_size, 0) != st.st_size)
			err = -EIO;
	}
	close(fd);
	free(copy);
	if (err) {
		free(img);
		return err;
	}
	*out = img;
	*out_len = st.st_size;
	return 0;
}

/**
 * sfg_published_sidecar() - the sidecar a file of sfg_publish_elf() carries
 * @elf: the file
 * @buf: set to the bytes of its SFG_PUBLISH_SECTION, which @elf owns
 * @len: set to their number
 *
 * Return: 0, or -ENOENT if @elf has no such section with file bytes.
 */
int sfg_published_sidecar(Elf *elf, const u8 **buf, size_t *len)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	Elf_Data *d;
	GElf_Shdr sh;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return -ENOENT;
	while ((scn = elf_nextscn(elf, scn))) {
		const char *name;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS)
			continue;
		name = elf_strptr(elf, shstrndx, sh.sh_name);
		if (!name || strcmp(name, SFG_PUBLISH_SECTION))
			continue;
		d = elf_rawdata(scn, NULL);
		if (!d || !d->d_buf)
			return -ENOENT;
		*buf = d->d_buf;
		*len = d->d_size;
		return 0;
	}
	return -ENOENT;
}
