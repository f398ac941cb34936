/* SPDX-License-Identifier: GPL-2.0 */
/*
 * SFrame decoder: header checks, one-time full validation, and the lookup
 * of the row that describes a PC, for V1, V2, V2 with PCREL and V3 sections
 * of the AMD64 and AArch64 (little-endian) ABIs.
 *
 * The same source builds in the kernel module and in the userspace tools.
 * It allocates nothing (the memory of an FRE index is the caller's), and
 * every section byte is read through sfu_sframe_read() or
 * sfu_sframe_read_ptr(), so the section may live in user memory that
 * changes or disappears at any time: sfu_sframe_find_row() re-checks
 * everything it reads.
 */
#ifndef _SFRAME_H
#define _SFRAME_H

#include <linux/types.h>

#include "uapi/sframe_errors.h"
#include "sframe_format.h"
#include "sframe_reader.h"

/*
 * Fixed limits, refused with SFRAME_E_TOO_BIG before any loop runs.  Real
 * sections are far below them (a large shared library has some 10^5 FDEs).
 * The per-function FRE limit is V3's own (a u16 count) applied to V1/V2 as
 * well; it bounds the marks of one function in an FRE index (2047).
 */
#define SFRAME_MAX_SECTION_SIZE	(256ULL << 20)
#define SFRAME_MAX_FDES		(1024U * 1024U)
#define SFRAME_MAX_FRES		(16U * 1024U * 1024U)
#define SFRAME_MAX_FDE_FRES	0xffffU
/* Zero-size FDEs a lookup steps over to reach the function before them. */
#define SFRAME_MAX_EMPTY_FDE_SKIP	16

/*
 * FREs are variable-size and a function may have 65535 of them, so a scan
 * from the first would be unbounded work for a lookup in NMI context.  A
 * function of more than SFRAME_FRE_INDEX_STRIDE FREs is looked up through
 * the section's FRE index, which marks every SFRAME_FRE_INDEX_STRIDE-th of
 * its FREs: a binary search over the marks, then a scan of at most
 * SFRAME_FRE_SCAN_MAX FREs.  Without an index such a function is refused
 * (SFRAME_E_NO_INDEX); a shorter one is scanned whole.
 */
#define SFRAME_FRE_INDEX_STRIDE	32
#define SFRAME_FRE_SCAN_MAX	(SFRAME_FRE_INDEX_STRIDE + 1)

/**
 * struct sfu_sframe_fre_mark - where one marked FRE lies
 * @start: its start offset, as stored
 * @off: its offset in bytes from the function's first FRE
 */
struct sfu_sframe_fre_mark {
	u32 start;
	u32 off;
};

/**
 * struct sfu_sframe_fre_index_fde - the marks of one indexed function
 * @fde_idx: its index in the FDE array
 * @first: index in &sfu_sframe_fre_index.marks of its first mark (FRE
 *         SFRAME_FRE_INDEX_STRIDE); its marks end where the next
 *         function's begin
 */
struct sfu_sframe_fre_index_fde {
	u32 fde_idx;
	u32 first;
};

/**
 * struct sfu_sframe_fre_index - marks of the functions with many FREs
 * @nr_fdes: functions indexed
 * @nr_marks: marks of all of them
 * @fdes: the functions, by ascending @fde_idx, then an entry whose @first
 *        is @nr_marks
 * @marks: FREs SFRAME_FRE_INDEX_STRIDE, 2 * SFRAME_FRE_INDEX_STRIDE, ...
 *         of each function in turn
 *
 * Built by sfu_sframe_fre_index_build() in one block of memory the caller
 * provides; 8 bytes per mark and per indexed function.  A lookup trusts
 * the index to be the one it built, not to match the section's bytes.
 */
struct sfu_sframe_fre_index {
	u32 nr_fdes;
	u32 nr_marks;
	const struct sfu_sframe_fre_index_fde *fdes;
	const struct sfu_sframe_fre_mark *marks;
};

