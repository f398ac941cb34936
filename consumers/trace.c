// SPDX-License-Identifier: GPL-2.0
/*
 * The sframe_unwind:user_stack trace event and what drives it.
 *
 * A built-in requester of deferred unwinding emits one event per kernel
 * entry it asked about.  Two things ask:
 *
 *  - the sampler: perf kernel counters (cpu-clock, or cycles where the
 *    CPU has a PMU) on one thread or on every online CPU, at a given
 *    frequency; the overflow handler, in IRQ or NMI context, only
 *    requests;
 *  - the trigger: a probe on the raw syscall tracepoints sys_enter or
 *    sys_exit, optionally limited to a process and a system call number,
 *    as ftrace's stacktrace trigger does for the kernel stack.
 *
 * Both are controlled through <debugfs>/sframe_unwind/{sampler,trigger};
 * see Documentation/deferred.rst.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/kernel.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/perf_event.h>
#include <linux/pid.h>
#include <linux/sched.h>
#include <linux/sched/task.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/tracepoint.h>
#include <linux/uaccess.h>
#include <asm/syscall.h>

#include "sframe_unwind/consumers.h"
#include "sframe_unwind/deferred.h"
#include "sframe_unwind/lib.h"
#include "sframe_unwind/consumers_arch.h"

#define CREATE_TRACE_POINTS
#include "user_stack_trace.h"

#define SFU_SAMPLE_DEFAULT_FREQ	99
#define SFU_SAMPLE_MAX_FREQ	10000

static struct sfu_unwind_work sfu_trace_work;
static DEFINE_MUTEX(sfu_trace_mutex);	/* sampler and trigger changes */

static_assert(sizeof(unsigned long) == sizeof(u64));

static void sfu_trace_deliver(struct sfu_unwind_work *work, struct sfu_unwind_stacktrace *trace,
			      u64 cookie)
{
	trace_user_stack(current->pid, cookie, trace->nr, trace->entries);
}

/* ---- sampler ------------------------------------------------------------ */

/**
 * struct sfu_sampler - the running sampler
 * @pid: the thread sampled, or 0 for every CPU
 * @freq: samples per second (per CPU when system-wide)
 * @event: "cpu-clock" or "cycles"
 * @nr: entries of @events in use
 * @events: the counters: one, or one per online CPU
 */
struct sfu_sampler {
	pid_t pid;
	unsigned int freq;
	const char *event;
	unsigned int nr;
	struct perf_event *events[];
};

static struct sfu_sampler *sfu_sampler;
static atomic_long_t sfu_sampler_samples = ATOMIC_LONG_INIT(0);

static void sfu_sample_overflow(struct perf_event *event, struct perf_sample_data *data,
				struct pt_regs *regs)
{
	/* A vCPU thread's samples in its guest are the guest's (perf_arch.h). */
	if (!current->mm || (current->flags & (PF_KTHREAD | PF_IO_WORKER)) ||
	    sfu_perf_arch_guest_sample())
		return;
	atomic_long_inc(&sfu_sampler_samples);
	sfu_unwind_deferred_request_regs(&sfu_trace_work, regs, NULL);
}

static void sfu_sampler_free(struct sfu_sampler *s)
{
	unsigned int i;

	for (i = 0; i < s->nr; i++)
		perf_event_release_kernel(s->events[i]);
	kfree(s);
}

static struct perf_event *sfu_sampler_counter(const char *event, unsigned int freq, int cpu,
					      struct task_struct *task)
{
	struct perf_event_attr attr = {
		.size = sizeof(attr),
		.freq = 1,
		.sample_freq = freq,
		.exclude_hv = 1,
		.disabled = 0,
	};

	if (!strcmp(event, "cycles")) {
		attr.type = PERF_TYPE_HARDWARE;
		attr.config = PERF_COUNT_HW_CPU_CYCLES;
	} else {
		attr.type = PERF_TYPE_SOFTWARE;
		attr.config = PERF_COUNT_SW_CPU_CLOCK;
	}
	return perf_event_create_kernel_counter(&attr, cpu, task, sfu_sample_overflow, NULL);
}

