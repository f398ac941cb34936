/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The registry's event counters, shown in <debugfs>/sframe_unwind/stats.
 * Cheap enough for any context (one per-CPU add, safe against
 * interrupts), NMI included.
 */
#ifndef _SFRAME_UNWIND_STATS_H
#define _SFRAME_UNWIND_STATS_H

#include <linux/percpu.h>

#include "sframe_unwind/counters.h"

/*
 * The counters, in the order the file prints them: X(constant, name, what
 * it counts), the text Documentation/reference.rst gives each
 * (sframe_unwind/counters.h).
 */
#define SFU_STATS(X)									\
	X(SFU_STAT_REGISTERED_ELF, "registered_elf",					\
	  "sections registered from ELF mappings")					\
	X(SFU_STAT_REGISTERED_EXPLICIT, "registered_explicit",				\
	  "sections registered with ``SFU_IOC_REGISTER``")				\
	X(SFU_STAT_REMOVED, "removed",							\
	  "sections removed: replaced by an overlapping one, gone in a re-check, or "	\
	  "``SFU_IOC_UNREGISTER``")							\
	X(SFU_STAT_REMOVED_AT_ONCE, "removed_at_once",					\
	  "of those, removed by the hook of the VMA change that took their text "	\
	  "(munmap's, mprotect's) under the mmap lock its caller holds, no re-check "	\
	  "queued")									\
	X(SFU_STAT_TREE_STORE_RETRIED, "tree_store_retried",				\
	  "stores taking a section out of a registry's trees that found no memory "	\
	  "for a maple node and were retried: a section leaves every tree before it "	\
	  "is freed")									\
	X(SFU_STAT_FREED_WITH_MM, "freed_with_mm",					\
	  "sections freed with their registry (exit, exec, module unload), counted "	\
	  "when the registry is freed after an RCU grace period")			\
	X(SFU_STAT_RECHECKED, "rechecked",						\
	  "stale sections re-checked against the VMAs (kept or removed)")		\
	X(SFU_STAT_REFUSED_INVALID, "refused_invalid",					\
	  "sections the decoder refused (an ELF file's on its first read; "		\
	  "``SFU_IOC_REGISTER``: ``ENOEXEC``)")						\
	X(SFU_STAT_REFUSED_NOT_MAPPED, "refused_not_mapped",				\
	  "ELF sections dropped: their text was no longer mapped from the file when "	\
	  "they were offered")								\
	X(SFU_STAT_REFUSED_LIMIT, "refused_limit",					\
	  "sections refused by ``max_sections_per_mm`` or ``max_sections``")		\
	X(SFU_STAT_REFUSED_PENDING_LIMIT, "refused_pending_limit",			\
	  "ELF sections refused because 64 sections of the mm already wait for their "	\
	  "``.sframe`` data to be mapped")						\
	X(SFU_STAT_REFUSED_USER_LIMIT, "refused_user_limit",				\
	  "sections refused by ``max_sections_per_user``")				\
	X(SFU_STAT_REFUSED_TOO_BIG, "refused_too_big",					\
	  "sections larger than ``max_section_bytes`` (once per file read; "		\
	  "``SFU_IOC_REGISTER``: ``EFBIG``)")						\
	X(SFU_STAT_ELF_NO_SFRAME, "elf_no_sframe",					\
	  "native ELF files read (cache misses) without a non-empty "			\
	  "``PT_GNU_SFRAME``")								\
	X(SFU_STAT_SIDECAR_USED, "sidecar_used",					\
	  "sidecars read and validated: of files without ``PT_GNU_SFRAME`` (once per "	\
	  "file read), of files with it and of the vDSO (once per build-id)")		\
	X(SFU_STAT_SIDECAR_MISSING, "sidecar_missing",					\
	  "files with a build-id and no sidecar in ``sidecar_dir``")			\
	X(SFU_STAT_SIDECAR_REFUSED_OPEN, "sidecar_refused_open",			\
	  "sidecars that could not be opened (a symbolic link at the last component, "	\
	  "an error other than \"no such file\"); not remembered: the next mapping of "	\
	  "the file looks again")							\
	X(SFU_STAT_SIDECAR_REFUSED_OWNER, "sidecar_refused_owner",			\
	  "sidecars refused: not a regular file owned by root, or writable by group "	\
	  "or others")									\
	X(SFU_STAT_SIDECAR_REFUSED_PATH, "sidecar_refused_path",			\
	  "sidecar lookups refused on the way: a directory between the root and the "	\
	  "sidecar not owned by root, writable by group or others without being "	\
	  "sticky, or a symbolic link; not remembered")					\
	X(SFU_STAT_SIDECAR_REFUSED_FORMAT, "sidecar_refused_format",			\
	  "sidecars refused: bad header, or the section beyond the file")		\
	X(SFU_STAT_SIDECAR_REFUSED_BUILD_ID, "sidecar_refused_build_id",		\
	  "sidecars refused: the build-id they carry is not the mapped file's")		\
	X(SFU_STAT_SIDECAR_REFUSED_CONTENT, "sidecar_refused_content",			\
	  "sidecars refused: made from other content than the mapped file's (their "	\
	  "content digest is not the file's)")						\
	X(SFU_STAT_SIDECAR_DIGESTS, "sidecar_digests",					\
	  "content digests taken of files (or the vDSO) to check their sidecars, "	\
	  "once per file identity")							\
	X(SFU_STAT_SIDECAR_DIGEST_US, "sidecar_digest_us",				\
	  "microseconds those digests took, the reads of the files included")		\
	X(SFU_STAT_SIDECAR_EXTRA, "sidecar_extra",					\
	  "mappings of files with their own ``.sframe`` that also get rows from "	\
	  "their sidecar, for the code the own section has no FDE for")			\
	X(SFU_STAT_SIDECAR_VDSO, "sidecar_vdso",					\
	  "vDSO mappings given the rows of the vDSO's sidecar")				\
	X(SFU_STAT_VDSO_REUSED, "vdso_reused",						\
	  "vDSO mappings whose image was not read again: the same kernel pages "	\
	  "as the vDSO read last (an exec or a fork of a native process)")		\
	X(SFU_STAT_SIDECAR_REQ_QUEUED, "sidecar_req_queued",				\
	  "files mapped executable with a build-id but neither ``PT_GNU_SFRAME`` nor "	\
	  "a sidecar, queued for the sidecar daemon (only while one is attached)")	\
	X(SFU_STAT_SIDECAR_REQ_REFUSED_OWNER, "sidecar_req_refused_owner",		\
	  "such files not queued: not root's, or writable by group or others, while "	\
	  "the daemon takes only root's (it attached without "				\
	  "``SFU_SIDECAR_ATTACH_ANY_OWNER``); nothing is remembered of them")		\
	X(SFU_STAT_SIDECAR_REQ_REFUSED_FUSE, "sidecar_req_refused_fuse",		\
	  "such files not queued: on FUSE, whose server could keep the daemon's "	\
	  "reads of it waiting for good; nothing is remembered of them")		\
	X(SFU_STAT_SIDECAR_REQ_DUPLICATE, "sidecar_req_duplicate",			\
	  "such files not queued: the file was queued before")			\
	X(SFU_STAT_SIDECAR_REQ_PROMOTED, "sidecar_req_promoted",			\
	  "such files queued by a rescan, or for an older process, and waiting: "	\
	  "their request moved up with the newer process's")				\
	X(SFU_STAT_SIDECAR_REQ_DROPPED_FULL, "sidecar_req_dropped_full",		\
	  "such files not queued: 64 requests queued already (or no memory)")		\
	X(SFU_STAT_SIDECAR_REQ_DROPPED_USER, "sidecar_req_dropped_user",		\
	  "such files not queued: 16 of the same user's queued already")		\
	X(SFU_STAT_SIDECAR_WAITS, "sidecar_waits",					\
	  "mappings whose process waited for the daemon to deal with their file "	\
	  "(``sidecar_wait_ms``)")							\
	X(SFU_STAT_SIDECAR_WAIT_TIMEOUTS, "sidecar_wait_timeouts",			\
	  "such waits that ended with the file's request not dealt with: "		\
	  "``sidecar_wait_ms`` ran out, or the process was killed")			\
	X(SFU_STAT_SIDECAR_REQ_DISPLACED, "sidecar_req_displaced",			\
	  "requests given up for the request of a file mapped since where the caps "	\
	  "left no room: the last of the queue (of the same user's if the user's cap "	\
	  "was reached), the newest a rescan queued, else the file an older process "	\
	  "mapped last; the next rescan queues the file again if it is still mapped")	\
	X(SFU_STAT_SIDECAR_REQ_FLUSHED, "sidecar_req_flushed",				\
	  "queued requests dropped unread: the daemon closed its device file")		\
	X(SFU_STAT_SIDECAR_REQ_HANDED, "sidecar_req_handed",				\
	  "requests handed to the daemon as a file descriptor "				\
	  "(``SFU_IOC_SIDECAR_NEXT``)")							\
	X(SFU_STAT_SIDECAR_REQ_OPEN_FAILED, "sidecar_req_open_failed",			\
	  "requests dropped: the file, mapped from a descriptor open for writing, "	\
	  "could not be opened again read-only")					\
	X(SFU_STAT_SIDECAR_RESCANS, "sidecar_rescans",					\
	  "``SFU_IOC_SIDECAR_RESCAN`` calls run: files found without a sidecar "	\
	  "forgotten, running processes scanned")					\
	X(SFU_STAT_SCAN_SKIPPED_BUSY, "scan_skipped_busy",				\
	  "scans of another process (module load, a write of ``sidecar_dir``, "		\
	  "``SFU_IOC_SIDECAR_RESCAN``) that left it, or part of it, because its "	\
	  "mmap lock was held: such a scan never waits for it")			\
	X(SFU_STAT_SCAN_SELF_QUEUED, "scan_self_queued",				\
	  "such processes asked to scan themselves, in a task_work before they "	\
	  "return to user space (once per process until it runs)")			\
	X(SFU_STAT_SCAN_SKIPPED_FUSE, "scan_skipped_fuse",				\
	  "executable mappings of a FUSE file that a scan of another process left "	\
	  "alone: its server could keep the read waiting for ever; the process "	\
	  "reads it when it maps it")							\
	X(SFU_STAT_ELF_UNREADABLE, "elf_unreadable",					\
	  "a file's ELF header, program headers, section or sidecar header that "	\
	  "could not be read whole: the end of the file came first, the read failed, "	\
	  "the reader was killed, or the file gave it in more than 4096 parts")		\
	X(SFU_STAT_READS_RESUMED, "reads_resumed",					\
	  "reads that ``kernel_read()`` cut short and that were finished by reading "	\
	  "on (9p gives at most its ``msize`` a call; NFS, FUSE and CIFS may stop "	\
	  "short too)")									\
	X(SFU_STAT_GO_FP_ONLY, "go_fp_only",						\
	  "Go programs without ``.sframe`` or sidecar given a section of no "		\
	  "functions, so that the unwinder takes their frame records; the sidecar "	\
	  "the daemon makes replaces it for the next mappings")				\
	X(SFU_STAT_FILE_CACHE_HITS, "file_cache_hits",					\
	  "mappings answered by the per-file cache, without reading the file")		\
	X(SFU_STAT_VALIDATIONS, "validations",						\
	  "sections read from their file and run through the decoder (first read, "	\
	  "and re-reads for a new kernel copy)")					\
	X(SFU_STAT_MMAP_EVENTS, "mmap_events",						\
	  "new file mappings of the current process that call for a scan: executable "	\
	  "ones, or any while one of its sections waits for its data")			\
	X(SFU_STAT_MMAP_KNOWN_WITHOUT, "mmap_known_without",				\
	  "new executable file mappings that queued no scan: the per-file cache "	\
	  "knows their file gives no section (no ``PT_GNU_SFRAME`` and no sidecar, "	\
	  "or a section that failed validation)")					\
	X(SFU_STAT_VMA_EVENTS, "vma_events",						\
	  "VMA removals or protection changes that newly marked sections stale")	\
	X(SFU_STAT_WORK_ALLOC_FAILED, "work_alloc_failed",				\
	  "scans, re-checks or fork rebuilds not queued: no memory for the task_work")	\
	X(SFU_STAT_MM_CREATED, "mm_created", "per-process registries created")		\
	X(SFU_STAT_MM_DESTROYED, "mm_destroyed",					\
	  "registries freed (after their RCU grace period)")				\
	X(SFU_STAT_FORKS_REBUILT, "forks_rebuilt",					\
	  "forks of a process with a registry, whose child rebuilds its own")		\
	X(SFU_STAT_LOOKUPS, "lookups",							\
	  "row lookups (``sfu_lookup_rules()``): one per frame the unwinder asks "	\
	  "SFrame about")								\
	X(SFU_STAT_LOOKUP_NO_SECTION, "lookup_no_section",				\
	  "lookups with no section covering the PC")					\
	X(SFU_STAT_LOOKUP_STALE, "lookup_stale",					\
	  "lookups whose section awaits a re-check")					\
	X(SFU_STAT_LOOKUP_BUSY, "lookup_busy",						\
	  "lookups in interrupt or NMI context that skipped a registry being changed")	\
	X(SFU_STAT_LOOKUP_FAULT, "lookup_fault",					\
	  "lookups ended by a fault reading the section")				\
	X(SFU_STAT_LOOKUP_ERROR, "lookup_error",					\
	  "lookups ended by bad section data (any decoder error but ``FAULT``, "	\
	  "``NO_FDE``, ``NO_FRE``, ``NO_INDEX``)")					\
	X(SFU_STAT_LOOKUP_UNINDEXED, "lookup_unindexed",				\
	  "lookups refused because the PC's function has more than 32 rows and its "	\
	  "section no FRE index: a section read from user memory (no kernel copy)")	\
	X(SFU_STAT_LOOKUP_USER, "lookup_user",						\
	  "reads of a section from user memory (no kernel copy); a faultable lookup "	\
	  "whose no-fault try faulted counts twice")					\
	X(SFU_STAT_KERNEL_COPIES_MADE, "kernel_copies_made",				\
	  "kernel copies made (file validated or re-read, ``SFU_IOC_REGISTER``)")	\
	X(SFU_STAT_KERNEL_COPIES_SHARED, "kernel_copies_shared",			\
	  "references taken to an existing kernel copy")				\
	X(SFU_STAT_KERNEL_COPY_OVER_BUDGET, "kernel_copy_over_budget",			\
	  "copies not made: ``max_kernel_bytes`` reached")				\
	X(SFU_STAT_KERNEL_COPY_OVER_USER_BUDGET, "kernel_copy_over_user_budget",	\
	  "copies not made: the user's ``max_kernel_bytes_per_user`` reached")		\
	X(SFU_STAT_KERNEL_COPY_CHARGE_MOVED, "kernel_copy_charge_moved",		\
	  "copies whose charge moved to another user whose sections hold them, when "	\
	  "the charged user's last section let go, or whose section took a "		\
	  "retained copy")								\
	X(SFU_STAT_KERNEL_COPIES_RETAINED, "kernel_copies_retained",			\
	  "copies retained for the next mapping of their file when their last "	\
	  "section let go (``max_kernel_bytes_retained``)")				\
	X(SFU_STAT_KERNEL_COPIES_RETAINED_REUSED, "kernel_copies_retained_reused",	\
	  "retained copies taken again by a new mapping of their file")		\
	X(SFU_STAT_KERNEL_COPIES_RETAINED_DROPPED, "kernel_copies_retained_dropped",	\
	  "retained copies let go: beyond ``max_kernel_bytes_retained``, to make "	\
	  "room within a budget, or their file forgotten by the file cache")		\
	X(SFU_STAT_ROW_CACHE_HITS, "row_cache_hits",					\
	  "lookups in kernel copies answered by the row cache")				\
	X(SFU_STAT_ROW_CACHE_MISSES, "row_cache_misses",				\
	  "lookups in kernel copies the decoder answered (row cache on)")

enum sfu_stat {
	SFU_STATS(SFU_COUNTER_ID)
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
