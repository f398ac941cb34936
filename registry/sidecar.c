// SPDX-License-Identifier: GPL-2.0
/*
 * Sidecars: the rows of an ELF file without .sframe, from a file named
 * after its build-id in the directory root names (include/uapi/
 * sframe_sidecar.h).
 *
 * The directory is the sidecar_dir parameter.  Whoever sets it (root, at
 * load or through /sys/module) also fixes where it is looked up and with
 * which rights: the root directory and the credentials of the setter are
 * kept with the name, and every lookup walks from that root with those
 * credentials, never from the root, the mount namespace or the
 * credentials (LSM labels, Landlock domains) of the task that maps a
 * file.  Every directory on the way, from that root down to the one the
 * sidecar is in, must be owned by the initial namespace's root, not be a
 * symbolic link, and not be writable by group or others unless it is
 * sticky (as /tmp is).  A sidecar is used only if it is a regular file
 * owned by that root and not writable by group or others, reached without
 * a symbolic link, and if the build-id it carries is the mapped file's;
 * every refusal is counted.  A sidecar that is not there, or refused for
 * what it is, is remembered as none; one that could not be looked at (an
 * open or lookup error other than "no such file") is not remembered, so
 * the next mapping tries again.
 * Setting the parameter again (even to the same value) forgets what the
 * file cache knows and scans the running processes again, so that they
 * pick up sidecars installed since.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cred.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/fs_struct.h>
#include <linux/hashtable.h>
#include <linux/jhash.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/namei.h>
#include <linux/path.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>

#include "sframe_unwind/lib.h"
#include "uapi/sframe_sidecar.h"
#include "internal.h"
#include "stats.h"

#define SFU_SIDECAR_DIR_MAX	256
/* The directory, "/", two hex digits, "/", the rest and ".sframe". */
#define SFU_SIDECAR_NAME_MAX	(SFU_SIDECAR_DIR_MAX + 4 + 2 * SFU_SIDECAR_BUILD_ID_MAX + 8)

static DEFINE_MUTEX(sfu_sidecar_lock);
static char sfu_sidecar_dir[SFU_SIDECAR_DIR_MAX] = SFU_SIDECAR_DEFAULT_DIR;
/* The root directory of whoever named sfu_sidecar_dir; no dentry: off. */
static struct path sfu_sidecar_root;
/* And their credentials, which every lookup uses. */
static const struct cred *sfu_sidecar_cred;

static void sfu_sidecar_set_root(const char *dir)
{
	const struct cred *cred = NULL, *old_cred;
	struct path root = {};

	if (*dir && current->fs) {
		get_fs_root(current->fs, &root);
		cred = get_current_cred();
	}
	/* Sidecars are off without a directory or a root to find it from. */
	mutex_lock(&sfu_sidecar_lock);
	path_put(&sfu_sidecar_root);
	sfu_sidecar_root = root;
	old_cred = sfu_sidecar_cred;
	sfu_sidecar_cred = cred;
	mutex_unlock(&sfu_sidecar_lock);
	if (old_cred)
		put_cred(old_cred);
}

static int sfu_sidecar_dir_set(const char *val, const struct kernel_param *kp)
{
	size_t len = strcspn(val, "\n");

	if (len >= SFU_SIDECAR_DIR_MAX)
		return -ENAMETOOLONG;
	if (len && val[0] != '/')
		return -EINVAL;
	/*
	 * While the module goes away nothing is set: a root taken now would
	 * outlive sfu_sidecar_exit().  At load the module is not going away,
	 * and the registry is not up yet (sfu_registry_init() scans).
	 */
	if (!try_module_get(THIS_MODULE))
		return -ENODEV;
	mutex_lock(&sfu_sidecar_lock);
	memcpy(sfu_sidecar_dir, val, len);
	sfu_sidecar_dir[len] = '\0';
	mutex_unlock(&sfu_sidecar_lock);
	sfu_sidecar_set_root(sfu_sidecar_dir);
	if (sfu_registry_running()) {
		sfu_fcache_forget();
		sfu_sidecar_forget();
		sfu_scan_running_processes();
	}
	module_put(THIS_MODULE);
	return 0;
}

