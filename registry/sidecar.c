// SPDX-License-Identifier: GPL-2.0
/*
 * Sidecars: the rows of an ELF file without .sframe, from a file named
 * after its build-id in the directory root names (include/uapi/
 * sframe_sidecar.h).
 *
 * The directory is the sidecar_dir parameter (setup.c).  Whoever sets
 * it (root, at load or through /sys/module) also fixes where it is looked
 * up and with which rights: the root directory and the credentials of the
 * setter are kept with the name, and every lookup walks from that root
 * with those credentials, never from the root, the mount namespace or the
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
 * the next mapping tries again.  Setting the parameter again (even to the
 * same value) forgets what this file and the file cache know, and scans
 * the running processes again, so that they pick up sidecars installed
 * since.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bits.h>
#include <linux/cred.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/fs_struct.h>
#include <linux/hash.h>
#include <linux/hashtable.h>
#include <linux/jhash.h>
#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/namei.h>
#include <linux/path.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/sysfs.h>

#include "sframe_unwind/elf_digest.h"
#include "sframe_unwind/lib.h"
#include "uapi/sframe_sidecar.h"
#include "internal.h"
#include "stats.h"

#define SFU_SIDECAR_DIR_MAX	256
/* The directory, "/", two hex digits, "/", the rest, ".", a digest and ".sframe". */
#define SFU_SIDECAR_NAME_MAX	(SFU_SIDECAR_DIR_MAX + 4 + 2 * SFU_SIDECAR_BUILD_ID_MAX + \
				 1 + 2 * SFU_SIDECAR_NAME_DIGEST + 8)

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

/**
 * sfu_sidecar_set_dir() - name the directory sidecars are looked up in
 * @val: an absolute path, or empty (sidecars off); a newline ends it
 *
 * The caller's root directory and credentials are kept with it, and every
 * lookup walks from that root with those (the sidecar_dir parameter:
 * setup.c, which holds the module while this runs).
 *
 * Context: task context.
 * Return: 0, -ENAMETOOLONG or -EINVAL (nothing changed).
 */
int sfu_sidecar_set_dir(const char *val)
{
	size_t len = strcspn(val, "\n");

	if (len >= SFU_SIDECAR_DIR_MAX)
		return -ENAMETOOLONG;
	if (len && val[0] != '/')
		return -EINVAL;
	mutex_lock(&sfu_sidecar_lock);
	memcpy(sfu_sidecar_dir, val, len);
	sfu_sidecar_dir[len] = '\0';
	mutex_unlock(&sfu_sidecar_lock);
	sfu_sidecar_set_root(sfu_sidecar_dir);
	return 0;
}

/**
 * sfu_sidecar_get_dir() - the directory sidecars are looked up in
 * @buf: a sysfs page, which gets it and a newline
 *
 * Return: bytes written.
 */
int sfu_sidecar_get_dir(char *buf)
{
	int n;

	mutex_lock(&sfu_sidecar_lock);
	n = sysfs_emit(buf, "%s\n", sfu_sidecar_dir);
	mutex_unlock(&sfu_sidecar_lock);
	return n;
}

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
 * Whether the open sidecar @f can be one to use for the file of build-id
 * @build_id (@len bytes): owned by root, its header well formed and naming
 * that build-id (refusals counted).  Its header in @hdr.
 */
static bool sfu_sidecar_check(struct file *f, const u8 *build_id, unsigned int len,
			      struct sfu_sidecar_header *hdr)
{
	unsigned int calls;
	loff_t pos = 0;
	int err;

	if (!sfu_sidecar_trusted(file_inode(f))) {
		sfu_stat_inc(SFU_STAT_SIDECAR_REFUSED_OWNER);
		return false;
	}
	err = sfu_kernel_read_all(f, hdr, sizeof(*hdr), &pos, &calls);
	if (calls > 1)
		sfu_stat_inc(SFU_STAT_READS_RESUMED);
	if (err || memcmp(hdr->magic, SFU_SIDECAR_MAGIC, sizeof(hdr->magic)) ||
	    (hdr->digest_kind != SFU_SIDECAR_DIGEST_CFI &&
	     hdr->digest_kind != SFU_SIDECAR_DIGEST_FILE) ||
	    hdr->section_off < sizeof(*hdr) || !hdr->section_size ||
	    hdr->section_off + hdr->section_size > i_size_read(file_inode(f)) ||
	    hdr->section_off + hdr->section_size < hdr->section_off) {
		sfu_stat_inc(SFU_STAT_SIDECAR_REFUSED_FORMAT);
		return false;
	}
	if (hdr->build_id_len != len || memcmp(hdr->build_id, build_id, len)) {
		sfu_stat_inc(SFU_STAT_SIDECAR_REFUSED_BUILD_ID);
		return false;
	}
	return true;
}

