/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Event counters, shown in <debugfs>/sframe_unwind/stats.  Cheap enough
 * for any context (one per-CPU add, safe against interrupts), NMI included.
 */
#ifndef _SFRAME_UNWIND_STATS_H
#define _SFRAME_UNWIND_STATS_H

#include <linux/percpu.h>

/* The counters; their meanings are in registry/stats.c and Documentation/. */
enum sfu_stat {
	SFU_STAT_registered_elf,
	SFU_STAT_registered_explicit,
	SFU_STAT_removed,
	SFU_STAT_tree_store_retried,
	SFU_STAT_freed_with_mm,
	SFU_STAT_rechecked,
	SFU_STAT_refused_invalid,
	SFU_STAT_refused_not_mapped,
	SFU_STAT_refused_limit,
	SFU_STAT_refused_pending_limit,
	SFU_STAT_refused_user_limit,
	SFU_STAT_refused_too_big,
	SFU_STAT_elf_no_sframe,
	SFU_STAT_sidecar_used,
	SFU_STAT_sidecar_missing,
	SFU_STAT_sidecar_refused_open,
	SFU_STAT_sidecar_refused_owner,
	SFU_STAT_sidecar_refused_path,
	SFU_STAT_sidecar_refused_format,
	SFU_STAT_sidecar_refused_build_id,
	SFU_STAT_sidecar_extra,
	SFU_STAT_sidecar_vdso,
	SFU_STAT_sidecar_req_queued,
	SFU_STAT_sidecar_req_duplicate,
	SFU_STAT_sidecar_req_dropped_full,
	SFU_STAT_sidecar_req_dropped_user,
	SFU_STAT_sidecar_req_flushed,
	SFU_STAT_sidecar_req_handed,
	SFU_STAT_sidecar_req_open_failed,
	SFU_STAT_sidecar_rescans,
	SFU_STAT_elf_unreadable,
	SFU_STAT_file_cache_hits,
	SFU_STAT_validations,
	SFU_STAT_mmap_events,
	SFU_STAT_vma_events,
	SFU_STAT_work_alloc_failed,
	SFU_STAT_mm_created,
	SFU_STAT_mm_destroyed,
	SFU_STAT_forks_rebuilt,
	SFU_STAT_lookups,
	SFU_STAT_lookup_no_section,
	SFU_STAT_lookup_stale,
	SFU_STAT_lookup_busy,
	SFU_STAT_lookup_fault,
	SFU_STAT_lookup_error,
	SFU_STAT_lookup_unindexed,
	SFU_STAT_lookup_user,
	SFU_STAT_kernel_copies_made,
	SFU_STAT_kernel_copies_shared,
	SFU_STAT_kernel_copy_over_budget,
	SFU_STAT_kernel_copy_over_user_budget,
	SFU_STAT_kernel_copy_charge_moved,
	SFU_STAT_row_cache_hits,
	SFU_STAT_row_cache_misses,
	SFU_STAT_NR
};

/* Per CPU: counting a lookup must not bounce a cache line between CPUs. */
DECLARE_PER_CPU(u64, sfu_stats[SFU_STAT_NR]);

static inline void sfu_stat_inc(enum sfu_stat s)
{
	this_cpu_inc(sfu_stats[s]);
}

static inline void sfu_stat_add(enum sfu_stat s, u64 n)
{
	this_cpu_add(sfu_stats[s], n);
}

u64 sfu_stat_read(enum sfu_stat s);
void sfu_stats_debugfs_init(void);

#endif /* _SFRAME_UNWIND_STATS_H */
