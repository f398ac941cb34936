// SPDX-License-Identifier: GPL-2.0
/*
 * The unwind ioctls: SFU_IOC_UNWIND_SELF unwinds the caller from the
 * registers it entered the kernel with; SFU_IOC_UNWIND_TASK unwinds
 * another thread where it is in user space.
 *
 * Unwinding another thread must not change it.  A thread that is not on
 * a CPU (blocked in a system call, preempted, stopped by a signal or held
 * by a debugger) keeps its user registers where it entered the kernel and
 * its stack as it left it: the caller unwinds it itself, from a copy of
 * those registers, reading the target's memory with access_process_vm()
 * (faultable, no FOLL_FORCE) and looking up the target's registry.  The
 * target's context-switch counts (nvcsw + nivcsw) are taken before and
 * compared after: a thread that ran meanwhile changed them (it switches
 * out before it could be seen off the CPU again), and the result is
 * discarded and the unwind retried, a few times.  Nothing is queued on
 * such a thread and nothing wakes it: a server blocked in epoll_wait()
 * does not see EINTR, a stopped thread is unwound where it stopped.
 *
 * A thread that is running, or keeps running through the retries, unwinds
 * itself: a counted task_work queued with TWA_RESUME, and kick_process()
 * to bring it into the kernel if it is in user space.  TIF_NOTIFY_RESUME,
 * unlike TWA_SIGNAL's TIF_NOTIFY_SIGNAL, interrupts no sleep.  The unwind
 * runs on its way back out, from the registers it was interrupted with;
 * the caller sleeps until then, and looks again meanwhile: if the thread
 * stops running before it served the request (it blocked on its way, in
 * the kernel), the caller unwinds it as above and leaves the request to
 * run whenever the thread next returns to user space.

 * The request is shared by the waiter and the callback and freed by
 * whichever lets go last, so either may give up first: the waiter on a
 * signal or timeout, the target by exiting (its pending task_work runs
 * from do_exit() without an mm) or by exec (a different program).
 *
 * What a caller can leave behind.  A request the waiter gave up on stays
 * queued until the target runs: a stopped target may never run.  So
 * requests are charged to the caller's memory cgroup, at most
 * SFU_REMOTE_PER_TARGET are queued on one thread and at most
 * SFU_REMOTE_PER_CALLER for one calling process (EBUSY past either), and
 * a caller that asks again for the same thread, mm, flags and depth waits
 * on the request it left there rather than queueing another.
 *
 * Who may unwind whom.  Reading another process's stack is reading its
 * memory, which the kernel guards with ptrace_may_access() in attach mode
 * (/proc/PID/mem, process_vm_readv()), LSMs and Yama included.  Modules
 * cannot call that (not exported on 6.1), and a copy of its credential
 * checks would skip the LSM hooks.  So the caller proves its access with
 * what the kernel's own check produced: an fd it opened on the target's
 * /proc/PID/mem, whose open ran mm_access(PTRACE_MODE_ATTACH_FSCREDS) and
 * pinned the mm that check allowed.  The request is bound to that mm: a
 * target that has exec'd since (a new mm) is refused, at the ioctl and
 * again in the target when the unwind runs.  Without an fd only the
 * caller's own thread group can be unwound, as ptrace lets it.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/completion.h>
#include <linux/debugfs.h>
#include <linux/kstrtox.h>
#include <linux/seq_file.h>
#include <linux/err.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/magic.h>
#include <linux/mm.h>
#include <linux/pid.h>
#include <linux/refcount.h>
#include <linux/sched.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/sched/task_stack.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <asm/processor.h>
#include <asm/ptrace.h>

#include "sframe_unwind/compat/fs.h"
#include "sframe_unwind/lib.h"
#include "sframe_unwind/task_work.h"
#include "sframe_unwind/unwind.h"
#include "internal.h"

/* How long SFU_IOC_UNWIND_TASK waits for the target to run its unwind. */
#define SFU_UNWIND_TASK_TIMEOUT	(5 * HZ)

/* How often the caller looks at a target that has not served its request. */
#define SFU_UNWIND_TASK_POLL	(HZ / 50)

/* Unwinds of a thread off the CPU before the caller gives up on the result. */
#define SFU_UNWIND_IDLE_TRIES	4

