// SPDX-License-Identifier: GPL-2.0
/*
 * Deferred user unwinding (see deferred.h and Documentation/deferred.rst).
 *
 * Per-task state lives in a fixed table of slots keyed by task pointer,
 * claimed with cmpxchg, so that a request from NMI context never allocates
 * and never takes a lock it could find held (deferred_slots.c).  A slot
 * holds the requester bits of the task's current kernel entry, the entry's
 * cookie, and the callchain its walk found.
 *
 * "The current kernel entry" is what the kernel cannot tell a module on
 * 6.1: there is no hook on the return to user space.  What it guarantees
 * is that task_work runs before the task returns to user space, so every
 * request from an entry's first one (which queues the work) until the end
 * of that work is in the same entry.  That is what an entry is here: its
 * cookie and its walk serve the requests up to the end of the work that
 * walked, and any later request starts a new entry.  Nothing is inferred
 * from register contents, which two entries can share.
 *
 * Each slot's state changes under a one-word lock that task and IRQ
 * contexts take with interrupts off and NMI context only tries: a request
 * from an NMI that interrupted its own task's lock holder is rejected and
 * counted, never waited for.  Only the owning task's contexts use a slot,
 * with two exceptions that take the lock too: sfu_unwind_deferred_cancel()
 * and module exit.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bitops.h>
#include <linux/debugfs.h>
#include <linux/err.h>
#include <linux/irq_work.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/ptrace.h>
#include <linux/sched.h>
#include <linux/sched/task_stack.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/srcu.h>
#include <linux/string.h>
#include <linux/tracepoint.h>

#include "deferred_slots.h"
#include "internal.h"
#include "sframe_unwind/lib.h"
#include "sframe_unwind/task_work.h"
#include "sframe_unwind/unwind.h"
#include "sframe_unwind/compat/export.h"

/* Low bits of a cookie: the CPU (+ 1) that started the entry's phase. */
#define SFU_DF_COOKIE_CPU_BITS	20

/* NMI context cannot queue task_work on 6.1: it queues this. */
struct sfu_df_irq_work {
	struct irq_work work;
	struct sfu_deferred_task *task;
};

static DEFINE_PER_CPU(struct sfu_df_irq_work, sfu_df_irq_work);
static DEFINE_PER_CPU(u64, sfu_df_cookie_ctr);

static DEFINE_MUTEX(sfu_df_mutex);	/* requester registration */
static DECLARE_BITMAP(sfu_df_used, SFU_UNWIND_MAX_REQUESTERS);
static struct sfu_unwind_work __rcu *sfu_df_works[SFU_UNWIND_MAX_REQUESTERS];
static struct srcu_struct sfu_df_srcu;	/* delivery vs. cancel */

static struct tracepoint *sfu_df_exit_tp;
static struct sfu_unwind_work sfu_df_fault_in_work;

#ifdef SFU_TEST_BUILD
static struct sfu_deferred_kunit *sfu_df_kunit;

/* Whether the KUnit suite's stand-in serves @task. */
static bool sfu_df_kunit_serves(struct task_struct *task)
{
	struct sfu_deferred_kunit *k = READ_ONCE(sfu_df_kunit);

	return unlikely(k) && k->task == task;
}
#else
/* The product has no stand-in: every request is a user task's own. */
static inline bool sfu_df_kunit_serves(struct task_struct *task)
{
	return false;
}
#endif

static bool sfu_df_user_task(struct task_struct *task)
{
	return sfu_df_kunit_serves(task) ||
	       (task->mm && !(task->flags & (PF_KTHREAD | PF_IO_WORKER)));
}

/* Unique, never 0: the CPU (+ 1) low, its count of entries in the high 44 bits. */
static u64 sfu_df_new_cookie(void)
{
	u64 n = this_cpu_inc_return(sfu_df_cookie_ctr);

	return (n << SFU_DF_COOKIE_CPU_BITS) | (raw_smp_processor_id() + 1);
}

/* The entry's undelivered requests are dropped for @why: no entry then. */
static void sfu_df_drop(struct sfu_deferred_task *t, enum sfu_deferred_stat why)
{
	unsigned long flags, todo;

	sfu_df_lock(t, &flags);
	todo = atomic_long_read(&t->state) & SFU_DF_ST_BITS & ~t->claimed;
	atomic_long_set(&t->state, 0);
	t->claimed = 0;
	sfu_df_unlock(t, flags);
	sfu_df_count(why, hweight_long(todo));
}

