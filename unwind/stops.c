// SPDX-License-Identifier: GPL-2.0
/*
 * The names of the unwinder's stop reasons, as unwind_stats, the trace
 * events and the tools print them.
 */
#include <linux/export.h>

#include "sframe_unwind/unwind.h"
#include "sframe_unwind/compat/export.h"
#include "sframe_unwind/stop_names.h"

static const char *const sfu_stop_names[SFU_STOP_NR] = SFU_STOP_NAMES_INIT;

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