/* Requests queued at once on one target thread, and for one caller. */
#define SFU_REMOTE_PER_TARGET	4
#define SFU_REMOTE_PER_CALLER	4

/*
 * Requests queued on a target that has not run them yet, on
 * sfu_remote_list; no more than a few per target and caller, so a walk of
 * the list is short for each of them but grows with the number of callers.
 */
static atomic_t sfu_remote_pending = ATOMIC_INIT(0);
static LIST_HEAD(sfu_remote_list);
static DEFINE_SPINLOCK(sfu_remote_lock);

/**
 * sfu_unwind_remote_pending() - SFU_IOC_UNWIND_TASK requests not yet run
 *
 * For debugfs: tests wait for their request to be queued before letting
 * a stopped target go.
 *
 * Return: the number of requests queued on targets that have not run them.
 */
int sfu_unwind_remote_pending(void)
{
	return atomic_read(&sfu_remote_pending);
}

/**
 * struct sfu_unwind_req - one unwind of another thread
 * @work: the task_work queued on the target
 * @refs: the waiter's and the callback's references
 * @done: completed by the callback
 * @node: on sfu_remote_list while queued and not yet run
 * @target: the thread it is queued on (compared only, while on the list:
 *          the thread runs or drops its task_work before it is freed)
 * @caller: the calling process (its thread-group pid, referenced)
 * @waited: a waiter is waiting for it (under sfu_remote_lock)
 * @mm: the address space the caller may read (mmgrab()ed), or NULL
 * @max: capacity of @frames
 * @flags: SFU_UNWIND_*
 * @nr: frames stored, or -ESRCH if the target exited or exec'd
 * @stop_reason: enum sfu_end
 * @regs: a copy of the target's user registers (unwinds off the CPU)
 * @frames: the result
 */
struct sfu_unwind_req {
	struct callback_head work;
	refcount_t refs;
	struct completion done;
	struct list_head node;
	struct task_struct *target;
	struct pid *caller;
	bool waited;
	struct mm_struct *mm;
	unsigned int max;
	unsigned int flags;
	int nr;
	int stop_reason;
	struct pt_regs regs;
	struct sfu_uframe frames[];
};

static struct sfu_unwind_req *sfu_unwind_req_alloc(unsigned int max, unsigned int flags)
{
	struct sfu_unwind_req *req;

	/* Charged to the caller: a request it abandons may outlive its call. */
	req = kvzalloc(struct_size(req, frames, max), GFP_KERNEL_ACCOUNT);
	if (!req)
		return NULL;
	refcount_set(&req->refs, 1);
	init_completion(&req->done);
	INIT_LIST_HEAD(&req->node);
	req->max = max;
	req->flags = flags;
	return req;
}

static void sfu_unwind_req_put(struct sfu_unwind_req *req)
{
	if (!refcount_dec_and_test(&req->refs))
		return;
	if (req->mm)
		mmdrop(req->mm);
	put_pid(req->caller);
	kvfree(req);
}

/* Off sfu_remote_list: the target runs it, or it was never queued. */
static void sfu_remote_unlist(struct sfu_unwind_req *req)
{
	spin_lock(&sfu_remote_lock);
	list_del_init(&req->node);
	spin_unlock(&sfu_remote_lock);
	atomic_dec(&sfu_remote_pending);
}

/* Runs in the target thread, on its way back to user space or at exit. */
static void sfu_unwind_task_work(struct callback_head *head)
{
	struct sfu_unwind_req *req = container_of(head, struct sfu_unwind_req, work);

	sfu_remote_unlist(req);
	/*
	 * At exit the user stack is gone; after exec it is another program's,
	 * in another mm, which the caller's permission does not cover.
	 */
	if ((current->flags & PF_EXITING) || current->mm != req->mm)
		req->nr = -ESRCH;
	else
		req->nr = sfu_unwind_user(req->frames, req->max, req->flags, &req->stop_reason);
	complete(&req->done);
	sfu_unwind_req_put(req);
	sfu_task_work_done();
}

#ifdef SFU_TEST_BUILD
/*
 * For tests of the queued path (its caps, an interrupted or abandoned
 * wait, a target that exits or execs with a request queued, unload), in
 * the test build only: set through debugfs remote_queue_always, every
 * target is asked to unwind itself, as a running one is, never unwound
 * from the caller.  Nothing else makes a stopped target hold a request.
 */