static int sfu_sidecar_dir_get(char *buf, const struct kernel_param *kp)
{
	int n;

	mutex_lock(&sfu_sidecar_lock);
	n = sysfs_emit(buf, "%s\n", sfu_sidecar_dir);
	mutex_unlock(&sfu_sidecar_lock);
	return n;
}

static const struct kernel_param_ops sfu_sidecar_dir_ops = {
	.set = sfu_sidecar_dir_set,
	.get = sfu_sidecar_dir_get,
};
module_param_cb(sidecar_dir, &sfu_sidecar_dir_ops, NULL, 0644);
MODULE_PARM_DESC(sidecar_dir,
		 "Directory of SFrame sidecars, by build-id (default " SFU_SIDECAR_DEFAULT_DIR
		 "; empty: off)");

/* Owned by the initial namespace's root and writable by nobody else. */
static bool sfu_sidecar_trusted(const struct inode *inode)
{
	return S_ISREG(inode->i_mode) && uid_eq(inode->i_uid, GLOBAL_ROOT_UID) &&
	       !(inode->i_mode & (0020 | 0002));
}

/*
 * A directory on the way to a sidecar: owned by root, and writable by
 * nobody else, unless it is sticky, where nobody else can rename or remove
 * what root put there.
 */
static bool sfu_sidecar_dir_trusted(const struct inode *inode)
{
	return S_ISDIR(inode->i_mode) && uid_eq(inode->i_uid, GLOBAL_ROOT_UID) &&
	       (!(inode->i_mode & (0020 | 0002)) || (inode->i_mode & S_ISVTX));
}

/*
 * Walk @dirs ("a/b/c", relative to @root; may be empty) one component at a
 * time, without following any symbolic link, each directory checked, from
 * @root itself on.  Return: 0 with the last directory in *@out, or
 * -EPERM for an untrusted directory, a link or another file that is not a
 * directory, or the lookup's error.
 */
static int sfu_sidecar_walk(const struct path *root, char *dirs, struct path *out)
{
	struct path cur = *root;
	struct file *f;
	char *comp;
	int err;

	path_get(&cur);
	while ((comp = strsep(&dirs, "/"))) {
		if (!*comp)
			continue;
		if (!sfu_sidecar_dir_trusted(d_inode(cur.dentry))) {
			path_put(&cur);
			return -EPERM;
		}
		/*
		 * One component: O_NOFOLLOW takes a link itself, which
		 * O_DIRECTORY then refuses (ENOTDIR), as anything else
		 * that is not a directory.
		 */
		f = file_open_root(&cur, comp, O_PATH | O_NOFOLLOW | O_DIRECTORY, 0);
		path_put(&cur);
		if (IS_ERR(f)) {
			err = PTR_ERR(f);
			return err == -ENOTDIR || err == -ELOOP ? -EPERM : err;
		}
		cur = f->f_path;
		path_get(&cur);
		fput(f);
	}
	if (!sfu_sidecar_dir_trusted(d_inode(cur.dentry))) {
		path_put(&cur);
		return -EPERM;
	}
	*out = cur;
	return 0;
}

/*
 * Open @file in the directory @dirs (as for sfu_sidecar_walk()) with the
 * credentials of whoever set sidecar_dir.  Return: the file, or an error:
 * -EPERM for a directory refused on the way (counted here).
 */
static struct file *sfu_sidecar_open_as_setter(const struct path *root, const struct cred *cred,
					       char *dirs, const char *file)
{
	const struct cred *old = override_creds(cred);
	struct path dir;
	struct file *f;
	int err;

	err = sfu_sidecar_walk(root, dirs, &dir);
	if (err) {
		if (err == -EPERM)
			sfu_stat_inc(SFU_STAT_SIDECAR_REFUSED_PATH);
		f = ERR_PTR(err);
	} else {
		/* O_NONBLOCK: a FIFO put there must not block the open. */
		f = file_open_root(&dir, file, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_LARGEFILE, 0);
		path_put(&dir);
	}
	revert_creds(old);
	return f;
}

/*
 * Whether the open sidecar @f is one to use for the file of build-id
 * @build_id (@len bytes): owned by root, its header well formed and naming
 * that build-id; if so, where its section lies (refusals counted).
 */
