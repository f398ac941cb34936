// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite for deferred unwinding (unwind/deferred.c): requests, cookies,
 * what makes an entry, several requesters, requests from IRQ context and
 * from callbacks, cancellation with work pending, task exit with work
 * pending, and slots held only while an entry is open.
 *
 * A case runs in a kernel thread, which never returns to user space and so
 * never runs task_work: the suite attaches itself as the thread's stand-in
 * for task_work_add() (struct sfu_deferred_kunit) and runs the queued work
 * when the case says the thread "returns to user space".  Everything else
 * is the module's code.  The walk itself finds no user context in a kernel
 * thread (0 frames, stop reason not_user); what real walks deliver is
 * checked end to end by tests/e2e/user_stack_events.sh.
 */
#include <kunit/test.h>
#include <linux/hrtimer.h>
#include <linux/ptrace.h>
#include <linux/sched/task_stack.h>
#include <linux/sort.h>

#include "sframe_unwind/compat/hrtimer.h"
#include "unwind/internal.h"
#include "sframe_unwind/unwind.h"
#include "unwind_kunit.h"

/**
 * struct df_requester - a requester that records its callbacks
 * @work: registered with sfu_unwind_deferred_init()
 * @calls: callbacks made
 * @cookie: the last callback's cookie
 * @nr: the last callback's trace length
 * @stop: the last callback's stop reason
 */
struct df_requester {
	struct sfu_unwind_work work;
	int calls;
	u64 cookie;
	unsigned int nr;
	int stop;
};

/**
 * struct df_ctx - one case's state
 * @k: the task_work stand-in attached for the case's thread
 * @queued: times the module queued unwind work
 * @work: the work it queued last, not yet run
 * @req: three requesters
 * @late_ret: what a request from a callback returned
 * @late_cookie: the cookie it got
 * @cached_ret: what sfu_unwind_deferred_cached() returned in that callback
 * @cached_cookie: the cookie it gave
 */
struct df_ctx {
	struct sfu_deferred_kunit k;
	int queued;
	struct callback_head *work;
	struct df_requester req[3];
	int late_ret;
	u64 late_cookie;
	int cached_ret;
	u64 cached_cookie;
};

static void df_callback(struct sfu_unwind_work *work, struct sfu_unwind_stacktrace *trace,
			u64 cookie)
{
	struct df_requester *r = container_of(work, struct df_requester, work);

	r->calls++;
	r->cookie = cookie;
	r->nr = trace->nr;
	r->stop = trace->stop_reason;
}

static void df_queue(struct sfu_deferred_kunit *k, struct callback_head *work)
{
	struct df_ctx *ctx = container_of(k, struct df_ctx, k);

	ctx->queued++;
	ctx->work = work;
}

/* The thread "returns to user space": the queued work runs. */
static void df_return_to_user(struct kunit *test, struct df_ctx *ctx)
{
	struct callback_head *work = ctx->work;

	KUNIT_ASSERT_NOT_NULL(test, work);
	ctx->work = NULL;
	sfu_deferred_kunit_run(work);
}

static int df_init(struct kunit *test)
{
	struct df_ctx *ctx = kunit_kzalloc(test, sizeof(*ctx), GFP_KERNEL);
	int i;

	KUNIT_ASSERT_NOT_NULL(test, ctx);
	for (i = 0; i < ARRAY_SIZE(ctx->req); i++)
		KUNIT_ASSERT_EQ(test, sfu_unwind_deferred_init(&ctx->req[i].work, df_callback), 0);
	ctx->k.task = current;
	ctx->k.queue = df_queue;
	sfu_deferred_kunit_attach(&ctx->k);
	test->priv = ctx;
	return 0;
}

static void df_exit(struct kunit *test)
{
	struct df_ctx *ctx = test->priv;
	int i;

	sfu_deferred_kunit_forget();
	sfu_deferred_kunit_detach();
	for (i = 0; i < ARRAY_SIZE(ctx->req); i++)
		sfu_unwind_deferred_cancel(&ctx->req[i].work);
}

/* Entries from user mode, as an interrupt of user space reports them. */
static void df_user_regs(struct pt_regs *regs)
{
	struct uw_user_regs r = { .ip = 0x400000, .sp = 0x7ffff000 };

	memset(regs, 0, sizeof(*regs));
	uw_arch_set_regs(regs, &r);
}

