/* SPDX-License-Identifier: GPL-2.0 */
/*
 * SFrame on-disk format: versions 1, 2 (with and without the PCREL erratum)
 * and 3, as emitted by GNU binutils 2.40 to trunk.
 *
 * Layout facts only: no code.  Multi-byte fields are stored in the byte
 * order of the target; this project reads little-endian sections only.
 * Nothing here is meant to be overlaid on section bytes with a cast: V1
 * entries are packed to 17 bytes and FREs are unaligned, so the decoder
 * copies fields out at the offsets below.
 */
#ifndef _SFRAME_FORMAT_H
#define _SFRAME_FORMAT_H

#define SFRAME_MAGIC			0xdee2
#define SFRAME_MAGIC_SWAPPED		0xe2de	/* the same magic in the other byte order */

#define SFRAME_VERSION_1		1
#define SFRAME_VERSION_2		2
#define SFRAME_VERSION_3		3

/* Header flags. */
#define SFRAME_F_FDE_SORTED		0x1	/* FDEs sorted by start address */
#define SFRAME_F_FRAME_POINTER		0x2	/* V1/V2 only, never set by gas */
#define SFRAME_F_FDE_FUNC_START_PCREL	0x4	/* function start relative to the field */
/*
 * sframe-unwind's extension of V3, set by sframe-gen only where it is used
 * (Documentation/sframe-format.rst): the CFA of a FLEX FRE may be
 * *(base + offset) + addend, for CFI's DW_OP_deref; DW_OP_plus_uconst.
 * Other readers refuse the section for the unknown flag.
 */
#define SFRAME_F_SFU_CFA_ADDEND		0x80
/*
 * sframe-unwind's second extension of V3 (AMD64 only): every row of the
 * section says where the frame saved each tracked callee-saved register
 * (SFRAME_AMD64_DWARF_RBX), in (control, offset) pairs after a FLEX FRE's
 * FP entry; a row without a pair leaves them unchanged.  An FDE marked
 * SFRAME_V3_FDE_INFO2_SFU_NO_SAVES is the exception: its rows list none.
 */
#define SFRAME_F_SFU_SAVED_REGS		0x40
/*
 * sframe-unwind's third extension of V3: an FDE may carry
 * SFRAME_V3_FDE_INFO2_SFU_INJECTED, a function that is entered by a call
 * the kernel's signal handler faked (Go's asyncPreempt, sigpanic,
 * debugCallV2): its caller resumes exactly at the return address, which
 * is the interrupted PC, not the PC after a call instruction.
 */
#define SFRAME_F_SFU_INJECTED_CALLS	0x20
/*
 * sframe-unwind's fourth extension of V3: the FDE index entries are 12
 * bytes (SFRAME_V3N_FDE_*), the function start a signed 32-bit offset,
 * where V3's own entry gives it 64 bits.  Nothing else changes.
 */
#define SFRAME_F_SFU_NARROW_INDEX	0x10
#define SFRAME_V1_F_ALL			0x7
#define SFRAME_V2_F_ALL			0x7
#define SFRAME_V3_F_ALL			(0x5 | SFRAME_F_SFU_CFA_ADDEND | SFRAME_F_SFU_SAVED_REGS | \
					 SFRAME_F_SFU_INJECTED_CALLS | SFRAME_F_SFU_NARROW_INDEX)

/* abi_arch values. */
#define SFRAME_ABI_AARCH64_ENDIAN_BIG		1
#define SFRAME_ABI_AARCH64_ENDIAN_LITTLE	2
#define SFRAME_ABI_AMD64_ENDIAN_LITTLE		3
#define SFRAME_ABI_S390X_ENDIAN_BIG		4

/* cfa_fixed_fp_offset / cfa_fixed_ra_offset value meaning "not fixed". */
#define SFRAME_CFA_FIXED_OFFSET_NONE	0

/*
 * Header: 28 bytes, identical in V1, V2 and V3, followed by auxhdr_len
 * bytes of auxiliary header.  fdeoff and freoff count from the end of the
 * auxiliary header.
 */
#define SFRAME_HDR_MAGIC		0	/* u16 */
#define SFRAME_HDR_VERSION		2	/* u8 */
#define SFRAME_HDR_FLAGS		3	/* u8 */
#define SFRAME_HDR_ABI_ARCH		4	/* u8 */
#define SFRAME_HDR_CFA_FIXED_FP		5	/* s8 */
#define SFRAME_HDR_CFA_FIXED_RA		6	/* s8 */
#define SFRAME_HDR_AUXHDR_LEN		7	/* u8 */
#define SFRAME_HDR_NUM_FDES		8	/* u32 */
#define SFRAME_HDR_NUM_FRES		12	/* u32 */
#define SFRAME_HDR_FRE_LEN		16	/* u32 */
#define SFRAME_HDR_FDEOFF		20	/* u32 */
#define SFRAME_HDR_FREOFF		24	/* u32 */
#define SFRAME_HDR_SIZE			28