static bool sfu_sidecar_check(struct file *f, const u8 *build_id, unsigned int len, u64 *off,
			      u64 *size, u64 *vaddr)
{
	struct sfu_sidecar_header hdr;
	unsigned int calls;
	loff_t pos = 0;
	int err;

	if (!sfu_sidecar_trusted(file_inode(f))) {
		sfu_stat_inc(SFU_STAT_SIDECAR_REFUSED_OWNER);
		return false;
	}
	err = sfu_kernel_read_all(f, &hdr, sizeof(hdr), &pos, &calls);
	if (calls > 1)
		sfu_stat_inc(SFU_STAT_READS_RESUMED);
	if (err || memcmp(hdr.magic, SFU_SIDECAR_MAGIC, sizeof(hdr.magic)) || hdr.reserved ||
	    hdr.section_off < sizeof(hdr) || !hdr.section_size ||
	    hdr.section_off + hdr.section_size > i_size_read(file_inode(f)) ||
	    hdr.section_off + hdr.section_size < hdr.section_off) {
		sfu_stat_inc(SFU_STAT_SIDECAR_REFUSED_FORMAT);
		return false;
	}
	if (hdr.build_id_len != len || memcmp(hdr.build_id, build_id, len)) {
		sfu_stat_inc(SFU_STAT_SIDECAR_REFUSED_BUILD_ID);
		return false;
	}
	*off = hdr.section_off;
	*size = hdr.section_size;
	*vaddr = hdr.section_vaddr;
	return true;
}

/**
 * sfu_sidecar_open() - the sidecar of an ELF file, checked
 * @build_id: the file's GNU build-id
 * @len: its bytes (1 to SFU_SIDECAR_BUILD_ID_MAX)
 * @off: on success, the section's offset in the returned file
 * @size: on success, its bytes
 * @vaddr: on success, the address its function starts are computed for
 *
 * Looked up from the root and with the credentials of whoever set
 * sidecar_dir, every directory on the way checked.
 *
 * Context: task context (opens and reads a file).
 * Return: the open sidecar; ERR_PTR(-ENOENT) when sidecars are off, or
 * there is none, or the file there is refused for what it is (all
 * counted): an answer to remember; ERR_PTR(-EAGAIN) when it could not be
 * looked at (a refused directory, an error of the open or the lookup other
 * than -ENOENT, no memory; counted): an answer not to remember.
 */
struct file *sfu_sidecar_open(const u8 *build_id, unsigned int len, u64 *off, u64 *size,
			      u64 *vaddr)
{
	const struct cred *cred;
	char *name, *dirs, *p;
	struct path root;
	struct file *f;
	unsigned int i;

	if (!len || len > SFU_SIDECAR_BUILD_ID_MAX)
		return ERR_PTR(-ENOENT);
	name = kmalloc(SFU_SIDECAR_NAME_MAX, GFP_KERNEL);
	if (!name)
		return ERR_PTR(-EAGAIN);
	mutex_lock(&sfu_sidecar_lock);
	root = sfu_sidecar_root;
	path_get(&root);
	cred = sfu_sidecar_cred ? get_cred(sfu_sidecar_cred) : NULL;
	/* Relative to that root: "var/lib/sframe-unwind/ab", "cdef....sframe". */
	p = name;
	if (root.dentry && sfu_sidecar_dir[0] == '/')
		p += scnprintf(name, SFU_SIDECAR_DIR_MAX, "%s", sfu_sidecar_dir + 1);
	mutex_unlock(&sfu_sidecar_lock);
	if (!root.dentry || !cred) {
		path_put(&root);
		if (cred)
			put_cred(cred);
		kfree(name);
		return ERR_PTR(-ENOENT);
	}
	p += sprintf(p, "%s%02x", p > name ? "/" : "", build_id[0]);
	dirs = name;
	/* The file's name follows the directories' in the same buffer. */
	p++;
	for (i = 1; i < len; i++)
		p += sprintf(p, "%02x", build_id[i]);
	strcpy(p, ".sframe");
	p = name + strlen(name) + 1;
	f = sfu_sidecar_open_as_setter(&root, cred, dirs, p);
	put_cred(cred);
	path_put(&root);
	kfree(name);
	if (IS_ERR(f)) {
		if (PTR_ERR(f) == -ENOENT) {
			sfu_stat_inc(SFU_STAT_SIDECAR_MISSING);
			return f;
		}
		if (PTR_ERR(f) != -EPERM)
			sfu_stat_inc(SFU_STAT_SIDECAR_REFUSED_OPEN);
		return ERR_PTR(-EAGAIN);
	}
	if (!sfu_sidecar_check(f, build_id, len, off, size, vaddr)) {
		fput(f);
		return ERR_PTR(-ENOENT);
	}
	return f;
}