/* sfu_digest_src.read of a file: killable, whole reads. */
static int sfu_sidecar_read_file(void *ctx, u64 off, void *buf, size_t len)
{
	struct file *f = ctx;
	loff_t pos = off;

	if (fatal_signal_pending(current))
		return -EINTR;
	return sfu_kernel_read_all(f, buf, len, &pos, NULL);
}

/* sfu_digest_src.read of an image in memory. */
static int sfu_sidecar_read_image(void *ctx, u64 off, void *buf, size_t len)
{
	const struct sfu_sidecar_for *w = ctx;

	if (off > w->image_len || len > w->image_len - off)
		return -EIO;
	memcpy(buf, w->image + off, len);
	return 0;
}

/* @w's digest of @kind, taken once: NULL if it cannot be taken. */
static const u8 *sfu_sidecar_digest(struct sfu_sidecar_for *w, u32 kind)
{
	struct sfu_digest_src src = {};
	unsigned int bit = BIT(kind - 1);
	u64 t0;
	int err;

	if (w->taken & bit)
		return w->failed & bit ? NULL : w->digest[kind - 1];
	w->taken |= bit;
	w->failed |= bit;
	if (w->file) {
		src.read = sfu_sidecar_read_file;
		src.ctx = w->file;
		src.size = i_size_read(file_inode(w->file));
	} else {
		src.read = sfu_sidecar_read_image;
		src.ctx = w;
		src.size = w->image_len;
	}
	src.buf = kvmalloc(SFU_DIGEST_CHUNK, GFP_KERNEL);
	if (!src.buf)
		return NULL;
	t0 = ktime_get_ns();
	err = sfu_elf_digest(&src, kind, w->digest[kind - 1]);
	sfu_stat_add(SFU_STAT_SIDECAR_DIGEST_US, div_u64(ktime_get_ns() - t0, NSEC_PER_USEC));
	kvfree(src.buf);
	if (err)
		return NULL;
	w->failed &= ~bit;
	sfu_stat_inc(SFU_STAT_SIDECAR_DIGESTS);
	return w->digest[kind - 1];
}

/*
 * Whether the sidecar header @hdr is bound to the file: to the content
 * @bind names (a file accepted before), else to @w's digest of the kind
 * the header says.  Sets @bind on success.
 */
static bool sfu_sidecar_bound(const struct sfu_sidecar_header *hdr, struct sfu_sidecar_for *w,
			      struct sfu_sidecar_bind *bind)
{
	const u8 *d;

	if (bind->kind)
		return hdr->digest_kind == bind->kind &&
		       !memcmp(hdr->digest, bind->digest, SFU_SIDECAR_DIGEST_LEN);
	d = w ? sfu_sidecar_digest(w, hdr->digest_kind) : NULL;
	if (!d || memcmp(hdr->digest, d, SFU_SIDECAR_DIGEST_LEN))
		return false;
	bind->kind = hdr->digest_kind;
	memcpy(bind->digest, d, SFU_SIDECAR_DIGEST_LEN);
	return true;
}

/*
 * Open the sidecar named @file in @dirs and check it against the file:
 * its build-id, its owner, its header, its content digest; *@there set if
 * a file of that name was opened.  Return: the file, or ERR_PTR(-ENOENT)
 * (none there, or refused: counted) or ERR_PTR(-EAGAIN) (could not be
 * looked at).
 */
