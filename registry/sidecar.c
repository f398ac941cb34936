// SPDX-License-Identifier: GPL-2.0
/*
 * Sidecars: the rows of an ELF file without .sframe, from a file named
 * after its build-id in the directory root names (include/uapi/
 * sframe_sidecar.h).
 *
 * The directory is the sidecar_dir parameter.  Whoever sets it (root, at
 * load or through /sys/module) also fixes where it is looked up: the root
 * directory of the setter is kept with the name, and every lookup walks
 * from there, never from the root or the mount namespace of the task that
 * maps a file.  A sidecar is used only if it is a regular file owned by
 * the initial namespace's root and not writable by group or others, if it
 * is not reached through a symbolic link at its last component, and if
 * the build-id it carries is the mapped file's; every refusal is counted.
 * Setting the parameter again (even to the same value) forgets what the
 * file cache knows and scans the running processes again, so that they
 * pick up sidecars installed since.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cred.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/fs_struct.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/namei.h>
#include <linux/path.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/string.h>

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

static void sfu_sidecar_set_root(const char *dir)
{
	struct path root = {};

	if (*dir && current->fs)
		get_fs_root(current->fs, &root);
	/* Sidecars are off without a directory or a root to find it from. */
	mutex_lock(&sfu_sidecar_lock);
	path_put(&sfu_sidecar_root);
	sfu_sidecar_root = root;
	mutex_unlock(&sfu_sidecar_lock);
}

static int sfu_sidecar_dir_set(const char *val, const struct kernel_param *kp)
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
	/*
	 * At load the registry is not up yet (sfu_registry_init() scans);
	 * while the module goes away it is not scanned again.
	 */
	if (!try_module_get(THIS_MODULE))
		return 0;
	if (sfu_registry_running()) {
		sfu_fcache_forget();
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

/**
 * sfu_sidecar_open() - the sidecar of an ELF file, checked
 * @build_id: the file's GNU build-id
 * @len: its bytes (1 to SFU_SIDECAR_BUILD_ID_MAX)
 * @off: on success, the section's offset in the returned file
 * @size: on success, its bytes
 * @vaddr: on success, the address its function starts are computed for
 *
 * Context: task context (opens and reads a file).
 * Return: the open sidecar, or NULL: off, none, or refused (counted).
 */
struct file *sfu_sidecar_open(const u8 *build_id, unsigned int len, u64 *off, u64 *size,
			      u64 *vaddr)
{
	struct sfu_sidecar_header hdr;
	struct path root;
	struct file *f;
	loff_t pos = 0;
	unsigned int i;
	char *name, *p;

	if (!len || len > SFU_SIDECAR_BUILD_ID_MAX)
		return NULL;
	name = kmalloc(SFU_SIDECAR_NAME_MAX, GFP_KERNEL);
	if (!name)
		return NULL;
	mutex_lock(&sfu_sidecar_lock);
	root = sfu_sidecar_root;
	path_get(&root);
	/* Relative to that root: "var/lib/sframe-unwind/ab/cdef....sframe". */
	p = name;
	if (root.dentry && sfu_sidecar_dir[0] == '/')
		p += scnprintf(name, SFU_SIDECAR_DIR_MAX, "%s", sfu_sidecar_dir + 1);
	mutex_unlock(&sfu_sidecar_lock);
	if (!root.dentry) {
		kfree(name);
		return NULL;
	}
	p += sprintf(p, "%s%02x/", p > name ? "/" : "", build_id[0]);
	for (i = 1; i < len; i++)
		p += sprintf(p, "%02x", build_id[i]);
	strcpy(p, ".sframe");
	f = file_open_root(&root, name, O_RDONLY | O_NOFOLLOW | O_LARGEFILE, 0);
	path_put(&root);
	kfree(name);
	if (IS_ERR(f)) {
		sfu_stat_inc(PTR_ERR(f) == -ENOENT ? SFU_STAT_sidecar_missing :
			     SFU_STAT_sidecar_refused_open);
		return NULL;
	}
	if (!sfu_sidecar_trusted(file_inode(f))) {
		sfu_stat_inc(SFU_STAT_sidecar_refused_owner);
		goto refuse;
	}
	if (kernel_read(f, &hdr, sizeof(hdr), &pos) != sizeof(hdr) ||
	    memcmp(hdr.magic, SFU_SIDECAR_MAGIC, sizeof(hdr.magic)) || hdr.reserved ||
	    hdr.section_off < sizeof(hdr) || !hdr.section_size ||
	    hdr.section_off + hdr.section_size > i_size_read(file_inode(f)) ||
	    hdr.section_off + hdr.section_size < hdr.section_off) {
		sfu_stat_inc(SFU_STAT_sidecar_refused_format);
		goto refuse;
	}
	if (hdr.build_id_len != len || memcmp(hdr.build_id, build_id, len)) {
		sfu_stat_inc(SFU_STAT_sidecar_refused_build_id);
		goto refuse;
	}
	*off = hdr.section_off;
	*size = hdr.section_size;
	*vaddr = hdr.section_vaddr;
	return f;

refuse:
	fput(f);
	return NULL;
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
	mutex_lock(&sfu_sidecar_lock);
	path_put(&sfu_sidecar_root);
	memset(&sfu_sidecar_root, 0, sizeof(sfu_sidecar_root));
	mutex_unlock(&sfu_sidecar_lock);
}
