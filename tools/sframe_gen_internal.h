/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What passes between the files of sframe-gen.  They make layers, and
 * each file calls only into the layers below its own:
 *
 *   the driver      sframe_gen.c: sfg_convert()
 *   converters      the CFI's FDEs (sframe_gen_cfi.c, with the files
 *                   sframe_gen_cfi.h names), with the rows of the
 *                   AArch64 PLT stubs no FDE covers, from the blocks
 *                   sframe_gen_plt.c recognises by their instructions;
 *                   the Go pclntab's functions (sframe_gen_go.c reads
 *                   the table, sframe_gen_gorows.c makes their rows)
 *   the emitter     sframe_gen_emit.c: groups rows into SFrame FDEs and
 *                   encodes them
 *   helpers         sframe_gen_elf.c (the ELF file), sframe_gen_util.c
 *                   (names, ABIs, ranges, rows)
 */
#ifndef _SFRAME_GEN_INTERNAL_H
#define _SFRAME_GEN_INTERNAL_H

#include <elfutils/libdw.h>
#include <linux/types.h>

#include "sframe_gen.h"

/* What differs between the two ABIs. */
struct sfg_arch {
	u8 abi;			/* SFRAME_ABI_* */
	u8 sp;			/* DWARF register numbers */
	u8 fp;
	u8 ra;
	s8 fixed_ra;		/* header cfa_fixed_ra_offset */
	bool flex;		/* FLEX FDEs may be written */
	bool plt_mask;		/* the x86_64 PLT CFA expression is recognised */
	bool pauth;		/* RA signing may appear in the CFI (AArch64) */
	/*
	 * AArch64: ld writes no CFI for the PLT; its stubs get rows from
	 * their instructions where no FDE covers them (sframe_gen_plt.c).
	 */
	bool plt_insns;
	/*
	 * The callee-saved register whose saves rows list, with
	 * SFRAME_F_SFU_SAVED_REGS (AMD64: rbx); 0 for none.
	 */
	u8 saved_reg;
	/*
	 * The register the extension can track, whether this section lists
	 * its saves or not (AMD64: rbx); 0 for none.  A file with a CFA
	 * based on it lists them in every function.
	 */
	u8 tracked_reg;
	/* *(reg + off) + K rows are written (SFRAME_F_SFU_CFA_ADDEND). */
	bool cfa_addend;
};

/* Addresses of functions, sorted. */
struct sfg_fns {
	u64 *fns;
	size_t n;
};

/* Where the caller's RA or FP is. */
enum sfg_loc_kind {
	SFG_LOC_SAME,		/* not saved: unchanged (FP) or still in the LR (RA) */
	SFG_LOC_CFA,		/* saved at CFA + off */
	SFG_LOC_REG,		/* reg + off, or *(reg + off) with deref */
};

struct sfg_loc {
	u8 kind;
	u8 reg;
	bool deref;
	s32 off;
};

/* Where a row says the tracked register (sfg_arch.saved_reg) is. */
enum sfg_saved_kind {
	SFG_SAVED_NONE,		/* same value or unspecified: no pair */
	SFG_SAVED_CFA,		/* saved at CFA + off: a deref pair */
	SFG_SAVED_LOST,		/* anything else: a "not recoverable" pair */
};

/*
 * One set of unwind rules.  @rep_size != 0 makes it a PLT rule: with
 * r = (pc - function start) % @rep_size, CFA = SP + @cfa_off, plus
 * @mask_add once r >= @mask_split.  A CFA of *(reg + @cfa_off) + @cfa_add
 * (@cfa_add != 0, @cfa_deref only) needs SFRAME_F_SFU_CFA_ADDEND.
 */
struct sfg_rule {
	bool outermost;		/* RA undefined: the stack ends here */
	bool ra_signed;		/* AArch64: the RA carries a PAC */
	u8 cfa_reg;
	bool cfa_deref;
	s32 cfa_off;
	s32 cfa_add;
	struct sfg_loc ra;
	struct sfg_loc fp;
	u8 saved;		/* enum sfg_saved_kind */
	s32 saved_off;
	u8 rep_size;
	u8 mask_split;
	s32 mask_add;
};

/*
 * A PC range [start, end) of one FDE and its rules, or the reason why
 * there are none (@reason < SFG_REASON_NR).
 */
struct sfg_row {
	u64 start;
	u64 end;
	u8 reason;
	struct sfg_rule rule;
};

#define SFG_ROW_OK	SFG_REASON_NR

/**
 * struct sfg_rows - a growing array of rows (sfg_rows_add())
 * @v: the rows
 * @n: number of rows
 * @cap: room in @v
 */