static void first_request_queues_one_unwind_with_a_nonzero_cookie(struct kunit *test)
{
	struct df_ctx *ctx = test->priv;
	u64 unwinds = sfu_deferred_stat(SFU_DF_UNWINDS);
	u64 cookie = 0, again = 0;

	KUNIT_EXPECT_EQ(test, sfu_unwind_deferred_request(&ctx->req[0].work, &cookie), 0);
	KUNIT_EXPECT_NE(test, cookie, 0);
	KUNIT_EXPECT_EQ(test, ctx->queued, 1);
	/* The same requester again, same entry: nothing new. */
	KUNIT_EXPECT_EQ(test, sfu_unwind_deferred_request(&ctx->req[0].work, &again), 1);
	KUNIT_EXPECT_EQ(test, again, cookie);
	KUNIT_EXPECT_EQ(test, ctx->queued, 1);
	KUNIT_EXPECT_EQ(test, ctx->req[0].calls, 0);

	df_return_to_user(test, ctx);
	KUNIT_EXPECT_EQ(test, ctx->req[0].calls, 1);
	KUNIT_EXPECT_EQ(test, ctx->req[0].cookie, cookie);
	/* A kernel thread has no user stack to walk. */
	KUNIT_EXPECT_EQ(test, ctx->req[0].nr, 0);
	KUNIT_EXPECT_EQ(test, ctx->req[0].stop, SFU_END_NOT_USER);
	KUNIT_EXPECT_EQ(test, sfu_deferred_stat(SFU_DF_UNWINDS), unwinds + 1);
}

static void every_requester_of_an_entry_is_called_once_with_its_cookie(struct kunit *test)
{
	struct df_ctx *ctx = test->priv;
	u64 unwinds = sfu_deferred_stat(SFU_DF_UNWINDS);
	u64 delivered = sfu_deferred_stat(SFU_DF_DELIVERED);
	u64 c0 = 0, c1 = 0, c2 = 0;

	KUNIT_EXPECT_EQ(test, sfu_unwind_deferred_request(&ctx->req[0].work, &c0), 0);
	KUNIT_EXPECT_EQ(test, sfu_unwind_deferred_request(&ctx->req[1].work, &c1), 1);
	KUNIT_EXPECT_EQ(test, sfu_unwind_deferred_request(&ctx->req[1].work, &c1), 1);
	KUNIT_EXPECT_EQ(test, sfu_unwind_deferred_request(&ctx->req[2].work, &c2), 1);
	KUNIT_EXPECT_EQ(test, c1, c0);
	KUNIT_EXPECT_EQ(test, c2, c0);
	KUNIT_EXPECT_EQ(test, ctx->queued, 1);

	df_return_to_user(test, ctx);
	KUNIT_EXPECT_EQ(test, ctx->req[0].calls, 1);
	KUNIT_EXPECT_EQ(test, ctx->req[1].calls, 1);
	KUNIT_EXPECT_EQ(test, ctx->req[2].calls, 1);
	KUNIT_EXPECT_EQ(test, ctx->req[1].cookie, c0);
	KUNIT_EXPECT_EQ(test, ctx->req[2].cookie, c0);
	KUNIT_EXPECT_EQ(test, sfu_deferred_stat(SFU_DF_UNWINDS), unwinds + 1);
	KUNIT_EXPECT_EQ(test, sfu_deferred_stat(SFU_DF_DELIVERED), delivered + 3);
}

/*
 * Two entries whose saved user registers are bit for bit the same (a loop
 * of one system call at one stack depth) are still two entries: once the
 * walk's work has run, the task may have been back to user space.
 */