static struct file *sfu_sidecar_try(const struct path *root, const struct cred *cred,
				    const char *dirs, const char *file, const u8 *build_id,
				    unsigned int len, struct sfu_sidecar_for *w,
				    struct sfu_sidecar_bind *bind, struct sfu_sidecar_header *hdr,
				    bool *there)
{
	char *path = kstrdup(dirs, GFP_KERNEL);
	struct file *f;

	if (!path)
		return ERR_PTR(-EAGAIN);
	f = sfu_sidecar_open_as_setter(root, cred, path, file);
	kfree(path);
	if (IS_ERR(f)) {
		if (PTR_ERR(f) == -ENOENT)
			return f;
		if (PTR_ERR(f) != -EPERM)
			sfu_stat_inc(SFU_STAT_SIDECAR_REFUSED_OPEN);
		return ERR_PTR(-EAGAIN);
	}
	*there = true;
	if (!sfu_sidecar_check(f, build_id, len, hdr)) {
		fput(f);
		return ERR_PTR(-ENOENT);
	}
	if (!sfu_sidecar_bound(hdr, w, bind)) {
		sfu_stat_inc(SFU_STAT_SIDECAR_REFUSED_CONTENT);
		if (w)
			w->refused = true;
		fput(f);
		return ERR_PTR(-ENOENT);
	}
	return f;
}

/*
 * Takes sidecar_dir's root and its setter's credentials into @root and
 * @cred (put by the caller; @cred NULL, @root's dentry NULL when sidecars
 * are off) and writes into @name the directories of the build-id's
 * sidecars relative to that root, a NUL, then the build-id's file name:
 * "var/lib/sframe-unwind/ab", "cdef....sframe".  Return: the file name's
 * end before ".sframe", where the digest names are written.
 */
static char *sfu_sidecar_names(char *name, const u8 *build_id, unsigned int len,
			       struct path *root, const struct cred **cred)
{
	char *p = name;
	unsigned int i;

	mutex_lock(&sfu_sidecar_lock);
	*root = sfu_sidecar_root;
	path_get(root);
	*cred = sfu_sidecar_cred ? get_cred(sfu_sidecar_cred) : NULL;
	if (root->dentry && sfu_sidecar_dir[0] == '/')
		p += scnprintf(name, SFU_SIDECAR_DIR_MAX, "%s", sfu_sidecar_dir + 1);
	mutex_unlock(&sfu_sidecar_lock);
	p += sprintf(p, "%s%02x", p > name ? "/" : "", build_id[0]);
	p++;
	for (i = 1; i < len; i++)
		p += sprintf(p, "%02x", build_id[i]);
	strcpy(p, ".sframe");
	return p;
}

/*
 * The digest of kind @kind a sidecar may be named for: @bind's, if a
 * sidecar was accepted before; else @w's (a whole file's only for a Go
 * program); NULL if none.
 */
static const u8 *sfu_sidecar_name_digest(struct sfu_sidecar_for *w,
					 struct sfu_sidecar_bind *bind, u32 kind)
{
	if (bind->kind)
		return bind->kind == kind ? bind->digest : NULL;
	if (w && (kind == SFU_SIDECAR_DIGEST_CFI || w->go))
		return sfu_sidecar_digest(w, kind);
	return NULL;
}

/**
 * sfu_sidecar_open() - the sidecar of an ELF file, checked and bound to it
 * @build_id: the file's GNU build-id
 * @len: its bytes (1 to SFU_SIDECAR_BUILD_ID_MAX)
 * @w: the file, for its content digests; NULL to accept only @bind's
 * @bind: in: the content a sidecar was accepted for before (kind 0: none);
 *	  out: the content the returned sidecar is bound to
 * @off: on success, the section's offset in the returned file
 * @size: on success, its bytes
 * @vaddr: on success, the address its function starts are computed for
 *
 * Looked up from the root and with the credentials of whoever set
 * sidecar_dir, every directory on the way checked: first the build-id's
 * name, then, if a file has that name (it may be the sidecar of another
 * file with the same build-id), the names of the file's own digests.  A
 * sidecar whose
 * digest is not the file's is refused (sidecar_refused_content): a
 * build-id proves nothing about a file's bytes.
 *
 * Context: task context (opens and reads files; may read all of @w's).
 * Return: the open sidecar; ERR_PTR(-ENOENT) when sidecars are off, or
 * there is none, or every one there is refused for what it is (all
 * counted): an answer to remember; ERR_PTR(-EAGAIN) when one could not be
 * looked at (a refused directory, an error of the open or the lookup other
 * than -ENOENT, no memory; counted): an answer not to remember.
 */
