/* SPDX-License-Identifier: GPL-2.0 */
/*
 * touch_eh_frame_hdrs() - fault in every loaded object's .eh_frame_hdr
 *
 * What a program that throws a C++ exception or calls backtrace() leaves
 * behind: the search tables of its objects present in its page tables.
 * The frame-pointer checks read them, where present, for the starts of
 * functions (unwind/fn_bounds.c); whether they are present otherwise
 * depends on the page cache and on fault-around, so the -fp workloads
 * (built with -DSFU_TOUCH_EH_FRAME_HDR) make it so for every run.
 */
#ifndef SFU_TOUCH_EH_FRAME_HDR_H
#define SFU_TOUCH_EH_FRAME_HDR_H

#ifdef SFU_TOUCH_EH_FRAME_HDR
#include <link.h>
#include <unistd.h>

static int touch_eh_frame_hdr(struct dl_phdr_info *info, size_t size, void *data)
{
	unsigned long page = (unsigned long)sysconf(_SC_PAGESIZE), off;
	unsigned long *sum = (unsigned long *)data;
	const unsigned char *p;
	int i;

	(void)size;
	for (i = 0; i < info->dlpi_phnum; i++) {
		if (info->dlpi_phdr[i].p_type != PT_GNU_EH_FRAME)
			continue;
		p = (const unsigned char *)(info->dlpi_addr + info->dlpi_phdr[i].p_vaddr);
		for (off = 0; off < info->dlpi_phdr[i].p_memsz; off += page)
			*sum += p[off];
		*sum += p[info->dlpi_phdr[i].p_memsz - 1];
	}
	return 0;
}

/* Returns the bytes' sum, which the callback stores where its caller sees it. */
static unsigned long touch_eh_frame_hdrs(void)
{
	unsigned long sum = 0;

	dl_iterate_phdr(touch_eh_frame_hdr, &sum);
	return sum;
}
#else
static inline unsigned long touch_eh_frame_hdrs(void)
{
	return 0;
}
#endif

#endif /* SFU_TOUCH_EH_FRAME_HDR_H */
