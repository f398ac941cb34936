// SPDX-License-Identifier: GPL-2.0
/*
 * Requests for sidecars: the files the sidecar daemon (tools/
 * sframe-unwindd) is asked to convert.
 *
 * While a daemon is attached (SFU_IOC_SIDECAR_ATTACH, CAP_SYS_ADMIN), an
 * executable mapping of an ELF file that has a build-id but neither
 * PT_GNU_SFRAME nor a sidecar bound to its content queues a request: the
 * file itself (a
 * reference to the struct file that was mapped: the module never looks a
 * path up for it), its build-id, the user it is charged to and its name,
 * for logs.  The daemon takes requests (SFU_IOC_SIDECAR_NEXT) as file
 * descriptors, writes sidecars by build-id and has the module look again
 * (sfu_sidecar_rescan(), setup.c).
 *
 * Mapping files is open to every user, so what they can queue is bounded.
 * A file the daemon would refuse (not root's, or writable by group or
 * others, unless it attached with SFU_SIDECAR_ATTACH_ANY_OWNER) is refused
 * here, before it takes a place in the queue or among the files
 * remembered: a user's own files cannot crowd out root's.  At most
 * SFU_SQ_MAX requests are queued, at most SFU_SQ_PER_USER of one
 * user's; a file is queued once (the last SFU_SQ_SEEN_MAX files queued
 * are remembered by their identity, device, inode and change time, never
 * by build-id, which anyone can copy into a file of theirs; until a daemon
 * attaches again); everything else is dropped and counted.  Nothing is
 * queued while no daemon is attached.
 *
 * A file mapped now comes before the files a rescan found mapped (the
 * backlog of a daemon that just attached can be every library of the
 * machine): its process is running now, and the backlog waits the time
 * of one conversion more for each file mapped meanwhile, which the caps
 * bound.  Among mappings' requests, the files of the newest process come
 * first, in the order it mapped them: a program started under perf
 * record, or by a build's driver, has its own files before perf's or the
 * driver's, which started before it and wait while it runs.  A file
 * mapped now that is queued already, in the backlog or for an older
 * process, moves up as if it were mapped now (a library the daemon's own
 * children mapped first, which a compiler then maps).  Where the caps
 * leave no room for a mapping's request, it takes the place of the last
 * request of the queue (of its user's, if the user's cap is what is
 * reached): the newest of the backlog, or, with no backlog, a request of
 * an older process, the file it mapped last; counted.  A backlog of
 * root's libraries, or the files of a process started before, never keep
 * out what root maps now, and the next rescan finds a file displaced
 * again if it is still mapped.  A request that would come last is
 * dropped.
 *
 * With sidecar_wait_ms set, a process whose mapping queued a request (or
 * found its file queued) waits for the daemon in its own scan, before it
 * returns to user space (sfu_sidecar_wait(), scan.c): until its file's
 * request was handed over and a rescan began after that (the daemon asks
 * for one once it has written what it was handed), at most that long,
 * killably.  A program's code then runs with the rows of its libraries
 * from its first instruction on, on their first mapping since the daemon
 * started.  The daemon's own processes never wait: it would wait for them.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cred.h>
#include <linux/dcache.h>
#include <linux/err.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/hashtable.h>
#include <linux/jhash.h>
#include <linux/list.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/uidgid.h>
#include <linux/wait.h>

#include "sframe_unwind/compat/export.h"
#include "sframe_unwind/lib.h"
#include "sframe_unwind/registry.h"
#include "uapi/sframe_unwind.h"
#include "internal.h"
#include "stats.h"

/* Requests queued at once, of one user, and build-ids remembered as queued. */
#define SFU_SQ_MAX		64
#define SFU_SQ_PER_USER		16
#define SFU_SQ_SEEN_MAX		4096
/* Requests handed over that a waiter may still wait for; the longest wait. */
#define SFU_SQ_HANDED		16
#define SFU_SQ_WAIT_MAX_MS	10000

static unsigned int sfu_sidecar_wait_ms;
module_param_named(sidecar_wait_ms, sfu_sidecar_wait_ms, uint, 0644);
MODULE_PARM_DESC(sidecar_wait_ms, "Wait for the sidecar daemon at a mapping, ms (0: no)");