static void entries_with_identical_registers_are_distinct(struct kunit *test)
{
	struct df_ctx *ctx = test->priv;
	struct pt_regs *regs = task_pt_regs(current);
	struct pt_regs *saved = kunit_kmalloc(test, sizeof(*saved), GFP_KERNEL);
	u64 unwinds, c0 = 0, c1 = 0;

	KUNIT_ASSERT_NOT_NULL(test, saved);
	memcpy(saved, regs, sizeof(*saved));
	KUNIT_EXPECT_EQ(test, sfu_unwind_deferred_request(&ctx->req[0].work, &c0), 0);
	df_return_to_user(test, ctx);
	unwinds = sfu_deferred_stat(SFU_DF_UNWINDS);

	KUNIT_EXPECT_EQ(test, memcmp(saved, regs, sizeof(*saved)), 0);
	KUNIT_EXPECT_EQ(test, sfu_unwind_deferred_request(&ctx->req[0].work, &c1), 0);
	KUNIT_EXPECT_NE(test, c1, 0);
	KUNIT_EXPECT_NE(test, c1, c0);
	KUNIT_EXPECT_EQ(test, ctx->queued, 2);
	df_return_to_user(test, ctx);
	KUNIT_EXPECT_EQ(test, ctx->req[0].calls, 2);
	KUNIT_EXPECT_EQ(test, ctx->req[0].cookie, c1);
	KUNIT_EXPECT_EQ(test, sfu_deferred_stat(SFU_DF_UNWINDS), unwinds + 1);
	/* Another requester after that walk: a third entry, not the cache. */
	KUNIT_EXPECT_EQ(test, sfu_unwind_deferred_request(&ctx->req[1].work, &c0), 0);
	KUNIT_EXPECT_NE(test, c0, c1);
	df_return_to_user(test, ctx);
	KUNIT_EXPECT_EQ(test, ctx->req[1].cookie, c0);
	KUNIT_EXPECT_EQ(test, sfu_deferred_stat(SFU_DF_UNWINDS), unwinds + 2);
}

static struct df_ctx *df_chain_ctx;

/* A callback that asks again, for requester 2, while the walk's work runs. */
static void df_chain_callback(struct sfu_unwind_work *work, struct sfu_unwind_stacktrace *trace,
			      u64 cookie)
{
	struct df_ctx *ctx = df_chain_ctx;
	const struct sfu_unwind_stacktrace *cached = NULL;

	df_callback(work, trace, cookie);
	ctx->late_ret = sfu_unwind_deferred_request(&ctx->req[2].work, &ctx->late_cookie);
	ctx->cached_ret = sfu_unwind_deferred_cached(NULL, &cached, &ctx->cached_cookie);
}

static void request_while_the_walk_is_delivered_joins_its_entry(struct kunit *test)
{
	struct df_ctx *ctx = test->priv;
	u64 unwinds = sfu_deferred_stat(SFU_DF_UNWINDS);
	u64 hits = sfu_deferred_stat(SFU_DF_CACHE_HITS);
	const struct sfu_unwind_stacktrace *trace;
	u64 c0 = 0, cookie = 0;

	sfu_unwind_deferred_cancel(&ctx->req[0].work);
	KUNIT_ASSERT_EQ(test, sfu_unwind_deferred_init(&ctx->req[0].work, df_chain_callback), 0);
	df_chain_ctx = ctx;
	KUNIT_EXPECT_EQ(test, sfu_unwind_deferred_request(&ctx->req[0].work, &c0), 0);
	df_return_to_user(test, ctx);
	/* Still the entry: served by the same walk, from its result. */
	KUNIT_EXPECT_EQ(test, ctx->late_ret, 1);
	KUNIT_EXPECT_EQ(test, ctx->late_cookie, c0);
	KUNIT_EXPECT_EQ(test, ctx->cached_ret, 0);
	KUNIT_EXPECT_EQ(test, ctx->cached_cookie, c0);
	KUNIT_EXPECT_EQ(test, ctx->req[2].calls, 1);
	KUNIT_EXPECT_EQ(test, ctx->req[2].cookie, c0);
	KUNIT_EXPECT_EQ(test, ctx->queued, 1);
	KUNIT_EXPECT_EQ(test, sfu_deferred_stat(SFU_DF_UNWINDS), unwinds + 1);
	KUNIT_EXPECT_EQ(test, sfu_deferred_stat(SFU_DF_CACHE_HITS), hits + 1);
	/* The work is over: no result any more. */
	KUNIT_EXPECT_EQ(test, sfu_unwind_deferred_cached(NULL, &trace, &cookie), -ENOENT);
}

