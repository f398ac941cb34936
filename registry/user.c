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
 * A user who owns a user namespace runs its processes as whatever uids
 * the namespace maps (a subuid range: as many kuids as it was given), and
 * they can make namespaces of their own.  So a process outside the initial
 * user namespace is charged to the owner of the outermost namespace of its
 * chain, the user who made the container, not to its own uid: all of a
 * container counts as its creator.  Root is exempt only as uid 0 of the
 * initial namespace; each namespace root made (a system container
 * manager's: LXD, Docker with user namespace remapping) is an account of
 * its own, held to the per-user limits like any user's.
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
#include <linux/user_namespace.h>

#include "internal.h"
#include "sframe_unwind/lib.h"
#include "stats.h"
#include "sframe_unwind/compat/export.h"

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
 * @node: link in the table, keyed by @uid and @ns
 * @uid: the user (sfu_user_account())
 * @ns: for root's account, the outermost namespace root made that it is
 *      the account of, or NULL for root itself; compared only, never
 *      dereferenced (a namespace freed and another made at its address
 *      would share the account: only limits are shared)
 * @ref: sections and copies charged to it, and callers holding it
 * @sections: sections registered in its registries
 * @copy_bytes: bytes of kernel copies made for it
 * @rcu: frees it after lookups in the table are done
 */
struct sfu_user {
	struct hlist_node node;
	kuid_t uid;
	const struct user_namespace *ns;
	refcount_t ref;
	atomic_t sections;
	atomic_long_t copy_bytes;
	struct rcu_head rcu;
};

static DEFINE_HASHTABLE(sfu_users, 6);
static DEFINE_SPINLOCK(sfu_users_lock);

/**
 * sfu_user_account() - the user a process with @cred is charged to
 * @cred: its credentials
 *
 * A process of the initial user namespace is charged to its real uid.
 * One in another namespace is charged to the user who made the outermost
 * namespace of its chain (walking up through the namespaces its
 * namespace's creators were in): the real user behind a container,
 * whichever of the uids mapped to it the process runs as, and however
 * deep it nests namespaces.
 *
 * Context: any; @cred is held or is current's.
 * Return: @cred's real uid if @cred->user_ns is the initial namespace,
 * else the owner of the namespace just below the initial one in the chain.
 */
kuid_t sfu_user_account(const struct cred *cred)
{
	const struct user_namespace *ns = cred->user_ns;

	if (ns == &init_user_ns)
		return cred->uid;
	while (ns->parent != &init_user_ns)
		ns = ns->parent;
	return ns->owner;
}
EXPORT_SYMBOL_IF_KUNIT(sfu_user_account);

/*
 * The outermost namespace of @cred's chain if root made it: each such
 * namespace is an account of its own.  NULL otherwise.
 */
static const struct user_namespace *sfu_user_root_ns(const struct cred *cred)
{
	const struct user_namespace *ns = cred->user_ns;

	if (ns == &init_user_ns)
		return NULL;
	while (ns->parent != &init_user_ns)
		ns = ns->parent;
	return uid_eq(ns->owner, GLOBAL_ROOT_UID) ? ns : NULL;
}

static struct sfu_user *sfu_user_find(kuid_t uid, const struct user_namespace *ns)
{
	struct sfu_user *u;

	hash_for_each_possible_rcu(sfu_users, u, node, __kuid_val(uid))
		if (uid_eq(u->uid, uid) && u->ns == ns)
			return u;
	return NULL;
}

/**
 * sfu_user_get() - a reference to the entry @cred is charged to, made if needed
 * @cred: the credentials of the process charged (sfu_user_account())
 *
 * Context: task context; @cred is held or is current's.
 * Return: the entry, or NULL without memory.
 */
struct sfu_user *sfu_user_get(const struct cred *cred)
{
	const struct user_namespace *ns = sfu_user_root_ns(cred);
	kuid_t uid = sfu_user_account(cred);
	struct sfu_user *u, *new;
	unsigned long flags;

	rcu_read_lock();
	u = sfu_user_find(uid, ns);
	if (u && !refcount_inc_not_zero(&u->ref))
		u = NULL;
	rcu_read_unlock();
	if (u)
		return u;

	new = kzalloc(sizeof(*new), GFP_KERNEL);
	if (!new)
		return NULL;
	new->uid = uid;
	new->ns = ns;
	refcount_set(&new->ref, 1);
	spin_lock_irqsave(&sfu_users_lock, flags);
	u = sfu_user_find(uid, ns);
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
EXPORT_SYMBOL_IF_KUNIT(sfu_user_get);

/**
 * sfu_user_get_current() - sfu_user_get() for the current task
 *
 * Return: the entry, or NULL without memory.
 */
struct sfu_user *sfu_user_get_current(void)
{
	return sfu_user_get(current_cred());
}
EXPORT_SYMBOL_IF_KUNIT(sfu_user_get_current);

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
	if (!hlist_unhashed(&u->node) && sfu_user_find(u->uid, u->ns) == u)
		hash_del_rcu(&u->node);
	spin_unlock_irqrestore(&sfu_users_lock, flags);
	WARN_ON_ONCE(atomic_read(&u->sections) || atomic_long_read(&u->copy_bytes));
	kfree_rcu(u, rcu);
}
EXPORT_SYMBOL_IF_KUNIT(sfu_user_put);

/* Root of the initial namespace is trusted with the global limits alone. */
static bool sfu_user_limited(const struct sfu_user *u)
{
	return !uid_eq(u->uid, GLOBAL_ROOT_UID) || u->ns;
}

/**
 * sfu_user_exempt() - whether @u is held to no per-user limit
 * @u: the entry
 *
 * Return: true for root of the initial user namespace.
 */
bool sfu_user_exempt(const struct sfu_user *u)
{
	return !sfu_user_limited(u);
}

/**
 * sfu_user_take_bytes() - move a charge of @bytes from @from to @to
 * @from: the user charged now, whose reference the caller gives up
 * @to: the user to charge, alive (the caller's sections hold it)
 * @bytes: the charge
 *
 * The memory exists already: @to is charged even beyond its limit, and
 * then makes no new copy until it holds less.
 *
 * Context: any but NMI.
 * Return: @to, with a new reference for the charge; the caller drops
 * @from's with sfu_user_put() outside its locks.
 */
struct sfu_user *sfu_user_take_bytes(struct sfu_user *from, struct sfu_user *to, size_t bytes)
{
	refcount_inc(&to->ref);
	atomic_long_add(bytes, &to->copy_bytes);
	atomic_long_sub(bytes, &from->copy_bytes);
	return to;
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
EXPORT_SYMBOL_IF_KUNIT(sfu_user_charge_section);

/**
 * sfu_user_uncharge_section() - undo sfu_user_charge_section()
 * @u: the user, or NULL
 */
void sfu_user_uncharge_section(struct sfu_user *u)
{
	if (u)
		atomic_dec(&u->sections);
}
EXPORT_SYMBOL_IF_KUNIT(sfu_user_uncharge_section);

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

/**
 * sfu_user_copy_bytes() - bytes of kernel copies charged to @u now
 * @u: the entry
 *
 * Return: the charge, as max_kernel_bytes_per_user counts it.
 */
long sfu_user_copy_bytes(const struct sfu_user *u)
{
	return atomic_long_read(&u->copy_bytes);
}
EXPORT_SYMBOL_IF_KUNIT(sfu_user_copy_bytes);

/**
 * sfu_user_sections() - sections charged to @u now
 * @u: the entry
 *
 * Return: the count max_sections_per_user limits; a section stays charged
 * until it is freed, a grace period after it left the trees.
 */
unsigned int sfu_user_sections(const struct sfu_user *u)
{
	return atomic_read(&u->sections);
}
EXPORT_SYMBOL_IF_KUNIT(sfu_user_sections);

/* <debugfs>/sframe_unwind/users: what each user holds now. */
static int sfu_users_show(struct seq_file *m, void *v)
{
	struct sfu_user *u;
	int bkt;

	rcu_read_lock();
	hash_for_each_rcu(sfu_users, bkt, u, node)
		seq_printf(m, "uid %u sections %u copy_bytes %ld%s\n",
			   from_kuid_munged(&init_user_ns, u->uid), sfu_user_sections(u),
			   sfu_user_copy_bytes(u),
			   u->ns ? " userns" : "");
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
		WARN(1, "uid %u%s still holds %d sections, %ld copy bytes\n",
		     from_kuid_munged(&init_user_ns, u->uid),
		     u->ns ? " (userns)" : "",
		     atomic_read(&u->sections), atomic_long_read(&u->copy_bytes));
}
