// SPDX-License-Identifier: GPL-2.0
/*
 * The unwind ioctls: SFU_IOC_UNWIND_SELF unwinds the caller from the
 * registers it entered the kernel with; SFU_IOC_UNWIND_TASK unwinds
 * another thread where it is in user space.
 *
 * Another thread's stack can only be read safely by that thread: its
 * registers change while it runs, and its stack pages may need faulting
 * in.  So the request is a counted task_work queued on the target with
 * TWA_SIGNAL, which kicks it into the kernel if it is running user code
 * and runs the unwind on its way back out, from the registers it was
 * interrupted with.  The caller sleeps until then.
 *
 * The request is shared by the waiter and the callback and freed by
 * whichever lets go last, so either may give up first: the waiter on a
 * signal or timeout, the target by exiting (its pending task_work runs
 * from do_exit() without an mm) or by exec (a different program).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/completion.h>
#include <linux/cred.h>
#include <linux/capability.h>
#include <linux/mm.h>
#include <linux/pid.h>
#include <linux/refcount.h>
#include <linux/sched.h>
#include <linux/sched/coredump.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "sframe_unwind/compat.h"
#include "sframe_unwind/task_work.h"
#include "sframe_unwind/unwind.h"
#include "internal.h"

/* How long SFU_IOC_UNWIND_TASK waits for the target to run its unwind. */
#define SFU_UNWIND_TASK_TIMEOUT	(5 * HZ)

/* Requests queued on a target that has not run them yet. */
static atomic_t sfu_remote_pending = ATOMIC_INIT(0);

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
 * @exec_id: the target's self_exec_id when queued
 * @max: capacity of @frames
 * @flags: SFU_UNWIND_*
 * @nr: frames stored, or -ESRCH if the target exited or exec'd
 * @stop_reason: enum sfu_stop_reason
 * @frames: the result
 */
struct sfu_unwind_req {
	struct callback_head work;
	refcount_t refs;
	struct completion done;
	u64 exec_id;
	unsigned int max;
	unsigned int flags;
	int nr;
	int stop_reason;
	struct sfu_frame frames[];
};

static struct sfu_unwind_req *sfu_unwind_req_alloc(unsigned int max, unsigned int flags)
{
	struct sfu_unwind_req *req;

	req = kvzalloc(struct_size(req, frames, max), GFP_KERNEL);
	if (!req)
		return NULL;
	refcount_set(&req->refs, 1);
	init_completion(&req->done);
	req->max = max;
	req->flags = flags;
	return req;
}

static void sfu_unwind_req_put(struct sfu_unwind_req *req)
{
	if (refcount_dec_and_test(&req->refs))
		kvfree(req);
}

/* Runs in the target thread, on its way back to user space or at exit. */
static void sfu_unwind_task_work(struct callback_head *head)
{
	struct sfu_unwind_req *req = container_of(head, struct sfu_unwind_req, work);

	atomic_dec(&sfu_remote_pending);
	/* At exit the user stack is gone; after exec it is another program's. */
	if ((current->flags & PF_EXITING) || current->self_exec_id != req->exec_id)
		req->nr = -ESRCH;
	else
		req->nr = sfu_unwind_user(req->frames, req->max, req->flags, &req->stop_reason);
	complete(&req->done);
	sfu_unwind_req_put(req);
	sfu_task_work_done();
}

/*
 * ptrace_may_access(task, PTRACE_MODE_READ_FSCREDS), which modules cannot
 * call, less its LSM hook: the caller's thread group, or a caller whose
 * filesystem ids match all of the target's ids, or one with CAP_SYS_PTRACE
 * over the target's user namespace; and a dumpable target.
 */
static int sfu_may_read_task(struct task_struct *task)
{
	const struct cred *cred = current_cred(), *tcred;
	struct mm_struct *mm;
	bool ok;

	if (same_thread_group(task, current))
		return 0;

	rcu_read_lock();
	tcred = __task_cred(task);
	ok = (uid_eq(cred->fsuid, tcred->euid) && uid_eq(cred->fsuid, tcred->suid) &&
	      uid_eq(cred->fsuid, tcred->uid) && gid_eq(cred->fsgid, tcred->egid) &&
	      gid_eq(cred->fsgid, tcred->sgid) && gid_eq(cred->fsgid, tcred->gid)) ||
	     ns_capable(tcred->user_ns, CAP_SYS_PTRACE);
	rcu_read_unlock();
	if (!ok)
		return -EPERM;

	/* Dumpability is read after the credentials, as commit_creds() writes them. */
	smp_rmb();
	task_lock(task);
	mm = task->mm;
	if (!mm)
		ok = false;
	else
		ok = sfu_dumpable_or_ptrace_capable(task, mm);
	task_unlock(task);
	if (!mm)
		return -ESRCH;
	return ok ? 0 : -EPERM;
}