static bool sfu_remote_queue_always;

static int sfu_queue_always_show(struct seq_file *m, void *v)
{
	seq_printf(m, "%d\n", READ_ONCE(sfu_remote_queue_always));
	return 0;
}

static ssize_t sfu_queue_always_write(struct file *file, const char __user *buf, size_t len,
				      loff_t *ppos)
{
	bool on;
	int err;

	err = kstrtobool_from_user(buf, len, &on);
	if (err)
		return err;
	WRITE_ONCE(sfu_remote_queue_always, on);
	return len;
}
SFU_DEFINE_SHOW_STORE_ATTRIBUTE(sfu_queue_always);

static bool sfu_remote_queue_forced(void)
{
	return READ_ONCE(sfu_remote_queue_always);
}

static void sfu_queue_always_init(void)
{
	sfu_debugfs_file("remote_queue_always", 0600, NULL, &sfu_queue_always_fops);
}

static void sfu_queue_always_exit(void)
{
	sfu_debugfs_remove("remote_queue_always");
}
#else
/* The product queues on a running target only. */
static inline bool sfu_remote_queue_forced(void)
{
	return false;
}

static inline void sfu_queue_always_init(void)
{
}

static inline void sfu_queue_always_exit(void)
{
}
#endif /* SFU_TEST_BUILD */

/* The file operations of /proc/PID/mem, learnt at module load. */
static const struct file_operations *sfu_proc_mem_fops;

/**
 * sfu_unwind_ioctl_init() - learn what a /proc/PID/mem file looks like
 *
 * Opens /proc/self/mem of the task loading the module (root, in the
 * initial namespaces as a rule) and keeps its file operations, against
 * which SFU_IOC_UNWIND_TASK recognises the fds callers pass.  Done only
 * here: looked up later, in a caller's context, the path could lead to a
 * file the caller placed there (a bind mount of another procfs file in
 * its own mount namespace).  Without procfs at load time remote unwinds
 * are refused (EPERM) until the module is reloaded; it says so once.
 *
 * Context: module init, process context.
 */
void sfu_unwind_ioctl_init(void)
{
	struct file *file = filp_open("/proc/self/mem", O_RDONLY, 0);

	sfu_queue_always_init();

	if (IS_ERR(file)) {
		pr_info("no /proc/self/mem at load (error %ld): SFU_IOC_UNWIND_TASK only for the caller's own threads\n",
			PTR_ERR(file));
		return;
	}
	if (file_inode(file)->i_sb->s_magic == PROC_SUPER_MAGIC)
		sfu_proc_mem_fops = file->f_op;
	else
		pr_info("/proc is not procfs at load: SFU_IOC_UNWIND_TASK only for the caller's own threads\n");
	filp_close(file, NULL);
}

/**
 * sfu_unwind_ioctl_exit() - undo what sfu_unwind_ioctl_init() made in debugfs
 *
 * Context: module exit, after the device is gone.
 */
void sfu_unwind_ioctl_exit(void)
{
	sfu_queue_always_exit();
}

/*
 * The mm the caller may unwind in @task, mmgrab()ed into *@mmp: @task's
 * own, if the caller is in its thread group (ptrace never refuses that)
 * or if @fd is, as the caller's fd table has it, a /proc/PID/mem file
 * open for reading whose open pinned that very mm after the kernel's
 * ptrace check allowed it (@fd < 0: none given).
 */
static int sfu_remote_mm(struct task_struct *task, int fd, struct mm_struct **mmp)
{
	const struct file_operations *mem_fops = READ_ONCE(sfu_proc_mem_fops);
	struct mm_struct *allowed = NULL;
	struct file *file = NULL;
	int err = 0;

	if (fd >= 0) {
		file = fget(fd);
		if (!file)
			return -EBADF;
		if (!mem_fops || file->f_op != mem_fops || !(file->f_mode & FMODE_READ) ||
		    file_inode(file)->i_sb->s_magic != PROC_SUPER_MAGIC)
			err = -EPERM;
		else
			allowed = sfu_proc_mem_file_mm(file);
		if (!allowed)
			err = -EPERM;
	} else if (!same_thread_group(task, current)) {
		return -EPERM;
	}

	task_lock(task);
	if (!task->mm) {
		err = err ?: -ESRCH;
	} else if (!err && file && task->mm != allowed) {
		err = -EPERM;	/* another process, or the target exec'd since the open */
	} else if (!err) {
		*mmp = task->mm;
		mmgrab(*mmp);
	}
	task_unlock(task);
	if (file)
		fput(file);
	return err;
}