/* Walk the current task into the slot's cache; faults allowed. */
static int sfu_df_walk(struct sfu_deferred_task *t)
{
	unsigned int max = sfu_unwind_depth_limit(), i;
	int nr, stop = SFU_END_NOT_USER;

	if (t->capacity < max) {
		struct sfu_uframe *buf;

		buf = kmalloc_array(max, sizeof(*buf) + sizeof(unsigned long), GFP_KERNEL);
		if (!buf)
			return -ENOMEM;
		kfree(t->frames);
		t->frames = buf;
		t->trace.entries = (unsigned long *)(buf + max);
		t->capacity = max;
	}
	nr = sfu_unwind_user(t->frames, max, 0, &stop);
	if (nr < 0)
		nr = 0;
	for (i = 0; i < nr; i++)
		t->trace.entries[i] = t->frames[i].ip;
	t->trace.nr = nr;
	t->trace.stop_reason = stop;
	return 0;
}

/*
 * Hand the trace to every requester of the entry, including late ones
 * (requests made meanwhile by a callback or an interrupt: cache hits).
 * The entry ends with the last round: no later request can be proven to
 * be in it.
 */
static void sfu_df_deliver(struct sfu_deferred_task *t)
{
	unsigned long flags, todo;
	bool late = false;
	int idx, bit;

	idx = srcu_read_lock(&sfu_df_srcu);
	for (;; late = true) {
		sfu_df_lock(t, &flags);
		todo = atomic_long_read(&t->state) & SFU_DF_ST_BITS & ~t->claimed;
		t->claimed |= todo;
		if (!todo)
			atomic_long_andnot(SFU_DF_ST_RUNNING | SFU_DF_ST_CACHED, &t->state);
		sfu_df_unlock(t, flags);
		if (!todo)
			break;
		for_each_set_bit(bit, &todo, SFU_UNWIND_MAX_REQUESTERS) {
			struct sfu_unwind_work *w;

			w = srcu_dereference(sfu_df_works[bit], &sfu_df_srcu);
			if (w) {
				w->func(w, &t->trace, t->cookie);
				sfu_df_count(SFU_DF_DELIVERED, 1);
				if (late)
					sfu_df_count(SFU_DF_CACHE_HITS, 1);
			} else {
				sfu_df_count(SFU_DF_DROPPED_CANCEL, 1);
			}
		}
	}
	srcu_read_unlock(&sfu_df_srcu, idx);
}

/* The unwind work proper, in the task's context before it returns to user. */
static void sfu_df_run(struct sfu_deferred_task *t)
{
	unsigned long flags, state;

	sfu_df_lock(t, &flags);
	state = atomic_long_read(&t->state);
	atomic_long_set(&t->state, (state & ~SFU_DF_ST_QUEUED) | SFU_DF_ST_RUNNING);
	sfu_df_unlock(t, flags);

	/* From exit_task_work(): the mm is gone, and so is the slot's use. */
	if (current->flags & PF_EXITING) {
		sfu_df_drop(t, SFU_DF_DROPPED_EXIT);
		sfu_df_release(t);
		return;
	}
	if (current->self_exec_id != t->exec_id) {
		/* The requests were about the program exec replaced. */
		sfu_df_drop(t, SFU_DF_DROPPED_EXEC);
	} else if (sfu_df_walk(t)) {
		sfu_df_drop(t, SFU_DF_DROPPED_NOMEM);
	} else {
		sfu_df_count(SFU_DF_UNWINDS, 1);
		/* The trace before the flag (cached() reads it). */
		smp_mb__before_atomic();
		atomic_long_or(SFU_DF_ST_CACHED, &t->state);
		sfu_df_deliver(t);
	}
	sfu_df_put(t);
}

static void sfu_df_task_work(struct callback_head *head)
{
	sfu_df_run(container_of(head, struct sfu_deferred_task, work));
	sfu_task_work_done();
}

static void sfu_df_irq_work_fn(struct irq_work *work)
{
	struct sfu_df_irq_work *iw = container_of(work, struct sfu_df_irq_work, work);
	struct sfu_deferred_task *t = xchg(&iw->task, NULL);

	if (!t)
		return;
	/*
	 * The self-IPI runs this before the interrupted task can leave the
	 * CPU; an architecture without one runs it from the next tick,
	 * maybe in another task.
	 */
	if (READ_ONCE(t->task) != current)
		sfu_df_drop(t, SFU_DF_DROPPED_LOST);
	else if (sfu_task_work_add(current, &t->work, sfu_df_task_work, TWA_RESUME))
		sfu_df_drop(t, SFU_DF_DROPPED_EXIT);
}

