// SPDX-License-Identifier: GPL-2.0
/*
 * Per-user limits.  The char device is open to everyone and any user can
 * map files, so the global limits (max_sections, max_kernel_bytes) alone
 * let one user take what every other process needs.  Each section and
 * each kernel copy is charged to a user, the real uid of the process it
 * was made for (what setuid programs do not change), and no user but root
 * may hold more than max_sections_per_user sections or
 * max_kernel_bytes_per_user bytes of kernel copies.
 *
 * A user's entry lives while sections or copies refer to it;
 * charges are dropped from RCU callbacks, so the table's lock is taken
 * with interrupts off.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cred.h>
#include <linux/hashtable.h>
#include <linux/moduleparam.h>
#include <linux/rcupdate.h>
#include <linux/refcount.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/uidgid.h>

#include "internal.h"
#include "sframe_unwind/lib.h"
#include "stats.h"

static unsigned int sfu_max_sections_per_user = 16384;
module_param_named(max_sections_per_user, sfu_max_sections_per_user, uint, 0644);
MODULE_PARM_DESC(max_sections_per_user,
		 "Sections the processes of one user (but root) may have registered (default 16384)");

static unsigned long sfu_max_kernel_bytes_per_user = 16UL << 20;
module_param_named(max_kernel_bytes_per_user, sfu_max_kernel_bytes_per_user, ulong, 0644);
MODULE_PARM_DESC(max_kernel_bytes_per_user,
		 "Bytes of kernel copies made for one user (but root) (default 16 MiB)");

/**
 * struct sfu_user - what is charged to one user
 * @node: link in the table, keyed by @uid
 * @uid: the user
 * @ref: sections and copies charged to it, and callers holding it
 * @sections: sections registered in its registries
 * @copy_bytes: bytes of kernel copies made for it
 * @rcu: frees it after lookups in the table are done
 */
struct sfu_user {
	struct hlist_node node;
	kuid_t uid;
	refcount_t ref;
	atomic_t sections;
	atomic_long_t copy_bytes;
	struct rcu_head rcu;
};

static DEFINE_HASHTABLE(sfu_users, 6);
static DEFINE_SPINLOCK(sfu_users_lock);

static struct sfu_user *sfu_user_find(kuid_t uid)
{
	struct sfu_user *u;

	hash_for_each_possible_rcu(sfu_users, u, node, __kuid_val(uid))
		if (uid_eq(u->uid, uid))
			return u;
	return NULL;
}

/**
 * sfu_user_get() - a reference to the entry of @uid, made if needed
 * @uid: the user
 *
 * Context: task context.
 * Return: the entry, or NULL without memory.
 */
struct sfu_user *sfu_user_get(kuid_t uid)
{
	struct sfu_user *u, *new;
	unsigned long flags;

	rcu_read_lock();
	u = sfu_user_find(uid);
	if (u && !refcount_inc_not_zero(&u->ref))
		u = NULL;
	rcu_read_unlock();
	if (u)
		return u;

	new = kzalloc(sizeof(*new), GFP_KERNEL);
	if (!new)
		return NULL;
	new->uid = uid;
	refcount_set(&new->ref, 1);
	spin_lock_irqsave(&sfu_users_lock, flags);
	u = sfu_user_find(uid);
	/* One on its way out (count zero) is replaced. */
	if (u && refcount_inc_not_zero(&u->ref)) {
		spin_unlock_irqrestore(&sfu_users_lock, flags);
		kfree(new);
		return u;
	}
	if (u)
		hash_del_rcu(&u->node);
	hash_add_rcu(sfu_users, &new->node, __kuid_val(uid));
	spin_unlock_irqrestore(&sfu_users_lock, flags);
	return new;
}

/**
 * sfu_user_get_current() - sfu_user_get() for the current task's real uid
 *
 * Return: the entry, or NULL without memory.
 */
struct sfu_user *sfu_user_get_current(void)
{
	return sfu_user_get(current_uid());
}