struct file *sfu_sidecar_open(const u8 *build_id, unsigned int len, struct sfu_sidecar_for *w,
			      struct sfu_sidecar_bind *bind, u64 *off, u64 *size, u64 *vaddr)
{
	struct sfu_sidecar_header *hdr;
	struct file *f = ERR_PTR(-ENOENT);
	const struct cred *cred;
	char *name, *p, *rest;
	bool seen = false, there = false;
	struct path root;
	unsigned int i;
	const u8 *d;
	u32 kind;

	if (!len || len > SFU_SIDECAR_BUILD_ID_MAX)
		return ERR_PTR(-ENOENT);
	name = kmalloc(SFU_SIDECAR_NAME_MAX, GFP_KERNEL);
	hdr = kmalloc(sizeof(*hdr), GFP_KERNEL);
	if (!name || !hdr) {
		kfree(name);
		kfree(hdr);
		return ERR_PTR(-EAGAIN);
	}
	p = sfu_sidecar_names(name, build_id, len, &root, &cred);
	if (!root.dentry || !cred)
		goto out;
	rest = name + strlen(name) + 1;
	f = sfu_sidecar_try(&root, cred, name, rest, build_id, len, w, bind, hdr, &there);
	seen = !IS_ERR(f) || PTR_ERR(f) != -ENOENT;
	/*
	 * Then under the file's own digests: CFI, and a Go program's whole
	 * file.  Those names are written only beside a sidecar under the
	 * build-id's name that is another file's: where there is none, a
	 * mapping takes no digest (the cost of reading the file's CFI).
	 */
	for (kind = SFU_SIDECAR_DIGEST_CFI; there && IS_ERR(f) && PTR_ERR(f) == -ENOENT &&
	     kind <= SFU_SIDECAR_DIGEST_FILE; kind++) {
		d = sfu_sidecar_name_digest(w, bind, kind);
		if (!d)
			continue;
		*p = '.';
		for (i = 0; i < SFU_SIDECAR_NAME_DIGEST; i++)
			sprintf(p + 1 + 2 * i, "%02x", d[i]);
		strcpy(p + 1 + 2 * SFU_SIDECAR_NAME_DIGEST, ".sframe");
		f = sfu_sidecar_try(&root, cred, name, rest, build_id, len, w, bind, hdr, &there);
		seen |= !IS_ERR(f) || PTR_ERR(f) != -ENOENT;
	}
	if (!IS_ERR(f)) {
		*off = hdr->section_off;
		*size = hdr->section_size;
		*vaddr = hdr->section_vaddr;
	} else if (PTR_ERR(f) == -ENOENT && !seen) {
		sfu_stat_inc(SFU_STAT_SIDECAR_MISSING);
	}
out:
	path_put(&root);
	if (cred)
		put_cred(cred);
	kfree(name);
	kfree(hdr);
	return f;
}

/*
 * The sidecars of sections the file cache does not hold: those of files
 * whose own .sframe covers only part of their code, and the vDSO's.  What
 * was found, a sidecar or none, is remembered per build-id and file
 * identity (a sidecar is bound to a file's content, not to a build-id), so
 * that mapping the same file again opens and digests nothing; a found
 * sidecar's kernel copy is kept while a section uses it.  Writing
 * sidecar_dir forgets it all.
 */
#define SFU_SCACHE_MAX	256

/**
 * struct sfu_scache_entry - what the sidecar directory holds for one build-id
 * @node: link in the hash, keyed by the build-id and the file
 * @lru: link in the LRU list, most recently used first
 * @status: 0 (a valid sidecar) or why there is none (-ENOENT: none or
 *          refused; -EFBIG, -EIO, -ENOEXEC as sfu_copy_read())
 * @copy: the sidecar's kernel copy while a section uses it, else NULL
 * @id: the file (zero for the vDSO)
 * @len: bytes of @build_id
 * @build_id: the build-id
 */