static int sfu_sampler_start(pid_t pid, unsigned int freq, const char *event)
{
	struct task_struct *task = NULL;
	struct sfu_sampler *s;
	struct perf_event *pe;
	int cpu, err = 0;

	s = kzalloc(struct_size(s, events, pid ? 1 : nr_cpu_ids), GFP_KERNEL);
	if (!s)
		return -ENOMEM;
	s->pid = pid;
	s->freq = freq;
	s->event = event;
	if (pid) {
		rcu_read_lock();
		task = get_pid_task(find_vpid(pid), PIDTYPE_PID);
		rcu_read_unlock();
		if (!task) {
			kfree(s);
			return -ESRCH;
		}
		pe = sfu_sampler_counter(event, freq, -1, task);
		put_task_struct(task);
		if (IS_ERR(pe))
			err = PTR_ERR(pe);
		else
			s->events[s->nr++] = pe;
	} else {
		cpus_read_lock();
		for_each_online_cpu(cpu) {
			pe = sfu_sampler_counter(event, freq, cpu, NULL);
			if (IS_ERR(pe)) {
				err = PTR_ERR(pe);
				break;
			}
			s->events[s->nr++] = pe;
		}
		cpus_read_unlock();
	}
	if (err) {
		sfu_sampler_free(s);
		return err;
	}
	sfu_sampler = s;
	return 0;
}

static void sfu_sampler_stop(void)
{
	if (sfu_sampler)
		sfu_sampler_free(sfu_sampler);
	sfu_sampler = NULL;
}

/*
 * "off", or "pid=TID|all [freq=HZ] [event=cpu-clock|cycles]".  Without an
 * event, cycles is tried first and cpu-clock used where there is no PMU.
 */
static int sfu_sampler_parse(char *buf)
{
	const char *event = NULL;
	unsigned int freq = SFU_SAMPLE_DEFAULT_FREQ;
	bool all = false;
	pid_t pid = 0;
	char *tok;
	int err;

	buf = strim(buf);
	if (!strcmp(buf, "off")) {
		sfu_sampler_stop();
		return 0;
	}
	while ((tok = strsep(&buf, " \t"))) {
		err = 0;
		if (!*tok)
			continue;
		if (!strcmp(tok, "all"))
			all = true;
		else if (str_has_prefix(tok, "pid="))
			err = kstrtoint(tok + 4, 0, &pid);
		else if (str_has_prefix(tok, "freq="))
			err = kstrtouint(tok + 5, 0, &freq);
		else if (!strcmp(tok, "event=cpu-clock") || !strcmp(tok, "event=cycles"))
			event = tok + 6;
		else
			err = -EINVAL;
		if (err)
			return err;
	}
	if (pid < 0 || all == !!pid || !freq || freq > SFU_SAMPLE_MAX_FREQ)
		return -EINVAL;

	sfu_sampler_stop();
	if (event)
		return sfu_sampler_start(pid, freq,
					 strcmp(event, "cycles") ? "cpu-clock" : "cycles");
	err = sfu_sampler_start(pid, freq, "cycles");
	if (err == -ENOENT || err == -EOPNOTSUPP)
		err = sfu_sampler_start(pid, freq, "cpu-clock");
	return err;
}