/**
 * sfu_user_put() - drop a reference; the last one frees the entry
 * @u: the entry, or NULL
 *
 * Context: any but NMI (RCU callbacks included).
 */
void sfu_user_put(struct sfu_user *u)
{
	unsigned long flags;

	if (!u || !refcount_dec_and_test(&u->ref))
		return;
	spin_lock_irqsave(&sfu_users_lock, flags);
	/* sfu_user_get() may have replaced it already. */
	if (!hlist_unhashed(&u->node) && sfu_user_find(u->uid) == u)
		hash_del_rcu(&u->node);
	spin_unlock_irqrestore(&sfu_users_lock, flags);
	WARN_ON_ONCE(atomic_read(&u->sections) || atomic_long_read(&u->copy_bytes));
	kfree_rcu(u, rcu);
}

/* Root is trusted with the global limits alone. */
static bool sfu_user_limited(const struct sfu_user *u)
{
	return !uid_eq(u->uid, GLOBAL_ROOT_UID);
}

/**
 * sfu_user_charge_section() - count one more section for @u
 * @u: the user of the registry it goes into, or NULL (not charged)
 *
 * Return: true, or false (nothing counted) if @u is at
 * max_sections_per_user.
 */
bool sfu_user_charge_section(struct sfu_user *u)
{
	if (!u)
		return true;
	if (atomic_inc_return(&u->sections) > READ_ONCE(sfu_max_sections_per_user) &&
	    sfu_user_limited(u)) {
		atomic_dec(&u->sections);
		return false;
	}
	return true;
}

/**
 * sfu_user_uncharge_section() - undo sfu_user_charge_section()
 * @u: the user, or NULL
 */
void sfu_user_uncharge_section(struct sfu_user *u)
{
	if (u)
		atomic_dec(&u->sections);
}

/**
 * sfu_user_charge_bytes() - count @bytes more of kernel copies for @u
 * @u: the user, or NULL (not charged)
 * @bytes: the copy's size
 *
 * Return: true, or false (nothing counted) if that would take @u beyond
 * max_kernel_bytes_per_user.
 */
bool sfu_user_charge_bytes(struct sfu_user *u, size_t bytes)
{
	if (!u)
		return true;
	if (atomic_long_add_return(bytes, &u->copy_bytes) >
	    READ_ONCE(sfu_max_kernel_bytes_per_user) && sfu_user_limited(u)) {
		atomic_long_sub(bytes, &u->copy_bytes);
		return false;
	}
	return true;
}

/**
 * sfu_user_uncharge_bytes() - undo sfu_user_charge_bytes()
 * @u: the user, or NULL
 * @bytes: as charged
 */
void sfu_user_uncharge_bytes(struct sfu_user *u, size_t bytes)
{
	if (u)
		atomic_long_sub(bytes, &u->copy_bytes);
}

/* <debugfs>/sframe_unwind/users: what each user holds now. */
static int sfu_users_show(struct seq_file *m, void *v)
{
	struct sfu_user *u;
	int bkt;

	rcu_read_lock();
	hash_for_each_rcu(sfu_users, bkt, u, node)
		seq_printf(m, "uid %u sections %d copy_bytes %ld\n",
			   from_kuid_munged(&init_user_ns, u->uid), atomic_read(&u->sections),
			   atomic_long_read(&u->copy_bytes));
	rcu_read_unlock();
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(sfu_users);

/**
 * sfu_users_init() - the table's debugfs file
 */
void sfu_users_init(void)
{
	sfu_debugfs_file("users", 0444, NULL, &sfu_users_fops);
}

/**
 * sfu_users_exit() - check that nothing is charged any more
 *
 * Context: module exit, after every registry and copy was freed.
 */
void sfu_users_exit(void)
{
	struct sfu_user *u;
	int bkt;

	rcu_barrier();
	hash_for_each(sfu_users, bkt, u, node)
		WARN(1, "uid %u still holds %d sections, %ld copy bytes\n",
		     from_kuid_munged(&init_user_ns, u->uid), atomic_read(&u->sections),
		     atomic_long_read(&u->copy_bytes));
}
