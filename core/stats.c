// SPDX-License-Identifier: GPL-2.0
/*
 * Event counters and their debugfs file: "<name> <value>" a line, in the
 * order of enum sfu_stat, so scripts can read them with a simple parser.
 */
#include <linux/debugfs.h>
#include <linux/seq_file.h>

#include "sframe_unwind.h"
#include "stats.h"

atomic64_t sfu_stats[SFU_STAT_NR];

/* Names as shown in the stats file, and what each counts. */
static const char *const sfu_stat_names[SFU_STAT_NR] = {
	/* sections registered from ELF mappings */
	[SFU_STAT_registered_elf] = "registered_elf",
	/* sections registered through the char device */
	[SFU_STAT_registered_explicit] = "registered_explicit",
	/* sections removed (unmapped, replaced, unregistered) */
	[SFU_STAT_removed] = "removed",
	/* sections freed with their registry (exit, exec, module unload) */
	[SFU_STAT_freed_with_mm] = "freed_with_mm",
	/* sections re-checked against the VMAs after a change */
	[SFU_STAT_rechecked] = "rechecked",
	/* sections refused by validation */
	[SFU_STAT_refused_invalid] = "refused_invalid",
	/* sections dropped: their text went away before their data was mapped */
	[SFU_STAT_refused_not_mapped] = "refused_not_mapped",
	/* sections refused: per-mm or global limit reached */
	[SFU_STAT_refused_limit] = "refused_limit",
	/* sections refused: larger than max_section_bytes */
	[SFU_STAT_refused_too_big] = "refused_too_big",
	/* executable mappings of ELF files without PT_GNU_SFRAME */
	[SFU_STAT_elf_no_sframe] = "elf_no_sframe",
	/* executable mappings whose ELF headers could not be read */
	[SFU_STAT_elf_unreadable] = "elf_unreadable",
	/* mappings answered from the per-file cache, without reading the file */
	[SFU_STAT_file_cache_hits] = "file_cache_hits",
	/* sections validated (read from the file) */
	[SFU_STAT_validations] = "validations",
	/* executable or pending-relevant mmaps seen */
	[SFU_STAT_mmap_events] = "mmap_events",
	/* VMA removals or protection changes touching a section */
	[SFU_STAT_vma_events] = "vma_events",
	/* mmap events dropped: no memory for the work item */
	[SFU_STAT_work_alloc_failed] = "work_alloc_failed",
	/* per-mm registries created */
	[SFU_STAT_mm_created] = "mm_created",
	/* per-mm registries destroyed */
	[SFU_STAT_mm_destroyed] = "mm_destroyed",
	/* registries rebuilt in a forked child */
	[SFU_STAT_forks_rebuilt] = "forks_rebuilt",
	/* row lookups */
	[SFU_STAT_lookups] = "lookups",
	/* lookups with no section for the PC */
	[SFU_STAT_lookup_no_section] = "lookup_no_section",
	/* lookups skipping a section awaiting its re-check */
	[SFU_STAT_lookup_stale] = "lookup_stale",
	/* lookups ended by a fault reading the section */
	[SFU_STAT_lookup_fault] = "lookup_fault",
	/* lookups ended by bad section data */
	[SFU_STAT_lookup_error] = "lookup_error",
};

static int sfu_stats_show(struct seq_file *m, void *v)
{
	int i;

	for (i = 0; i < SFU_STAT_NR; i++)
		seq_printf(m, "%s %lld\n", sfu_stat_names[i], atomic64_read(&sfu_stats[i]));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(sfu_stats);

/**
 * sfu_stats_debugfs_init() - create <debugfs>/sframe_unwind/stats
 */
void sfu_stats_debugfs_init(void)
{
	debugfs_create_file("stats", 0444, sfu_debugfs_dir(), NULL, &sfu_stats_fops);
}