/*
 * V1 function descriptor entry: 17 bytes, packed.
 * "first FRE" counts from the start of the FRE sub-section.
 */
#define SFRAME_V1_FDE_START		0	/* s32 */
#define SFRAME_V1_FDE_SIZE		4	/* u32 */
#define SFRAME_V1_FDE_FRE_OFF		8	/* u32 */
#define SFRAME_V1_FDE_NUM_FRES		12	/* u32 */
#define SFRAME_V1_FDE_INFO		16	/* u8 */
#define SFRAME_V1_FDE_BYTES		17

/* V2 function descriptor entry: 20 bytes. */
#define SFRAME_V2_FDE_START		0	/* s32 */
#define SFRAME_V2_FDE_SIZE		4	/* u32 */
#define SFRAME_V2_FDE_FRE_OFF		8	/* u32 */
#define SFRAME_V2_FDE_NUM_FRES		12	/* u32 */
#define SFRAME_V2_FDE_INFO		16	/* u8 */
#define SFRAME_V2_FDE_REP_SIZE		17	/* u8 */
#define SFRAME_V2_FDE_PADDING		18	/* u16, ignored */
#define SFRAME_V2_FDE_BYTES		20

/*
 * V3 function descriptor: a 16-byte index entry in the FDE sub-section and
 * a 5-byte attribute block at the start of the function's FRE data; the
 * index entry's "first FRE" offset points at the attribute block and the
 * FREs follow it directly.
 */
#define SFRAME_V3_FDE_START		0	/* s64 */
#define SFRAME_V3_FDE_SIZE		8	/* u32 */
#define SFRAME_V3_FDE_FRE_OFF		12	/* u32 */
#define SFRAME_V3_FDE_BYTES		16

/* The same entry with SFRAME_F_SFU_NARROW_INDEX: the start in 32 bits. */
#define SFRAME_V3N_FDE_START		0	/* s32 */
#define SFRAME_V3N_FDE_SIZE		4	/* u32 */
#define SFRAME_V3N_FDE_FRE_OFF		8	/* u32 */
#define SFRAME_V3N_FDE_BYTES		12

#define SFRAME_V3_ATTR_NUM_FRES		0	/* u16 */
#define SFRAME_V3_ATTR_INFO		2	/* u8 */
#define SFRAME_V3_ATTR_INFO2		3	/* u8 */
#define SFRAME_V3_ATTR_REP_SIZE		4	/* u8 */
#define SFRAME_V3_ATTR_BYTES		5

/* FDE info byte (all versions). */
#define SFRAME_FDE_INFO_FRE_TYPE(info)	((info) & 0xf)
#define SFRAME_FDE_INFO_PCMASK		0x10	/* 0: PC increments, 1: PC mask */
#define SFRAME_FDE_INFO_PAUTH_KEY_B	0x20	/* AArch64: RA signed with key B */
#define SFRAME_FDE_INFO_UNUSED		0x40
#define SFRAME_V3_FDE_INFO_SIGNAL	0x80	/* V3: signal frame; unused before */

#define SFRAME_FRE_TYPE_ADDR1		0	/* FRE start offset is u8 */
#define SFRAME_FRE_TYPE_ADDR2		1	/* u16 */
#define SFRAME_FRE_TYPE_ADDR4		2	/* u32 */

/* V3 second FDE info byte. */
#define SFRAME_V3_FDE_INFO2_TYPE(info2)	((info2) & 0x1f)
#define SFRAME_V3_FDE_INFO2_UNUSED	0xe0
/*
 * With SFRAME_F_SFU_INJECTED_CALLS, bit 5 of the unused ones: the function
 * is entered by an injected call (see the flag).  Without the flag the bit
 * is refused with SFRAME_E_INJECTED_CALL.
 */
#define SFRAME_V3_FDE_INFO2_SFU_INJECTED	0x20
/*
 * With SFRAME_F_SFU_SAVED_REGS, bit 6: the FDE's rows do not list where
 * the function saves the tracked registers (sframe-gen writes them only
 * for functions that can run above a frame whose CFA is based on one):
 * after a step through it they are not known, as after a row of a section
 * without the flag.  Such rows hold no saved-register pairs.  Without the
 * flag the bit is refused with SFRAME_E_NO_SAVES.
 */
#define SFRAME_V3_FDE_INFO2_SFU_NO_SAVES	0x40
#define SFRAME_FDE_TYPE_DEFAULT		0
#define SFRAME_FDE_TYPE_FLEX		1

/*
 * V1 has no rep_size: x86_64 ld 2.40 emitted PC-mask FDEs only for .plt
 * and .plt.sec, whose entries are 16 bytes.
 */
#define SFRAME_V1_AMD64_REP_SIZE	16

/*
 * FRE: start offset (1, 2 or 4 bytes), info byte, then N signed data words
 * of S bytes each.  All unaligned.
 */