struct sfu_scache_entry {
	struct hlist_node node;
	struct list_head lru;
	int status;
	struct sfu_sframe_copy *copy;
	struct sfu_file_id id;
	u8 len;
	u8 build_id[SFU_SIDECAR_BUILD_ID_MAX];
};

static DEFINE_HASHTABLE(sfu_scache, 8);
static LIST_HEAD(sfu_scache_lru);
static DEFINE_SPINLOCK(sfu_scache_lock);
static unsigned int sfu_scache_count;

/*
 * Keyed by the file too: copies of one library (a container image's, a
 * benchmark's) share its build-id, and each has its own entry.
 */
static u32 sfu_scache_hash(const u8 *build_id, unsigned int len, const struct sfu_file_id *id)
{
	return jhash(build_id, len, hash_long(id->ino, 32) ^ (u32)id->dev);
}

/* The entry of a build-id and file; under sfu_scache_lock. */
static struct sfu_scache_entry *sfu_scache_find_locked(const u8 *build_id, unsigned int len,
						       const struct sfu_file_id *id)
{
	struct sfu_scache_entry *e;

	hash_for_each_possible(sfu_scache, e, node, sfu_scache_hash(build_id, len, id))
		if (e->len == len && !memcmp(e->build_id, build_id, len) &&
		    sfu_file_id_equal(&e->id, id))
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
						const struct sfu_file_id *id, int status,
						struct sfu_sframe_copy *copy)
{
	struct sfu_scache_entry *e, *n, *old = NULL;

	n = kzalloc(sizeof(*n), GFP_KERNEL);
	spin_lock(&sfu_scache_lock);
	e = sfu_scache_find_locked(build_id, len, id);
	if (!e && n) {
		e = n;
		n = NULL;
		e->id = *id;
		e->len = len;
		memcpy(e->build_id, build_id, len);
		hash_add(sfu_scache, &e->node, sfu_scache_hash(build_id, len, id));
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
 * sfu_sidecar_copy() - the sidecar of a file, as a validated kernel copy
 * @build_id: the GNU build-id of a file (or of the vDSO)
 * @len: its bytes
 * @id: the file's identity (NULL: the vDSO)
 * @w: the file or image, for its content digests (sfu_sidecar_open())
 *
 * For code whose rows come from a sidecar in addition to, or instead of,
 * a file's own section: the copy is shared by every section of the same
 * file, and a file without a sidecar is looked up in the directory once
 * (until sidecar_dir is written).
 *
 * Context: task context (may open and read the sidecar, and digest @w).
 * Return: the copy with one reference, or NULL (none, refused, invalid,
 * or no room within max_kernel_bytes: counted).
 */
struct sfu_sframe_copy *sfu_sidecar_copy(const u8 *build_id, unsigned int len,
					 const struct sfu_file_id *id, struct sfu_sidecar_for *w)
{
	static const struct sfu_file_id none;
	struct sfu_sidecar_bind bind = {};
	struct sfu_sframe_copy *c = NULL;
	struct sfu_scache_entry *e;
	u64 off, size, vaddr;
	struct file *f;
	int status;

	if (!len || len > SFU_SIDECAR_BUILD_ID_MAX)
		return NULL;
	if (!id)
		id = &none;
	spin_lock(&sfu_scache_lock);
	e = sfu_scache_find_locked(build_id, len, id);
	if (e) {
		list_move(&e->lru, &sfu_scache_lru);
		status = e->status;
		c = status ? NULL : sfu_copy_get_slot(&e->copy);
	}
	spin_unlock(&sfu_scache_lock);
	/* Known to have none, or a copy to share. */
	if (e && (status || c))
		return c;

	f = sfu_sidecar_open(build_id, len, w, &bind, &off, &size, &vaddr);
	if (IS_ERR(f))
		return PTR_ERR(f) == -ENOENT ?
		       sfu_scache_store(build_id, len, id, -ENOENT, NULL) : NULL;
	c = sfu_copy_read(f, off, size, vaddr, &status);
	fput(f);
	/* A copy that did not fit the budget may fit later: not remembered. */
	if (status == -ENOSPC)
		return NULL;
	if (!status)
		sfu_stat_inc(SFU_STAT_SIDECAR_USED);
	return sfu_scache_store(build_id, len, id, status, c);
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