/**
 * struct sfu_sframe_ix_count - what the FRE index of a section takes
 * @fdes: its functions of more than SFRAME_FRE_INDEX_STRIDE FREs
 * @marks: their marks, (num_fres - 1) / SFRAME_FRE_INDEX_STRIDE each
 * @first: the index of the first of them
 * @end: one past the index of the last of them
 */
struct sfu_sframe_ix_count {
	u32 fdes;
	u32 marks;
	u32 first;
	u32 end;
};

/**
 * struct sfu_sframe_section - a section whose header has been checked
 * @reader: where its bytes are
 * @vaddr: address at which the section is mapped (link-time address in the
 *         tools, user address in the kernel); function starts are relative
 *         to it or to the FDE's own start field (PCREL flag)
 * @version: SFRAME_VERSION_*
 * @flags: SFRAME_F_*
 * @abi: SFRAME_ABI_*
 * @cfa_fixed_fp_offset: header value (always 0: others are refused)
 * @cfa_fixed_ra_offset: AMD64: where RA is saved relative to the CFA
 * @num_fdes: FDE count
 * @num_fres: FRE count (sum over all FDEs)
 * @fre_len: bytes of the FRE sub-section
 * @fde_size: bytes per FDE array entry: 17 (V1), 20 (V2), 16 (V3 index) or
 *            12 (V3 with SFRAME_F_SFU_NARROW_INDEX)
 * @fde_off: section offset of the FDE array
 * @fre_off: section offset of the FRE sub-section
 * @fre_end: @fre_off + @fre_len; bytes after it are ignored
 * @fre_index: the FRE index, NULL until sfu_sframe_fre_index_build(); the
 *             memory is the caller's, and must outlive every lookup
 * @fde_checked: for a section whose FREs are validated per function on
 *               first use (sfu_sframe_section_validate_fdes()), a byte per
 *               FDE, non-zero once its FREs were: the caller's memory
 *               (@num_fdes bytes, zeroed), given with the FRE index
 *               (sfu_sframe_fre_index_build()), which checks the functions
 *               too long for a lookup to check; NULL otherwise
 * @lazy: set by sfu_sframe_section_validate_fdes(): a lookup checks each
 *        function's FREs the first time it needs them, and none without
 *        @fde_checked
 * @ix_counted: set by sfu_sframe_section_validate_fdes(), which counted
 *              what the FRE index takes (@ix) as it walked the FDEs, so
 *              that sfu_sframe_fre_index_size() and
 *              sfu_sframe_fre_index_build() need not walk them to count
 * @ix: that count
 */
struct sfu_sframe_section {
	struct sfu_sframe_reader reader;
	u64 vaddr;
	u8 version;
	u8 flags;
	u8 abi;
	s8 cfa_fixed_fp_offset;
	s8 cfa_fixed_ra_offset;
	u32 num_fdes;
	u32 num_fres;
	u32 fre_len;
	u32 fde_size;
	u64 fde_off;
	u64 fre_off;
	u64 fre_end;
	const struct sfu_sframe_fre_index *fre_index;
	u8 *fde_checked;
	bool lazy;
	bool ix_counted;
	struct sfu_sframe_ix_count ix;
};

/**
 * struct sfu_sframe_fde - one function descriptor, decoded and bounds-checked
 * @func_start: absolute start address of the function
 * @func_size: bytes; a zero-size function never matches a PC
 * @idx: index in the FDE array
 * @num_fres: number of FREs
 * @fres_off: section offset of the first FRE
 * @info: FDE info byte
 * @info2: V3 second info byte (0 before V3)
 * @type: SFRAME_FDE_TYPE_DEFAULT or SFRAME_FDE_TYPE_FLEX
 * @fre_type: SFRAME_FRE_TYPE_ADDR1/2/4
 * @rep_size: repeat block size of a PC-mask FDE, 0 otherwise
 * @pcmask: FRE starts are offsets within a repeated block
 */
