// SPDX-License-Identifier: GPL-2.0
/*
 * The decoder's words for people: rows as text and error names (the tools'
 * and the KUnit suites', SFRAME_TOOLS), and the ABI of an ELF machine.
 */
#include <linux/types.h>
#include <linux/kernel.h>
#include <linux/errno.h>
#include <linux/export.h>
#include <linux/string.h>
#include <linux/overflow.h>
#include <linux/elf-em.h>

#include "sframe_unwind/compat/export.h"

#include "sframe.h"

/**
 * sfu_sframe_abi_of_elf() - the SFrame ABI of an ELF machine
 * @e_machine: EM_* of 64-bit code
 * @big_endian: the code is big-endian
 *
 * Return: SFRAME_ABI_*, or 0 when the machine has no SFrame ABI this
 * decoder reads.
 */
int sfu_sframe_abi_of_elf(unsigned int e_machine, bool big_endian)
{
	switch (e_machine) {
	case EM_X86_64:
		return big_endian ? 0 : SFRAME_ABI_AMD64_ENDIAN_LITTLE;
	case EM_AARCH64:
		return big_endian ? SFRAME_ABI_AARCH64_ENDIAN_BIG :
				    SFRAME_ABI_AARCH64_ENDIAN_LITTLE;
	}
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(sfu_sframe_abi_of_elf);

#if SFRAME_TOOLS
static void sframe_format_reg(char *buf, size_t len, u8 base, u32 regnum, bool deref, s64 off)
{
	char reg[16];
	const char *name = reg;

	if (base == SFRAME_BASE_SP)
		name = "sp";
	else if (base == SFRAME_BASE_FP)
		name = "fp";
	else
		snprintf(reg, sizeof(reg), "r%u", regnum);
	snprintf(buf, len, deref ? "(%s%+lld)" : "%s%+lld", name, off);
}

static void sframe_format_rule(char *buf, size_t len, const struct sfu_sframe_reg_rule *rule)
{
	switch (rule->kind) {
	case SFRAME_RULE_FIXED:
		snprintf(buf, len, "f");
		break;
	case SFRAME_RULE_CFA_DEREF:
		snprintf(buf, len, "c%+lld", rule->offset);
		break;
	case SFRAME_RULE_REG:
	case SFRAME_RULE_REG_DEREF:
		sframe_format_reg(buf, len, rule->base, rule->regnum,
				  rule->kind == SFRAME_RULE_REG_DEREF, rule->offset);
		break;
	default:
		snprintf(buf, len, "u");
		break;
	}
}

/**
 * sfu_sframe_row_format() - "CFA FP RA" of a row in objdump --sframe notation
 * @row: a row from sfu_sframe_find_row() or sfu_sframe_fre_next()
 * @buf: output
 * @len: size of @buf; SFRAME_ROW_FORMAT_MAX is always enough
 *
 * The notation of binutils trunk: "sp+16", "fp+16" (FLEX: "sp+8",
 * "(r6-8)", "r10+0"; "(sp+8)+8" with the project's CFA addend), "c-16"
 * for a slot at CFA-16, "u" for not saved, "f" for the fixed AMD64 RA
 * slot, "U" for an RA padding word, "[s]" after a signed RA; "RA
 * undefined" for an outermost row.  Columns are separated by one space.
 * Then, for a row of a section with SFRAME_F_SFU_SAVED_REGS, one column per
 * tracked register the frame saved: "rbx=c-16" (at CFA-16), "rbx=u" (not
 * recoverable).
 *
 * Return: what snprintf() returns: the length of the full text.
 */
int sfu_sframe_row_format(const struct sfu_sframe_row *row, char *buf, size_t len)
{
	char cfa[48], fp[32], ra[32], saved[24 * SFRAME_SFU_MAX_SAVED_REGS + 1] = "";
	const struct sfu_sframe_saved_reg *sr;
	size_t used = 0;
	u32 i;

	if (row->flags & SFRAME_ROW_OUTERMOST)
		return snprintf(buf, len, "RA undefined");

	if (row->flags & SFRAME_ROW_FLEX) {
		sframe_format_reg(cfa, sizeof(cfa), row->cfa.base, row->cfa.regnum,
				  row->cfa.deref, row->cfa.offset);
		/* The extension's addend after the deref: "(sp+8)+8". */
		if (row->cfa.addend)
			snprintf(cfa + strlen(cfa), sizeof(cfa) - strlen(cfa), "%+d",
				 row->cfa.addend);
	} else {
		snprintf(cfa, sizeof(cfa), "%s+%lld",
			 row->cfa.base == SFRAME_BASE_SP ? "sp" : "fp", row->cfa.offset);
	}
	sframe_format_rule(fp, sizeof(fp), &row->fp);
	if (row->flags & SFRAME_ROW_RA_PADDING)
		snprintf(ra, sizeof(ra), "U");
	else
		sframe_format_rule(ra, sizeof(ra), &row->ra);

	/* Only AMD64 tracks a register: rbx. */
	for (i = 0; i < row->nr_saved && i < SFRAME_SFU_MAX_SAVED_REGS; i++) {
		sr = &row->saved[i];
		if (sr->kind == SFRAME_SAVED_CFA_DEREF)
			snprintf(saved + used, sizeof(saved) - used, " %s=c%+d",
				 sr->regnum == SFRAME_AMD64_DWARF_RBX ? "rbx" : "r?", sr->offset);
		else
			snprintf(saved + used, sizeof(saved) - used, " %s=u",
				 sr->regnum == SFRAME_AMD64_DWARF_RBX ? "rbx" : "r?");
		used = strlen(saved);
	}

	return snprintf(buf, len, "%s %s %s%s%s", cfa, fp, ra,
			(row->flags & SFRAME_ROW_RA_MANGLED) ? "[s]" : "", saved);
}
EXPORT_SYMBOL_IF_KUNIT(sfu_sframe_row_format);

static const char * const sframe_error_names[SFRAME_E_NR] = {
	[0]			= "OK",
	[SFRAME_E_TRUNCATED]	= "TRUNCATED",
	[SFRAME_E_BAD_MAGIC]	= "BAD_MAGIC",
	[SFRAME_E_FOREIGN_ENDIAN] = "FOREIGN_ENDIAN",
	[SFRAME_E_VERSION]	= "VERSION",
	[SFRAME_E_FLAGS]	= "FLAGS",
	[SFRAME_E_ABI]		= "ABI",
	[SFRAME_E_ABI_MISMATCH]	= "ABI_MISMATCH",
	[SFRAME_E_BAD_HEADER]	= "BAD_HEADER",
	[SFRAME_E_TOO_BIG]	= "TOO_BIG",
	[SFRAME_E_UNSORTED]	= "UNSORTED",
	[SFRAME_E_BAD_FDE]	= "BAD_FDE",
	[SFRAME_E_REP_SIZE]	= "REP_SIZE",
	[SFRAME_E_BAD_FRE]	= "BAD_FRE",
	[SFRAME_E_FRE_ORDER]	= "FRE_ORDER",
	[SFRAME_E_NO_FDE]	= "NO_FDE",
	[SFRAME_E_NO_FRE]	= "NO_FRE",
	[SFRAME_E_FAULT]	= "FAULT",
	[SFRAME_E_NO_INDEX]	= "NO_INDEX",
	[SFRAME_E_SAVED_REG]	= "SAVED_REG",
	[SFRAME_E_INJECTED_CALL] = "INJECTED_CALL",
	[SFRAME_E_NO_SAVES]	= "NO_SAVES",
};

static unsigned int sframe_err_code(int err)
{
	return err < 0 ? -(unsigned int)err : (unsigned int)err;
}

/**
 * sfu_sframe_strerror() - name of an error code
 * @err: 0, SFRAME_E_xxx or -SFRAME_E_xxx
 *
 * Return: "TRUNCATED", "NO_FDE", ... ("OK" for 0, "UNKNOWN" otherwise).
 */
const char *sfu_sframe_strerror(int err)
{
	unsigned int code = sframe_err_code(err);

	if (code >= ARRAY_SIZE(sframe_error_names))
		return "UNKNOWN";
	return sframe_error_names[code];
}
EXPORT_SYMBOL_IF_KUNIT(sfu_sframe_strerror);
#endif /* SFRAME_TOOLS */