/*
 * NMI context: task_work_add() is not NMI-safe on 6.1, so the work goes
 * through this CPU's irq_work (a self-IPI).  Taken under the slot's lock,
 * before the request changes anything: a hand-off held by another task
 * rejects the request instead of dropping it later.
 */
static bool sfu_df_claim_irq_work(struct sfu_deferred_task *t)
{
	struct sfu_deferred_task *old;

	old = cmpxchg(this_cpu_ptr(&sfu_df_irq_work.task), NULL, t);
	return !old || old == t;
}

#ifdef SFU_TEST_BUILD
/* Hand the current task's work to the KUnit suite's stand-in, if it serves it. */
static bool sfu_df_kunit_queue(struct sfu_deferred_task *t)
{
	struct sfu_deferred_kunit *k = READ_ONCE(sfu_df_kunit);

	if (likely(!k) || k->task != current)
		return false;
	init_task_work(&t->work, sfu_df_task_work);
	k->queue(k, &t->work);
	return true;
}
#else
static inline bool sfu_df_kunit_queue(struct sfu_deferred_task *t)
{
	return false;
}
#endif

static int sfu_df_queue(struct sfu_deferred_task *t)
{
	if (sfu_df_kunit_queue(t))
		return 0;
	if (in_nmi()) {
		irq_work_queue(this_cpu_ptr(&sfu_df_irq_work.work));
		return 0;
	}
	return sfu_task_work_add(current, &t->work, sfu_df_task_work, TWA_RESUME);
}

/* The slot of @task for a request, or ERR_PTR() for a rejection (counted). */
static struct sfu_deferred_task *sfu_df_request_slot(struct task_struct *task)
{
	struct sfu_deferred_task *t;

	if (!sfu_df_user_task(task)) {
		sfu_df_count(SFU_DF_REJECTED_NOT_USER, 1);
		return ERR_PTR(-EINVAL);
	}
	if (task->flags & PF_EXITING) {
		sfu_df_count(SFU_DF_REJECTED_EXITING, 1);
		return ERR_PTR(-ESRCH);
	}
	t = sfu_df_get(task);
	if (!t) {
		sfu_df_count(SFU_DF_REJECTED_NO_SLOT, 1);
		return ERR_PTR(-ENOSPC);
	}
	return t;
}

/*
 * @regs tell nothing more: a request while the entry's work is queued or
 * running is in that entry, any other starts a new one.
 */
static int sfu_df_request(struct sfu_unwind_work *work, struct pt_regs *regs, u64 *cookie)
{
	struct task_struct *task = current;
	struct sfu_deferred_task *t;
	unsigned long bit, state, flags;
	bool new_entry;
	int ret, err;

	if (!work || work->bit < 0 || work->bit >= SFU_UNWIND_MAX_REQUESTERS)
		return -EINVAL;
	sfu_df_count(SFU_DF_REQUESTS, 1);
	t = sfu_df_request_slot(task);
	if (IS_ERR(t))
		return PTR_ERR(t);
	if (!sfu_df_lock(t, &flags))
		goto busy;

	bit = BIT(work->bit);
	state = atomic_long_read(&t->state);
	/* Queued or running work is this entry's, and delivers a late bit. */
	new_entry = !(state & SFU_DF_ST_BUSY);
	if (new_entry && in_nmi() && !sfu_df_claim_irq_work(t)) {
		sfu_df_unlock(t, flags);
		goto busy;
	}
	if (new_entry) {
		/* The flag goes first (cached() reads no lock). */
		atomic_long_set(&t->state, bit | SFU_DF_ST_QUEUED);
		smp_wmb();	/* pairs with the acquire in sfu_unwind_deferred_cached() */
		t->cookie = sfu_df_new_cookie();
		t->exec_id = READ_ONCE(task->self_exec_id);
		t->claimed = 0;
		ret = 0;
		sfu_df_count(SFU_DF_QUEUED, 1);
	} else if (state & bit) {
		ret = 1;
		sfu_df_count(SFU_DF_ALREADY, 1);
	} else {
		atomic_long_or(bit, &t->state);
		ret = 1;
		sfu_df_count(SFU_DF_JOINED, 1);
	}
	if (cookie)
		*cookie = t->cookie;
	sfu_df_unlock(t, flags);

	if (new_entry) {
		err = sfu_df_queue(t);
		if (err) {
			/* Only task_work_add() fails: the task is past exit_task_work(). */
			sfu_df_drop(t, SFU_DF_DROPPED_EXIT);
			return err;
		}
	}
	return ret;

busy:
	sfu_df_count(SFU_DF_REJECTED_BUSY, 1);
	return -EBUSY;
}

