// SPDX-License-Identifier: GPL-2.0
/*
 * sframe-gen, the helpers below every converter: the names of reasons and
 * errors, the description of each ABI, address ranges of text and the
 * growing array of rows the converters build.  Nothing here calls into
 * another file of sframe-gen.
 */
#include <stdlib.h>
#include <string.h>

#include "sframe/sframe.h"
#include "sframe_gen_internal.h"

static const struct sfg_arch sfg_amd64 = {
	.abi = SFRAME_ABI_AMD64_ENDIAN_LITTLE,
	.sp = SFRAME_AMD64_DWARF_SP,
	.fp = SFRAME_AMD64_DWARF_FP,
	.ra = 16,
	.fixed_ra = -8,
	.flex = true,
	.plt_mask = true,
	.saved_reg = SFRAME_AMD64_DWARF_RBX,
	.tracked_reg = SFRAME_AMD64_DWARF_RBX,
	.cfa_addend = true,
};

static const struct sfg_arch sfg_aarch64 = {
	.abi = SFRAME_ABI_AARCH64_ENDIAN_LITTLE,
	.sp = SFRAME_AARCH64_DWARF_SP,
	.fp = SFRAME_AARCH64_DWARF_FP,
	.ra = 30,
	.fixed_ra = 0,
	.pauth = true,
	.plt_insns = true,
	.cfa_addend = true,
};

static const char * const sfg_reason_names[SFG_REASON_NR] = {
	[SFG_NO_CFI]		= "no-cfi",
	[SFG_BAD_CFI]		= "bad-cfi",
	[SFG_CFA_UNDEFINED]	= "cfa-undefined",
	[SFG_CFA_EXPR]		= "cfa-expression",
	[SFG_CFA_REG]		= "cfa-register",
	[SFG_RA_RULE]		= "ra-rule",
	[SFG_FP_RULE]		= "fp-rule",
	[SFG_PAUTH]		= "ra-signing",
	[SFG_OFFSET]		= "offset-range",
	[SFG_TOO_BIG]		= "too-big",
	[SFG_OVERLAP]		= "overlapping-fde",
	[SFG_OWN_SFRAME]	= "own-sframe",
	[SFG_GO_SPWRITE]	= "go-spwrite",
	[SFG_GO_FP]		= "go-fp",
	[SFG_GO_PCSP]		= "go-bad-pcsp",
};

static const char * const sfg_error_names[SFG_E_NR] = {
	[0]			= "success",
	[SFG_E_NOT_ELF]		= "not an ELF file",
	[SFG_E_CLASS]		= "not a 64-bit little-endian ELF file (x86_64 and aarch64 only)",
	[SFG_E_MACHINE]		= "machine is neither x86_64 nor aarch64",
	[SFG_E_TYPE]		= "not an executable or shared object (no final addresses)",
	[SFG_E_NO_CFI]		= "no .eh_frame or .debug_frame",
	[SFG_E_LIMIT]		= "the section would exceed SFrame's or the decoder's limits",
	[SFG_E_NOMEM]		= "out of memory",
	[SFG_E_INTERNAL]	= "internal error: the output failed the SFrame decoder",
	[SFG_E_OWN_SFRAME]	= "its own SFrame section fails the SFrame decoder",
	[SFG_E_GO]		= "its Go function table (.gopclntab) is malformed",
	[SFG_E_DIGEST]		= "its content digest could not be taken",
};

/**
 * sfg_reason_name() - short name of a reason for uncovered text
 * @reason: enum sfg_reason
 *
 * Return: "no-cfi", "cfa-expression", ...
 */
const char *sfg_reason_name(enum sfg_reason reason)
{
	return reason < SFG_REASON_NR ? sfg_reason_names[reason] : "unknown";
}

/**
 * sfg_strerror() - message for an sfg_convert() result
 * @err: 0 or -SFG_E_xxx
 *
 * Return: a sentence fragment.
 */
const char *sfg_strerror(int err)
{
	unsigned int code = err < 0 ? -(unsigned int)err : (unsigned int)err;

	return code < SFG_E_NR ? sfg_error_names[code] : "unknown error";
}

/**
 * sfg_arch_of() - what sframe-gen writes for an ABI, by default
 * @abi: SFRAME_ABI_AMD64_ENDIAN_LITTLE or SFRAME_ABI_AARCH64_ENDIAN_LITTLE
 *       (sfg_elf_machine_abi())
 *
 * Return: the description of the ABI, before any flag of sfg_convert()
 * changes a copy of it.
 */
const struct sfg_arch *sfg_arch_of(int abi)
{
	return abi == SFRAME_ABI_AMD64_ENDIAN_LITTLE ? &sfg_amd64 : &sfg_aarch64;
}