/* Whether @task is on a CPU, or being switched in or out of one. */
static bool sfu_task_on_cpu(struct task_struct *task)
{
#ifdef CONFIG_SMP
	return READ_ONCE(task->on_cpu);
#else
	return task == current;
#endif
}

/* How often @task has left a CPU: every switch out counts in one of the two. */
static unsigned long sfu_task_switches(struct task_struct *task)
{
	return READ_ONCE(task->nvcsw) + READ_ONCE(task->nivcsw);
}

/*
 * A copy of @task's user registers, if it is still in @mm: under
 * task_lock() a thread whose mm is still set has not passed exit_mm(),
 * so its stack, where the registers are, is still there.
 */
static int sfu_task_regs(struct task_struct *task, struct mm_struct *mm, struct pt_regs *regs)
{
	int err = 0;

	task_lock(task);
	if (task->mm != mm || (task->flags & PF_EXITING))
		err = -ESRCH;
	else
		*regs = *task_pt_regs(task);
	task_unlock(task);
	return err;
}

/*
 * Unwind @task, which is not running, from the caller: into @req from a
 * copy of its user registers, its memory read with access_process_vm().
 * The result counts only if @task did not run between the copy and the
 * last read: it was off the CPU before and after, and its switch count
 * did not move.  Returns 0 with @req filled in, -EAGAIN if @task ran
 * every time it was tried (or is running now), -ESRCH if it exits or
 * exec'd.
 */
static int sfu_unwind_idle(struct task_struct *task, struct sfu_unwind_req *req)
{
	unsigned long switches;
	int tries, nr, err = -EAGAIN;

	if (!mmget_not_zero(req->mm))
		return -ESRCH;
	for (tries = 0; tries < SFU_UNWIND_IDLE_TRIES; tries++) {
		switches = sfu_task_switches(task);
		smp_rmb();	/* the count, then whether it is on a CPU */
		if (sfu_task_on_cpu(task))
			break;
		err = sfu_task_regs(task, req->mm, &req->regs);
		if (err)
			break;
		nr = sfu_unwind_task_regs(task, req->mm, &req->regs, req->frames, req->max,
					  req->flags & ~SFU_UNWIND_NOFAULT, &req->stop_reason);
		smp_rmb();	/* the reads of the unwind, then the checks */
		if (nr >= 0 && !sfu_task_on_cpu(task) && sfu_task_switches(task) == switches) {
			req->nr = nr;
			err = 0;
			break;
		}
		err = nr < 0 ? nr : -EAGAIN;
		if (nr < 0)
			break;
		cond_resched();
	}
	mmput(req->mm);
	return err;
}

/*
 * Under sfu_remote_lock: a request the caller left queued on @task for the
 * same work as @req, which it may wait on again, or NULL; and whether
 * another one may be queued (0), or -EBUSY.
 */
static int sfu_remote_admit(struct task_struct *task, struct sfu_unwind_req *req,
			    struct sfu_unwind_req **left_there)
{
	unsigned int on_target = 0, by_caller = 0;
	struct sfu_unwind_req *r;

	*left_there = NULL;
	list_for_each_entry(r, &sfu_remote_list, node) {
		if (r->target == task)
			on_target++;
		if (r->caller != req->caller)
			continue;
		by_caller++;
		if (r->target == task && !r->waited && r->mm == req->mm &&
		    r->flags == req->flags && r->max == req->max)
			*left_there = r;
	}
	if (*left_there)
		return 0;
	if (on_target >= SFU_REMOTE_PER_TARGET || by_caller >= SFU_REMOTE_PER_CALLER)
		return -EBUSY;
	return 0;
}

/*
 * sfu_unwind_idle() into a request of the caller's own, while *@reqp stays
 * queued on @task for its callback; on success *@reqp becomes the new one
 * (the caller's reference to the queued one dropped).  -EAGAIN: @task is
 * running, or ran meanwhile.
 */