/**
 * sfu_unwind_deferred_request() - ask for the current task's user callchain
 * @work: a requester set up by sfu_unwind_deferred_init()
 * @cookie: if not NULL, set to the cookie of the current kernel entry
 *
 * The first request of a kernel entry queues one unwind, which runs in
 * task_work before the task returns to user space; every requester of the
 * entry then gets the callchain and the cookie, once.
 *
 * An entry lasts from its first request to the end of the work that walks
 * it: a request after that starts a new entry, with a new cookie and a new
 * walk, whatever the task's registers.
 *
 * Context: any, NMI included.
 * Return: 0 if this request queued the entry's unwind; 1 if the entry's
 * unwind is already queued or running (@work's callback is then made,
 * or was made, with the entry's callchain); -EINVAL for a kernel
 * thread or a @work not registered; -ESRCH if the task is exiting;
 * -ENOSPC if no slot is free for the task; -EBUSY (NMI context only) if
 * the NMI interrupted a change of the task's state or the CPU's NMI
 * hand-off holds another task's work.
 */
int sfu_unwind_deferred_request(struct sfu_unwind_work *work, u64 *cookie)
{
	return sfu_df_request(work, NULL, cookie);
}
EXPORT_SYMBOL_NS_GPL(sfu_unwind_deferred_request, SFU_NS);

/**
 * sfu_unwind_deferred_request_regs() - request from an interrupt handler
 * @work: a requester set up by sfu_unwind_deferred_init()
 * @regs: the interrupted registers (as a perf overflow handler gets them),
 *	or NULL
 * @cookie: if not NULL, set to the cookie of the current kernel entry
 *
 * As sfu_unwind_deferred_request(), which it is: an interrupt of user
 * mode is a new kernel entry, and the entry's work, queued or running,
 * would mean the task had not been back to user space.
 *
 * Context: any, NMI included.
 * Return: as sfu_unwind_deferred_request().
 */
int sfu_unwind_deferred_request_regs(struct sfu_unwind_work *work, struct pt_regs *regs,
				     u64 *cookie)
{
	return sfu_df_request(work, regs, cookie);
}
EXPORT_SYMBOL_NS_GPL(sfu_unwind_deferred_request_regs, SFU_NS);

/**
 * sfu_unwind_deferred_cached() - the current entry's callchain, if walked
 * @regs: the interrupted registers, or NULL in task context
 * @trace: set to the cached callchain
 * @cookie: set to the entry's cookie
 *
 * For a sampler in NMI context: a sample taken after the task's unwind
 * ran, while the work that made it still runs (its callbacks), can use the
 * result as it is.  Once that work is over the module cannot know whether
 * the task has been back to user space, and there is no result.  The
 * trace stays valid until the task's next request, which starts a new
 * entry and which only the task itself (or an interrupt of it) can make.
 *
 * Context: any, NMI included; lock-free.
 * Return: 0 with @trace and @cookie set, or -ENOENT (always when @regs
 * interrupted user mode: that interrupt is a new entry).
 */
int sfu_unwind_deferred_cached(struct pt_regs *regs, const struct sfu_unwind_stacktrace **trace,
			       u64 *cookie)
{
	struct task_struct *task = current;
	struct sfu_deferred_task *t;

	if (!sfu_df_user_task(task) || (task->flags & PF_EXITING))
		return -ENOENT;
	t = sfu_df_find(task);
	if ((regs && user_mode(regs)) || !t ||
	    !(atomic_long_read_acquire(&t->state) & SFU_DF_ST_CACHED))
		return -ENOENT;
	*trace = &t->trace;
	*cookie = t->cookie;
	return 0;
}
EXPORT_SYMBOL_NS_GPL(sfu_unwind_deferred_cached, SFU_NS);