/**
 * struct sfu_sq_req - one queued request
 * @node: link in sfu_sq_queue: mappings' requests oldest first, then the
 *        backlog's
 * @file: the mapped file (a reference)
 * @uid: the user the mapping was charged to (sfu_user_account())
 * @why: SFU_SIDECAR_WHY_*
 * @backlog: queued by a rescan (sfu_sidecar_rescan()), not by a mapping
 * @started: for a mapping's, when its process started (the group
 *           leader's start_time): the newest process's come first
 * @id: the file's identity, as remembered in sfu_sq_seen
 * @len: bytes of @build_id
 * @build_id: the file's build-id
 * @name: the file's name when mapped, for logs
 */
struct sfu_sq_req {
	struct list_head node;
	struct file *file;
	kuid_t uid;
	u32 why;
	bool backlog;
	u64 started;
	struct sfu_file_id id;
	u8 len;
	u8 build_id[SFU_SIDECAR_BUILD_ID_MAX];
	char name[SFU_NAME_LEN];
};

/**
 * struct sfu_sq_seen - a file queued once
 * @node: link in sfu_sq_seen, keyed by the file's device and inode
 * @fifo: link in sfu_sq_seen_fifo, oldest first
 * @id: the file
 */
struct sfu_sq_seen {
	struct hlist_node node;
	struct list_head fifo;
	struct sfu_file_id id;
};

static DEFINE_SPINLOCK(sfu_sq_lock);
static LIST_HEAD(sfu_sq_queue);
static unsigned int sfu_sq_len;
static DEFINE_HASHTABLE(sfu_sq_seen, 8);
static LIST_HEAD(sfu_sq_seen_fifo);
static unsigned int sfu_sq_seen_count;
/* The daemon's open file, compared only; NULL: no daemon. */
static const void *sfu_sq_owner;
/* SFU_SIDECAR_ATTACH_* the daemon attached with. */
static unsigned long sfu_sq_flags;
static DECLARE_WAIT_QUEUE_HEAD(sfu_sq_wait);
/* Rescans one at a time; the task scanning, whose requests are backlog. */
static DEFINE_MUTEX(sfu_sq_rescan_lock);
static struct task_struct *sfu_sq_scanner;
/* The daemon's process, whose own processes never wait; a reference. */
static struct pid *sfu_sq_daemon;
/*
 * Requests handed over: @sfu_sq_handed_seq counts them, the last
 * SFU_SQ_HANDED are remembered with their number; @sfu_sq_done_seq is
 * the number of the last one a rescan began after.  Waiters wait on
 * sfu_sq_done_wait.
 */
static struct {
	struct sfu_file_id id;
	u64 seq;
} sfu_sq_handed[SFU_SQ_HANDED];
static u64 sfu_sq_handed_seq, sfu_sq_done_seq;
static DECLARE_WAIT_QUEUE_HEAD(sfu_sq_done_wait);

static u32 sfu_sq_seen_hash(const struct sfu_file_id *id)
{
	return jhash_2words(id->dev, id->ino, 0);
}

static struct sfu_sq_seen *sfu_sq_seen_find_locked(const struct sfu_file_id *id)
{
	struct sfu_sq_seen *e;

	hash_for_each_possible(sfu_sq_seen, e, node, sfu_sq_seen_hash(id))
		if (sfu_file_id_equal(&e->id, id))
			return e;
	return NULL;
}

/* Forget every file; the entries go to @gone, to be freed unlocked. */
static void sfu_sq_seen_clear_locked(struct list_head *gone)
{
	struct sfu_sq_seen *e, *next;

	list_for_each_entry_safe(e, next, &sfu_sq_seen_fifo, fifo) {
		hash_del(&e->node);
		list_move(&e->fifo, gone);
	}
	sfu_sq_seen_count = 0;
}

static unsigned int sfu_sq_user_count_locked(kuid_t uid)
{
	struct sfu_sq_req *r;
	unsigned int n = 0;

	list_for_each_entry(r, &sfu_sq_queue, node)
		n += uid_eq(r->uid, uid);
	return n;
}

/* Whether a mapping's request @r comes before @b: @b is backlog, or of an older process. */
static bool sfu_sq_before(const struct sfu_sq_req *r, const struct sfu_sq_req *b)
{
	return b->backlog || r->started > b->started;
}

/*
 * The request the mapping's request @r takes the place of: the last of
 * the queue (the newest of the backlog, at the tail, else the file an
 * older process mapped last), of @uid's if @uid is given, if @r comes
 * before it; NULL if none.
 */
