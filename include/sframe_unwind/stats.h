/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Event counters, shown in <debugfs>/sframe_unwind/stats.  Cheap enough
 * for any context (one atomic add), NMI included.
 */
#ifndef _SFRAME_UNWIND_STATS_H
#define _SFRAME_UNWIND_STATS_H

#include <linux/atomic.h>

/* The counters; their meanings are in core/stats.c and Documentation/. */
enum sfu_stat {
	SFU_STAT_registered_elf,
	SFU_STAT_registered_explicit,
	SFU_STAT_removed,
	SFU_STAT_freed_with_mm,
	SFU_STAT_rechecked,
	SFU_STAT_refused_invalid,
	SFU_STAT_refused_not_mapped,
	SFU_STAT_refused_limit,
	SFU_STAT_refused_too_big,
	SFU_STAT_elf_no_sframe,
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
	SFU_STAT_lookup_fault,
	SFU_STAT_lookup_error,
	SFU_STAT_NR
};

extern atomic64_t sfu_stats[SFU_STAT_NR];

static inline void sfu_stat_inc(enum sfu_stat s)
{
	atomic64_inc(&sfu_stats[s]);
}

void sfu_stats_debugfs_init(void);

#endif /* _SFRAME_UNWIND_STATS_H */
