// SPDX-License-Identifier: GPL-2.0
/*
 * sframe-gen, the driver: sfg_convert() takes the file's text and its own
 * SFrame section (sframe_gen_elf.c), has the converters, the CFI's
 * (sframe_gen_cfi.c) and the Go pclntab's (sframe_gen_go.c,
 * sframe_gen_gorows.c), feed their rows to emitters (sframe_gen_emit.c),
 * and puts their sections together; and the names of sidecar files.
 * Calls go one way: from here to the converters, from them to the
 * emitter and to the helpers of sframe_gen_elf.c and sframe_gen_util.c,
 * never back.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sframe/sframe.h"
#include "sframe_gen_internal.h"

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

/* What one sfg_convert() works with. */
struct sfg_job {
	Elf *elf;
	int abi;
	u64 vaddr;
	struct sfg_arch arch;	/* as sfg_convert()'s flags change it */
	bool auto_saves;	/* x86_64 rbx saves: as a first pass finds them needed */
	bool cfi;		/* the file has .eh_frame or .debug_frame */
	bool has_own;		/* SFG_COMPLEMENT, and the file has an own section */
	struct sfg_go *go;	/* its pclntab, or NULL */
	struct sfg_text text;	/* its executable ranges */
	struct sfg_text own;	/* the FDE ranges of its own section ... */
	struct sfg_text rest;	/* ... and @text less them */
	struct sfg_fns resolvers;
	struct sfg_stats st;
};

/*
 * SFG_COMPLEMENT: the own section's FDE ranges, its figures, and the text
 * they leave to the CFI.  j->own stays empty when the file has no section.
 */
static int sfg_complement(struct sfg_job *j, int *own_error)
{
	struct sfg_stats *st = &j->st;
	struct sfu_sframe_section sec;
	u32 i;
	int ret;

	ret = sfg_elf_own_sframe(j->elf, j->abi, &sec);
	if (ret < 0) {
		*own_error = ret;
		return -SFG_E_OWN_SFRAME;
	}
	if (!ret)
		return 0;
	j->has_own = true;
	st->own_sframe = true;
	st->own_version = sec.version;
	st->own_fdes = sec.num_fdes;
	st->own_fres = sec.num_fres;
	st->own_bytes = sec.fre_end;
	ret = sfg_own_ranges(&sec, &j->own);
	if (!ret)
		ret = sfg_text_subtract(&j->text, &j->own, &j->rest);
	if (ret)
		return ret;
	for (i = 0; i < j->own.n; i++)
		st->own_covered_bytes += sfg_text_bytes_in(&j->text, j->own.lo[i], j->own.hi[i]);
	return 0;
}

/*
 * One section from an emitter of its own, for @arch: the rows of the
 * CFI, or with @go those of the pclntab, of @text less @own.
 */
static int sfg_emit_one(struct sfg_job *j, const struct sfg_arch *arch,
			const struct sfg_fns *saves, bool go, const struct sfg_text *text,
			const struct sfg_text *own, struct sfg_output *out)
{
	struct sfg_emit *em = sfg_emit_new(arch, j->vaddr);
	int err;

	if (!em)
		return -SFG_E_NOMEM;
	if (saves)
		sfg_emit_saves_only(em, saves->fns, saves->n);
	err = go ? sfg_go_convert(j->go, text, own, em, &j->st) :
		   sfg_cfi_convert(j->elf, arch, text, own, em, &j->st);
	if (!err)
		err = sfg_emit_finish(em, out);
	sfg_emit_free(em);
	return err;
}

/*
 * The CFI's FDEs, then the pclntab's rows (Go programs), each through an
 * emitter of its own, in one section.  pclntab wins where both describe
 * a function: the CFI is walked as if the Go text were the own SFrame
 * section's, so that no FDE sharing a byte with it is used.  @saves: the
 * functions whose rows list the saves of arch.saved_reg, NULL for all.
 */
static int sfg_convert_all(struct sfg_job *j, const struct sfg_fns *saves,
			   struct sfg_output *out)
{
	const struct sfg_text *own = j->has_own ? &j->own : NULL;
	const struct sfg_text *rest = j->has_own ? &j->rest : &j->text;
	struct sfg_text skip = { 0 }, left = { 0 };
	struct sfg_output c = { 0 }, g = { 0 };
	struct sfg_arch go_arch = j->arch;
	struct sfg_stats *st = &j->st;
	int err = 0;