static int sfu_unwind_task_idle(struct task_struct *task, struct sfu_unwind_req **reqp)
{
	struct sfu_unwind_req *req = *reqp, *mine;
	int err;

	if (sfu_task_on_cpu(task))
		return -EAGAIN;
	mine = sfu_unwind_req_alloc(req->max, req->flags);
	if (!mine)
		return -EAGAIN;
	mine->caller = get_pid(req->caller);
	mine->mm = req->mm;
	mmgrab(mine->mm);
	err = sfu_unwind_idle(task, mine);
	if (err) {
		sfu_unwind_req_put(mine);
		return err;
	}
	spin_lock(&sfu_remote_lock);
	req->waited = false;
	spin_unlock(&sfu_remote_lock);
	sfu_unwind_req_put(req);
	*reqp = mine;
	return 0;
}

/*
 * Have @task unwind itself into @req (or into the request this caller left
 * queued there for the same work) and wait for it; *@reqp is then the
 * request waited on, with the caller's reference.
 */
static int sfu_unwind_remote(struct task_struct *task, struct sfu_unwind_req **reqp)
{
	struct sfu_unwind_req *req = *reqp, *old;
	unsigned long waited;
	long left = 0;
	int err;

	req->caller = get_pid(task_tgid(current));
	req->target = task;
	spin_lock(&sfu_remote_lock);
	err = sfu_remote_admit(task, req, &old);
	if (!err && old) {
		/* Still queued, so its callback still holds a reference. */
		refcount_inc(&old->refs);
		old->waited = true;
	} else if (!err) {
		req->waited = true;
		list_add_tail(&req->node, &sfu_remote_list);
		refcount_inc(&req->refs);
		atomic_inc(&sfu_remote_pending);
	}
	spin_unlock(&sfu_remote_lock);
	if (err)
		return err;

	if (old) {
		sfu_unwind_req_put(req);
		*reqp = req = old;
	} else {
		err = sfu_task_work_add(task, &req->work, sfu_unwind_task_work, TWA_RESUME);
		if (err) {
			/* The target is past the point where it runs task_work, or unload began. */
			sfu_remote_unlist(req);
			sfu_unwind_req_put(req);
			return err;
		}
		/* Into the kernel if it runs user code: it serves TIF_NOTIFY_RESUME on return. */
		kick_process(task);
	}

	for (waited = 0; waited < SFU_UNWIND_TASK_TIMEOUT; waited += SFU_UNWIND_TASK_POLL) {
		left = wait_for_completion_interruptible_timeout(&req->done, SFU_UNWIND_TASK_POLL);
		if (left)
			break;
		if (sfu_remote_queue_forced())
			continue;
		/* It stopped running before it served the request: unwind it from here. */
		err = sfu_unwind_task_idle(task, reqp);
		if (!err)
			return 0;
		if (err != -EAGAIN)
			goto give_up;
	}
	if (left > 0)
		return req->nr < 0 ? req->nr : 0;
	err = left < 0 ? -EINTR : -ETIMEDOUT;
give_up:
	/* Left queued: this caller may come back for it. */
	spin_lock(&sfu_remote_lock);
	req->waited = false;
	spin_unlock(&sfu_remote_lock);
	return err;
}

/*
 * Run @req for the thread @pid names (0: the caller), if the caller may
 * read its stack (@fd: see sfu_remote_mm()).
 */
static int sfu_unwind_pid(pid_t pid, int fd, struct sfu_unwind_req **reqp)
{
	struct sfu_unwind_req *req = *reqp;
	struct task_struct *task;
	struct pid *p;
	int err;

	if (pid < 0)
		return -EINVAL;
	if (pid) {
		p = find_get_pid(pid);
		task = get_pid_task(p, PIDTYPE_PID);
		put_pid(p);
		if (!task)
			return -ESRCH;
	} else {
		task = get_task_struct(current);
	}

	/* Kernel threads and io_uring workers never return to user space. */
	if (task->flags & (PF_KTHREAD | PF_IO_WORKER)) {
		err = -EINVAL;
		goto out;
	}
	err = sfu_remote_mm(task, fd, &req->mm);
	if (err)
		goto out;
	if (task == current) {
		/* Queued on ourselves it would run only after we return. */
		req->nr = sfu_unwind_user(req->frames, req->max, req->flags, &req->stop_reason);
		err = req->nr < 0 ? req->nr : 0;
	} else {
		/* Off the CPU: unwound from here; running: it unwinds itself. */
		err = sfu_remote_queue_forced() ? -EAGAIN : sfu_unwind_idle(task, req);
		if (err == -EAGAIN)
			err = sfu_unwind_remote(task, reqp);
	}
out:
	put_task_struct(task);
	return err;
}

