// SPDX-License-Identifier: GPL-2.0
/*
 * sframe_unwind: complete user-space stack traces without frame pointers,
 * from the .sframe sections GNU binutils emits.
 *
 * Module entry points: sets up the debugfs root every other part hangs its
 * files from, and tears everything down again on unload.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/module.h>

#include "sframe_unwind.h"

static struct dentry *sfu_debugfs_root;

/**
 * sfu_debugfs_dir() - the module's debugfs directory
 *
 * Return: the dentry of <debugfs>/sframe_unwind, or an ERR_PTR/NULL when
 * debugfs is unavailable; debugfs_create_*() accept either as a parent.
 */
struct dentry *sfu_debugfs_dir(void)
{
	return sfu_debugfs_root;
}
EXPORT_SYMBOL_GPL(sfu_debugfs_dir);

static int sfu_version_show(struct seq_file *m, void *v)
{
	seq_printf(m, "%s\n", SFU_VERSION);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(sfu_version);

static int __init sfu_init(void)
{
	sfu_debugfs_root = debugfs_create_dir(KBUILD_MODNAME, NULL);
	debugfs_create_file("version", 0444, sfu_debugfs_root, NULL, &sfu_version_fops);
	pr_info("version %s loaded\n", SFU_VERSION);
	return 0;
}

static void __exit sfu_exit(void)
{
	debugfs_remove_recursive(sfu_debugfs_root);
	pr_info("unloaded\n");
}

module_init(sfu_init);
module_exit(sfu_exit);

MODULE_DESCRIPTION("User-space stack unwinding from SFrame sections");
MODULE_LICENSE("GPL");
MODULE_VERSION(SFU_VERSION);