static struct sfu_sq_req *sfu_sq_displace_locked(const struct sfu_sq_req *r, const kuid_t *uid)
{
	struct sfu_sq_req *b;

	list_for_each_entry_reverse(b, &sfu_sq_queue, node) {
		if (uid && !uid_eq(b->uid, *uid))
			continue;
		if (!sfu_sq_before(r, b))
			return NULL;
		list_del(&b->node);
		sfu_sq_len--;
		return b;
	}
	return NULL;
}

/* Forget that @id was queued; its entry is returned, to be freed unlocked. */
static struct sfu_sq_seen *sfu_sq_seen_forget_locked(const struct sfu_file_id *id)
{
	struct sfu_sq_seen *e = sfu_sq_seen_find_locked(id);

	if (e) {
		hash_del(&e->node);
		list_del(&e->fifo);
		sfu_sq_seen_count--;
	}
	return e;
}

/*
 * Queue @r: backlog at the tail; a mapping's request after those of
 * processes started at the same time or since, before the rest.
 */
static void sfu_sq_add_locked(struct sfu_sq_req *r)
{
	struct sfu_sq_req *b;

	sfu_sq_len++;
	if (!r->backlog)
		list_for_each_entry(b, &sfu_sq_queue, node)
			if (sfu_sq_before(r, b)) {
				list_add_tail(&r->node, &b->node);
				return;
			}
	list_add_tail(&r->node, &sfu_sq_queue);
}

/*
 * A mapping's request @r for a file queued already, in the backlog or for
 * an older process: that request moves up as if it were @r (its place in
 * the caps stays the same), for the process mapping it runs now.
 * Return: true if one moved.
 */
static bool sfu_sq_promote_locked(const struct sfu_sq_req *r)
{
	struct sfu_sq_req *b;

	list_for_each_entry(b, &sfu_sq_queue, node) {
		if (!sfu_file_id_equal(&b->id, &r->id))
			continue;
		if (!sfu_sq_before(r, b))
			return false;
		list_del(&b->node);
		sfu_sq_len--;
		b->backlog = false;
		b->started = r->started;
		sfu_sq_add_locked(b);
		return true;
	}
	return false;
}

/* A request for @file, made by current (backlog, if it is the rescan's), or NULL. */
static struct sfu_sq_req *sfu_sq_req_new(struct file *file, const u8 *build_id, unsigned int len,
					 const struct cred *cred, u32 why)
{
	struct sfu_sq_req *r = kzalloc(sizeof(*r), GFP_KERNEL);

	if (!r)
		return NULL;
	r->uid = sfu_user_account(cred);
	r->why = why;
	r->backlog = READ_ONCE(sfu_sq_scanner) == current;
	if (!r->backlog)
		r->started = current->group_leader->start_time;
	r->len = len;
	memcpy(r->build_id, build_id, len);
	strscpy(r->name, file_dentry(file)->d_name.name, sizeof(r->name));
	sfu_file_id_get(file, &r->id);
	return r;
}

/* Remember @seen's file as queued; the oldest one forgotten is returned, to be freed. */
static struct sfu_sq_seen *sfu_sq_seen_add_locked(struct sfu_sq_seen *seen)
{
	struct sfu_sq_seen *old;

	hash_add(sfu_sq_seen, &seen->node, sfu_sq_seen_hash(&seen->id));
	list_add_tail(&seen->fifo, &sfu_sq_seen_fifo);
	if (++sfu_sq_seen_count <= SFU_SQ_SEEN_MAX)
		return NULL;
	old = list_first_entry(&sfu_sq_seen_fifo, struct sfu_sq_seen, fifo);
	hash_del(&old->node);
	list_del(&old->fifo);
	sfu_sq_seen_count--;
	return old;
}

/*
 * Whether the daemon refuses @file, counted: never a file on FUSE; else
 * it takes any file where it
 * attached with SFU_SIDECAR_ATTACH_ANY_OWNER, else a regular file of the
 * initial user namespace's root that neither group nor others may write
 * (the daemon's own check, on the descriptor it gets).  The inode's owner
 * and mode may change after; the daemon checks again on the descriptor.
 */