/*
 * The unwinder's frames as the user ABI has them (unwind.h's
 * static_asserts: the same layout and values), in one copy: 0 or -EFAULT.
 */
static int sfu_frames_to_user(struct sfu_frame __user *to, const struct sfu_uframe *frames,
			      unsigned int nr)
{
	return copy_to_user(to, frames, array_size(nr, sizeof(*to))) ? -EFAULT : 0;
}

/**
 * sfu_unwind_ioctl() - SFU_IOC_UNWIND_SELF and SFU_IOC_UNWIND_TASK
 * @cmd: the ioctl number
 * @arg: user pointer to a struct sfu_unwind
 *
 * SFU_IOC_UNWIND_SELF unwinds the calling thread from its system-call
 * registers.  SFU_IOC_UNWIND_TASK unwinds the thread @pid names (in the
 * caller's PID namespace; 0 or the caller's own TID: the caller), which
 * must be in the caller's thread group, or in the address space that
 * the fd in @mem_fd (with SFU_UNWIND_MEM_FD) was opened on: the target's
 * /proc/PID/mem, opened since its last exec, whose open made the kernel's
 * ptrace check in attach mode.  A thread off the CPU (blocked, stopped,
 * traced) is unwound by the caller without waking it; a running one
 * unwinds itself the next time it returns to user space (kicked into the
 * kernel, never signalled), which the call waits for, at most 5 s.  A
 * remote unwind reads memory that may fault whatever SFU_UNWIND_NOFAULT
 * says.  Both store at most min(@max, max_depth) frames and set @nr and
 * @stop_reason.
 *
 * Context: process context, may sleep.
 * Return: 0; -ENOTTY for another @cmd; -EFAULT; -EINVAL for bad fields or
 * a thread without a user stack; -EBADF if @mem_fd is not an open fd;
 * -ENOMEM; -ESRCH if the thread does not exist, exits or execs first;
 * -EPERM if neither the thread group nor @mem_fd allows it; -EINTR if a
 * signal interrupted the wait; -ETIMEDOUT if the thread kept running
 * without returning to user space for 5 s; -EBUSY if SFU_REMOTE_PER_TARGET
 * requests are queued on the thread already, or SFU_REMOTE_PER_CALLER of
 * the caller's on any threads.
 */
long sfu_unwind_ioctl(unsigned int cmd, void __user *arg)
{
	struct sfu_unwind_req *req;
	struct sfu_unwind u;
	unsigned int max;
	bool with_fd;
	int err;

	if (cmd != SFU_IOC_UNWIND_SELF && cmd != SFU_IOC_UNWIND_TASK)
		return -ENOTTY;
	if (copy_from_user(&u, arg, sizeof(u)))
		return -EFAULT;
	with_fd = u.flags & SFU_UNWIND_MEM_FD;
	if (!u.max || (u.flags & ~(SFU_UNWIND_ALL_FLAGS | SFU_UNWIND_MEM_FD)) ||
	    (with_fd ? u.mem_fd < 0 : u.mem_fd != 0) ||
	    (cmd == SFU_IOC_UNWIND_SELF && (u.pid || with_fd)))
		return -EINVAL;

	max = min(u.max, sfu_unwind_depth_limit());
	req = sfu_unwind_req_alloc(max, u.flags & SFU_UNWIND_ALL_FLAGS);
	if (!req)
		return -ENOMEM;

	err = sfu_unwind_pid(cmd == SFU_IOC_UNWIND_SELF ? 0 : (pid_t)u.pid,
			     with_fd ? u.mem_fd : -1, &req);
	if (!err) {
		u.nr = req->nr;
		u.stop_reason = sfu_end_uapi(req->stop_reason);
		if (sfu_frames_to_user(u64_to_user_ptr(u.frames), req->frames, u.nr) ||
		    copy_to_user(arg, &u, sizeof(u)))
			err = -EFAULT;
	}
	sfu_unwind_req_put(req);
	return err;
}