struct sfu_sframe_fde {
	u64 func_start;
	u32 func_size;
	u32 idx;
	u32 num_fres;
	u64 fres_off;
	u8 info;
	u8 info2;
	u8 type;
	u8 fre_type;
	u8 rep_size;
	bool pcmask;
};

/* Base of a CFA, RA or FP rule. */
enum sfu_sframe_base {
	SFRAME_BASE_SP,		/* the ABI's stack pointer */
	SFRAME_BASE_FP,		/* the ABI's frame pointer */
	SFRAME_BASE_REG,	/* another DWARF register: topmost frame only */
};

/**
 * struct sfu_sframe_cfa_rule - how to compute the CFA
 * @base: SFRAME_BASE_SP, _FP or _REG
 * @deref: CFA = *(base + offset) instead of base + offset (FLEX only)
 * @regnum: DWARF register number of the base (FLEX rows; SP/FP numbers are
 *          filled in for DEFAULT rows too)
 * @addend: added after the deref (SFRAME_F_SFU_CFA_ADDEND sections), else 0
 * @offset: signed offset
 */
struct sfu_sframe_cfa_rule {
	u8 base;
	bool deref;
	u32 regnum;
	s32 addend;
	s64 offset;
};

/*
 * How to recover RA or FP of the caller.  SFRAME_RULE_SAME: not saved by
 * this row, so RA is still in the link register (AArch64, topmost frame
 * only) and FP is unchanged.
 */
enum sfu_sframe_rule_kind {
	SFRAME_RULE_SAME,
	SFRAME_RULE_FIXED,	/* *(CFA + offset), offset from the header (AMD64 RA) */
	SFRAME_RULE_CFA_DEREF,	/* *(CFA + offset) */
	SFRAME_RULE_REG,	/* base register + offset */
	SFRAME_RULE_REG_DEREF,	/* *(base register + offset) */
};

/**
 * struct sfu_sframe_reg_rule - how to recover RA or FP
 * @kind: enum sfu_sframe_rule_kind
 * @base: for the _REG kinds: SFRAME_BASE_SP, _FP or _REG
 * @regnum: DWARF register number of the base (_REG kinds)
 * @offset: signed offset (unused for SFRAME_RULE_SAME)
 */
struct sfu_sframe_reg_rule {
	u8 kind;
	u8 base;
	u32 regnum;
	s64 offset;
};

/* How a tracked register was saved (SFRAME_F_SFU_SAVED_REGS). */
enum sfu_sframe_saved_kind {
	SFRAME_SAVED_CFA_DEREF,	/* the caller's value is at *(CFA + offset) */
	SFRAME_SAVED_LOST,	/* saved where SFrame cannot say: not recoverable */
};

/**
 * struct sfu_sframe_saved_reg - where a frame saved a tracked register
 * @kind: enum sfu_sframe_saved_kind
 * @regnum: its DWARF register number
 * @offset: from the CFA, for SFRAME_SAVED_CFA_DEREF (negative, word-aligned)
 */
struct sfu_sframe_saved_reg {
	u8 kind;
	u8 regnum;
	s32 offset;
};

/* sfu_sframe_row.flags */
#define SFRAME_ROW_OUTERMOST	0x01	/* RA undefined: the stack ends here */
#define SFRAME_ROW_RA_MANGLED	0x02	/* RA carries a pointer signature (PAC) */
#define SFRAME_ROW_SIGNAL	0x04	/* V3 signal frame */
#define SFRAME_ROW_FLEX		0x08	/* from a FLEX FDE */
#define SFRAME_ROW_PAUTH_KEY_B	0x10	/* RA signed with key B, else key A */
#define SFRAME_ROW_PCMASK	0x20	/* from a PC-mask FDE (PLT) */
#define SFRAME_ROW_RA_PADDING	0x40	/* RA word present as padding ("U") */
#define SFRAME_ROW_TOPMOST_ONLY	0x80	/* needs registers only the topmost frame has */
/* Lists every tracked register the frame saved: the others are unchanged. */
#define SFRAME_ROW_SAVED_REGS	0x100
/* Entered by an injected call: the caller resumes exactly at the RA. */
#define SFRAME_ROW_INJECTED_CALL	0x200

