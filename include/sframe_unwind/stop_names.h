/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The names of enum sfu_stop_reason (include/uapi/sframe_unwind.h), as
 * unwind_stats, the trace events and the tools print them: one table for
 * the module (unwind/stops.c) and the programs that print stop reasons
 * (tools/sframe-stack.c, tests/e2e/sfu-stack-check.c, tests/e2e/sfu-diff.c).
 * Include the UAPI header first.
 */
#ifndef _SFU_STOP_NAMES_H
#define _SFU_STOP_NAMES_H

#define SFU_STOP_NAMES_INIT {						\
	[SFU_STOP_NONE] = "none",					\
	[SFU_STOP_OUTERMOST] = "outermost",				\
	[SFU_STOP_FP_END] = "fp_end",					\
	[SFU_STOP_DEPTH] = "depth",					\
	[SFU_STOP_BAD_CFA] = "bad_cfa",					\
	[SFU_STOP_CFA_NOT_INCREASING] = "cfa_not_increasing",		\
	[SFU_STOP_BAD_RA] = "bad_ra",					\
	[SFU_STOP_FAULT] = "fault",					\
	[SFU_STOP_NO_INFO] = "no_info",					\
	[SFU_STOP_COMPAT] = "compat",					\
	[SFU_STOP_BAD_RULE] = "bad_rule",				\
	[SFU_STOP_SIGNAL] = "signal",					\
	[SFU_STOP_NOT_USER] = "not_user",				\
	[SFU_STOP_RA_NOT_TEXT] = "ra_not_text",				\
	[SFU_STOP_RA_NOT_CALL] = "ra_not_call",				\
	[SFU_STOP_RA_UNCHECKED] = "ra_unchecked",			\
	[SFU_STOP_FP_SKIPS] = "fp_skips",				\
	[SFU_STOP_RA_OTHER_CALLEE] = "ra_other_callee",			\
	[SFU_STOP_FP_UNCONFIRMED] = "fp_unconfirmed",			\
}

#endif /* _SFU_STOP_NAMES_H */
