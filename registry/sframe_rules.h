/* SPDX-License-Identifier: GPL-2.0 */
/*
 * SFrame rows as format-neutral rules: the one place where the registry
 * turns what the decoder found into what the unwinder applies.
 */
#ifndef _SFU_REGISTRY_SFRAME_RULES_H
#define _SFU_REGISTRY_SFRAME_RULES_H

#include <linux/compiler.h>
#include <linux/kernel.h>
#include <linux/string.h>

#include "sframe.h"
#include "sframe_unwind/rules.h"

static __always_inline u8 sfu_sframe_base(u8 base)
{
	switch (base) {
	case SFRAME_BASE_SP:
		return SFU_BASE_SP;
	case SFRAME_BASE_FP:
		return SFU_BASE_FP;
	default:
		return SFU_BASE_REG;
	}
}

static __always_inline void sfu_sframe_reg_rule(const struct sfu_sframe_reg_rule *in,
						struct sfu_reg_rule *out)
{
	static const u8 kinds[] = {
		[SFRAME_RULE_SAME] = SFU_RULE_RETAIN,
		[SFRAME_RULE_FIXED] = SFU_RULE_CFA_DEREF,
		[SFRAME_RULE_CFA_DEREF] = SFU_RULE_CFA_DEREF,
		[SFRAME_RULE_REG] = SFU_RULE_REG,
		[SFRAME_RULE_REG_DEREF] = SFU_RULE_REG_DEREF,
	};

	out->kind = in->kind < ARRAY_SIZE(kinds) ? kinds[in->kind] : SFU_RULE_UNDEFINED;
	out->base = sfu_sframe_base(in->base);
	/* A number no register has stays one, rather than wrapping to a real one. */
	out->regnum = min_t(u32, in->regnum, U16_MAX);
	out->offset = in->offset;
}

/**
 * sfu_sframe_rules() - the rules an SFrame row gives
 * @row: found by the decoder
 * @r: filled in, every byte (the rules cache copies it whole)
 *
 * An outermost row has no rules but its flag; a signal frame keeps its
 * rules and the flag that says what they are (a V3 signal FDE without rows,
 * which the decoder reports as outermost, is a signal frame too: the
 * unwinder reads the kernel's frame, not the rules); a signed return address
 * (AArch64 PAC) keeps its key; a row of a section that lists saved
 * registers (SFRAME_F_SFU_SAVED_REGS) gives its list, and the flag that
 * says it is complete; a function entered by an injected call
 * (SFRAME_F_SFU_INJECTED_CALLS) says so, for the caller's lookup.  Which
 * registers a rule may use in which frame is the unwinder's to check.
 */
static __always_inline void sfu_sframe_rules(const struct sfu_sframe_row *row,
					     struct sfu_frame_rules *r)
{
	u32 i;

	memset(r, 0, sizeof(*r));
	/* A signal FDE without rows is the trampoline, whose rules are the kernel's. */
	if ((row->flags & (SFRAME_ROW_OUTERMOST | SFRAME_ROW_SIGNAL)) ==
	    (SFRAME_ROW_OUTERMOST | SFRAME_ROW_SIGNAL)) {
		r->flags = SFU_RULES_SIGNAL;
		return;
	}
	if (row->flags & SFRAME_ROW_OUTERMOST) {
		r->flags = SFU_RULES_OUTERMOST;
		return;
	}
	if (row->flags & SFRAME_ROW_SIGNAL)
		r->flags |= SFU_RULES_SIGNAL;
	if (row->flags & SFRAME_ROW_RA_MANGLED)
		r->flags |= SFU_RULES_RA_SIGNED;
	if (row->flags & SFRAME_ROW_PAUTH_KEY_B)
		r->flags |= SFU_RULES_KEY_B;
	if (row->flags & SFRAME_ROW_INJECTED_CALL)
		r->flags |= SFU_RULES_INJECTED;
	r->cfa.base = sfu_sframe_base(row->cfa.base);
	r->cfa.deref = row->cfa.deref;
	r->cfa.addend = row->cfa.addend;
	r->cfa.regnum = min_t(u32, row->cfa.regnum, U16_MAX);
	r->cfa.offset = row->cfa.offset;
	sfu_sframe_reg_rule(&row->ra, &r->ra);
	sfu_sframe_reg_rule(&row->fp, &r->fp);
	if (row->flags & SFRAME_ROW_SAVED_REGS) {
		r->flags |= SFU_RULES_SAVED_REGS;
		for (i = 0; i < row->nr_saved && i < SFU_MAX_SAVED_RULES; i++) {
			const struct sfu_sframe_saved_reg *in = &row->saved[i];
			struct sfu_saved_rule *out = &r->saved[i];

			out->regnum = in->regnum;
			out->offset = in->offset;
			out->kind = SFU_SAVED_LOST;
			/* A slot further than an s16 reaches is as good as lost. */
			if (in->kind == SFRAME_SAVED_CFA_DEREF && out->offset == in->offset)
				out->kind = SFU_SAVED_CFA_DEREF;
		}
	}
}

#endif /* _SFU_REGISTRY_SFRAME_RULES_H */