/*
 * The sidecars looked up by build-id alone: those of files whose own
 * .sframe covers only part of their code, and the vDSO's.  What was found,
 * a sidecar or none, is remembered per build-id, so that mapping such a
 * file again opens nothing; a found sidecar's kernel copy is kept while a
 * section uses it.  Writing sidecar_dir forgets it all.
 */
#define SFU_SCACHE_MAX	256

/**
 * struct sfu_scache_entry - what the sidecar directory holds for one build-id
 * @node: link in the hash, keyed by the build-id
 * @lru: link in the LRU list, most recently used first
 * @status: 0 (a valid sidecar) or why there is none (-ENOENT: none or
 *          refused; -EFBIG, -EIO, -ENOEXEC as sfu_copy_read())
 * @copy: the sidecar's kernel copy while a section uses it, else NULL
 * @len: bytes of @build_id
 * @build_id: the build-id
 */
struct sfu_scache_entry {
	struct hlist_node node;
	struct list_head lru;
	int status;
	struct sfu_sframe_copy *copy;
	u8 len;
	u8 build_id[SFU_SIDECAR_BUILD_ID_MAX];
};

static DEFINE_HASHTABLE(sfu_scache, 6);
static LIST_HEAD(sfu_scache_lru);
static DEFINE_SPINLOCK(sfu_scache_lock);
static unsigned int sfu_scache_count;

static u32 sfu_scache_hash(const u8 *build_id, unsigned int len)
{
	return jhash(build_id, len, 0);
}

/* The entry of a build-id; under sfu_scache_lock. */
static struct sfu_scache_entry *sfu_scache_find_locked(const u8 *build_id, unsigned int len)
{
	struct sfu_scache_entry *e;

	hash_for_each_possible(sfu_scache, e, node, sfu_scache_hash(build_id, len))
		if (e->len == len && !memcmp(e->build_id, build_id, len))
			return e;
	return NULL;
}

static void sfu_scache_del_locked(struct sfu_scache_entry *e)
{
	hash_del(&e->node);
	list_del(&e->lru);
	sfu_copy_clear_slot(&e->copy);
	sfu_scache_count--;
}

/*
 * Remember @status and @copy (a reference the caller keeps) for a build-id.
 * Return: the copy to use, with one reference: @copy, or the one another
 * task remembered meanwhile.
 */
static struct sfu_sframe_copy *sfu_scache_store(const u8 *build_id, unsigned int len,
						int status, struct sfu_sframe_copy *copy)
{
	struct sfu_scache_entry *e, *n, *old = NULL;

	n = kzalloc(sizeof(*n), GFP_KERNEL);
	spin_lock(&sfu_scache_lock);
	e = sfu_scache_find_locked(build_id, len);
	if (!e && n) {
		e = n;
		n = NULL;
		e->len = len;
		memcpy(e->build_id, build_id, len);
		hash_add(sfu_scache, &e->node, sfu_scache_hash(build_id, len));
		list_add(&e->lru, &sfu_scache_lru);
		if (++sfu_scache_count > SFU_SCACHE_MAX) {
			old = list_last_entry(&sfu_scache_lru, struct sfu_scache_entry, lru);
			sfu_scache_del_locked(old);
		}
	}
	if (e) {
		e->status = status;
		if (copy)
			copy = sfu_copy_set_slot(&e->copy, copy);
	}
	spin_unlock(&sfu_scache_lock);
	kfree(n);
	kfree(old);
	return copy;
}