/* Have @task unwind itself into @req and wait for it. */
static int sfu_unwind_remote(struct task_struct *task, struct sfu_unwind_req *req)
{
	long left;
	int err;

	/* Kernel threads and io_uring workers never return to user space. */
	if (task->flags & (PF_KTHREAD | PF_IO_WORKER))
		return -EINVAL;
	err = sfu_may_read_task(task);
	if (err)
		return err;

	req->exec_id = READ_ONCE(task->self_exec_id);
	refcount_inc(&req->refs);
	atomic_inc(&sfu_remote_pending);
	err = sfu_task_work_add(task, &req->work, sfu_unwind_task_work, TWA_SIGNAL);
	if (err) {
		/* The target is past the point where it runs task_work. */
		atomic_dec(&sfu_remote_pending);
		sfu_unwind_req_put(req);
		return -ESRCH;
	}

	left = wait_for_completion_interruptible_timeout(&req->done, SFU_UNWIND_TASK_TIMEOUT);
	if (left < 0)
		return -EINTR;
	if (!left)
		return -ETIMEDOUT;
	return req->nr < 0 ? req->nr : 0;
}

/* Run @req for the thread @pid names (0: the caller). */
static int sfu_unwind_pid(pid_t pid, struct sfu_unwind_req *req)
{
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

	if (task == current) {
		/* Queued on ourselves it would run only after we return. */
		req->nr = sfu_unwind_user(req->frames, req->max, req->flags, &req->stop_reason);
		err = req->nr < 0 ? req->nr : 0;
	} else {
		err = sfu_unwind_remote(task, req);
	}
	put_task_struct(task);
	return err;
}

/**
 * sfu_unwind_ioctl() - SFU_IOC_UNWIND_SELF and SFU_IOC_UNWIND_TASK
 * @cmd: the ioctl number
 * @arg: user pointer to a struct sfu_unwind
 *
 * SFU_IOC_UNWIND_SELF unwinds the calling thread from its system-call
 * registers.  SFU_IOC_UNWIND_TASK unwinds the thread @pid names (in the
 * caller's PID namespace; 0 or the caller's own TID: the caller), which
 * must be in the caller's thread group or readable as by
 * ptrace_may_access(PTRACE_MODE_READ_FSCREDS) less LSM checks; the call
 * waits until that thread next returns to user space (it is kicked like a
 * signal would), at most 5 s.  Both store at most min(@max, max_depth)
 * frames and set @nr and @stop_reason.
 *
 * Context: process context, may sleep.
 * Return: 0; -ENOTTY for another @cmd; -EFAULT; -EINVAL for bad fields or
 * a thread without a user stack; -ENOMEM; -ESRCH if the thread does not
 * exist, exits or execs first; -EPERM; -EINTR if a signal interrupted the
 * wait; -ETIMEDOUT if the thread did not run its unwind in time (e.g. it
 * is stopped).
 */
long sfu_unwind_ioctl(unsigned int cmd, void __user *arg)
{
	struct sfu_unwind_req *req;
	struct sfu_unwind u;
	unsigned int max;
	int err;

	if (cmd != SFU_IOC_UNWIND_SELF && cmd != SFU_IOC_UNWIND_TASK)
		return -ENOTTY;
	if (copy_from_user(&u, arg, sizeof(u)))
		return -EFAULT;
	if (!u.max || (u.flags & ~SFU_UNWIND_ALL_FLAGS) || u.reserved ||
	    (cmd == SFU_IOC_UNWIND_SELF && u.pid))
		return -EINVAL;

	max = min(u.max, sfu_unwind_depth_limit());
	req = sfu_unwind_req_alloc(max, u.flags);
	if (!req)
		return -ENOMEM;

	err = sfu_unwind_pid(cmd == SFU_IOC_UNWIND_SELF ? 0 : (pid_t)u.pid, req);
	if (!err) {
		u.nr = req->nr;
		u.stop_reason = req->stop_reason;
		if (copy_to_user(u64_to_user_ptr(u.frames), req->frames,
				 array_size(u.nr, sizeof(req->frames[0]))) ||
		    copy_to_user(arg, &u, sizeof(u)))
			err = -EFAULT;
	}
	sfu_unwind_req_put(req);
	return err;
}
