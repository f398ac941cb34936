// SPDX-License-Identifier: GPL-2.0
/*
 * sframe-gen, AArch64 PLT stubs.  ld writes no CFI for .plt and .iplt on
 * AArch64 (on x86_64 it does, see sfg_plt_expr()), so where no FDE
 * describes them their rows are read off their instructions.  Only the
 * blocks GNU ld and lld write are recognised, each instruction matched:
 *
 *   PLT0, the lazy-binding header of a dynamically linked file:
 *	[bti c]
 *	stp	x16, x30, [sp, #-16]!
 *	adrp	x16, <page>
 *	ldr	x17, [x16, #<lo12>]
 *	add	x16, x16, #<lo12>	(or nop)
 *	br	x17
 *	nop...
 *
 *   an entry (and the IRELATIVE entries of a static program's .plt, which
 *   has no PLT0):
 *	[bti c]
 *	adrp	x16, <page>
 *	ldr	x17, [x16, #<lo12>]
 *	add	x16, x16, #<lo12>	(or nop: newer ld leaves out an add of 0)
 *	[autia1716 | autib1716]	(ld -z pac-plt)
 *	br	x17
 *	nop...
 *
 * None of them writes x29 or x30, and only PLT0's stp moves SP.  In an
 * entry, so, CFA = SP and the RA is still in LR at every PC; in PLT0 the
 * same up to the stp, and CFA = SP + 16 from the instruction after it to
 * the end of its padding (the stp stores x30 but leaves it as it was).
 * The nops after a br are padding no PC reaches.
 *
 * A section is decoded from its start, block by block, and the decoding
 * stops at the first bytes that are none of these (the lazy TLSDESC
 * trampoline ld puts after the entries, a PLT0 of another shape): from
 * there on the section gets no rows, as a wrong row is worse than none.
 */
#include <stdlib.h>
#include <string.h>

#include <gelf.h>
#include <linux/kernel.h>

#include "sframe_gen_internal.h"

/* A64 encodings: exact ones, and (mask, value) pairs with an immediate. */
#define SFG_A64_NOP		0xd503201fU
#define SFG_A64_BTI_C		0xd503245fU
#define SFG_A64_AUTIA1716	0xd503219fU
#define SFG_A64_AUTIB1716	0xd50321dfU
#define SFG_A64_BR_X17		0xd61f0220U
#define SFG_A64_STP_X16_X30_PUSH 0xa9bf7bf0U	/* stp x16, x30, [sp, #-16]! */
#define SFG_A64_ADRP_MASK	0x9f00001fU	/* adrp x16, <page> */
#define SFG_A64_ADRP_X16	0x90000010U
#define SFG_A64_LDR_MASK	0xffc003ffU	/* ldr x17, [x16, #<imm12> * 8] */
#define SFG_A64_LDR_X17_X16	0xf9400211U
#define SFG_A64_ADD_MASK	0xffc003ffU	/* add x16, x16, #<imm12>, unshifted */
#define SFG_A64_ADD_X16_X16	0x91000210U

/* The instructions of one section, and the next one to match. */
struct sfg_a64 {
	const u8 *p;
	u64 n;
	u64 i;
};

static bool sfg_a64_match(struct sfg_a64 *c, u32 mask, u32 val)
{
	const u8 *q;
	u32 insn;

	if (c->i >= c->n)
		return false;
	q = c->p + 4 * c->i;
	insn = q[0] | (u32)q[1] << 8 | (u32)q[2] << 16 | (u32)q[3] << 24;
	if ((insn & mask) != val)
		return false;
	c->i++;
	return true;
}

static bool sfg_a64_is(struct sfg_a64 *c, u32 insn)
{
	return sfg_a64_match(c, ~0U, insn);
}

/*
 * adrp x16; ldr x17, [x16]; add x16, x16 (or nop); [autia1716 or
 * autib1716 in an @entry]; br x17; then the nops after it.
 */
