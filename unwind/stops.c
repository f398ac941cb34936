// SPDX-License-Identifier: GPL-2.0
/*
 * The names of the unwinder's stop reasons, as unwind_stats, the trace
 * events and the tools print them.
 */
#include <linux/export.h>

#include "sframe_unwind/unwind.h"
#include "sframe_unwind/compat/export.h"

static const char *const sfu_stop_names[SFU_STOP_NR] = {
	[SFU_STOP_NONE] = "none",
	[SFU_STOP_OUTERMOST] = "outermost",
	[SFU_STOP_FP_END] = "fp_end",
	[SFU_STOP_DEPTH] = "depth",
	[SFU_STOP_BAD_CFA] = "bad_cfa",
	[SFU_STOP_CFA_NOT_INCREASING] = "cfa_not_increasing",
	[SFU_STOP_BAD_RA] = "bad_ra",
	[SFU_STOP_FAULT] = "fault",
	[SFU_STOP_NO_INFO] = "no_info",
	[SFU_STOP_COMPAT] = "compat",
	[SFU_STOP_BAD_RULE] = "bad_rule",
	[SFU_STOP_SIGNAL] = "signal",
	[SFU_STOP_NOT_USER] = "not_user",
	[SFU_STOP_RA_NOT_TEXT] = "ra_not_text",
	[SFU_STOP_RA_NOT_CALL] = "ra_not_call",
	[SFU_STOP_RA_UNCHECKED] = "ra_unchecked",
	[SFU_STOP_FP_SKIPS] = "fp_skips",
	[SFU_STOP_RA_OTHER_CALLEE] = "ra_other_callee",
	[SFU_STOP_FP_UNCONFIRMED] = "fp_unconfirmed",
};

/**
 * sfu_stop_reason_name() - a stop reason as a short name
 * @reason: enum sfu_stop_reason
 *
 * Return: e.g. "outermost", or "unknown" for a value out of range.
 */
const char *sfu_stop_reason_name(int reason)
{
	if (reason < 0 || reason >= SFU_STOP_NR)
		return "unknown";
	return sfu_stop_names[reason];
}
EXPORT_SYMBOL_NS_GPL(sfu_stop_reason_name, SFU_NS);