/**
 * struct sfu_sframe_row - the unwind rules that hold for a range of PCs
 * @start: first PC of the range
 * @end: first PC after the range
 * @func_start: start of the function (FDE)
 * @func_size: size of the function
 * @fde_idx: index of the FDE
 * @fre_start: the FRE's start offset as stored: from @func_start, or from
 *             the start of the repeat block for PC-mask FDEs
 * @flags: SFRAME_ROW_*
 * @cfa: CFA rule
 * @ra: return address rule
 * @fp: frame pointer rule
 * @nr_saved: entries of @saved (SFRAME_ROW_SAVED_REGS rows only)
 * @saved: where the frame saved tracked registers, in the FRE's order
 *
 * An outermost row (SFRAME_ROW_OUTERMOST) has no meaningful rules.
 */
struct sfu_sframe_row {
	u64 start;
	u64 end;
	u64 func_start;
	u32 func_size;
	u32 fde_idx;
	u32 fre_start;
	u32 flags;
	struct sfu_sframe_cfa_rule cfa;
	struct sfu_sframe_reg_rule ra;
	struct sfu_sframe_reg_rule fp;
	u32 nr_saved;
	struct sfu_sframe_saved_reg saved[SFRAME_SFU_MAX_SAVED_REGS];
};

/* Longest sfu_sframe_row_format() output is well below this. */
#define SFRAME_ROW_FORMAT_MAX	128

int sfu_sframe_section_init(struct sfu_sframe_section *sec, const struct sfu_sframe_reader *r,
			    unsigned long sframe_vaddr, int expected_abi);
int sfu_sframe_section_validate(const struct sfu_sframe_section *sec);
int sfu_sframe_section_validate_fdes(struct sfu_sframe_section *sec);
int sfu_sframe_fde_validate(const struct sfu_sframe_section *sec, const struct sfu_sframe_fde *fde);
int sfu_sframe_fre_index_size(const struct sfu_sframe_section *sec, size_t *bytes);
int sfu_sframe_fre_index_build(struct sfu_sframe_section *sec, void *mem, size_t bytes,
			       u8 *fde_checked);
int sfu_sframe_find_row(const struct sfu_sframe_section *sec, unsigned long pc,
			struct sfu_sframe_row *row);
int sfu_sframe_fde_get(const struct sfu_sframe_section *sec, u32 idx, struct sfu_sframe_fde *fde);
int sfu_sframe_abi_of_elf(unsigned int e_machine, bool big_endian);

/*
 * The decoder's functions for dumps and tools: a lookup that counts its
 * work, the walk of every FRE, rows as text, error names.  The module's
 * lookups use none of them: in the kernel they are built for its KUnit
 * suites, in the test build (SFU_TEST_BUILD) alone; userspace, the tools'
 * and the fuzzers' build, always has them.
 */
#if !defined(__KERNEL__) || defined(SFU_TEST_BUILD)
#define SFRAME_TOOLS	1
#else
#define SFRAME_TOOLS	0
#endif

#if SFRAME_TOOLS
int sfu_sframe_find_row_counted(const struct sfu_sframe_section *sec, unsigned long pc,
				struct sfu_sframe_row *row, u32 *fres);
int sfu_sframe_fre_next(const struct sfu_sframe_section *sec, const struct sfu_sframe_fde *fde,
			u64 *pos, struct sfu_sframe_row *row);
int sfu_sframe_row_format(const struct sfu_sframe_row *row, char *buf, size_t len);
const char *sfu_sframe_strerror(int err);
#endif

#endif /* _SFRAME_H */