/* A control file's write: one line of at most 95 bytes, parsed under the mutex. */
static ssize_t sfu_control_write(const char __user *ubuf, size_t len, int (*parse)(char *))
{
	char buf[96];
	int err;

	if (len >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	buf[len] = '\0';
	mutex_lock(&sfu_trace_mutex);
	err = parse(buf);
	mutex_unlock(&sfu_trace_mutex);
	return err ? err : len;
}

static ssize_t sfu_sampler_write(struct file *file, const char __user *ubuf, size_t len,
				 loff_t *ppos)
{
	return sfu_control_write(ubuf, len, sfu_sampler_parse);
}

static int sfu_sampler_show(struct seq_file *m, void *v)
{
	struct sfu_sampler *s;

	mutex_lock(&sfu_trace_mutex);
	s = sfu_sampler;
	if (!s)
		seq_puts(m, "off");
	else if (s->pid)
		seq_printf(m, "pid=%d freq=%u event=%s", s->pid, s->freq, s->event);
	else
		seq_printf(m, "all freq=%u event=%s cpus=%u", s->freq, s->event, s->nr);
	seq_printf(m, " samples=%ld\n", atomic_long_read(&sfu_sampler_samples));
	mutex_unlock(&sfu_trace_mutex);
	return 0;
}
SFU_DEFINE_SHOW_STORE_ATTRIBUTE(sfu_sampler);

/* ---- trigger ------------------------------------------------------------ */

/**
 * struct sfu_trigger - the attached tracepoint trigger
 * @tp: sys_enter or sys_exit
 * @probe: the probe attached to @tp
 * @tgid: the process whose threads trigger, or 0 for every process
 * @nr: the system call that triggers, or -1 for every one
 */
struct sfu_trigger {
	struct tracepoint *tp;
	void *probe;
	pid_t tgid;
	long nr;
};

static struct sfu_trigger sfu_trigger;
static atomic_long_t sfu_trigger_hits = ATOMIC_LONG_INIT(0);

static void sfu_trigger_hit(struct pt_regs *regs, long nr)
{
	if (sfu_trigger.tgid && task_tgid_nr(current) != sfu_trigger.tgid)
		return;
	if (sfu_trigger.nr >= 0 && nr != sfu_trigger.nr)
		return;
	atomic_long_inc(&sfu_trigger_hits);
	sfu_unwind_deferred_request(&sfu_trace_work, NULL);
}

static void sfu_trigger_sys_enter(void *data, struct pt_regs *regs, long id)
{
	sfu_trigger_hit(regs, id);
}

static void sfu_trigger_sys_exit(void *data, struct pt_regs *regs, long ret)
{
	sfu_trigger_hit(regs, syscall_get_nr(current, regs));
}

static void sfu_trigger_detach(void)
{
	if (!sfu_trigger.tp)
		return;
	tracepoint_probe_unregister(sfu_trigger.tp, sfu_trigger.probe, NULL);
	tracepoint_synchronize_unregister();
	sfu_trigger.tp = NULL;
}

/* "off", or "sys_enter|sys_exit [pid=TGID] [nr=SYSCALL]". */
static int sfu_trigger_parse(char *buf)
{
	struct sfu_trigger t = { .nr = -1 };
	char *tok, *name;
	int err = 0;

	buf = strim(buf);
	if (!strcmp(buf, "off")) {
		sfu_trigger_detach();
		return 0;
	}
	name = strsep(&buf, " \t");
	if (!strcmp(name, "sys_enter"))
		t.probe = sfu_trigger_sys_enter;
	else if (!strcmp(name, "sys_exit"))
		t.probe = sfu_trigger_sys_exit;
	else
		return -EINVAL;
	while (!err && (tok = strsep(&buf, " \t"))) {
		if (!*tok)
			continue;
		if (str_has_prefix(tok, "pid="))
			err = kstrtoint(tok + 4, 0, &t.tgid);
		else if (str_has_prefix(tok, "nr="))
			err = kstrtol(tok + 3, 0, &t.nr);
		else
			err = -EINVAL;
	}
	if (err)
		return err;
	if (t.tgid < 0 || t.nr < -1)
		return -EINVAL;
	t.tp = sfu_tracepoint_find(name);
	if (!t.tp)
		return -ENOENT;

	sfu_trigger_detach();
	sfu_trigger.tgid = t.tgid;
	sfu_trigger.nr = t.nr;
	sfu_trigger.probe = t.probe;
	err = tracepoint_probe_register(t.tp, t.probe, NULL);
	if (!err)
		sfu_trigger.tp = t.tp;
	return err;
}

static ssize_t sfu_trigger_write(struct file *file, const char __user *ubuf, size_t len,
				 loff_t *ppos)
{
	return sfu_control_write(ubuf, len, sfu_trigger_parse);
}

static int sfu_trigger_show(struct seq_file *m, void *v)
{
	mutex_lock(&sfu_trace_mutex);
	if (!sfu_trigger.tp)
		seq_puts(m, "off");
	else
		seq_printf(m, "%s pid=%d nr=%ld", sfu_trigger.tp->name, sfu_trigger.tgid,
			   sfu_trigger.nr);
	seq_printf(m, " hits=%ld\n", atomic_long_read(&sfu_trigger_hits));
	mutex_unlock(&sfu_trace_mutex);
	return 0;
}
SFU_DEFINE_SHOW_STORE_ATTRIBUTE(sfu_trigger);

/* ---- life cycle --------------------------------------------------------- */

/**
 * sfu_trace_init() - register the user_stack requester and its controls
 *
 * Context: module init, after sfu_deferred_init().
 * Return: 0 or -errno.
 */
int sfu_trace_init(void)
{
	int err = sfu_unwind_deferred_init(&sfu_trace_work, sfu_trace_deliver);

	if (err)
		return err;
	sfu_debugfs_file("sampler", 0600, NULL, &sfu_sampler_fops);
	sfu_debugfs_file("trigger", 0600, NULL, &sfu_trigger_fops);
	return 0;
}

/**
 * sfu_trace_stop() - no new request from the sampler or the trigger
 *
 * Context: module exit, before sfu_deferred_stop().
 */
void sfu_trace_stop(void)
{
	sfu_debugfs_remove("sampler");
	sfu_debugfs_remove("trigger");
	mutex_lock(&sfu_trace_mutex);
	sfu_sampler_stop();
	sfu_trigger_detach();
	mutex_unlock(&sfu_trace_mutex);
}

/**
 * sfu_trace_exit() - unregister the user_stack requester
 *
 * Context: module exit, after the counted task_work was drained (so that
 * requests already made are delivered), before sfu_deferred_exit().
 */
void sfu_trace_exit(void)
{
	sfu_unwind_deferred_cancel(&sfu_trace_work);
}