static void changed_user_registers_start_a_new_entry(struct kunit *test)
{
	struct df_ctx *ctx = test->priv;
	u8 *regs = (u8 *)task_pt_regs(current);
	u64 unwinds, c0 = 0, c1 = 0;

	KUNIT_EXPECT_EQ(test, sfu_unwind_deferred_request(&ctx->req[0].work, &c0), 0);
	df_return_to_user(test, ctx);
	unwinds = sfu_deferred_stat(SFU_DF_UNWINDS);

	/* Every entry from user space saves the registers anew. */
	regs[0] ^= 1;
	KUNIT_EXPECT_EQ(test, sfu_unwind_deferred_request(&ctx->req[0].work, &c1), 0);
	regs[0] ^= 1;
	KUNIT_EXPECT_NE(test, c1, 0);
	KUNIT_EXPECT_NE(test, c1, c0);
	KUNIT_EXPECT_EQ(test, ctx->queued, 2);
	df_return_to_user(test, ctx);
	KUNIT_EXPECT_EQ(test, ctx->req[0].calls, 2);
	KUNIT_EXPECT_EQ(test, ctx->req[0].cookie, c1);
	KUNIT_EXPECT_EQ(test, sfu_deferred_stat(SFU_DF_UNWINDS), unwinds + 1);
}

static void interrupt_of_user_mode_starts_a_new_entry(struct kunit *test)
{
	struct df_ctx *ctx = test->priv;
	struct pt_regs user;
	u64 c0 = 0, c1 = 0;

	df_user_regs(&user);
	KUNIT_ASSERT_TRUE(test, user_mode(&user));
	KUNIT_EXPECT_EQ(test, sfu_unwind_deferred_request(&ctx->req[0].work, &c0), 0);
	df_return_to_user(test, ctx);
	KUNIT_EXPECT_EQ(test, sfu_unwind_deferred_request_regs(&ctx->req[0].work, &user, &c1), 0);
	KUNIT_EXPECT_NE(test, c1, c0);
	df_return_to_user(test, ctx);
	KUNIT_EXPECT_EQ(test, ctx->req[0].calls, 2);
	KUNIT_EXPECT_EQ(test, ctx->req[0].cookie, c1);
}

