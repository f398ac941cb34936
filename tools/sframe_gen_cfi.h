/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The files of sframe-gen's CFI converter and what passes between them,
 * each calling only the ones below it:
 *
 *   sframe_gen_cfi.c      lists the FDEs of .eh_frame and .debug_frame,
 *                         sorts them and walks each into rows for the
 *                         emitter: sfg_cfi_convert()
 *   sframe_gen_rules.c    the rows of one FDE: libdw's rules at each PC,
 *                         as SFrame can say them, or why they cannot be
 *   sframe_gen_insns.c    the instructions of an FDE walked again, for
 *                         what libdw does not tell (AArch64 RA signing)
 *                         or should not see (huge register numbers)
 *   sframe_gen_ehframe.c  the encodings of .eh_frame: LEB128, encoded
 *                         pointers, a CIE's augmentation
 */
#ifndef _SFRAME_GEN_CFI_H
#define _SFRAME_GEN_CFI_H

#include <elfutils/libdw.h>

#include "sframe_gen_internal.h"

/* A cursor over bytes [p, end). */
struct sfg_cur {
	const u8 *p;
	const u8 *end;
};

/* The CIE facts sframe-gen needs: FDE pointer encoding, 'z' and 'B' augmentation. */
struct sfg_cie {
	u8 fde_enc;
	bool sized_aug;
	bool key_b;		/* AArch64: RAs signed with key B */
	const u8 *insns;
	const u8 *insns_end;
};

/* sframe_gen_ehframe.c */
bool sfg_uleb(struct sfg_cur *c, u64 *v);
bool sfg_skip(struct sfg_cur *c, u64 n);
bool sfg_read_encoded(struct sfg_cur *c, u8 enc, u64 field_addr, u64 *v);
bool sfg_cie_parse(const Dwarf_CIE *cie, bool eh_frame, struct sfg_cie *out);

/* What sfg_prog_scan() found. */
#define SFG_SCAN_PAUTH		0x1	/* DW_CFA_AARCH64_negate_ra_state */
#define SFG_SCAN_UNKNOWN	0x2	/* an opcode or operand it cannot step over */
#define SFG_SCAN_BIG_REG	0x4	/* a register number above SFG_MAX_DWARF_REG */
#define SFG_SCAN_RA_LOST	0x8	/* a location or remembered state not followed */
#define SFG_SCAN_RA_REG		0x10	/* a rule for AArch64 RA_SIGN_STATE */
#define SFG_SCAN_UNDEF_RBX	0x20	/* DW_CFA_undefined of x86_64 rbx (3) */

/* Where the RA signing state changes: from @pc on, the RA is signed or not. */
struct sfg_ra_change {
	u64 pc;
	bool on;
};

/* The instructions of one FDE: its CIE's initial ones, then its own. */
struct sfg_prog {
	const u8 *cie;
	const u8 *cie_end;
	const u8 *fde;
	const u8 *fde_end;
	const u8 *sec;		/* the section's first byte ... */
	u64 sec_addr;		/* ... and its address, for PC-relative set_loc */
	u64 caf;		/* code alignment factor */
	u8 fde_enc;		/* pointer encoding of DW_CFA_set_loc */
};

/* sframe_gen_insns.c */
unsigned int sfg_prog_scan(const struct sfg_prog *prog, u64 lo, struct sfg_ra_change *changes,
			   u64 *nchanges, u64 *undef_rbx);

/* One FDE: its PC range and which CFI describes it. */
struct sfg_fde {
	u64 lo;
	u64 hi;
	u64 insn_bytes;		/* CIE + FDE instruction bytes: the cost of one row */
	bool debug_frame;
	bool ra_signing;	/* AArch64: the RA signing state changes */
	bool key_b;		/* AArch64: with key B */
	/*
	 * From where the CFI may say the tracked register is undefined (the
	 * FDE's start if the scan could not tell; UINT64_MAX: nowhere): libdw
	 * answers "undefined" for rbx where the CFI says nothing, its ABI
	 * default, so only after a DW_CFA_undefined naming it is it believed.
	 */
	u64 saved_undef;
	u8 reason;		/* SFG_ROW_OK, or why the FDE cannot be used */
	struct sfg_prog prog;	/* its instructions, for ra_signing */
	/*
	 * Not CFI: AArch64 PLT blocks [plt_first, plt_first + plt_n) of the
	 * struct sfg_plt, adjacent, where no FDE of the CFI is.
	 */
	bool plt;
	size_t plt_first;
	size_t plt_n;
};

/* The rows of one FDE and what walking it takes. */
struct sfg_walk {
	struct sfg_rows rows;
	u64 work;			/* instruction bytes libdw ran, in all FDEs */
	struct sfg_ra_change *ra;	/* where the FDE's RA signing state changes */
	u64 ra_cap;
};

/* sframe_gen_rules.c */
int sfg_walk_fde(Dwarf_CFI *cfi, const struct sfg_arch *arch, const struct sfg_fde *f,
		 struct sfg_walk *w, bool *signal);
void sfg_fix_pushed_ra(const struct sfg_arch *arch, struct sfg_rows *rows);
int sfg_walk_plt(const struct sfg_arch *arch, const struct sfg_plt *plt,
		 const struct sfg_fde *f, struct sfg_rows *rows);

#endif /* _SFRAME_GEN_CFI_H */
