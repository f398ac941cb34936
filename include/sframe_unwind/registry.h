/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Per-mm SFrame registry: which section describes which user text.
 *
 * Filled at mmap time for every executable file mapping whose ELF file has
 * PT_GNU_SFRAME, and through SFU_IOC_REGISTER for code without a file;
 * emptied at munmap, exec and exit.  Lookups are lock-free (RCU) and safe
 * from any context, NMI included.
 */
#ifndef _SFRAME_UNWIND_REGISTRY_H
#define _SFRAME_UNWIND_REGISTRY_H

#include <linux/types.h>

struct mm_struct;
struct sframe_row;

int sfu_registry_init(void);
void sfu_registry_stop(void);
void sfu_registry_exit(void);

int sfu_find_row(struct mm_struct *mm, unsigned long pc, bool nofault,
		 struct sframe_row *row);

int sfu_registry_add(struct mm_struct *mm, unsigned long sframe_addr, unsigned long sframe_size,
		     unsigned long text_start, unsigned long text_end, int *sframe_err);
int sfu_registry_remove(struct mm_struct *mm, unsigned long text_start);
int sfu_registry_sync(struct mm_struct *mm, pid_t tgid);

#endif /* _SFRAME_UNWIND_REGISTRY_H */