static int df_cmp_u64(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

#define DF_ENTRIES	256

static void cookies_of_entries_are_all_different_and_nonzero(struct kunit *test)
{
	struct df_ctx *ctx = test->priv;
	u64 *cookies = kunit_kcalloc(test, DF_ENTRIES, sizeof(*cookies), GFP_KERNEL);
	struct pt_regs user;
	int i, dups = 0, zeros = 0;

	KUNIT_ASSERT_NOT_NULL(test, cookies);
	df_user_regs(&user);
	for (i = 0; i < DF_ENTRIES; i++) {
		KUNIT_EXPECT_EQ(test, sfu_unwind_deferred_request_regs(&ctx->req[0].work, &user,
								       &cookies[i]), 0);
		df_return_to_user(test, ctx);
	}
	sort(cookies, DF_ENTRIES, sizeof(*cookies), df_cmp_u64, NULL);
	for (i = 0; i < DF_ENTRIES; i++) {
		zeros += !cookies[i];
		dups += i && cookies[i] == cookies[i - 1];
	}
	KUNIT_EXPECT_EQ(test, zeros, 0);
	KUNIT_EXPECT_EQ(test, dups, 0);
	KUNIT_EXPECT_EQ(test, ctx->req[0].calls, DF_ENTRIES);
}

/**
 * struct df_irq - a request made from a hard interrupt on this CPU
 * @timer: the hrtimer that makes it
 * @req: its requester
 * @task: the thread the interrupt must find running
 * @in_irq: it ran in hard interrupt context, on @task
 * @ret: the request's result
 * @cookie: the cookie it got
 * @done: it ran
 */
struct df_irq {
	struct hrtimer timer;
	struct df_requester *req;
	struct task_struct *task;
	bool in_irq;
	int ret;
	u64 cookie;
	bool done;
};

static enum hrtimer_restart df_irq_fn(struct hrtimer *timer)
{
	struct df_irq *irq = container_of(timer, struct df_irq, timer);

	irq->in_irq = in_hardirq() && current == irq->task;
	irq->ret = sfu_unwind_deferred_request(&irq->req->work, &irq->cookie);
	WRITE_ONCE(irq->done, true);
	return HRTIMER_NORESTART;
}

/* Request from a hard interrupt of this thread, on this CPU. */
static void df_request_from_irq(struct kunit *test, struct df_irq *irq, struct df_requester *req)
{
	unsigned long timeout = jiffies + 5 * HZ;

	memset(irq, 0, sizeof(*irq));
	irq->req = req;
	irq->task = current;
	sfu_hrtimer_setup(&irq->timer, df_irq_fn, CLOCK_MONOTONIC, HRTIMER_MODE_REL_PINNED_HARD);
	preempt_disable();
	hrtimer_start(&irq->timer, ns_to_ktime(100 * NSEC_PER_USEC),
		      HRTIMER_MODE_REL_PINNED_HARD);
	while (!READ_ONCE(irq->done) && time_before(jiffies, timeout))
		cpu_relax();
	preempt_enable();
	hrtimer_cancel(&irq->timer);
	KUNIT_EXPECT_TRUE(test, irq->done);
	KUNIT_EXPECT_TRUE(test, irq->in_irq);
}

static void request_from_irq_context_joins_the_entry(struct kunit *test)
{
	struct df_ctx *ctx = test->priv;
	struct df_irq irq;
	u64 c0 = 0;

	KUNIT_EXPECT_EQ(test, sfu_unwind_deferred_request(&ctx->req[0].work, &c0), 0);
	df_request_from_irq(test, &irq, &ctx->req[1]);
	KUNIT_EXPECT_EQ(test, irq.ret, 1);
	KUNIT_EXPECT_EQ(test, irq.cookie, c0);
	KUNIT_EXPECT_EQ(test, ctx->queued, 1);
	df_return_to_user(test, ctx);
	KUNIT_EXPECT_EQ(test, ctx->req[0].calls, 1);
	KUNIT_EXPECT_EQ(test, ctx->req[1].calls, 1);
	KUNIT_EXPECT_EQ(test, ctx->req[1].cookie, c0);
}

static void first_request_from_irq_context_queues_the_unwind(struct kunit *test)
{
	struct df_ctx *ctx = test->priv;
	struct df_irq irq;
	u64 c1 = 0;

	df_request_from_irq(test, &irq, &ctx->req[0]);
	KUNIT_EXPECT_EQ(test, irq.ret, 0);
	KUNIT_EXPECT_NE(test, irq.cookie, 0);
	KUNIT_EXPECT_EQ(test, ctx->queued, 1);
	KUNIT_EXPECT_EQ(test, sfu_unwind_deferred_request(&ctx->req[1].work, &c1), 1);
	KUNIT_EXPECT_EQ(test, c1, irq.cookie);
	df_return_to_user(test, ctx);
	KUNIT_EXPECT_EQ(test, ctx->req[0].calls, 1);
	KUNIT_EXPECT_EQ(test, ctx->req[0].cookie, irq.cookie);
	KUNIT_EXPECT_EQ(test, ctx->req[1].calls, 1);
}

static void cached_trace_is_only_for_the_same_entry(struct kunit *test)
{
	struct df_ctx *ctx = test->priv;
	const struct sfu_unwind_stacktrace *trace = NULL;
	struct pt_regs user;
	u64 c0 = 0, cookie = 0;

	KUNIT_EXPECT_EQ(test, sfu_unwind_deferred_cached(NULL, &trace, &cookie), -ENOENT);
	KUNIT_EXPECT_EQ(test, sfu_unwind_deferred_request(&ctx->req[0].work, &c0), 0);
	/* Queued, not walked yet. */
	KUNIT_EXPECT_EQ(test, sfu_unwind_deferred_cached(NULL, &trace, &cookie), -ENOENT);
	df_return_to_user(test, ctx);
	/* Walked and delivered: the task may have been back to user space. */
	KUNIT_EXPECT_EQ(test, sfu_unwind_deferred_cached(NULL, &trace, &cookie), -ENOENT);
	/* A sample that interrupted user mode is a later entry. */
	df_user_regs(&user);
	KUNIT_EXPECT_EQ(test, sfu_unwind_deferred_cached(&user, &trace, &cookie), -ENOENT);
}

static void fault_in_walks_without_a_callback(struct kunit *test)
{
	struct df_ctx *ctx = test->priv;
	const struct sfu_unwind_stacktrace *trace;
	u64 unwinds = sfu_deferred_stat(SFU_DF_UNWINDS), cookie = 0, c0 = 0;

	KUNIT_EXPECT_EQ(test, sfu_unwind_deferred_fault_in(), 0);
	KUNIT_EXPECT_EQ(test, ctx->queued, 1);
	KUNIT_EXPECT_EQ(test, sfu_unwind_deferred_fault_in(), 0);
	KUNIT_EXPECT_EQ(test, ctx->queued, 1);
	df_return_to_user(test, ctx);
	KUNIT_EXPECT_EQ(test, sfu_deferred_stat(SFU_DF_UNWINDS), unwinds + 1);
	KUNIT_EXPECT_EQ(test, sfu_unwind_deferred_cached(NULL, &trace, &cookie), -ENOENT);
	/* A request after the walk is a new entry, walked again. */
	KUNIT_EXPECT_EQ(test, sfu_unwind_deferred_request(&ctx->req[0].work, &c0), 0);
	KUNIT_EXPECT_NE(test, c0, 0);
	df_return_to_user(test, ctx);
	KUNIT_EXPECT_EQ(test, ctx->req[0].calls, 1);
	KUNIT_EXPECT_EQ(test, sfu_deferred_stat(SFU_DF_UNWINDS), unwinds + 2);
}

static void cancel_with_a_request_pending_drops_it(struct kunit *test)
{
	struct df_ctx *ctx = test->priv;
	u64 dropped = sfu_deferred_stat(SFU_DF_DROPPED_CANCEL);
	u64 c0 = 0;

	KUNIT_EXPECT_EQ(test, sfu_unwind_deferred_request(&ctx->req[0].work, &c0), 0);
	KUNIT_EXPECT_EQ(test, sfu_unwind_deferred_request(&ctx->req[1].work, &c0), 1);
	/* What a requester's module does on unload. */
	sfu_unwind_deferred_cancel(&ctx->req[0].work);
	KUNIT_EXPECT_EQ(test, ctx->req[0].work.bit, -1);
	KUNIT_EXPECT_EQ(test, sfu_deferred_stat(SFU_DF_DROPPED_CANCEL), dropped + 1);
	df_return_to_user(test, ctx);
	KUNIT_EXPECT_EQ(test, ctx->req[0].calls, 0);
	KUNIT_EXPECT_EQ(test, ctx->req[1].calls, 1);
	/* Requests of a cancelled requester are refused. */
	KUNIT_EXPECT_EQ(test, sfu_unwind_deferred_request(&ctx->req[0].work, &c0), -EINVAL);
}

static void task_exit_with_a_request_pending_drops_it(struct kunit *test)
{
	struct df_ctx *ctx = test->priv;
	u64 dropped = sfu_deferred_stat(SFU_DF_DROPPED_EXIT);
	u64 c0 = 0;

	KUNIT_EXPECT_EQ(test, sfu_unwind_deferred_request(&ctx->req[0].work, &c0), 0);
	KUNIT_EXPECT_EQ(test, sfu_unwind_deferred_request(&ctx->req[1].work, &c0), 1);
	sfu_deferred_kunit_forget();
	KUNIT_EXPECT_EQ(test, sfu_deferred_stat(SFU_DF_DROPPED_EXIT), dropped + 2);
	KUNIT_EXPECT_EQ(test, ctx->req[0].calls, 0);
	KUNIT_EXPECT_EQ(test, ctx->req[1].calls, 0);
	ctx->work = NULL;
}

static void a_task_holds_a_slot_only_while_an_entry_is_open(struct kunit *test)
{
	struct df_ctx *ctx = test->priv;
	unsigned int used = sfu_df_slots_used();
	u64 c0 = 0, c1 = 0;

	KUNIT_EXPECT_EQ(test, sfu_unwind_deferred_request(&ctx->req[0].work, &c0), 0);
	KUNIT_EXPECT_EQ(test, sfu_df_slots_used(), used + 1);
	df_return_to_user(test, ctx);
	KUNIT_EXPECT_EQ(test, ctx->req[0].calls, 1);
	/* Served: an idle task holds no slot, which other tasks can take. */
	KUNIT_EXPECT_EQ(test, sfu_df_slots_used(), used);
	KUNIT_EXPECT_EQ(test, sfu_unwind_deferred_request(&ctx->req[0].work, &c1), 0);
	KUNIT_EXPECT_NE(test, c1, c0);
	KUNIT_EXPECT_EQ(test, sfu_df_slots_used(), used + 1);
	df_return_to_user(test, ctx);
	KUNIT_EXPECT_EQ(test, ctx->req[0].calls, 2);
	KUNIT_EXPECT_EQ(test, ctx->req[0].cookie, c1);
	KUNIT_EXPECT_EQ(test, sfu_df_slots_used(), used);
}

static void kernel_threads_are_refused(struct kunit *test)
{
	struct df_ctx *ctx = test->priv;
	u64 rejected = sfu_deferred_stat(SFU_DF_REJECTED_NOT_USER);
	const struct sfu_unwind_stacktrace *trace;
	u64 cookie = 0;

	sfu_deferred_kunit_detach();
	KUNIT_EXPECT_EQ(test, sfu_unwind_deferred_request(&ctx->req[0].work, &cookie), -EINVAL);
	KUNIT_EXPECT_EQ(test, sfu_unwind_deferred_fault_in(), -EINVAL);
	KUNIT_EXPECT_EQ(test, sfu_unwind_deferred_cached(NULL, &trace, &cookie), -ENOENT);
	KUNIT_EXPECT_EQ(test, cookie, 0);
	KUNIT_EXPECT_EQ(test, ctx->queued, 0);
	KUNIT_EXPECT_EQ(test, sfu_deferred_stat(SFU_DF_REJECTED_NOT_USER), rejected + 2);
}

static void requesters_beyond_the_limit_are_refused(struct kunit *test)
{
	struct sfu_unwind_work *w;
	int i, n;

	w = kunit_kcalloc(test, SFU_UNWIND_MAX_REQUESTERS, sizeof(*w), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, w);
	for (n = 0; n < SFU_UNWIND_MAX_REQUESTERS; n++)
		if (sfu_unwind_deferred_init(&w[n], df_callback))
			break;
	/* The module's own (fault_in, user_stack) and this suite's three hold bits. */
	KUNIT_EXPECT_LE(test, n, SFU_UNWIND_MAX_REQUESTERS - 5);
	KUNIT_EXPECT_EQ(test, w[n].bit, -1);
	for (i = 0; i < n; i++)
		sfu_unwind_deferred_cancel(&w[i]);
	KUNIT_EXPECT_EQ(test, sfu_unwind_deferred_init(&w[0], df_callback), 0);
	sfu_unwind_deferred_cancel(&w[0]);
}

static struct kunit_case sfu_deferred_cases[] = {
	KUNIT_CASE(first_request_queues_one_unwind_with_a_nonzero_cookie),
	KUNIT_CASE(every_requester_of_an_entry_is_called_once_with_its_cookie),
	KUNIT_CASE(entries_with_identical_registers_are_distinct),
	KUNIT_CASE(request_while_the_walk_is_delivered_joins_its_entry),
	KUNIT_CASE(changed_user_registers_start_a_new_entry),
	KUNIT_CASE(interrupt_of_user_mode_starts_a_new_entry),
	KUNIT_CASE(cookies_of_entries_are_all_different_and_nonzero),
	KUNIT_CASE(request_from_irq_context_joins_the_entry),
	KUNIT_CASE(first_request_from_irq_context_queues_the_unwind),
	KUNIT_CASE(cached_trace_is_only_for_the_same_entry),
	KUNIT_CASE(fault_in_walks_without_a_callback),
	KUNIT_CASE(cancel_with_a_request_pending_drops_it),
	KUNIT_CASE(task_exit_with_a_request_pending_drops_it),
	KUNIT_CASE(a_task_holds_a_slot_only_while_an_entry_is_open),
	KUNIT_CASE(kernel_threads_are_refused),
	KUNIT_CASE(requesters_beyond_the_limit_are_refused),
	{}
};

static struct kunit_suite sfu_deferred_suite = {
	.name = "sframe_unwind_deferred",
	.init = df_init,
	.exit = df_exit,
	.test_cases = sfu_deferred_cases,
};

kunit_test_suites(&sfu_deferred_suite);