#define SFRAME_FRE_INFO_BASE_SP		0x01	/* CFA base: 1 SP, 0 FP */
#define SFRAME_FRE_INFO_COUNT(info)	(((info) >> 1) & 0xf)	/* N */
#define SFRAME_FRE_INFO_SIZE(info)	(((info) >> 5) & 0x3)	/* S code */
#define SFRAME_FRE_INFO_RA_MANGLED	0x80	/* AArch64: RA signed (PAC) */

#define SFRAME_FRE_DATAWORD_1B		0
#define SFRAME_FRE_DATAWORD_2B		1
#define SFRAME_FRE_DATAWORD_4B		2	/* code 3 is invalid */

/*
 * N = 0: RA undefined, the outermost frame (V2 erratum 2, V3).  A FLEX FRE
 * holds at most six words (CFA, RA and FP pairs); one of a section with
 * SFRAME_F_SFU_SAVED_REGS may hold a pair more per tracked register.
 */
#define SFRAME_FRE_STD_MAX_WORDS	6
#define SFRAME_SFU_MAX_SAVED_REGS	1	/* tracked registers of any ABI */
#define SFRAME_FRE_MAX_WORDS		(SFRAME_FRE_STD_MAX_WORDS + 2 * SFRAME_SFU_MAX_SAVED_REGS)

/* Data word indexes of DEFAULT FDEs. */
#define SFRAME_FRE_CFA_WORD		0
#define SFRAME_AMD64_FP_WORD		1	/* RA at CFA + header fixed offset */
#define SFRAME_AARCH64_RA_WORD		1
#define SFRAME_AARCH64_FP_WORD		2
#define SFRAME_AMD64_MAX_WORDS		2
#define SFRAME_AARCH64_MAX_WORDS	3
/* A DEFAULT RA word of 0 is padding: "RA not saved" (used by s390x). */
#define SFRAME_FRE_RA_OFFSET_INVALID	0

/*
 * V3 FLEX FDEs: CFA, RA, FP in that order.  The CFA is a (control, offset)
 * pair; RA and FP are each a pair, or one control word of 0 ("no further
 * words for this entity"), or left out when no word remains: 2 (CFA),
 * 3 (CFA, RA 0), 4 (CFA, RA; or CFA, RA 0, FP 0), 5 (CFA, RA 0, FP; or
 * CFA, RA, FP 0), 6 (CFA, RA, FP).
 */
#define SFRAME_FLEX_CTRL_REG_P		0x1	/* base is DWARF reg ctrl >> 3, else CFA */
#define SFRAME_FLEX_CTRL_DEREF_P	0x2	/* value = *(base + offset) */
#define SFRAME_FLEX_CTRL_RESERVED	0x4
/*
 * With SFRAME_F_SFU_CFA_ADDEND, the reserved bit in the CFA's control word
 * (with deref_p) says a third word follows the CFA's pair, an addend:
 * CFA = *(base + offset) + addend.  RA and FP follow as before, in the
 * words that remain of the six.
 */
#define SFRAME_FLEX_CTRL_SFU_ADDEND	SFRAME_FLEX_CTRL_RESERVED
#define SFRAME_FLEX_CFA_ADDEND		2
#define SFRAME_FLEX_CTRL_REGNUM(ctrl)	((ctrl) >> 3)
#define SFRAME_FLEX_CTRL_PADDING	0	/* no rule: the ABI default applies */
#define SFRAME_FLEX_CFA_CTRL		0
#define SFRAME_FLEX_CFA_OFF		1
#define SFRAME_FLEX_RA_CTRL		2	/* the first word after the CFA's */
/*
 * With SFRAME_F_SFU_SAVED_REGS, the words after the FP entry are one pair
 * per tracked register the frame saved: control (regnum << 3) | deref_p
 * with a negative, word-aligned offset (the register's value is at CFA +
 * offset), or control (regnum << 3) with offset 0 (the frame saved it
 * where SFrame cannot say: its value is lost).  reg_p and bit 2 are 0.
 */
#define SFRAME_FLEX_SAVED_CTRL_MASK	(~0U << 3 | SFRAME_FLEX_CTRL_DEREF_P)

/* DWARF register numbers of SP and FP. */
#define SFRAME_AMD64_DWARF_SP		7	/* rsp */
#define SFRAME_AMD64_DWARF_FP		6	/* rbp */
#define SFRAME_AARCH64_DWARF_SP		31	/* sp */
#define SFRAME_AARCH64_DWARF_FP		29	/* x29 */
/*
 * The register SFRAME_F_SFU_SAVED_REGS tracks on AMD64: the one
 * callee-saved register but rbp that code uses as a CFA base across a
 * call (glibc's _dl_runtime_resolve_*).  AArch64 tracks none.
 */
#define SFRAME_AMD64_DWARF_RBX		3	/* rbx */

/* Program header type of the segment that holds .sframe. */
#define SFRAME_PT_GNU_SFRAME		0x6474e554

#endif /* _SFRAME_FORMAT_H */
