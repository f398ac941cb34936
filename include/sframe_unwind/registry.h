/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Per-mm registry: which unwind rows describe which user text.
 *
 * Filled at mmap time for every executable file mapping whose ELF file has
 * PT_GNU_SFRAME, and through SFU_IOC_REGISTER for code without a file;
 * emptied at munmap, exec and exit.  Lookups are lock-free (RCU) and safe
 * from any context, NMI included, and answer with format-neutral rules
 * (sframe_unwind/rules.h): no caller of this header sees a format.
 *
 * The layer's interface to the unwinder, the consumers and module init.
 * It calls only the format (sframe/) and the helpers of lib/.
 */
#ifndef _SFRAME_UNWIND_REGISTRY_H
#define _SFRAME_UNWIND_REGISTRY_H

#include <linux/types.h>

#include "sframe_unwind/rules.h"

struct mm_struct;
struct sfu_mm;
struct sfu_section;

/**
 * struct sfu_lookup_counts - lookups not yet added to the stats counters
 * @lookups: row lookups (SFU_STAT_LOOKUPS)
 * @rowc_hits: answered by the per-CPU rules cache (SFU_STAT_ROW_CACHE_HITS)
 * @rowc_misses: answered by the decoder, cache on (SFU_STAT_ROW_CACHE_MISSES)
 *
 * A series of lookups counts in here and adds to the per-CPU counters once,
 * when it ends, instead of once or twice a frame.
 */
struct sfu_lookup_counts {
	unsigned int lookups;
	unsigned int rowc_hits;
	unsigned int rowc_misses;
};

/**
 * struct sfu_lookup - state shared by a series of lookups (one unwind)
 * @mm: the mm looked up in
 * @task: the task whose memory a section without a kernel copy is read
 *        from when @mm is not the current one (sfu_lookup_begin_remote()),
 *        else NULL
 * @smm: its registry, once found
 * @section: the section the last lookup found, valid while @rcu
 * @rcu: the cache is inside an RCU read-side section
 * @uncovered: the last lookup's PC was in a section's text, covered by no
 *             function of it (sfu_lookup_uncovered())
 * @counts: what the lookups count, added to the stats on release
 *
 * Opaque to callers: sfu_lookup_begin() or sfu_lookup_begin_remote(),
 * sfu_lookup_rules(), sfu_lookup_uncovered(),
 * sfu_lookup_end().
 */
struct sfu_lookup {
	struct mm_struct *mm;
	struct task_struct *task;
	struct sfu_mm *smm;
	const struct sfu_section *section;
	bool rcu;
	bool uncovered;
	struct sfu_lookup_counts counts;
};

/**
 * struct sfu_registry_memory - what the registry holds
 * @sections: sections registered in all mms
 * @kernel_copies: kernel copies of sections (one per file, shared)
 * @kernel_copy_bytes: their bytes, counted against max_kernel_bytes
 * @max_kernel_bytes: the budget (module parameter)
 * @retained_copies: of @kernel_copies, those no section holds, retained
 *                   for the next mapping of their file
 * @retained_bytes: their bytes, part of @kernel_copy_bytes
 */
struct sfu_registry_memory {
	unsigned int sections;
	unsigned int kernel_copies;
	unsigned long kernel_copy_bytes;
	unsigned long max_kernel_bytes;
	unsigned int retained_copies;
	unsigned long retained_bytes;
};

int sfu_registry_init(void);
void sfu_registry_stop(void);
void sfu_registry_exit(void);

void sfu_lookup_begin(struct sfu_lookup *c, struct mm_struct *mm);
void sfu_lookup_begin_remote(struct sfu_lookup *c, struct task_struct *task,
			     struct mm_struct *mm);
int sfu_lookup_rules(struct sfu_lookup *c, unsigned long pc, bool nofault,
		     struct sfu_frame_rules *rules);
bool sfu_lookup_uncovered(const struct sfu_lookup *c);
void sfu_lookup_end(struct sfu_lookup *c);

int sfu_registry_add(struct mm_struct *mm, unsigned long sframe_addr, unsigned long sframe_size,
		     unsigned long text_start, unsigned long text_end, int *sframe_err);
int sfu_registry_remove(struct mm_struct *mm, unsigned long text_start);
void sfu_registry_memory(struct sfu_registry_memory *mem);

struct sfu_sidecar_request;
int sfu_sidecar_queue_attach(const void *owner, unsigned long flags);
void sfu_sidecar_queue_detach(const void *owner);
struct file *sfu_sidecar_queue_next(const void *owner, long timeout,
				    struct sfu_sidecar_request *out);
void sfu_sidecar_rescan(void);

#endif /* _SFRAME_UNWIND_REGISTRY_H */