/**
 * sfu_sidecar_copy() - the sidecar of a build-id, as a validated kernel copy
 * @build_id: the GNU build-id of a file (or of the vDSO)
 * @len: its bytes
 *
 * For code whose rows come from a sidecar in addition to, or instead of,
 * a file's own section: the copy is shared by every section that uses the
 * same build-id, and a build-id without a sidecar is looked up in the
 * directory once (until sidecar_dir is written).
 *
 * Context: task context (may open and read the sidecar).
 * Return: the copy with one reference, or NULL (none, refused, invalid,
 * or no room within max_kernel_bytes: counted).
 */
struct sfu_sframe_copy *sfu_sidecar_copy(const u8 *build_id, unsigned int len)
{
	struct sfu_sframe_copy *c = NULL;
	struct sfu_scache_entry *e;
	u64 off, size, vaddr;
	struct file *f;
	int status;

	if (!len || len > SFU_SIDECAR_BUILD_ID_MAX)
		return NULL;
	spin_lock(&sfu_scache_lock);
	e = sfu_scache_find_locked(build_id, len);
	if (e) {
		list_move(&e->lru, &sfu_scache_lru);
		status = e->status;
		c = status ? NULL : sfu_copy_get_slot(&e->copy);
	}
	spin_unlock(&sfu_scache_lock);
	/* Known to have none, or a copy to share. */
	if (e && (status || c))
		return c;

	f = sfu_sidecar_open(build_id, len, &off, &size, &vaddr);
	if (IS_ERR(f))
		return PTR_ERR(f) == -ENOENT ? sfu_scache_store(build_id, len, -ENOENT, NULL) :
					       NULL;
	c = sfu_copy_read(f, off, size, vaddr, &status);
	fput(f);
	/* A copy that did not fit the budget may fit later: not remembered. */
	if (status == -ENOSPC)
		return NULL;
	if (!status)
		sfu_stat_inc(SFU_STAT_SIDECAR_USED);
	return sfu_scache_store(build_id, len, status, c);
}

/**
 * sfu_sidecar_forget() - forget what was found for every build-id
 *
 * Copies in use stay with their sections.
 */
void sfu_sidecar_forget(void)
{
	struct sfu_scache_entry *e, *next;
	LIST_HEAD(gone);

	spin_lock(&sfu_scache_lock);
	list_for_each_entry_safe(e, next, &sfu_scache_lru, lru) {
		sfu_scache_del_locked(e);
		list_add(&e->lru, &gone);
	}
	spin_unlock(&sfu_scache_lock);
	list_for_each_entry_safe(e, next, &gone, lru)
		kfree(e);
}

/**
 * sfu_sidecar_forget_missing() - forget the build-ids found without a sidecar
 *
 * Those looked up by build-id alone (the vDSO's, complements): the next
 * mapping looks in the directory again.  Found sidecars stay known.
 */
void sfu_sidecar_forget_missing(void)
{
	struct sfu_scache_entry *e, *next;
	LIST_HEAD(gone);

	spin_lock(&sfu_scache_lock);
	list_for_each_entry_safe(e, next, &sfu_scache_lru, lru) {
		if (!e->status)
			continue;
		sfu_scache_del_locked(e);
		list_add(&e->lru, &gone);
	}
	spin_unlock(&sfu_scache_lock);
	list_for_each_entry_safe(e, next, &gone, lru)
		kfree(e);
}

/**
 * sfu_sidecar_init() - resolve the directory named at load
 *
 * Context: module init, in the context of whoever loads the module.
 */
void sfu_sidecar_init(void)
{
	sfu_sidecar_set_root(sfu_sidecar_dir);
}

/**
 * sfu_sidecar_exit() - let go of the directory's root
 */
void sfu_sidecar_exit(void)
{
	const struct cred *cred;

	sfu_sidecar_forget();
	mutex_lock(&sfu_sidecar_lock);
	path_put(&sfu_sidecar_root);
	memset(&sfu_sidecar_root, 0, sizeof(sfu_sidecar_root));
	cred = sfu_sidecar_cred;
	sfu_sidecar_cred = NULL;
	mutex_unlock(&sfu_sidecar_lock);
	if (cred)
		put_cred(cred);
}
