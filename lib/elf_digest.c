// SPDX-License-Identifier: GPL-2.0
/*
 * The content digest of a file that binds a sidecar to it, as
 * include/uapi/sframe_sidecar.h defines it: BLAKE2s-256 over the whole
 * file (SFU_SIDECAR_DIGEST_FILE) or over what rows made from its DWARF CFI
 * are a function of (SFU_SIDECAR_DIGEST_CFI).  One source for the module
 * (registry/sidecar.c, which reads the file with kernel_read()) and the
 * tools that write sidecars (which read it with pread()); hostile files
 * get an error, never a read outside them.
 */
#include <linux/errno.h>
#include <linux/export.h>
#include <linux/kernel.h>
#include <linux/string.h>
#include <linux/types.h>

#include "uapi/sframe_sidecar.h"
#include "sframe_unwind/compat/blake2s.h"
#include "sframe_unwind/compat/export.h"
#include "sframe_unwind/elf_digest.h"

#define SFU_DG_EHDR		64	/* ELF64 header */
#define SFU_DG_PHDR		56	/* ELF64 program header */
#define SFU_DG_SHDR		64	/* ELF64 section header */
#define SFU_DG_MAX_SHNUM	0xff00	/* below SHN_LORESERVE: no extended numbering */
#define SFU_DG_NAME_MAX		16	/* bytes of a name compared, NUL included */
#define SFU_DG_PT_GNU_EH_FRAME	0x6474e550
#define SFU_DG_PT_GNU_SFRAME	0x6474e554
#define SFU_DG_SHT_NOBITS	8

static const char *const sfu_dg_sections[] = {
	".eh_frame", ".eh_frame_hdr", ".debug_frame", ".sframe", ".plt", ".iplt",
};

static u64 sfu_dg_le(const u8 *p, unsigned int n)
{
	u64 v = 0;

	while (n--)
		v = v << 8 | p[n];
	return v;
}

/* Bytes [@off, @off + @len) of the file, through the scratch buffer. */
static int sfu_dg_range(const struct sfu_digest_src *src, struct sfu_blake2s_ctx *b, u64 off,
			u64 len)
{
	int err;

	if (off > src->size || len > src->size - off)
		return -ENOEXEC;
	while (len) {
		size_t n = min_t(u64, len, SFU_DIGEST_CHUNK);

		err = src->read(src->ctx, off, src->buf, n);
		if (err)
			return err;
		blake2s_update(b, src->buf, n);
		off += n;
		len -= n;
	}
	return 0;
}

/* The same, preceded by its length as 8 bytes (a digest that fails is dropped whole). */
static int sfu_dg_counted(const struct sfu_digest_src *src, struct sfu_blake2s_ctx *b, u64 off,
			  u64 len)
{
	u8 le[8];
	int i;

	for (i = 0; i < 8; i++)
		le[i] = len >> (8 * i);
	blake2s_update(b, le, sizeof(le));
	return len ? sfu_dg_range(src, b, off, len) : 0;
}

/*
 * Whether section @name (SFU_DG_NAME_MAX bytes read, maybe unterminated)
 * is one to hash and the first of its name (bit n of @seen: name n).
 */
static bool sfu_dg_wanted(const char *name, unsigned int *seen)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(sfu_dg_sections); i++) {
		if (strncmp(name, sfu_dg_sections[i], SFU_DG_NAME_MAX))
			continue;
		if (*seen & (1U << i))
			return false;
		*seen |= (1U << i);
		return true;
	}
	return false;
}

/* What the ELF header says of the tables the CFI digest covers. */
struct sfu_dg_elf {
	u8 eh[SFU_DG_EHDR];
	u64 phoff, shoff, stroff, strsize;
	unsigned int phnum, shnum;
};

/* The header and the section name table's place, each checked against the file. */
static int sfu_dg_header(const struct sfu_digest_src *src, struct sfu_dg_elf *e)
{
	u8 *eh = e->eh, sh[SFU_DG_SHDR];
	unsigned int strndx;
	int err;

	if (src->size < sizeof(e->eh))
		return -ENOEXEC;
	err = src->read(src->ctx, 0, eh, sizeof(e->eh));
	if (err)
		return err;
	/* ELF64, little-endian, current version. */
	if (memcmp(eh, "\177ELF", 4) || eh[4] != 2 || eh[5] != 1 || eh[6] != 1)
		return -ENOEXEC;
	e->phoff = sfu_dg_le(eh + 32, 8);
	e->shoff = sfu_dg_le(eh + 40, 8);
	e->phnum = sfu_dg_le(eh + 56, 2);
	e->shnum = sfu_dg_le(eh + 60, 2);
	strndx = sfu_dg_le(eh + 62, 2);
	if ((e->phnum && sfu_dg_le(eh + 54, 2) != SFU_DG_PHDR) ||
	    sfu_dg_le(eh + 58, 2) != SFU_DG_SHDR || !e->shnum || e->shnum > SFU_DG_MAX_SHNUM ||
	    strndx >= e->shnum)
		return -ENOEXEC;
	if (e->shoff > src->size || (u64)e->shnum * SFU_DG_SHDR > src->size - e->shoff ||
	    (e->phnum && (e->phoff > src->size ||
			  (u64)e->phnum * SFU_DG_PHDR > src->size - e->phoff)))
		return -ENOEXEC;
	err = src->read(src->ctx, e->shoff + (u64)strndx * SFU_DG_SHDR, sh, sizeof(sh));
	if (err)
		return err;
	e->stroff = sfu_dg_le(sh + 24, 8);
	e->strsize = sfu_dg_le(sh + 32, 8);
	return 0;
}