	if (j->go) {
		err = sfg_go_ranges(j->go, own, &skip);
		if (!err)
			err = sfg_text_subtract(&j->text, &skip, &left);
	}
	if (!err && j->cfi)
		err = sfg_emit_one(j, &j->arch, saves, false, j->go ? &left : rest,
				   j->go ? &skip : own, &c);
	if (!err && j->go) {
		/* Alone, Go rows need no rbx pairs: without the flag, rbx is lost. */
		if (!c.stats.fdes)
			go_arch.saved_reg = 0;
		sfg_go_arch(j->go, &go_arch);
		err = sfg_emit_one(j, &go_arch, saves, true, rest, own, &g);
		g.abi = j->arch.abi;
		c.abi = j->arch.abi;
		st->go_fdes = g.stats.fdes;
		st->go_fres = g.stats.fres;
	}
	st->cfa_on_saved_reg = c.stats.cfa_on_saved_reg + g.stats.cfa_on_saved_reg;
	st->saves_fdes = c.stats.saves_fdes + g.stats.saves_fdes;
	st->no_saves_fdes = c.stats.no_saves_fdes + g.stats.no_saves_fdes;
	st->shared_fdes = c.stats.shared_fdes + g.stats.shared_fdes;
	if (!err && j->go && c.stats.fdes) {
		err = sfg_section_merge(&c, &g, j->vaddr, out);
	} else if (!err) {
		*out = j->go ? g : c;
		if (j->go)
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

/* The file's ABI, as the flags of sfg_convert() change what is written for it. */
static int sfg_job_arch(struct sfg_job *j, unsigned int flags)
{
	j->abi = sfg_elf_machine_abi(j->elf);
	if (j->abi < 0)
		return j->abi;
	j->arch = *sfg_arch_of(j->abi);
	if (flags & SFG_NO_SAVED_REGS)
		j->arch.saved_reg = 0;
	/* First without saves: whether a CFA is based on rbx decides. */
	j->auto_saves = j->arch.saved_reg && !(flags & SFG_SAVED_REGS);
	if (j->auto_saves)
		j->arch.saved_reg = 0;
	if (flags & SFG_NO_CFA_ADDEND)
		j->arch.cfa_addend = false;
	return 0;
}

/* The file's text, CFI and pclntab; with SFG_COMPLEMENT its own section. */
static int sfg_job_inputs(struct sfg_job *j, unsigned int flags, int *own_error)
{
	int err;

	err = sfg_text_ranges(j->elf, &j->text, &j->st.text_bytes);
	if (err)
		return err;
	err = sfg_go_load(j->elf, &j->go);
	if (err < 0)
		return err;
	/* Without CFI or a Go pclntab there is nothing to complement. */
	j->cfi = sfg_find_section(j->elf, ".eh_frame") ||
		 sfg_find_section(j->elf, ".debug_frame");
	if (!j->cfi && !j->go)
		return -SFG_E_NO_CFI;
	return flags & SFG_COMPLEMENT ? sfg_complement(j, own_error) : 0;
}

/*
 * The section: in one pass, or where the file decides the x86_64 rbx
 * saves (j->auto_saves), in two.  The first, without saves, finds whether
 * a CFA is based on rbx; if one is, every function lists them, and if
 * not, the IFUNC resolvers do where the file has any.
 */
static int sfg_job_sections(struct sfg_job *j, struct sfg_output *out)
{
	struct sfg_stats st0 = j->st;
	int err;

	err = sfg_convert_all(j, NULL, out);
	if (!err && j->auto_saves && !j->st.cfa_on_saved_reg)
		err = sfg_ifunc_resolvers(j->elf, &j->resolvers);
	if (err || !j->auto_saves || !(j->st.cfa_on_saved_reg || j->resolvers.n))
		return err;
	sfg_output_free(out);
	j->st = st0;
	j->st.ifunc_resolvers = j->resolvers.n;
	j->arch.saved_reg = j->arch.tracked_reg;
	return sfg_convert_all(j, j->resolvers.n ? &j->resolvers : NULL, out);
}

/* The figures of the whole file into @out, with what no FDE reached. */
static void sfg_job_figures(struct sfg_job *j, struct sfg_output *out)
{
	struct sfg_stats *st = &j->st;
	u64 sum = st->covered_bytes + st->own_covered_bytes;
	int i;

	for (i = 0; i < SFG_REASON_NR; i++)
		sum += st->uncovered[i];
	st->uncovered[SFG_NO_CFI] += st->text_bytes > sum ? st->text_bytes - sum : 0;
	st->fdes = out->stats.fdes;
	st->fres = out->stats.fres;
	st->sframe_bytes = out->stats.sframe_bytes;
	out->stats = *st;
	out->abi = j->arch.abi;
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
 *         uncovered (no SFRAME_F_SFU_CFA_ADDEND), as before that one;
 *         SFG_NO_NARROW_INDEX: V3's own 16-byte FDE index entries, where
 *         by default they are 12 (SFRAME_F_SFU_NARROW_INDEX) if every
 *         function start fits
 * @out: receives the section and the figures; free with sfg_output_free()
 *
 * A Go program's functions get their rows from its pclntab instead
 * (sframe_gen_go.c), merged with the CFI's in address order.
 *
 * Return: 0 or -SFG_E_xxx (see sfg_strerror(); with -SFG_E_OWN_SFRAME,
 * @out->own_error says what the decoder found wrong).
 */
int sfg_convert(Elf *elf, u64 vaddr, unsigned int flags, struct sfg_output *out)
{
	struct sfg_job j = { .elf = elf, .vaddr = vaddr };
	int err, own_error = 0;

	memset(out, 0, sizeof(*out));
	err = sfg_job_arch(&j, flags);
	if (err)
		return err;
	err = sfg_job_inputs(&j, flags, &own_error);
	if (!err)
		err = sfg_job_sections(&j, out);
	if (!err && !(flags & SFG_NO_NARROW_INDEX)) {
		err = sfg_section_narrow(out, vaddr);
		if (err)
			sfg_output_free(out);
	}
	if (!err) {
		err = sfg_digest(elf, j.go, out);
		if (err)
			sfg_output_free(out);
	}
	if (!err)
		sfg_job_figures(&j, out);
	out->own_error = own_error;
	free(j.resolvers.fns);
	sfg_go_free(j.go);
	free(j.text.lo);
	free(j.text.hi);
	free(j.own.lo);
	free(j.own.hi);
	free(j.rest.lo);
	free(j.rest.hi);
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