static int sfg_range_cmp(const void *a, const void *b)
{
	const struct sfg_range *x = a, *y = b;

	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/**
 * sfg_text_merge() - sorted, disjoint ranges from any ranges
 * @r: @n ranges, sorted here by their starts
 * @n: number of ranges
 * @text: set to their union, ranges that overlap or touch merged; free
 *        its arrays
 *
 * Return: 0 or -SFG_E_NOMEM.
 */
int sfg_text_merge(struct sfg_range *r, size_t n, struct sfg_text *text)
{
	size_t i;

	qsort(r, n, sizeof(*r), sfg_range_cmp);
	text->n = 0;
	text->lo = malloc((n ? n : 1) * sizeof(u64));
	text->hi = malloc((n ? n : 1) * sizeof(u64));
	if (!text->lo || !text->hi)
		return -SFG_E_NOMEM;
	for (i = 0; i < n; i++) {
		if (text->n && r[i].lo <= text->hi[text->n - 1]) {
			if (r[i].hi > text->hi[text->n - 1])
				text->hi[text->n - 1] = r[i].hi;
			continue;
		}
		text->lo[text->n] = r[i].lo;
		text->hi[text->n] = r[i].hi;
		text->n++;
	}
	return 0;
}

/**
 * sfg_text_subtract() - the ranges of one set that another leaves
 * @text: sorted, disjoint ranges
 * @own: sorted, disjoint ranges to take out of them
 * @rest: set to @text without @own; free its arrays
 *
 * Return: 0 or -SFG_E_NOMEM.
 */
int sfg_text_subtract(const struct sfg_text *text, const struct sfg_text *own,
		      struct sfg_text *rest)
{
	size_t n = (size_t)text->n + own->n + 1;
	u32 i, k = 0;

	rest->n = 0;
	rest->lo = malloc(n * sizeof(u64));
	rest->hi = malloc(n * sizeof(u64));
	if (!rest->lo || !rest->hi)
		return -SFG_E_NOMEM;
	for (i = 0; i < text->n; i++) {
		u64 lo = text->lo[i], hi = text->hi[i];

		while (k < own->n && own->hi[k] <= lo)
			k++;
		/* Each own range inside [lo, hi) cuts it once. */
		for (; k < own->n && own->lo[k] < hi; k++) {
			if (own->lo[k] > lo) {
				rest->lo[rest->n] = lo;
				rest->hi[rest->n] = own->lo[k];
				rest->n++;
			}
			if (own->hi[k] >= hi) {
				lo = hi;
				break;
			}
			lo = own->hi[k];
		}
		if (lo < hi) {
			rest->lo[rest->n] = lo;
			rest->hi[rest->n] = hi;
			rest->n++;
		}
	}
	return 0;
}

/**
 * sfg_text_bytes_in() - executable bytes in [lo, hi)
 * @text: sorted, disjoint ranges
 * @lo: start
 * @hi: end
 *
 * Return: the number of bytes of [@lo, @hi) inside @text.
 */
u64 sfg_text_bytes_in(const struct sfg_text *text, u64 lo, u64 hi)
{
	u32 a = 0, b = text->n;
	u64 sum = 0;

	/* First range ending after lo. */
	while (a < b) {
		u32 m = a + (b - a) / 2;

		if (text->hi[m] <= lo)
			a = m + 1;
		else
			b = m;
	}
	for (; a < text->n && text->lo[a] < hi; a++) {
		u64 s = lo > text->lo[a] ? lo : text->lo[a];
		u64 e = hi < text->hi[a] ? hi : text->hi[a];

		if (e > s)
			sum += e - s;
	}
	return sum;
}

/**
 * sfg_rows_add() - append a row
 * @rows: the array, grown as needed
 * @start: its first PC
 * @end: the PC after it
 * @reason: SFG_ROW_OK, or why it has no rules
 * @rule: its rules, or NULL for none (all zero)
 *
 * Return: 0 or -SFG_E_NOMEM.
 */
int sfg_rows_add(struct sfg_rows *rows, u64 start, u64 end, u8 reason,
		 const struct sfg_rule *rule)
{
	struct sfg_row *r;

	if (rows->n == rows->cap) {
		u32 cap = rows->cap ? rows->cap * 2 : 64;

		r = realloc(rows->v, cap * sizeof(*r));
		if (!r)
			return -SFG_E_NOMEM;
		rows->v = r;
		rows->cap = cap;
	}
	r = &rows->v[rows->n++];
	memset(r, 0, sizeof(*r));
	r->start = start;
	r->end = end;
	r->reason = reason;
	if (rule)
		r->rule = *rule;
	return 0;
}
