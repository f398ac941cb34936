/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hrtimers.
 * Code calls these wrappers and never tests LINUX_VERSION_CODE itself;
 * the other kernel APIs have their own headers here.
 */
#ifndef _SFU_COMPAT_HRTIMER_H
#define _SFU_COMPAT_HRTIMER_H

#include <linux/hrtimer.h>
#include <linux/version.h>

/**
 * sfu_hrtimer_setup() - initialise an hrtimer and set its callback
 * @timer: the timer
 * @fn: its callback
 * @clock: the clock it runs on
 * @mode: its mode
 *
 * hrtimer_setup() arrived in 6.13 and replaced hrtimer_init() followed by
 * an assignment of the callback, which later kernels no longer have.
 */
static inline void sfu_hrtimer_setup(struct hrtimer *timer,
				     enum hrtimer_restart (*fn)(struct hrtimer *),
				     clockid_t clock, enum hrtimer_mode mode)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 13, 0)
	hrtimer_setup(timer, fn, clock, mode);
#else
	hrtimer_init(timer, clock, mode);
	timer->function = fn;
#endif
}

#endif /* _SFU_COMPAT_HRTIMER_H */
