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
	arch_copy = *sfg_arch_of(abi);
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