static bool sfu_sq_refuses(struct file *file)
{
	struct inode *inode = file_inode(file);
	umode_t mode = READ_ONCE(inode->i_mode);

	/* The daemon reads what it is handed: a FUSE server could hold it for good. */
	if (sfu_file_may_stall(file)) {
		sfu_stat_inc(SFU_STAT_SIDECAR_REQ_REFUSED_FUSE);
		return true;
	}
	if ((READ_ONCE(sfu_sq_flags) & SFU_SIDECAR_ATTACH_ANY_OWNER) ||
	    (S_ISREG(mode) && !(mode & 0022) && uid_eq(inode->i_uid, GLOBAL_ROOT_UID)))
		return false;
	sfu_stat_inc(SFU_STAT_SIDECAR_REQ_REFUSED_OWNER);
	return true;
}

/**
 * sfu_sidecar_request() - ask the daemon for the sidecar of a mapped file
 * @file: the file, mapped executable, with neither .sframe nor a sidecar
 *        bound to its content
 * @build_id: its build-id
 * @len: its bytes
 * @cred: the credentials of the mapping's process, which say whose
 *        request it is (sfu_user_account())
 * @why: SFU_SIDECAR_WHY_MISSING, or SFU_SIDECAR_WHY_CONTENT where the
 *       sidecars of its build-id were made from other content
 *
 * Nothing without a daemon attached, for a file queued before, or beyond
 * the caps (counted).  Made by the task running sfu_sidecar_backlog(), the
 * request is backlog: it comes after those of mappings.  A mapping's
 * comes after those of processes started at the same time as current's
 * or since, and before those of older processes.
 *
 * Context: task context.
 */
void sfu_sidecar_request(struct file *file, const u8 *build_id, unsigned int len,
			 const struct cred *cred, u32 why)
{
	struct sfu_sq_seen *seen, *old = NULL, *gone = NULL;
	struct sfu_sq_req *r, *displaced = NULL;
	enum sfu_stat stat;
	bool over_user;

	/* A file refused before anything is queued or remembered takes no place. */
	if (!READ_ONCE(sfu_sq_owner) || !len || len > SFU_SIDECAR_BUILD_ID_MAX ||
	    sfu_sq_refuses(file))
		return;
	r = sfu_sq_req_new(file, build_id, len, cred, why);
	seen = kzalloc(sizeof(*seen), GFP_KERNEL);
	if (!r || !seen) {
		sfu_stat_inc(SFU_STAT_SIDECAR_REQ_DROPPED_FULL);
		goto out;
	}
	seen->id = r->id;
	spin_lock(&sfu_sq_lock);
	if (!sfu_sq_owner) {
		spin_unlock(&sfu_sq_lock);
		goto out;
	}
	if (sfu_sq_seen_find_locked(&seen->id)) {
		stat = !r->backlog && sfu_sq_promote_locked(r) ?
		       SFU_STAT_SIDECAR_REQ_PROMOTED : SFU_STAT_SIDECAR_REQ_DUPLICATE;
		goto unlock;
	}
	over_user = sfu_sq_user_count_locked(r->uid) >= SFU_SQ_PER_USER;
	if (over_user || sfu_sq_len >= SFU_SQ_MAX) {
		stat = sfu_sq_len >= SFU_SQ_MAX && !over_user ?
		       SFU_STAT_SIDECAR_REQ_DROPPED_FULL : SFU_STAT_SIDECAR_REQ_DROPPED_USER;
		if (r->backlog)
			goto unlock;
		displaced = sfu_sq_displace_locked(r, over_user ? &r->uid : NULL);
		if (!displaced)
			goto unlock;
		/* Its file is queued again when a rescan finds it. */
		gone = sfu_sq_seen_forget_locked(&displaced->id);
	}
	stat = SFU_STAT_SIDECAR_REQ_QUEUED;
	old = sfu_sq_seen_add_locked(seen);
	seen = NULL;
	r->file = get_file(file);
	sfu_sq_add_locked(r);
	r = NULL;
unlock:
	spin_unlock(&sfu_sq_lock);
	sfu_stat_inc(stat);
	if (stat == SFU_STAT_SIDECAR_REQ_QUEUED)
		wake_up_interruptible(&sfu_sq_wait);
	if (displaced) {
		wake_up_all(&sfu_sq_done_wait);
		sfu_stat_inc(SFU_STAT_SIDECAR_REQ_DISPLACED);
		fput(displaced->file);
		kfree(displaced);
	}
out:
	kfree(gone);
	kfree(old);
	kfree(seen);
	kfree(r);
}
EXPORT_SYMBOL_IF_KUNIT(sfu_sidecar_request);