struct sfg_rows {
	struct sfg_row *v;
	u32 n;
	u32 cap;
};

/* An address range [lo, hi). */
struct sfg_range {
	u64 lo;
	u64 hi;
};

/**
 * struct sfg_text - executable address ranges, sorted and disjoint
 * @lo: range starts
 * @hi: range ends
 * @n: number of ranges
 */
struct sfg_text {
	u64 *lo;
	u64 *hi;
	u32 n;
};

static inline u64 sfg_le(const u8 *p, unsigned int n)
{
	u64 v = 0;

	while (n--)
		v = (v << 8) | p[n];
	return v;
}

static inline void sfg_put(u8 *p, u64 v, unsigned int n)
{
	while (n--) {
		*p++ = (u8)v;
		v >>= 8;
	}
}

/* Helpers: names and ABIs, ranges and rows (sframe_gen_util.c). */
const struct sfg_arch *sfg_arch_of(int abi);
int sfg_text_merge(struct sfg_range *r, size_t n, struct sfg_text *text);
int sfg_text_subtract(const struct sfg_text *text, const struct sfg_text *own,
		      struct sfg_text *rest);
u64 sfg_text_bytes_in(const struct sfg_text *text, u64 lo, u64 hi);
int sfg_rows_add(struct sfg_rows *rows, u64 start, u64 end, u8 reason,
		 const struct sfg_rule *rule);

/* Helpers: the ELF file (sframe_gen_elf.c). */
Elf_Scn *sfg_find_section(Elf *elf, const char *name);
int sfg_text_ranges(Elf *elf, struct sfg_text *text, u64 *bytes);
int sfg_ifunc_resolvers(Elf *elf, struct sfg_fns *f);

struct sfg_emit;

/* Emitter interface, used by the converters for each FDE in address order. */
struct sfg_emit *sfg_emit_new(const struct sfg_arch *arch, u64 vaddr);
int sfg_emit_fde(struct sfg_emit *em, const struct sfg_row *rows, u32 nrows, u8 info, u8 info2);
int sfg_emit_finish(struct sfg_emit *em, struct sfg_output *out);
int sfg_section_narrow(struct sfg_output *out, u64 vaddr);
void sfg_emit_free(struct sfg_emit *em);
void sfg_emit_saves_only(struct sfg_emit *em, const u64 *fns, size_t n);
bool sfg_rule_needs_flex(const struct sfg_arch *arch, const struct sfg_rule *rule);
bool sfg_rule_ra_default(const struct sfg_arch *arch, const struct sfg_loc *ra);

/**
 * struct sfg_plt_block - one PLT0 or PLT entry recognised by its instructions
 * @lo: its first PC
 * @hi: the end of its padding
 * @pushed: PLT0: the first PC after its stp (CFA = SP + 16 from there to
 *          @hi; SP before); 0 for an entry (CFA = SP throughout)
 *
 * At every PC of a block the RA is still in LR and FP is unchanged.
 */
struct sfg_plt_block {
	u64 lo;
	u64 hi;
	u64 pushed;
};

/* What PLT0's stp x16, x30, [sp, #-16]! pushes. */
#define SFG_PLT0_PUSH	16

/**
 * struct sfg_plt - PLT blocks, sorted and disjoint
 * @v: the blocks
 * @n: number of blocks
 * @cap: room in @v
 */
struct sfg_plt {
	struct sfg_plt_block *v;
	size_t n;
	size_t cap;
};

/* Converters: the AArch64 PLT stubs (sframe_gen_plt.c), for the CFI's. */
int sfg_plt_find(Elf *elf, struct sfg_plt *plt);

/* Converters: the CFI's (sframe_gen_cfi.c). */
int sfg_cfi_convert(Elf *elf, const struct sfg_arch *arch, const struct sfg_text *text,
		    const struct sfg_text *own, struct sfg_emit *em, struct sfg_stats *st);

/*
 * Converters: the Go pclntab's; the table (sframe_gen_go.c), the rows from
 * its pcsp tables and their section merged with the CFI's
 * (sframe_gen_gorows.c).
 */
int sfg_go_arch(struct sfg_go *go, const struct sfg_arch *arch);
int sfg_go_ranges(const struct sfg_go *go, const struct sfg_text *own, struct sfg_text *out);
int sfg_go_convert(const struct sfg_go *go, const struct sfg_text *text,
		   const struct sfg_text *own, struct sfg_emit *em, struct sfg_stats *st);
int sfg_section_merge(const struct sfg_output *a, const struct sfg_output *b, u64 vaddr,
		      struct sfg_output *out);

#endif /* _SFRAME_GEN_INTERNAL_H */