/*
 * The first section of each name sfu_dg_sections[] lists (bit n of @seen:
 * name n), counted into @total, which may not pass twice the file's size.
 */
static int sfu_dg_sections_of(const struct sfu_digest_src *src, struct sfu_blake2s_ctx *b,
			      const struct sfu_dg_elf *e, unsigned int *seen, u64 *total)
{
	char name[SFU_DG_NAME_MAX];
	u8 sh[SFU_DG_SHDR];
	unsigned int i;
	u32 sh_name;
	u64 size;
	int err = 0;

	for (i = 0; !err && i < e->shnum; i++) {
		err = src->read(src->ctx, e->shoff + (u64)i * SFU_DG_SHDR, sh, sizeof(sh));
		if (err)
			break;
		sh_name = sfu_dg_le(sh, 4);
		if (sfu_dg_le(sh + 4, 4) == SFU_DG_SHT_NOBITS || sh_name >= e->strsize)
			continue;
		memset(name, 0, sizeof(name));
		err = src->read(src->ctx, e->stroff + sh_name, name,
				min_t(u64, sizeof(name), e->strsize - sh_name));
		if (err || !sfu_dg_wanted(name, seen))
			continue;
		size = sfu_dg_le(sh + 32, 8);
		*total += min(size, src->size);
		err = *total > 2 * src->size ? -ENOEXEC :
		      sfu_dg_counted(src, b, sfu_dg_le(sh + 24, 8), size);
	}
	return err;
}

/* The first segment of each type, as the loader's readers take them (bits 30, 31 of @seen). */
static int sfu_dg_segments_of(const struct sfu_digest_src *src, struct sfu_blake2s_ctx *b,
			      const struct sfu_dg_elf *e, unsigned int *seen, u64 *total)
{
	u8 ph[SFU_DG_PHDR];
	u64 off, size;
	unsigned int i;
	u32 type;
	int err = 0;

	for (i = 0; !err && i < e->phnum; i++) {
		err = src->read(src->ctx, e->phoff + (u64)i * SFU_DG_PHDR, ph, sizeof(ph));
		if (err)
			break;
		type = sfu_dg_le(ph, 4);
		if (type == SFU_DG_PT_GNU_EH_FRAME && !(*seen & (1U << 30)))
			*seen |= (1U << 30);
		else if (type == SFU_DG_PT_GNU_SFRAME && !(*seen & (1U << 31)))
			*seen |= (1U << 31);
		else
			continue;
		off = sfu_dg_le(ph + 8, 8);
		size = sfu_dg_le(ph + 32, 8);
		*total += min(size, src->size);
		err = *total > 2 * src->size ? -ENOEXEC : sfu_dg_counted(src, b, off, size);
	}
	return err;
}

static int sfu_dg_cfi(const struct sfu_digest_src *src, struct sfu_blake2s_ctx *b)
{
	struct sfu_dg_elf e;
	unsigned int seen = 0;
	u64 total = 0;
	int err;

	err = sfu_dg_header(src, &e);
	if (err)
		return err;
	blake2s_update(b, (const u8 *)"SFU-SIDECAR-CFI", 16);
	blake2s_update(b, e.eh, sizeof(e.eh));
	err = sfu_dg_counted(src, b, e.phoff, (u64)e.phnum * SFU_DG_PHDR);
	if (!err)
		err = sfu_dg_counted(src, b, e.shoff, (u64)e.shnum * SFU_DG_SHDR);
	if (!err)
		err = sfu_dg_counted(src, b, e.stroff, e.strsize);
	if (!err)
		err = sfu_dg_sections_of(src, b, &e, &seen, &total);
	if (!err)
		err = sfu_dg_segments_of(src, b, &e, &seen, &total);
	return err;
}

/**
 * sfu_elf_digest() - a file's content digest of one kind
 * @src: the file
 * @kind: SFU_SIDECAR_DIGEST_CFI or SFU_SIDECAR_DIGEST_FILE
 * @out: SFU_SIDECAR_DIGEST_LEN bytes
 *
 * Return: 0; -ENOEXEC where the kind does not apply to the file (CFI of a
 * file that is no ELF64 little-endian file with section headers, or whose
 * headers point outside it), -EINVAL for an unknown kind, or @src's read
 * error.
 */
int sfu_elf_digest(const struct sfu_digest_src *src, u32 kind, u8 *out)
{
	struct sfu_blake2s_ctx b;
	int err;

	blake2s_init(&b, SFU_SIDECAR_DIGEST_LEN);
	switch (kind) {
	case SFU_SIDECAR_DIGEST_CFI:
		err = sfu_dg_cfi(src, &b);
		break;
	case SFU_SIDECAR_DIGEST_FILE:
		blake2s_update(&b, (const u8 *)"SFU-SIDECAR-FILE", 16);
		err = sfu_dg_range(src, &b, 0, src->size);
		break;
	default:
		err = -EINVAL;
	}
	if (!err)
		blake2s_final(&b, out);
	memzero_explicit(&b, sizeof(b));
	return err;
}
EXPORT_SYMBOL_IF_KUNIT(sfu_elf_digest);
