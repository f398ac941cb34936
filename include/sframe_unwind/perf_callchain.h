/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Native perf callchains: while the module is loaded, the user part of
 * every callchain perf records (perf record -g, bpf_get_stack(), ...) comes
 * from the SFrame unwinder instead of the architecture's frame-pointer walk.
 * See Documentation/perf.rst.
 */
#ifndef _SFRAME_UNWIND_PERF_CALLCHAIN_H
#define _SFRAME_UNWIND_PERF_CALLCHAIN_H

void sfu_perf_callchain_init(void);
void sfu_perf_callchain_exit(void);

#endif /* _SFRAME_UNWIND_PERF_CALLCHAIN_H */
