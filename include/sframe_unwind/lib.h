/* SPDX-License-Identifier: GPL-2.0 */
/*
 * lib/: the helpers every layer of the module may use, and which call no
 * layer: the debugfs directory, per-CPU counters (counters.h), tracepoints
 * by name and counted task_work (task_work.h), reads of another task's
 * memory, whole reads of a file.
 */
#ifndef _SFRAME_UNWIND_LIB_H
#define _SFRAME_UNWIND_LIB_H

#include <linux/fs.h>
#include <linux/hardirq.h>
#include <linux/irqflags.h>
#include <linux/preempt.h>
#include <linux/rcupdate.h>
#include <linux/types.h>
#include <linux/uaccess.h>

#define SFU_VERSION "0.1.0"

struct dentry;
struct task_struct;
struct tracepoint;

struct dentry *sfu_debugfs_file(const char *name, umode_t mode, void *data,
				const struct file_operations *fops);
void sfu_debugfs_remove(const char *name);
int sfu_debugfs_init(void);
void sfu_debugfs_exit(void);

/**
 * SFU_DEFINE_SHOW_STORE_ATTRIBUTE() - a seq_file that can be written to
 * @__name: the prefix of its functions
 *
 * Defines __name##_open() and __name##_fops, a single_open() file that
 * reads through __name##_show() and writes through __name##_write(), both
 * defined by the caller: what DEFINE_SHOW_ATTRIBUTE() is for a file that
 * is only read.  The kernel's own DEFINE_SHOW_STORE_ATTRIBUTE() came after
 * 6.1.
 */
#define SFU_DEFINE_SHOW_STORE_ATTRIBUTE(__name)				\
static int __name ## _open(struct inode *inode, struct file *file)	\
{									\
	return single_open(file, __name ## _show, inode->i_private);	\
}									\
									\
static const struct file_operations __name ## _fops = {			\
	.owner = THIS_MODULE,						\
	.open = __name ## _open,					\
	.read = seq_read,						\
	.write = __name ## _write,					\
	.llseek = seq_lseek,						\
	.release = single_release,					\
}

struct tracepoint *sfu_tracepoint_find(const char *name);

int sfu_remote_read(struct task_struct *task, unsigned long addr, void *dst, size_t len);

int sfu_kernel_read_all(struct file *file, void *buf, size_t len, loff_t *pos,
			unsigned int *calls);
bool sfu_file_may_stall(struct file *file);

/**
 * sfu_caller_may_fault() - may the current context fault user pages in?
 *
 * What the kernel's own page-fault handler and might_fault() look at:
 * no page fault may be handled in any interrupt context (hard, soft, NMI:
 * in_interrupt() also sees PREEMPT_RT's per-task softirq count), with
 * interrupts off, with preemption disabled (a non-zero preempt_count(),
 * what in_atomic() tests: a tracepoint probe, a spinlock, rcu_read_lock()
 * without PREEMPT_RCU), inside
 * pagefault_disable(), or inside a preemptible RCU read-side critical
 * section.  A kernel without CONFIG_PREEMPT_COUNT does not count
 * preempt_disable() in preempt_count(): nothing can tell then, for this
 * module as for the kernel's own might_sleep(); every kernel this module
 * is tested on has the count (Debian's kernels through PREEMPT_DYNAMIC,
 * the test kernels through DEBUG_ATOMIC_SLEEP).  The same on 6.1 and later.
 *
 * Context: any, NMI included.
 * Return: false when the caller must not fault.
 */
static inline bool sfu_caller_may_fault(void)
{
	return !in_interrupt() && !preempt_count() && !irqs_disabled() && !pagefault_disabled() &&
	       !rcu_preempt_depth();
}

#endif /* _SFRAME_UNWIND_LIB_H */
