/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sframe_unwind:user_stack - one user callchain from deferred unwinding.
 *
 * Read it with perf (perf record -e sframe_unwind:user_stack), trace-cmd,
 * or tracefs (events/sframe_unwind/user_stack).  __print_array() takes a
 * literal 8, not sizeof(u64): perf's format parser rejects sizeof.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM sframe_unwind

#if !defined(_SFU_USER_STACK_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _SFU_USER_STACK_TRACE_H

#include <linux/tracepoint.h>

TRACE_EVENT(user_stack,
	    TP_PROTO(pid_t pid, u64 cookie, unsigned int nr, const unsigned long *ips),
	    TP_ARGS(pid, cookie, nr, ips),
	    TP_STRUCT__entry(__field(pid_t, pid)
			     __field(u64, cookie)
			     __field(unsigned int, nr)
			     __dynamic_array(u64, ips, nr)),
	    TP_fast_assign(__entry->pid = pid;
			   __entry->cookie = cookie;
			   __entry->nr = nr;
			   /* unsigned long is u64 (asserted in consumers/trace.c) */
			   memcpy(__get_dynamic_array(ips), ips, nr * sizeof(u64));),
	    TP_printk("pid=%d cookie=0x%llx nr=%u ips=%s", __entry->pid, __entry->cookie,
		      __entry->nr, __print_array(__get_dynamic_array(ips), __entry->nr, 8))
);

#endif /* _SFU_USER_STACK_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE user_stack_trace
#include <trace/define_trace.h>
