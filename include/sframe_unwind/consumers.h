/* SPDX-License-Identifier: GPL-2.0 */
/*
 * consumers/: what hands unwinds out.  perf's user callchains
 * (perf_callchain.c), ftrace's user stacks (ftrace_userstack.c), upstream's
 * deferred user stacks (unwind_user.c), the trace
 * events and their sampler (trace.c),
 * /dev/sframe_unwind and its ioctls (chardev.c, ioctl.c).  They call the
 * unwinder, the registry (explicit registration) and lib/; nothing below
 * calls them.  This header is for module init and exit only.
 */
#ifndef _SFRAME_UNWIND_CONSUMERS_H
#define _SFRAME_UNWIND_CONSUMERS_H

int sfu_chardev_init(void);
void sfu_chardev_exit(void);

int sfu_trace_init(void);
void sfu_trace_stop(void);
void sfu_trace_exit(void);

/* perf's callchains, ftrace's user stacks, upstream's unwind_user(). */
void sfu_redirect_init(void);
void sfu_redirect_exit(void);

#endif /* _SFRAME_UNWIND_CONSUMERS_H */