/**
 * sfu_unwind_deferred_fault_in() - have the task walk its stack, faulting
 *
 * Requests a faultable unwind of the current task before it returns to
 * user space, with no callback: the SFrame data and stack pages it needs
 * are then present for no-fault unwinds of later samples.
 *
 * Context: any, NMI included.
 * Return: 0 if the unwind is queued or done for this entry, else as
 * sfu_unwind_deferred_request().
 */
int sfu_unwind_deferred_fault_in(void)
{
	int ret = sfu_df_request(&sfu_df_fault_in_work, NULL, NULL);

	return ret < 0 ? ret : 0;
}
EXPORT_SYMBOL_NS_GPL(sfu_unwind_deferred_fault_in, SFU_NS);

/**
 * sfu_unwind_deferred_init() - register a requester
 * @work: the requester (embedded in the caller's structure)
 * @func: its callback
 *
 * Context: process context; may sleep.
 * Return: 0, or -EBUSY when SFU_UNWIND_MAX_REQUESTERS are registered.
 */
int sfu_unwind_deferred_init(struct sfu_unwind_work *work, sfu_unwind_callback_t func)
{
	int bit;

	mutex_lock(&sfu_df_mutex);
	bit = find_first_zero_bit(sfu_df_used, SFU_UNWIND_MAX_REQUESTERS);
	if (bit >= SFU_UNWIND_MAX_REQUESTERS) {
		mutex_unlock(&sfu_df_mutex);
		work->bit = -1;
		return -EBUSY;
	}
	__set_bit(bit, sfu_df_used);
	work->func = func;
	work->bit = bit;
	rcu_assign_pointer(sfu_df_works[bit], work);
	mutex_unlock(&sfu_df_mutex);
	return 0;
}
EXPORT_SYMBOL_NS_GPL(sfu_unwind_deferred_init, SFU_NS);

/**
 * sfu_unwind_deferred_cancel() - unregister a requester
 * @work: the requester
 *
 * After this returns, @work's callback is not running and will not be
 * called again; its requests still pending are counted as dropped.  The
 * caller must have stopped making requests with @work.
 *
 * Context: process context; may sleep.
 */
void sfu_unwind_deferred_cancel(struct sfu_unwind_work *work)
{
	unsigned long bit, flags, state;
	unsigned int i;

	if (!work || work->bit < 0 || work->bit >= SFU_UNWIND_MAX_REQUESTERS)
		return;
	mutex_lock(&sfu_df_mutex);
	bit = BIT(work->bit);
	RCU_INIT_POINTER(sfu_df_works[work->bit], NULL);
	synchronize_srcu(&sfu_df_srcu);

	/* Nobody may inherit the bit with a request of this one pending. */
	for (i = 0; i < SFU_DF_SLOTS; i++) {
		struct sfu_deferred_task *t = &sfu_df_slots[i];

		if (!READ_ONCE(t->task))
			continue;
		sfu_df_lock(t, &flags);
		state = atomic_long_read(&t->state);
		if ((state & bit) && !(t->claimed & bit) && (state & SFU_DF_ST_BUSY))
			sfu_df_count(SFU_DF_DROPPED_CANCEL, 1);
		atomic_long_andnot(bit, &t->state);
		t->claimed &= ~bit;
		sfu_df_unlock(t, flags);
	}
	/* A delivery that claimed the bit before has looked its requester up. */
	synchronize_srcu(&sfu_df_srcu);
	__clear_bit(work->bit, sfu_df_used);
	work->bit = -1;
	mutex_unlock(&sfu_df_mutex);
}
EXPORT_SYMBOL_NS_GPL(sfu_unwind_deferred_cancel, SFU_NS);

static void sfu_df_fault_in_done(struct sfu_unwind_work *work,
				 struct sfu_unwind_stacktrace *trace, u64 cookie)
{
}

/*
 * sched_process_exit: after exit_mm(), before exit_task_work().  A slot
 * with work queued is left to that work, which runs from exit_task_work()
 * and gives it back.
 */
static void sfu_df_exit_probe(void *data, struct task_struct *task)
{
	struct sfu_deferred_task *t = sfu_df_find(task);
	unsigned long flags;
	bool busy;

	if (!t)
		return;
	sfu_df_lock(t, &flags);
	busy = atomic_long_read(&t->state) & SFU_DF_ST_BUSY;
	sfu_df_unlock(t, flags);
	if (!busy)
		sfu_df_release(t);
}

