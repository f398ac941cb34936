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

#include "deferred_internal.h"
#include "perf_callchain.h"
#include "registry.h"
#include "sframe_unwind.h"
#include "stats.h"
#include "task_work.h"
#include "unwind.h"

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

/**
 * sfu_chardev_ioctl_more() - ioctls of /dev/sframe_unwind beyond registration
 * @cmd: the ioctl
 * @arg: its user argument
 *
 * Return: the ioctl's result, -ENOTTY for an unknown one.
 */
long sfu_chardev_ioctl_more(unsigned int cmd, void __user *arg)
{
	return sfu_unwind_ioctl(cmd, arg);
}

static int __init sfu_init(void)
{
	int err;

	sfu_debugfs_root = debugfs_create_dir(KBUILD_MODNAME, NULL);
	debugfs_create_file("version", 0444, sfu_debugfs_root, NULL, &sfu_version_fops);
	sfu_stats_debugfs_init();

	err = sfu_registry_init();
	if (err)
		goto out_debugfs;
	err = sfu_unwind_init();
	if (err)
		goto out_registry;
	err = sfu_deferred_init();
	if (err)
		goto out_unwind;
	err = sfu_trace_init();
	if (err)
		goto out_deferred;
	err = sfu_chardev_init();
	if (err)
		goto out_trace;
	sfu_perf_callchain_init();
	pr_info("version %s loaded\n", SFU_VERSION);
	return 0;

out_trace:
	sfu_trace_stop();
out_deferred:
	sfu_deferred_stop();
	sfu_task_work_drain();
	sfu_trace_exit();
	sfu_deferred_exit();
out_unwind:
	sfu_unwind_exit();
out_registry:
	sfu_registry_stop();
	sfu_task_work_drain();
	sfu_registry_exit();
out_debugfs:
	debugfs_remove_recursive(sfu_debugfs_root);
	return err;
}

/*
 * Teardown order: perf's callchains back to the stock walk, no new
 * requests (device gone), no new events (hooks detached), no task_work
 * still to run module code, then free the data.
 */
static void __exit sfu_exit(void)
{
	sfu_perf_callchain_exit();
	sfu_chardev_exit();
	sfu_registry_stop();
	sfu_trace_stop();
	sfu_deferred_stop();
	sfu_task_work_drain();
	sfu_trace_exit();
	sfu_deferred_exit();
	sfu_unwind_exit();
	sfu_registry_exit();
	debugfs_remove_recursive(sfu_debugfs_root);
	pr_info("unloaded\n");
}

module_init(sfu_init);
module_exit(sfu_exit);

MODULE_DESCRIPTION("User-space stack unwinding from SFrame sections");
MODULE_LICENSE("GPL");
MODULE_VERSION(SFU_VERSION);