static bool sfg_a64_got_branch(struct sfg_a64 *c, bool entry)
{
	if (!sfg_a64_match(c, SFG_A64_ADRP_MASK, SFG_A64_ADRP_X16) ||
	    !sfg_a64_match(c, SFG_A64_LDR_MASK, SFG_A64_LDR_X17_X16))
		return false;
	if (!sfg_a64_match(c, SFG_A64_ADD_MASK, SFG_A64_ADD_X16_X16) &&
	    !sfg_a64_is(c, SFG_A64_NOP))
		return false;
	if (entry && !sfg_a64_is(c, SFG_A64_AUTIA1716))
		sfg_a64_is(c, SFG_A64_AUTIB1716);
	if (!sfg_a64_is(c, SFG_A64_BR_X17))
		return false;
	while (sfg_a64_is(c, SFG_A64_NOP))
		;
	return true;
}

static int sfg_plt_add(struct sfg_plt *plt, u64 lo, u64 hi, u64 pushed)
{
	if (plt->n == plt->cap) {
		size_t cap = plt->cap ? plt->cap * 2 : 64;
		struct sfg_plt_block *v = realloc(plt->v, cap * sizeof(*v));

		if (!v)
			return -SFG_E_NOMEM;
		plt->v = v;
		plt->cap = cap;
	}
	plt->v[plt->n].lo = lo;
	plt->v[plt->n].hi = hi;
	plt->v[plt->n].pushed = pushed;
	plt->n++;
	return 0;
}

/* The blocks of one section at @addr, from its start to the first unknown one. */
static int sfg_plt_section(struct sfg_plt *plt, const u8 *p, u64 size, u64 addr)
{
	struct sfg_a64 c = { .p = p, .n = size / 4 };
	u64 start, pushed;
	int err;

	/* PLT0, only at the start. */
	sfg_a64_is(&c, SFG_A64_BTI_C);
	if (sfg_a64_is(&c, SFG_A64_STP_X16_X30_PUSH)) {
		pushed = addr + 4 * c.i;
		if (!sfg_a64_got_branch(&c, false))
			return 0;
		err = sfg_plt_add(plt, addr, addr + 4 * c.i, pushed);
		if (err)
			return err;
	} else {
		c.i = 0;
	}
	while (c.i < c.n) {
		start = c.i;
		sfg_a64_is(&c, SFG_A64_BTI_C);
		if (!sfg_a64_got_branch(&c, true))
			return 0;
		err = sfg_plt_add(plt, addr + 4 * start, addr + 4 * c.i, 0);
		if (err)
			return err;
	}
	return 0;
}

static int sfg_plt_cmp(const void *a, const void *b)
{
	const struct sfg_plt_block *x = a, *y = b;

	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/**
 * sfg_plt_find() - the PLT blocks of an AArch64 file, from their instructions
 * @elf: the file
 * @plt: receives the blocks, sorted and disjoint; free plt->v
 *
 * Reads the .plt and .iplt sections that are allocated and executable.
 *
 * Return: 0 or -SFG_E_NOMEM.
 */
int sfg_plt_find(Elf *elf, struct sfg_plt *plt)
{
	static const char * const names[] = { ".plt", ".iplt" };
	size_t i, k;
	int err;

	memset(plt, 0, sizeof(*plt));
	for (i = 0; i < ARRAY_SIZE(names); i++) {
		Elf_Scn *scn = sfg_find_section(elf, names[i]);
		Elf_Data *data;
		GElf_Shdr sh;

		if (!scn || !gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS ||
		    (sh.sh_flags & (SHF_ALLOC | SHF_EXECINSTR | SHF_COMPRESSED)) !=
		    (SHF_ALLOC | SHF_EXECINSTR) || sh.sh_addr % 4 ||
		    sh.sh_addr + sh.sh_size < sh.sh_addr)
			continue;
		data = elf_getdata(scn, NULL);
		if (!data || !data->d_buf)
			continue;
		err = sfg_plt_section(plt, data->d_buf, min_t(u64, sh.sh_size, data->d_size),
				      sh.sh_addr);
		if (err)
			return err;
	}
	if (!plt->n)
		return 0;
	/* Sections that overlap (a hostile file): the lower block wins. */
	qsort(plt->v, plt->n, sizeof(*plt->v), sfg_plt_cmp);
	for (i = 0, k = 0; i < plt->n; i++)
		if (!k || plt->v[i].lo >= plt->v[k - 1].hi)
			plt->v[k++] = plt->v[i];
	plt->n = k;
	return 0;
}
