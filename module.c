// SPDX-License-Identifier: GPL-2.0
/*
 * sframe_unwind: complete user-space stack traces without frame pointers,
 * from the .sframe sections GNU binutils emits.
 *
 * Module entry points: bring the layers up from the bottom (lib/, the
 * registry, the unwinder, the consumers) and take them down again from
 * the top.  This file only orders the layers; each owns its own state and
 * debugfs files.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>

#include "sframe_unwind/consumers.h"
#include "sframe_unwind/deferred.h"
#include "sframe_unwind/lib.h"
#include "sframe_unwind/registry.h"
#include "sframe_unwind/task_work.h"
#include "sframe_unwind/unwind.h"

static int __init sfu_init(void)
{
	int err;

	sfu_debugfs_init();
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
	sfu_redirect_init();
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
	sfu_debugfs_exit();
	return err;
}

/*
 * Teardown order: upstream's, ftrace's and perf's user stacks back to the
 * stock walks, no new requests (device gone), no new events (hooks
 * detached), no task_work still to run module code, then free the data.
 */
static void __exit sfu_exit(void)
{
	sfu_redirect_exit();
	sfu_chardev_exit();
	sfu_registry_stop();
	sfu_trace_stop();
	sfu_deferred_stop();
	sfu_task_work_drain();
	sfu_trace_exit();
	sfu_deferred_exit();
	sfu_unwind_exit();
	sfu_registry_exit();
	sfu_debugfs_exit();
	pr_info("unloaded\n");
}

module_init(sfu_init);
module_exit(sfu_exit);

MODULE_DESCRIPTION("User-space stack unwinding from SFrame sections");
MODULE_LICENSE("GPL");
MODULE_VERSION(SFU_VERSION);
