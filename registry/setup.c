// SPDX-License-Identifier: GPL-2.0
/*
 * The registry's top: bringing it up and down (sfu_registry_init(),
 * sfu_registry_stop(), sfu_registry_exit()), what makes it look at every
 * running process again (the sidecar_dir parameter, the sidecar daemon's
 * rescan) and what it holds (<debugfs>/sframe_unwind/memory).  How the
 * registry is built is told in internal.h.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/file.h>
#include <linux/hash.h>
#include <linux/hashtable.h>
#include <linux/mm.h>
#include <linux/mmap_lock.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/sched.h>
#include <linux/sched/mm.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include "sframe_unwind/registry.h"
#include "internal.h"
#include "rules_cache.h"
#include "sframe_unwind/lib.h"
#include "stats.h"
#include "sframe_unwind/compat/export.h"
#include "uapi/sframe_sidecar.h"

static bool sfu_running;

/* The hooks follow mappings: between sfu_registry_init() and sfu_registry_stop(). */
static bool sfu_registry_running(void)
{
	return READ_ONCE(sfu_running);
}

/*
 * sidecar_dir: sidecar.c keeps it; writing it again (even the same value)
 * forgets what the file cache and the sidecar cache know and scans the
 * running processes, so that they pick up sidecars installed since.
 */
static int sfu_sidecar_dir_set(const char *val, const struct kernel_param *kp)
{
	int err;

	/*
	 * While the module goes away nothing is set: a root taken now would
	 * outlive sfu_sidecar_exit().  At load the module is not going away,
	 * and the registry is not up yet (sfu_registry_init() scans).
	 */
	if (!try_module_get(THIS_MODULE))
		return -ENODEV;
	err = sfu_sidecar_set_dir(val);
	if (!err && sfu_registry_running()) {
		sfu_fcache_forget();
		sfu_sidecar_forget();
		sfu_scan_running_processes();
	}
	module_put(THIS_MODULE);
	return err;
}

static int sfu_sidecar_dir_get(char *buf, const struct kernel_param *kp)
{
	return sfu_sidecar_get_dir(buf);
}

static const struct kernel_param_ops sfu_sidecar_dir_ops = {
	.set = sfu_sidecar_dir_set,
	.get = sfu_sidecar_dir_get,
};
module_param_cb(sidecar_dir, &sfu_sidecar_dir_ops, NULL, 0644);
MODULE_PARM_DESC(sidecar_dir,
		 "Directory of SFrame sidecars, by build-id (default " SFU_SIDECAR_DEFAULT_DIR
		 "; empty: off)");

static void sfu_sidecar_rescan_scan(void *unused)
{
	sfu_fcache_forget_missing();
	sfu_sidecar_forget_missing();
	sfu_scan_running_processes();
}

/**
 * sfu_sidecar_rescan() - look again for the sidecars that were missing
 *
 * Forgets every file (and every build-id looked up alone: the vDSO's) the
 * module found no sidecar for, and scans the running processes: their
 * mappings of those files get the sidecars written since, at once.  The
 * requests the scan makes are backlog (sfu_sidecar_backlog()).
 *
 * Context: task context, may sleep (long: every process is scanned).
 */
void sfu_sidecar_rescan(void)
{
	if (!sfu_registry_running())
		return;
	sfu_stat_inc(SFU_STAT_SIDECAR_RESCANS);
	sfu_sidecar_backlog(sfu_sidecar_rescan_scan, NULL);
}

/**
 * sfu_registry_memory() - what the registry holds now
 * @mem: filled in
 */
void sfu_registry_memory(struct sfu_registry_memory *mem)
{
	sfu_copy_usage(&mem->kernel_copies, &mem->kernel_copy_bytes);
	sfu_copy_retained_usage(&mem->retained_copies, &mem->retained_bytes);
	mem->max_kernel_bytes = sfu_copy_budget();
	mem->sections = sfu_sections_total();
}
EXPORT_SYMBOL_IF_KUNIT(sfu_registry_memory);

static int sfu_memory_show(struct seq_file *m, void *v)
{
	struct sfu_registry_memory mem;
	unsigned int registries = sfu_mm_count();

	sfu_registry_memory(&mem);
	seq_printf(m, "sections %u\n", mem.sections);
	seq_printf(m, "registries %u\n", registries);
	seq_printf(m, "kernel_copies %u\n", mem.kernel_copies);
	seq_printf(m, "kernel_copy_bytes %lu\n", mem.kernel_copy_bytes);
	seq_printf(m, "max_kernel_bytes %lu\n", mem.max_kernel_bytes);
	seq_printf(m, "kernel_copies_retained %u\n", mem.retained_copies);
	seq_printf(m, "kernel_copy_bytes_retained %lu\n", mem.retained_bytes);
	seq_printf(m, "row_cache_bytes %zu\n", sfu_rowc_bytes());
	seq_printf(m, "section_bytes %zu\n", sizeof(struct sfu_section));
	seq_printf(m, "registry_bytes %zu\n", sizeof(struct sfu_mm));
	seq_printf(m, "maple_node_bytes %zu\n", sizeof(struct maple_node));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(sfu_memory);

/**
 * sfu_registry_init() - set up the registry and start following mappings
 *
 * Installs the hooks first, then builds the registries of the processes
 * already running, so that no mapping made meanwhile is missed.
 *
 * Return: 0 or -errno.
 */
int sfu_registry_init(void)
{
	int err;

	err = sfu_rowc_init();
	if (err)
		return err;
	err = sfu_mm_table_init();
	if (err) {
		sfu_rowc_exit();
		return err;
	}
	sfu_stats_debugfs_init();
	sfu_sidecar_queue_init();
	sfu_users_init();
	sfu_debugfs_file("memory", 0444, NULL, &sfu_memory_fops);
	err = sfu_hooks_init();
	if (err) {
		sfu_mm_table_exit();
		sfu_rowc_exit();
		return err;
	}
	sfu_sidecar_init();
	WRITE_ONCE(sfu_running, true);
	sfu_scan_running_processes();
	return 0;
}

/**
 * sfu_registry_stop() - stop following mappings
 *
 * Context: module exit; no hook runs after this returns, but task_work they
 * queued may still be pending (sfu_task_work_drain()).
 */
void sfu_registry_stop(void)
{
	WRITE_ONCE(sfu_running, false);
	sfu_hooks_exit();
}

/**
 * sfu_registry_exit() - free every registry
 *
 * Context: module exit, after sfu_hooks_exit() and after every task_work
 * that could touch a registry has run.
 */
void sfu_registry_exit(void)
{
	struct sfu_registry_memory mem;

	sfu_mm_table_exit();
	sfu_fcache_forget();
	sfu_vdso_exit();
	sfu_sidecar_exit();
	sfu_sidecar_queue_exit();
	/* The sections' RCU callbacks, which free the copies, must be done. */
	rcu_barrier();
	WARN_ON(sfu_sections_total());
	sfu_registry_memory(&mem);
	WARN_ON(mem.kernel_copies || mem.kernel_copy_bytes);
	sfu_users_exit();
	sfu_rowc_exit();
}