#ifdef SFU_TEST_BUILD
/**
 * sfu_deferred_kunit_attach() - serve a kernel thread's requests for KUnit
 * @k: the thread and the stand-in for task_work_add()
 */
void sfu_deferred_kunit_attach(struct sfu_deferred_kunit *k)
{
	WRITE_ONCE(sfu_df_kunit, k);
}
EXPORT_SYMBOL_IF_KUNIT(sfu_deferred_kunit_attach);

/**
 * sfu_deferred_kunit_detach() - undo sfu_deferred_kunit_attach()
 */
void sfu_deferred_kunit_detach(void)
{
	WRITE_ONCE(sfu_df_kunit, NULL);
	synchronize_rcu();
}
EXPORT_SYMBOL_IF_KUNIT(sfu_deferred_kunit_detach);

/**
 * sfu_deferred_kunit_run() - run unwind work the stand-in was handed
 * @work: the work @queue got
 *
 * Context: the attached thread, as if returning to user space.
 */
void sfu_deferred_kunit_run(struct callback_head *work)
{
	sfu_df_run(container_of(work, struct sfu_deferred_task, work));
}
EXPORT_SYMBOL_IF_KUNIT(sfu_deferred_kunit_run);

/**
 * sfu_deferred_kunit_forget() - what task exit does to the current task's slot
 *
 * Drops its pending requests as exited and frees the slot.
 */
void sfu_deferred_kunit_forget(void)
{
	struct sfu_deferred_task *t = sfu_df_find(current);

	if (!t)
		return;
	sfu_df_drop(t, SFU_DF_DROPPED_EXIT);
	sfu_df_release(t);
}
EXPORT_SYMBOL_IF_KUNIT(sfu_deferred_kunit_forget);
#endif /* SFU_TEST_BUILD */

/**
 * sfu_deferred_init() - set up deferred unwinding
 *
 * Context: module init, after the unwinder and the debugfs root.
 * Return: 0 or -errno (nothing stays set up).
 */
int sfu_deferred_init(void)
{
	int cpu, err;

	if (nr_cpu_ids >= BIT(SFU_DF_COOKIE_CPU_BITS))
		return -EOVERFLOW;	/* cookies would not say the CPU */
	err = sfu_df_slots_init();
	if (err)
		return err;
	err = init_srcu_struct(&sfu_df_srcu);
	if (err)
		goto out_slots;
	for_each_possible_cpu(cpu)
		init_irq_work(&per_cpu(sfu_df_irq_work, cpu).work, sfu_df_irq_work_fn);
	err = sfu_unwind_deferred_init(&sfu_df_fault_in_work, sfu_df_fault_in_done);
	if (err)
		goto out_srcu;
	err = -ENOENT;
	sfu_df_exit_tp = sfu_tracepoint_find("sched_process_exit");
	if (sfu_df_exit_tp)
		err = tracepoint_probe_register(sfu_df_exit_tp, sfu_df_exit_probe, NULL);
	if (err) {
		pr_err("cannot attach to tracepoint sched_process_exit: %d\n", err);
		goto out_work;
	}
	sfu_df_stats_init();
	return 0;

out_work:
	sfu_unwind_deferred_cancel(&sfu_df_fault_in_work);
out_srcu:
	cleanup_srcu_struct(&sfu_df_srcu);
out_slots:
	sfu_df_slots_exit();
	return err;
}

/**
 * sfu_deferred_stop() - no NMI hand-off left pending
 *
 * Context: module exit, after every requester inside the module stopped
 * requesting and before the counted task_work is drained.
 */
void sfu_deferred_stop(void)
{
	int cpu;

	for_each_possible_cpu(cpu)
		irq_work_sync(&per_cpu(sfu_df_irq_work, cpu).work);
}

/**
 * sfu_deferred_exit() - free what sfu_deferred_init() set up
 *
 * Context: module exit, after the counted task_work was drained.
 */
void sfu_deferred_exit(void)
{
	sfu_df_stats_exit();
	tracepoint_probe_unregister(sfu_df_exit_tp, sfu_df_exit_probe, NULL);
	tracepoint_synchronize_unregister();
	sfu_unwind_deferred_cancel(&sfu_df_fault_in_work);
	sfu_df_slots_exit();
	cleanup_srcu_struct(&sfu_df_srcu);
}