/**
 * sfu_sidecar_queue_attach() - make @owner the daemon
 * @owner: the daemon's open file (compared only)
 * @flags: SFU_SIDECAR_ATTACH_*: which files it takes
 *
 * Forgets which files were queued: a new daemon hears of every file
 * again.  From now on only the files @flags admit are queued; the others
 * are refused before they take any place (sfu_sq_refuses()).  The daemon
 * attached already may attach again, with other flags.
 *
 * Return: 0, -EINVAL for an unknown flag, or -EBUSY while another daemon
 * is attached.
 */
int sfu_sidecar_queue_attach(const void *owner, unsigned long flags)
{
	struct sfu_sq_seen *e, *next;
	struct pid *old_pid = NULL;
	LIST_HEAD(gone);
	int err = 0;

	if (flags & ~(unsigned long)SFU_SIDECAR_ATTACH_FLAGS)
		return -EINVAL;
	spin_lock(&sfu_sq_lock);
	if (sfu_sq_owner && sfu_sq_owner != owner) {
		err = -EBUSY;
	} else {
		sfu_sq_owner = owner;
		WRITE_ONCE(sfu_sq_flags, flags);
		sfu_sq_seen_clear_locked(&gone);
		old_pid = sfu_sq_daemon;
		sfu_sq_daemon = get_pid(task_tgid(current));
	}
	spin_unlock(&sfu_sq_lock);
	put_pid(old_pid);
	list_for_each_entry_safe(e, next, &gone, fifo)
		kfree(e);
	return err;
}
EXPORT_SYMBOL_IF_KUNIT(sfu_sidecar_queue_attach);

/**
 * sfu_sidecar_queue_detach() - the daemon @owner is gone
 * @owner: what was passed to sfu_sidecar_queue_attach()
 *
 * Drops the queued requests (counted) if @owner is the daemon.
 *
 * Context: task context (puts files).
 */
void sfu_sidecar_queue_detach(const void *owner)
{
	struct sfu_sq_seen *e, *enext;
	struct sfu_sq_req *r, *next;
	struct pid *pid;
	LIST_HEAD(reqs);
	LIST_HEAD(gone);

	spin_lock(&sfu_sq_lock);
	if (!owner || sfu_sq_owner != owner) {
		spin_unlock(&sfu_sq_lock);
		return;
	}
	sfu_sq_owner = NULL;
	list_splice_init(&sfu_sq_queue, &reqs);
	sfu_sq_len = 0;
	sfu_sq_seen_clear_locked(&gone);
	pid = sfu_sq_daemon;
	sfu_sq_daemon = NULL;
	/* Nothing handed over is waited for any longer. */
	sfu_sq_done_seq = sfu_sq_handed_seq;
	spin_unlock(&sfu_sq_lock);
	put_pid(pid);
	wake_up_interruptible_all(&sfu_sq_wait);
	wake_up_all(&sfu_sq_done_wait);
	list_for_each_entry_safe(r, next, &reqs, node) {
		sfu_stat_inc(SFU_STAT_SIDECAR_REQ_FLUSHED);
		fput(r->file);
		kfree(r);
	}
	list_for_each_entry_safe(e, enext, &gone, fifo)
		kfree(e);
}
EXPORT_SYMBOL_IF_KUNIT(sfu_sidecar_queue_detach);

static bool sfu_sq_ready(const void *owner)
{
	return !list_empty_careful(&sfu_sq_queue) || READ_ONCE(sfu_sq_owner) != owner;
}

/**
 * sfu_sidecar_queue_next() - the next request, for the daemon
 * @owner: the daemon's open file
 * @timeout: jiffies to wait for one (0: none)
 * @out: filled in but for @out->fd, @out->timeout_ms and @out->flags
 *
 * The file is handed over as it was mapped, unless it was opened for
 * writing: then it is opened again, read-only, from its path (the same
 * dentry and mount, no lookup), with the caller's credentials.
 *
 * Context: task context, may sleep.
 * Return: the file, with a reference for the caller; ERR_PTR(-EPERM) if
 * @owner is not the daemon, -EAGAIN if no request came in time, -EINTR
 * on a signal, or the error of opening the file again (counted).
 */
