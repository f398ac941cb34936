// SPDX-License-Identifier: GPL-2.0
/*
 * The unwinder's stop reasons and frame methods as user space sees them:
 * their values in the user ABI (include/uapi/sframe_unwind.h) and the
 * names unwind_stats and the tools print.
 *
 * The unwinder works with its own enum sfu_end and enum sfu_method; these
 * tables are the one place that maps them to the ABI's values, so that a
 * new internal reason cannot change the ABI unnoticed: each table has an
 * entry for every internal value (asserted at build time), and KUnit
 * checks that no two reasons share a name.
 */
#include <linux/bug.h>
#include <linux/build_bug.h>
#include <linux/export.h>
#include <linux/kernel.h>

#include "sframe_unwind/unwind.h"
#include "sframe_unwind/compat/export.h"
#include "sframe_unwind/stop_names.h"

static const char *const sfu_stop_names[SFU_STOP_NR] = SFU_STOP_NAMES_INIT;

/* enum sfu_end -> enum sfu_stop_reason */
static const u8 sfu_end_to_stop[] = {
	[SFU_END_NONE] = SFU_STOP_NONE,
	[SFU_END_OUTERMOST] = SFU_STOP_OUTERMOST,
	[SFU_END_FP_END] = SFU_STOP_FP_END,
	[SFU_END_DEPTH] = SFU_STOP_DEPTH,
	[SFU_END_BAD_CFA] = SFU_STOP_BAD_CFA,
	[SFU_END_CFA_NOT_INCREASING] = SFU_STOP_CFA_NOT_INCREASING,
	[SFU_END_BAD_RA] = SFU_STOP_BAD_RA,
	[SFU_END_FAULT] = SFU_STOP_FAULT,
	[SFU_END_NO_INFO] = SFU_STOP_NO_INFO,
	[SFU_END_COMPAT] = SFU_STOP_COMPAT,
	[SFU_END_BAD_RULE] = SFU_STOP_BAD_RULE,
	[SFU_END_SIGNAL] = SFU_STOP_SIGNAL,
	[SFU_END_NOT_USER] = SFU_STOP_NOT_USER,
	[SFU_END_RA_NOT_TEXT] = SFU_STOP_RA_NOT_TEXT,
	[SFU_END_RA_NOT_CALL] = SFU_STOP_RA_NOT_CALL,
	[SFU_END_RA_UNCHECKED] = SFU_STOP_RA_UNCHECKED,
	[SFU_END_FP_SKIPS] = SFU_STOP_FP_SKIPS,
	[SFU_END_RA_OTHER_CALLEE] = SFU_STOP_RA_OTHER_CALLEE,
	[SFU_END_FP_UNCONFIRMED] = SFU_STOP_FP_UNCONFIRMED,
};

static_assert(ARRAY_SIZE(sfu_end_to_stop) == SFU_END_NR);

/**
 * sfu_end_uapi() - the user ABI's value of a stop reason
 * @end: enum sfu_end
 *
 * Return: its enum sfu_stop_reason, for struct sfu_unwind.stop_reason.
 */
int sfu_end_uapi(int end)
{
	if (WARN_ON_ONCE(end < 0 || end >= SFU_END_NR))
		return SFU_STOP_NONE;
	return sfu_end_to_stop[end];
}

/**
 * sfu_end_name() - a stop reason as a short name
 * @end: enum sfu_end
 *
 * Return: the name of its enum sfu_stop_reason (as the tools print it),
 * e.g. "outermost", or "unknown" for a value out of range.
 */
const char *sfu_end_name(int end)
{
	if (end < 0 || end >= SFU_END_NR)
		return "unknown";
	return sfu_stop_names[sfu_end_to_stop[end]];
}
EXPORT_SYMBOL_NS_GPL(sfu_end_name, SFU_NS);
