// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel copies of validated .sframe sections.
 *
 * Lookups read a section from a copy in kernel memory when there is one:
 * no uaccess per FDE probe or FRE window, no fault, and nothing the process
 * can change under the lookup.  A file's copy is made when the file is
 * validated and shared by every section of every mm that maps the file; a
 * section registered through the char device has a private copy taken at
 * registration.  Copies are immutable and reference counted by the
 * sections using them; the last section's RCU callback frees its copy, so
 * a lock-free lookup never sees one go.
 *
 * A copy whose section has functions of more than SFRAME_FRE_INDEX_STRIDE
 * rows comes with the FRE index that bounds the work of a lookup in them
 * (sfu_copy_index()): both are charged and freed together.
 *
 * All copies together stay below max_kernel_bytes: a section that would go
 * beyond it gets no copy, and its lookups read user memory as they would
 * without this file.
 *
 * A copy is charged to one user (max_kernel_bytes_per_user), first the one
 * it was made for.  Each copy knows which users' sections hold it
 * (sfu_copy_hold()); when the charged user's last section lets go while
 * other users' sections still hold the copy, the charge moves to one of
 * them, root first: nobody pays for a copy only others use.
 *
 * A file's copy outlives its last section for the next mapping of the
 * file: a program started again and again (a script running openssl, git,
 * curl in a loop) finds the copy of each library it maps, with nothing to
 * read, validate or index.  Such a copy is retained, charged as before to
 * the user whose section let go of it last, while it is in the file
 * cache's slot and within max_kernel_bytes_retained, least recently let
 * go first out; a section that takes it again takes the charge with it.
 * Retained copies never cost anyone a copy: one that a budget
 * (max_kernel_bytes, or the user's) cannot fit is made after dropping
 * retained copies, the user's own first.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/overflow.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/spinlock.h>

#include "internal.h"
#include "stats.h"
#include "sframe_unwind/compat/export.h"

static unsigned long sfu_max_kernel_bytes = 64UL << 20;
module_param_named(max_kernel_bytes, sfu_max_kernel_bytes, ulong, 0644);
MODULE_PARM_DESC(max_kernel_bytes,
		 "Bytes of .sframe sections kept in kernel memory, all copies together (default 64 MiB)");

static unsigned long sfu_max_kernel_bytes_retained = 16UL << 20;

static atomic_long_t sfu_copy_bytes = ATOMIC_LONG_INIT(0);
static atomic64_t sfu_copy_ids = ATOMIC64_INIT(0);
static atomic_t sfu_copy_count = ATOMIC_INIT(0);
/*
 * Protects every copy's @slot and the slot it points at, its @holders and
 * its @user; taken from RCU callbacks.
 */
static DEFINE_SPINLOCK(sfu_copy_lock);
/* Copies retained with no section holding them, least recently let go last. */
static LIST_HEAD(sfu_retained);
static unsigned long sfu_retained_bytes;
static unsigned int sfu_retained_count;

/**
 * struct sfu_copy_holder - a user whose sections hold a copy
 * @node: link in the copy's @holders
 * @user: the user; its sections' references keep it alive
 * @refs: the sections of @user that hold the copy
 */
struct sfu_copy_holder {
	struct list_head node;
	struct sfu_user *user;
	unsigned int refs;
};

static size_t sfu_copy_bytes_of(const struct sfu_sframe_copy *c)
{
	return c->size + c->index_size;
}

/* Take @c off the retained list onto @drop; under sfu_copy_lock. */
static void sfu_retained_del_locked(struct sfu_sframe_copy *c, struct list_head *drop)
{
	list_move(&c->retained, drop);
	sfu_retained_bytes -= sfu_copy_bytes_of(c);
	sfu_retained_count--;
}

/* Let go of the copies sfu_retained_del_locked() put on @drop. */
static void sfu_retained_drop(struct list_head *drop)
{
	struct sfu_sframe_copy *c, *next;

	list_for_each_entry_safe(c, next, drop, retained) {
		list_del_init(&c->retained);
		sfu_stat_inc(SFU_STAT_KERNEL_COPIES_RETAINED_DROPPED);
		sfu_copy_put(c);
	}
}

/* Retained copies beyond @limit bytes onto @drop, oldest first; under sfu_copy_lock. */
static void sfu_retained_trim_locked(unsigned long limit, struct list_head *drop)
{
	while (sfu_retained_bytes > limit)
		sfu_retained_del_locked(list_last_entry(&sfu_retained, struct sfu_sframe_copy,
							retained), drop);
}

static void sfu_retained_trim(unsigned long limit)
{
	unsigned long flags;
	LIST_HEAD(drop);

	spin_lock_irqsave(&sfu_copy_lock, flags);
	sfu_retained_trim_locked(limit, &drop);
	spin_unlock_irqrestore(&sfu_copy_lock, flags);
	sfu_retained_drop(&drop);
}

/* A lower max_kernel_bytes_retained lets go of what it no longer allows, now. */
static int sfu_retained_limit_set(const char *val, const struct kernel_param *kp)
{
	int err;

	/* While the module goes away its copies are being let go of already. */
	if (!try_module_get(THIS_MODULE))
		return -ENODEV;
	err = param_set_ulong(val, kp);
	if (!err)
		sfu_retained_trim(READ_ONCE(sfu_max_kernel_bytes_retained));
	module_put(THIS_MODULE);
	return err;
}

static const struct kernel_param_ops sfu_retained_limit_ops = {
	.set = sfu_retained_limit_set,
	.get = param_get_ulong,
};
module_param_cb(max_kernel_bytes_retained, &sfu_retained_limit_ops,
		&sfu_max_kernel_bytes_retained, 0644);
MODULE_PARM_DESC(max_kernel_bytes_retained,
		 "Bytes of kernel copies kept for the next mapping of their file when no process maps it (default 16 MiB, within max_kernel_bytes)");

/*
 * Make room for @bytes more of @user's by dropping retained copies: those
 * charged to @user when @over_user, else the oldest until @bytes fit
 * max_kernel_bytes.  Return: whether any was dropped.
 */
static bool sfu_retained_shrink(struct sfu_user *user, size_t bytes, bool over_user)
{
	long over = atomic_long_read(&sfu_copy_bytes) + bytes - READ_ONCE(sfu_max_kernel_bytes);
	struct sfu_sframe_copy *c, *next;
	unsigned long flags;
	LIST_HEAD(drop);

	spin_lock_irqsave(&sfu_copy_lock, flags);
	list_for_each_entry_safe_reverse(c, next, &sfu_retained, retained) {
		if (over_user ? c->user != user : over <= 0)
			continue;
		over -= sfu_copy_bytes_of(c);
		sfu_retained_del_locked(c, &drop);
	}
	spin_unlock_irqrestore(&sfu_copy_lock, flags);
	if (list_empty(&drop))
		return false;
	sfu_retained_drop(&drop);
	return true;
}

/* sfu_copy_charge() without dropping retained copies; @over_user: which budget refused. */
static bool sfu_copy_charge_once(struct sfu_user *user, size_t bytes, bool *over_user)
{
	*over_user = !sfu_user_charge_bytes(user, bytes);
	if (*over_user)
		return false;
	if (atomic_long_add_return(bytes, &sfu_copy_bytes) > READ_ONCE(sfu_max_kernel_bytes)) {
		atomic_long_sub(bytes, &sfu_copy_bytes);
		sfu_user_uncharge_bytes(user, bytes);
		return false;
	}
	return true;
}

/*
 * Count @bytes of kernel memory for @user against max_kernel_bytes_per_user
 * and max_kernel_bytes, dropping retained copies to make room.  Context:
 * task context, no lock held (may free copies).  Return: true, or false
 * (nothing counted, the refusal counted in the stats).
 */
static bool sfu_copy_charge(struct sfu_user *user, size_t bytes)
{
	bool over_user;
	int tries = 3;

	while (!sfu_copy_charge_once(user, bytes, &over_user)) {
		if (--tries && sfu_retained_shrink(user, bytes, over_user))
			continue;
		sfu_stat_inc(over_user ? SFU_STAT_KERNEL_COPY_OVER_USER_BUDGET :
			     SFU_STAT_KERNEL_COPY_OVER_BUDGET);
		return false;
	}
	return true;
}

static void sfu_copy_uncharge(struct sfu_user *user, size_t bytes)
{
	atomic_long_sub(bytes, &sfu_copy_bytes);
	sfu_user_uncharge_bytes(user, bytes);
}

/**
 * sfu_copy_alloc() - a new, empty copy of @size section bytes, within the budget
 * @size: bytes of the section
 *
 * The caller fills @data, validates it into @sec (the bytes read for
 * validation are the copy's: registry/elf.c), adds the FRE index with
 * sfu_copy_index() and hands out the one reference it gets.
 *
 * Context: task context.
 * The copy is charged to the current task's user, sfu_user_account()
 * (max_kernel_bytes_per_user), and to its memory cgroup.
 *
 * Return: the copy, or NULL if it would exceed max_kernel_bytes (counted
 * in kernel_copy_over_budget) or the user's budget
 * (kernel_copy_over_user_budget), or without memory.
 */
struct sfu_sframe_copy *sfu_copy_alloc(size_t size)
{
	struct sfu_sframe_copy *c;
	struct sfu_user *user;

	user = sfu_user_get_current();
	if (!user)
		return NULL;
	if (!sfu_copy_charge(user, size)) {
		sfu_user_put(user);
		return NULL;
	}
	/* On behalf of the process it is made for: charged to its memory cgroup. */
	c = kvmalloc(struct_size(c, data, size), GFP_KERNEL_ACCOUNT);
	if (!c) {
		sfu_copy_uncharge(user, size);
		sfu_user_put(user);
		return NULL;
	}
	c->user = user;
	INIT_LIST_HEAD(&c->holders);
	INIT_LIST_HEAD(&c->retained);
	refcount_set(&c->ref, 1);
	/* Never reused: what the row cache remembers of a copy is only its own. */
	c->id = atomic64_inc_return(&sfu_copy_ids);
	c->slot = NULL;
	c->size = size;
	c->index = NULL;
	c->index_size = 0;
	memset(&c->sec, 0, sizeof(c->sec));
	atomic_inc(&sfu_copy_count);
	return c;
}
EXPORT_SYMBOL_IF_KUNIT(sfu_copy_alloc);

/**
 * sfu_copy_index() - give a validated copy the FRE index its lookups need
 * @c: the copy; @c->sec validated, reading @c->data, and not handed out yet
 *
 * A function of more than SFRAME_FRE_INDEX_STRIDE rows is looked up
 * through the section's FRE index, so that a lookup reads at most
 * SFRAME_FRE_SCAN_MAX rows whatever the section (a user can register one
 * function of 65535 rows, and lookups run in NMI context); without it the
 * decoder refuses such a lookup.  The index takes 8 bytes per 32 rows of
 * those functions and 8 per function, a fraction of the copy's size.  It
 * is charged like the copy -- to the copy's user, to max_kernel_bytes,
 * and to the current task's memory cgroup -- and freed with it by the
 * last sfu_copy_put(), which sections call from their RCU callback: no
 * lookup can be reading it then.  @c->sec (and every copy of it taken
 * from now on) points at it.  A section validated per function
 * (sfu_sframe_section_validate_fdes(), a sidecar's) gets, in the same
 * block after the index, the byte per function that records which were
 * checked; the functions the index covers are checked here.
 *
 * Context: task context.
 * Return: 0 (also for a section that needs no index), -ENOSPC (a budget,
 * counted as for a copy), -ENOMEM, or -EINVAL if the decoder refuses to
 * walk the rows.  On error @c has no index and the caller drops it: its
 * section is then read from user memory.
 */
int sfu_copy_index(struct sfu_sframe_copy *c)
{
	size_t bytes, ix_bytes;
	void *ix;

	if (sfu_sframe_fre_index_size(&c->sec, &ix_bytes))
		return -EINVAL;
	bytes = ix_bytes;
	if (c->sec.lazy)
		bytes = ALIGN(bytes, sizeof(long)) + c->sec.num_fdes;
	if (!bytes)
		return 0;
	if (!sfu_copy_charge(c->user, bytes))
		return -ENOSPC;
	ix = kvzalloc(bytes, GFP_KERNEL_ACCOUNT);
	if (!ix) {
		sfu_copy_uncharge(c->user, bytes);
		return -ENOMEM;
	}
	if (sfu_sframe_fre_index_build(&c->sec, ix, ix_bytes,
				       c->sec.lazy ? (u8 *)ix + ALIGN(ix_bytes, sizeof(long)) :
				       NULL)) {
		kvfree(ix);
		sfu_copy_uncharge(c->user, bytes);
		return -EINVAL;
	}
	c->index = ix;
	c->index_size = bytes;
	return 0;
}

/**
 * sfu_copy_put() - drop a reference; the last one frees the copy
 * @c: the copy, or NULL
 *
 * A copy in a slot (sfu_copy_set_slot()) is taken out of it first, under
 * the lock sfu_copy_get_slot() takes, so a slot never points at a freed
 * copy; between the last reference going and that, sfu_copy_get_slot()
 * sees a count of zero and leaves the copy alone.  The caller makes sure
 * no lookup can still be reading @c: sections drop their reference from
 * their RCU callback.
 *
 * Context: any but NMI (RCU callbacks included).
 */
void sfu_copy_put(struct sfu_sframe_copy *c)
{
	unsigned long flags;

	if (!c || !refcount_dec_and_test(&c->ref))
		return;
	spin_lock_irqsave(&sfu_copy_lock, flags);
	/* A slot a newer copy took over no longer points here (set_slot). */
	if (c->slot)
		*c->slot = NULL;
	spin_unlock_irqrestore(&sfu_copy_lock, flags);
	WARN_ON_ONCE(!list_empty(&c->holders) || !list_empty(&c->retained));
	sfu_copy_uncharge(c->user, sfu_copy_bytes_of(c));
	atomic_dec(&sfu_copy_count);
	sfu_user_put(c->user);
	kvfree(c->index);
	kvfree(c);
}
EXPORT_SYMBOL_IF_KUNIT(sfu_copy_put);

static struct sfu_copy_holder *sfu_copy_holder(struct sfu_sframe_copy *c, struct sfu_user *u)
{
	struct sfu_copy_holder *h;

	list_for_each_entry(h, &c->holders, node)
		if (h->user == u)
			return h;
	return NULL;
}

/**
 * sfu_copy_hold() - record that a section of @u holds one reference to @c
 * @c: the copy, or NULL (nothing to do)
 * @u: the section's user
 *
 * Each call is undone by sfu_copy_unhold() before the section drops its
 * reference.
 *
 * Context: task context.
 * Return: 0 or -ENOMEM (nothing recorded).
 */
int sfu_copy_hold(struct sfu_sframe_copy *c, struct sfu_user *u)
{
	struct sfu_copy_holder *h, *new = NULL;
	struct sfu_user *from = NULL;
	unsigned long flags;
	LIST_HEAD(taken);

	if (!c)
		return 0;
	for (;;) {
		spin_lock_irqsave(&sfu_copy_lock, flags);
		h = sfu_copy_holder(c, u);
		if (h) {
			h->refs++;
		} else if (new) {
			new->user = u;
			new->refs = 1;
			list_add_tail(&new->node, &c->holders);
			h = new;
			new = NULL;
		}
		if (h && !list_empty(&c->retained)) {
			/* Taken again: off the list, and the charge with it. */
			sfu_retained_del_locked(c, &taken);
			if (c->user != u) {
				from = c->user;
				c->user = sfu_user_take_bytes(from, u, sfu_copy_bytes_of(c));
			}
		}
		spin_unlock_irqrestore(&sfu_copy_lock, flags);
		if (h)
			break;
		new = kmalloc(sizeof(*new), GFP_KERNEL_ACCOUNT);
		if (!new)
			return -ENOMEM;
	}
	kfree(new);
	if (!list_empty(&taken)) {
		/* The list's reference; the caller's keeps @c. */
		list_del_init(&c->retained);
		sfu_stat_inc(SFU_STAT_KERNEL_COPIES_RETAINED_REUSED);
		sfu_copy_put(c);
	}
	if (from) {
		sfu_stat_inc(SFU_STAT_KERNEL_COPY_CHARGE_MOVED);
		sfu_user_put(from);
	}
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(sfu_copy_hold);

/* The holder to charge instead of the one leaving: root if it holds, else the first. */
static struct sfu_user *sfu_copy_next_payer(struct sfu_sframe_copy *c)
{
	struct sfu_copy_holder *h;

	list_for_each_entry(h, &c->holders, node)
		if (sfu_user_exempt(h->user))
			return h->user;
	h = list_first_entry_or_null(&c->holders, struct sfu_copy_holder, node);
	return h ? h->user : NULL;
}

/*
 * Retain @c, which its last section is letting go of, for the next mapping
 * of its file: only a copy the file cache shares (in a slot) and that fits
 * max_kernel_bytes_retained; the oldest ones beyond it onto @drop.  The
 * caller's reference makes the list's safe to take.  Under sfu_copy_lock.
 * Return: whether @c is retained.
 */
static bool sfu_copy_retain_locked(struct sfu_sframe_copy *c, struct list_head *drop)
{
	unsigned long limit = READ_ONCE(sfu_max_kernel_bytes_retained);

	if (!list_empty(&c->holders) || !c->slot || !list_empty(&c->retained) ||
	    sfu_copy_bytes_of(c) > limit)
		return false;
	refcount_inc(&c->ref);
	list_add(&c->retained, &sfu_retained);
	sfu_retained_bytes += sfu_copy_bytes_of(c);
	sfu_retained_count++;
	sfu_retained_trim_locked(limit, drop);
	return true;
}

/**
 * sfu_copy_unhold() - undo one sfu_copy_hold()
 * @c: the copy, or NULL
 * @u: the section's user
 *
 * If that was the last section of @u holding @c and @c is charged to @u,
 * the charge moves to a user whose sections still hold it.
 *
 * Context: any but NMI (RCU callbacks included).
 */
void sfu_copy_unhold(struct sfu_sframe_copy *c, struct sfu_user *u)
{
	struct sfu_copy_holder *h, *gone = NULL;
	struct sfu_user *from = NULL, *to;
	unsigned long flags;
	bool retained;
	LIST_HEAD(drop);

	if (!c)
		return;
	spin_lock_irqsave(&sfu_copy_lock, flags);
	h = sfu_copy_holder(c, u);
	if (!WARN_ON_ONCE(!h) && !--h->refs) {
		list_del(&h->node);
		gone = h;
		to = c->user == u ? sfu_copy_next_payer(c) : NULL;
		if (to) {
			from = c->user;
			c->user = sfu_user_take_bytes(from, to, sfu_copy_bytes_of(c));
		}
	}
	retained = gone && sfu_copy_retain_locked(c, &drop);
	spin_unlock_irqrestore(&sfu_copy_lock, flags);
	kfree(gone);
	if (retained)
		sfu_stat_inc(SFU_STAT_KERNEL_COPIES_RETAINED);
	sfu_retained_drop(&drop);
	if (from) {
		sfu_stat_inc(SFU_STAT_KERNEL_COPY_CHARGE_MOVED);
		sfu_user_put(from);
	}
}
EXPORT_SYMBOL_IF_KUNIT(sfu_copy_unhold);

/**
 * sfu_copy_get_slot() - a reference to the copy in @slot, if there is one
 * @slot: where a copy is kept for later users (the file cache)
 *
 * Return: the copy with a new reference, or NULL.
 */
struct sfu_sframe_copy *sfu_copy_get_slot(struct sfu_sframe_copy **slot)
{
	struct sfu_sframe_copy *c;
	unsigned long flags;

	spin_lock_irqsave(&sfu_copy_lock, flags);
	c = *slot;
	/* A copy whose last reference went is on its way out. */
	if (c && !refcount_inc_not_zero(&c->ref))
		c = NULL;
	spin_unlock_irqrestore(&sfu_copy_lock, flags);
	if (c)
		sfu_stat_inc(SFU_STAT_KERNEL_COPIES_SHARED);
	return c;
}
EXPORT_SYMBOL_IF_KUNIT(sfu_copy_get_slot);

/**
 * sfu_copy_set_slot() - keep @c in @slot for later users, without a reference
 * @slot: an empty slot
 * @c: a copy the caller holds a reference to
 *
 * The slot empties itself when @c's last reference goes.
 *
 * Return: @c, or (with @c put and a new reference taken) the copy another
 * task put in @slot meanwhile.
 */
struct sfu_sframe_copy *sfu_copy_set_slot(struct sfu_sframe_copy **slot,
					  struct sfu_sframe_copy *c)
{
	struct sfu_sframe_copy *other;
	unsigned long flags;

	spin_lock_irqsave(&sfu_copy_lock, flags);
	other = *slot;
	if (other && !refcount_inc_not_zero(&other->ref)) {
		/* On its way out: @c takes its place. */
		other->slot = NULL;
		other = NULL;
	}
	if (!other) {
		*slot = c;
		c->slot = slot;
	}
	spin_unlock_irqrestore(&sfu_copy_lock, flags);
	if (!other)
		return c;
	sfu_stat_inc(SFU_STAT_KERNEL_COPIES_SHARED);
	sfu_copy_put(c);
	return other;
}
EXPORT_SYMBOL_IF_KUNIT(sfu_copy_set_slot);

static void sfu_copy_put_rcu(struct rcu_head *rcu)
{
	sfu_copy_put(container_of(rcu, struct sfu_sframe_copy, rcu));
}

/**
 * sfu_copy_clear_slot() - empty @slot before its memory is freed
 * @slot: the slot
 */
void sfu_copy_clear_slot(struct sfu_sframe_copy **slot)
{
	struct sfu_sframe_copy *c;
	unsigned long flags;
	LIST_HEAD(drop);

	spin_lock_irqsave(&sfu_copy_lock, flags);
	c = *slot;
	if (c) {
		c->slot = NULL;
		/* Nobody can find it again: not worth retaining. */
		if (!list_empty(&c->retained))
			sfu_retained_del_locked(c, &drop);
	}
	*slot = NULL;
	spin_unlock_irqrestore(&sfu_copy_lock, flags);
	if (list_empty(&drop))
		return;
	/* The caller may hold a spinlock of its own: freed after a grace period. */
	list_del_init(&c->retained);
	sfu_stat_inc(SFU_STAT_KERNEL_COPIES_RETAINED_DROPPED);
	call_rcu(&c->rcu, sfu_copy_put_rcu);
}
EXPORT_SYMBOL_IF_KUNIT(sfu_copy_clear_slot);

/**
 * sfu_copy_usage() - kernel copies held now
 * @copies: set to their number
 * @bytes: set to their section bytes and FRE indexes, as counted against
 *         max_kernel_bytes
 */
void sfu_copy_usage(unsigned int *copies, unsigned long *bytes)
{
	*copies = atomic_read(&sfu_copy_count);
	*bytes = atomic_long_read(&sfu_copy_bytes);
}

/**
 * sfu_copy_retained_usage() - kernel copies retained with no section holding them
 * @copies: set to their number
 * @bytes: set to their bytes (part of sfu_copy_usage()'s)
 */
void sfu_copy_retained_usage(unsigned int *copies, unsigned long *bytes)
{
	unsigned long flags;

	spin_lock_irqsave(&sfu_copy_lock, flags);
	*copies = sfu_retained_count;
	*bytes = sfu_retained_bytes;
	spin_unlock_irqrestore(&sfu_copy_lock, flags);
}
EXPORT_SYMBOL_IF_KUNIT(sfu_copy_retained_usage);

/**
 * sfu_copy_budget() - the max_kernel_bytes module parameter
 *
 * Return: its value.
 */
unsigned long sfu_copy_budget(void)
{
	return READ_ONCE(sfu_max_kernel_bytes);
}