struct file *sfu_sidecar_queue_next(const void *owner, long timeout,
				    struct sfu_sidecar_request *out)
{
	struct sfu_sq_req *r = NULL;
	struct file *f;

	BUILD_BUG_ON(sizeof(out->build_id) != SFU_SIDECAR_BUILD_ID_MAX);
	BUILD_BUG_ON(sizeof(out->name) < SFU_NAME_LEN);
	if (READ_ONCE(sfu_sq_owner) != owner)
		return ERR_PTR(-EPERM);
	if (timeout && wait_event_interruptible_timeout(sfu_sq_wait, sfu_sq_ready(owner),
							timeout) < 0)
		return ERR_PTR(-EINTR);
	spin_lock(&sfu_sq_lock);
	if (sfu_sq_owner != owner) {
		spin_unlock(&sfu_sq_lock);
		return ERR_PTR(-EPERM);
	}
	r = list_first_entry_or_null(&sfu_sq_queue, struct sfu_sq_req, node);
	if (r) {
		u64 seq = ++sfu_sq_handed_seq;

		list_del(&r->node);
		sfu_sq_len--;
		sfu_sq_handed[seq % SFU_SQ_HANDED].id = r->id;
		sfu_sq_handed[seq % SFU_SQ_HANDED].seq = seq;
	}
	spin_unlock(&sfu_sq_lock);
	if (!r)
		return ERR_PTR(-EAGAIN);

	if (r->file->f_mode & FMODE_WRITE) {
		f = dentry_open(&r->file->f_path, O_RDONLY | O_LARGEFILE, current_cred());
		fput(r->file);
	} else {
		f = r->file;
	}
	if (IS_ERR(f)) {
		sfu_stat_inc(SFU_STAT_SIDECAR_REQ_OPEN_FAILED);
	} else {
		sfu_stat_inc(SFU_STAT_SIDECAR_REQ_HANDED);
		out->uid = from_kuid_munged(&init_user_ns, r->uid);
		out->size = i_size_read(file_inode(f));
		out->build_id_len = r->len;
		out->why = r->why;
		memset(out->build_id, 0, sizeof(out->build_id));
		memcpy(out->build_id, r->build_id, r->len);
		memset(out->name, 0, sizeof(out->name));
		strscpy(out->name, r->name, sizeof(out->name));
	}
	kfree(r);
	return f;
}
EXPORT_SYMBOL_IF_KUNIT(sfu_sidecar_queue_next);

/**
 * sfu_sidecar_backlog() - make the requests of a scan backlog
 * @scan: called with @arg; what it queues comes after mappings' requests
 * @arg: for @scan
 *
 * One scan at a time: a second waits for the first.
 *
 * Context: task context, may sleep.
 */
void sfu_sidecar_backlog(void (*scan)(void *arg), void *arg)
{
	u64 seq;

	mutex_lock(&sfu_sq_rescan_lock);
	/* What was handed over before this scan began, the scan covers. */
	spin_lock(&sfu_sq_lock);
	seq = sfu_sq_handed_seq;
	spin_unlock(&sfu_sq_lock);
	WRITE_ONCE(sfu_sq_scanner, current);
	scan(arg);
	WRITE_ONCE(sfu_sq_scanner, NULL);
	mutex_unlock(&sfu_sq_rescan_lock);
	spin_lock(&sfu_sq_lock);
	sfu_sq_done_seq = max(sfu_sq_done_seq, seq);
	spin_unlock(&sfu_sq_lock);
	wake_up_all(&sfu_sq_done_wait);
}
EXPORT_SYMBOL_IF_KUNIT(sfu_sidecar_backlog);

/*
 * Whether the request for @id is settled: not queued, and, if it was
 * handed over, a rescan began after that.  A request dropped or displaced
 * is settled too: it is no longer the daemon's.
 */
static bool sfu_sq_settled(const struct sfu_file_id *id)
{
	struct sfu_sq_req *r;
	bool settled = true;
	unsigned int i;

	spin_lock(&sfu_sq_lock);
	list_for_each_entry(r, &sfu_sq_queue, node)
		if (sfu_file_id_equal(&r->id, id))
			settled = false;
	for (i = 0; settled && i < SFU_SQ_HANDED; i++)
		if (sfu_sq_handed[i].seq > sfu_sq_done_seq &&
		    sfu_file_id_equal(&sfu_sq_handed[i].id, id))
			settled = false;
	spin_unlock(&sfu_sq_lock);
	return settled;
}

