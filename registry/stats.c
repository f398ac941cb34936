// SPDX-License-Identifier: GPL-2.0
/*
 * Event counters and their debugfs file: "<name> <value>" a line, in the
 * order of enum sfu_stat, so scripts can read them with a simple parser.
 */
#include <linux/debugfs.h>
#include <linux/export.h>
#include <linux/seq_file.h>

#include "sframe_unwind/lib.h"
#include "stats.h"
#include "sframe_unwind/compat/export.h"

DEFINE_PER_CPU(u64, sfu_stats[SFU_STAT_NR]);

/* Names as shown in the stats file, and what each counts. */
static const char *const sfu_stat_names[SFU_STAT_NR] = {
	/* sections registered from ELF mappings */
	[SFU_STAT_REGISTERED_ELF] = "registered_elf",
	/* sections registered through the char device */
	[SFU_STAT_REGISTERED_EXPLICIT] = "registered_explicit",
	/* sections removed (unmapped, replaced, unregistered) */
	[SFU_STAT_REMOVED] = "removed",
	/* of those, removed in the hook of the VMA change, no re-check queued */
	[SFU_STAT_REMOVED_AT_ONCE] = "removed_at_once",
	/* tree stores that take a section out, retried for want of memory */
	[SFU_STAT_TREE_STORE_RETRIED] = "tree_store_retried",
	/* sections freed with their registry (exit, exec, module unload) */
	[SFU_STAT_FREED_WITH_MM] = "freed_with_mm",
	/* sections re-checked against the VMAs after a change */
	[SFU_STAT_RECHECKED] = "rechecked",
	/* sections refused by validation */
	[SFU_STAT_REFUSED_INVALID] = "refused_invalid",
	/* sections dropped: their text went away before their data was mapped */
	[SFU_STAT_REFUSED_NOT_MAPPED] = "refused_not_mapped",
	/* sections refused: per-mm or global limit reached */
	[SFU_STAT_REFUSED_LIMIT] = "refused_limit",
	/* sections refused: SFU_MAX_PENDING sections of the mm wait for their data */
	[SFU_STAT_REFUSED_PENDING_LIMIT] = "refused_pending_limit",
	/* sections refused: the user's max_sections_per_user reached */
	[SFU_STAT_REFUSED_USER_LIMIT] = "refused_user_limit",
	/* sections refused: larger than max_section_bytes */
	[SFU_STAT_REFUSED_TOO_BIG] = "refused_too_big",
	/* executable mappings of ELF files without PT_GNU_SFRAME */
	[SFU_STAT_ELF_NO_SFRAME] = "elf_no_sframe",
	/* sidecars read and validated (files without PT_GNU_SFRAME, files with it, the vDSO) */
	[SFU_STAT_SIDECAR_USED] = "sidecar_used",
	/* files with a build-id but no sidecar in sidecar_dir */
	[SFU_STAT_SIDECAR_MISSING] = "sidecar_missing",
	/* sidecars not looked at: the open failed (a symbolic link, an I/O error) */
	[SFU_STAT_SIDECAR_REFUSED_OPEN] = "sidecar_refused_open",
	/* sidecars refused: not a regular file owned by root, or writable by others */
	[SFU_STAT_SIDECAR_REFUSED_OWNER] = "sidecar_refused_owner",
	/* sidecars refused: a directory on the way not root's, writable by others, or a link */
	[SFU_STAT_SIDECAR_REFUSED_PATH] = "sidecar_refused_path",
	/* sidecars refused: bad header, or section beyond the file */
	[SFU_STAT_SIDECAR_REFUSED_FORMAT] = "sidecar_refused_format",
	/* sidecars refused: they carry another file's build-id */
	[SFU_STAT_SIDECAR_REFUSED_BUILD_ID] = "sidecar_refused_build_id",
	/* sidecars refused: made from other content than the mapped file's (its digest) */
	[SFU_STAT_SIDECAR_REFUSED_CONTENT] = "sidecar_refused_content",
	/* content digests taken of files (or the vDSO) to check their sidecars */
	[SFU_STAT_SIDECAR_DIGESTS] = "sidecar_digests",
	/* microseconds those digests took, reads of the file included */
	[SFU_STAT_SIDECAR_DIGEST_US] = "sidecar_digest_us",
	/* mappings of files with their own .sframe that also get rows from their sidecar */
	[SFU_STAT_SIDECAR_EXTRA] = "sidecar_extra",
	/* vDSO mappings given the rows of the vDSO's sidecar */
	[SFU_STAT_SIDECAR_VDSO] = "sidecar_vdso",
	/* files without .sframe or sidecar queued for the sidecar daemon */
	[SFU_STAT_SIDECAR_REQ_QUEUED] = "sidecar_req_queued",
	/* such files not queued: their build-id was queued before */
	[SFU_STAT_SIDECAR_REQ_DUPLICATE] = "sidecar_req_duplicate",
	/* such files not queued: the queue was full (or no memory) */
	[SFU_STAT_SIDECAR_REQ_DROPPED_FULL] = "sidecar_req_dropped_full",
	/* such files not queued: the user had the most requests one may queue */
	[SFU_STAT_SIDECAR_REQ_DROPPED_USER] = "sidecar_req_dropped_user",
	/* rescan's requests given up for a mapping's (found again next rescan) */
	[SFU_STAT_SIDECAR_REQ_DISPLACED] = "sidecar_req_displaced",
	/* requests dropped unread: the daemon went away */
	[SFU_STAT_SIDECAR_REQ_FLUSHED] = "sidecar_req_flushed",
	/* requests handed to the daemon as a file descriptor */
	[SFU_STAT_SIDECAR_REQ_HANDED] = "sidecar_req_handed",
	/* requests dropped: the file could not be opened read-only again */
	[SFU_STAT_SIDECAR_REQ_OPEN_FAILED] = "sidecar_req_open_failed",
	/* rescans the daemon asked for, after writing sidecars */
	[SFU_STAT_SIDECAR_RESCANS] = "sidecar_rescans",
	/* ELF headers, sections or sidecars that could not be read whole */
	[SFU_STAT_ELF_UNREADABLE] = "elf_unreadable",
	/* reads of those that kernel_read() cut short, finished by reading on (9p, NFS, FUSE) */
	[SFU_STAT_READS_RESUMED] = "reads_resumed",
	/* Go programs without .sframe or sidecar given a section of no functions */
	[SFU_STAT_GO_FP_ONLY] = "go_fp_only",
	/* mappings answered from the per-file cache, without reading the file */
	[SFU_STAT_FILE_CACHE_HITS] = "file_cache_hits",
	/* sections validated (read from the file) */
	[SFU_STAT_VALIDATIONS] = "validations",
	/* executable or pending-relevant mmaps seen */
	[SFU_STAT_MMAP_EVENTS] = "mmap_events",
	[SFU_STAT_MMAP_KNOWN_WITHOUT] = "mmap_known_without",
	/* VMA removals or protection changes touching a section */
	[SFU_STAT_VMA_EVENTS] = "vma_events",
	/* mmap events dropped: no memory for the work item */
	[SFU_STAT_WORK_ALLOC_FAILED] = "work_alloc_failed",
	/* per-mm registries created */
	[SFU_STAT_MM_CREATED] = "mm_created",
	/* per-mm registries destroyed */
	[SFU_STAT_MM_DESTROYED] = "mm_destroyed",
	/* registries rebuilt in a forked child */
	[SFU_STAT_FORKS_REBUILT] = "forks_rebuilt",
	/* row lookups */
	[SFU_STAT_LOOKUPS] = "lookups",
	/* lookups with no section for the PC */
	[SFU_STAT_LOOKUP_NO_SECTION] = "lookup_no_section",
	/* lookups skipping a section awaiting its re-check */
	[SFU_STAT_LOOKUP_STALE] = "lookup_stale",
	/* lookups in interrupt or NMI context skipped: the registry was being changed */
	[SFU_STAT_LOOKUP_BUSY] = "lookup_busy",
	/* lookups ended by a fault reading the section */
	[SFU_STAT_LOOKUP_FAULT] = "lookup_fault",
	/* lookups ended by bad section data */
	[SFU_STAT_LOOKUP_ERROR] = "lookup_error",
	/* lookups refused: a function of many rows in a section without an FRE index */
	[SFU_STAT_LOOKUP_UNINDEXED] = "lookup_unindexed",
	/* lookups that read the section from user memory (no kernel copy) */
	[SFU_STAT_LOOKUP_USER] = "lookup_user",
	/* kernel copies of sections made (from a file, or at registration) */
	[SFU_STAT_KERNEL_COPIES_MADE] = "kernel_copies_made",
	/* sections that took a reference to an existing kernel copy */
	[SFU_STAT_KERNEL_COPIES_SHARED] = "kernel_copies_shared",
	/* sections left without a kernel copy: max_kernel_bytes reached */
	[SFU_STAT_KERNEL_COPY_OVER_BUDGET] = "kernel_copy_over_budget",
	/* sections left without a kernel copy: the user's max_kernel_bytes_per_user reached */
	[SFU_STAT_KERNEL_COPY_OVER_USER_BUDGET] = "kernel_copy_over_user_budget",
	/* kernel copies whose charge moved to another user holding them */
	[SFU_STAT_KERNEL_COPY_CHARGE_MOVED] = "kernel_copy_charge_moved",
	/* lookups in kernel copies answered by the per-CPU row cache */
	[SFU_STAT_ROW_CACHE_HITS] = "row_cache_hits",
	/* lookups in kernel copies the decoder answered (row cache on) */
	[SFU_STAT_ROW_CACHE_MISSES] = "row_cache_misses",
};

/**
 * sfu_stat_read() - the value of one counter
 * @s: the counter
 *
 * Return: its value.
 */
u64 sfu_stat_read(enum sfu_stat s)
{
	return sfu_percpu_sum(&sfu_stats[0], s);
}
EXPORT_SYMBOL_IF_KUNIT(sfu_stat_read);

static int sfu_stats_show(struct seq_file *m, void *v)
{
	int i;

	for (i = 0; i < SFU_STAT_NR; i++)
		seq_printf(m, "%s %llu\n", sfu_stat_names[i], sfu_stat_read(i));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(sfu_stats);

/**
 * sfu_stats_debugfs_init() - create <debugfs>/sframe_unwind/stats
 */
void sfu_stats_debugfs_init(void)
{
	sfu_debugfs_file("stats", 0444, NULL, &sfu_stats_fops);
}
