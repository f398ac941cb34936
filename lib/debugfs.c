// SPDX-License-Identifier: GPL-2.0
/*
 * The module's debugfs directory, <debugfs>/sframe_unwind, and the one way
 * every part of the module adds its files to it.
 */
#include <linux/debugfs.h>
#include <linux/seq_file.h>

#include "sframe_unwind/lib.h"

static struct dentry *sfu_debugfs_root;

static int sfu_version_show(struct seq_file *m, void *v)
{
	seq_printf(m, "%s\n", SFU_VERSION);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(sfu_version);

/**
 * sfu_debugfs_file() - add a file to the module's debugfs directory
 * @name: its name
 * @mode: its mode
 * @data: the inode's private data
 * @fops: its operations
 *
 * Files go when the directory goes, at module exit (sfu_debugfs_exit()).
 *
 * Return: the dentry, or an ERR_PTR when debugfs is unavailable, which
 * callers may ignore as debugfs_create_file() allows.
 */
struct dentry *sfu_debugfs_file(const char *name, umode_t mode, void *data,
				const struct file_operations *fops)
{
	return debugfs_create_file(name, mode, sfu_debugfs_root, data, fops);
}

/**
 * sfu_debugfs_remove() - remove a file sfu_debugfs_file() added
 * @name: its name
 */
void sfu_debugfs_remove(const char *name)
{
	debugfs_lookup_and_remove(name, sfu_debugfs_root);
}

/**
 * sfu_debugfs_init() - create the directory and its "version" file
 *
 * Return: 0; a module without debugfs works the same.
 */
int sfu_debugfs_init(void)
{
	sfu_debugfs_root = debugfs_create_dir(KBUILD_MODNAME, NULL);
	sfu_debugfs_file("version", 0444, NULL, &sfu_version_fops);
	return 0;
}

/**
 * sfu_debugfs_exit() - remove the directory and every file in it
 */
void sfu_debugfs_exit(void)
{
	debugfs_remove_recursive(sfu_debugfs_root);
	sfu_debugfs_root = NULL;
}
