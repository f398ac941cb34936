/* SPDX-License-Identifier: GPL-2.0 */
/* Checks of return addresses found without unwind rows (ra_check.c). */
#ifndef _SFU_UNWIND_RA_CHECK_H
#define _SFU_UNWIND_RA_CHECK_H

#include <linux/types.h>

struct sfu_unwind_state;

int sfu_fp_ra_check(struct sfu_unwind_state *st, unsigned long callee_ip, unsigned long sp,
		    bool exact, bool below, unsigned long *skipped);
bool sfu_fp_record_live(struct sfu_unwind_state *st, unsigned long ip);
int sfu_ra_direct_call(struct sfu_unwind_state *st, unsigned long ra, unsigned long *callee);
bool sfu_user_file_offset(struct mm_struct *mm, unsigned long addr, unsigned long *off);

#endif /* _SFU_UNWIND_RA_CHECK_H */