/* Whether current is the daemon's process or one it started (or theirs). */
static bool sfu_sq_daemons(void)
{
	struct task_struct *t = current;
	bool ret = false;
	int depth;

	rcu_read_lock();
	for (depth = 0; depth < 64 && READ_ONCE(sfu_sq_daemon); depth++) {
		if (task_tgid(t) == READ_ONCE(sfu_sq_daemon)) {
			ret = true;
			break;
		}
		if (t == rcu_dereference(t->real_parent))
			break;
		t = rcu_dereference(t->real_parent);
	}
	rcu_read_unlock();
	return ret;
}

/**
 * sfu_sidecar_wait_until() - the time a mapping's wait for the daemon ends
 *
 * Return: 0 if it does not wait (sidecar_wait_ms is 0, no daemon, or
 * current is one of the daemon's processes), else a time in jiffies for
 * sfu_sidecar_wait().
 */
unsigned long sfu_sidecar_wait_until(void)
{
	unsigned int ms = min_t(unsigned int, READ_ONCE(sfu_sidecar_wait_ms), SFU_SQ_WAIT_MAX_MS);
	unsigned long until;

	if (!ms || !READ_ONCE(sfu_sq_owner) || sfu_sq_daemons())
		return 0;
	until = jiffies + msecs_to_jiffies(ms);
	return until ? until : 1;
}
EXPORT_SYMBOL_IF_KUNIT(sfu_sidecar_wait_until);

/**
 * sfu_sidecar_wait() - wait for the daemon to deal with a file's request
 * @file: a file whose mapping asked for its sidecar (sfu_sidecar_request())
 * @until: from sfu_sidecar_wait_until()
 *
 * Until its request is settled: handed over and followed by a rescan,
 * which registers what the daemon wrote for the processes that map it,
 * or no longer the daemon's.  Counted: sidecar_waits, and
 * sidecar_wait_timeouts for a wait that ran out of time (or was killed).
 *
 * Context: task context, may sleep; no lock held.
 * Return: true if settled, false if not by @until.
 */
bool sfu_sidecar_wait(struct file *file, unsigned long until)
{
	struct sfu_file_id id;
	long left = (long)(until - jiffies);

	sfu_file_id_get(file, &id);
	if (sfu_sq_settled(&id))
		return true;
	sfu_stat_inc(SFU_STAT_SIDECAR_WAITS);
	if (left > 0 &&
	    wait_event_killable_timeout(sfu_sq_done_wait, sfu_sq_settled(&id), left) > 0)
		return true;
	sfu_stat_inc(SFU_STAT_SIDECAR_WAIT_TIMEOUTS);
	return false;
}
EXPORT_SYMBOL_IF_KUNIT(sfu_sidecar_wait);

static int sfu_sidecar_queue_show(struct seq_file *m, void *v)
{
	struct sfu_sq_req *r;

	spin_lock(&sfu_sq_lock);
	seq_printf(m, "daemon %d\nqueued %u max %u per_user %u\nseen %u max %u\n",
		   !!sfu_sq_owner, sfu_sq_len, SFU_SQ_MAX, SFU_SQ_PER_USER,
		   sfu_sq_seen_count, SFU_SQ_SEEN_MAX);
	list_for_each_entry(r, &sfu_sq_queue, node)
		seq_printf(m, "%*phN uid %u %*pE\n", r->len, r->build_id,
			   from_kuid_munged(&init_user_ns, r->uid),
			   (int)strnlen(r->name, sizeof(r->name)), r->name);
	spin_unlock(&sfu_sq_lock);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(sfu_sidecar_queue);

/**
 * sfu_sidecar_queue_init() - create <debugfs>/sframe_unwind/sidecar_queue
 */
void sfu_sidecar_queue_init(void)
{
	/* Root only: it names the files of every user. */
	sfu_debugfs_file("sidecar_queue", 0400, NULL, &sfu_sidecar_queue_fops);
}

/**
 * sfu_sidecar_queue_exit() - remove the debugfs file
 *
 * Context: module exit, after the device is gone (no daemon left).
 */
void sfu_sidecar_queue_exit(void)
{
	sfu_debugfs_remove("sidecar_queue");
	sfu_sidecar_queue_detach(READ_ONCE(sfu_sq_owner));
}
