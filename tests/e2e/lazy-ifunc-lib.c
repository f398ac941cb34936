// SPDX-License-Identifier: GPL-2.0
/*
 * A GNU IFUNC symbol whose resolver unwinds its own stack: called from a
 * program linked -z lazy through its PLT, the resolver runs inside ld.so's
 * _dl_fixup, under _dl_runtime_resolve_*, whose CFA is rbx + 32.  The
 * resolver makes the SFU_IOC_UNWIND_SELF system calls itself, without the
 * PLT (a call through it would bind lazily again, inside _dl_fixup), and
 * leaves the frames for the program to print (tests/e2e/lazy-ifunc.c).
 */
#include <stdint.h>

#include "../../include/uapi/sframe_unwind.h"

struct sfu_frame sfu_lazy_frames[64];
struct sfu_unwind sfu_lazy_req;
long sfu_lazy_err = -1;

static long sys3(long nr, long a, long b, long c)
{
	long ret;

	asm volatile("syscall" : "=a" (ret) : "0" (nr), "D" (a), "S" (b), "d" (c)
		     : "rcx", "r11", "memory");
	return ret;
}

static int lazy_target_impl(int x)
{
	return x + 1;
}

typedef int lazy_target_fn(int x);

static lazy_target_fn *lazy_target_resolve(void)
{
	static const char dev[] = "/dev/sframe_unwind";
	long fd = sys3(2, (long)dev, 2, 0);	/* open(dev, O_RDWR) */

	if (fd >= 0) {
		sfu_lazy_req.frames = (uintptr_t)sfu_lazy_frames;
		sfu_lazy_req.max = sizeof(sfu_lazy_frames) / sizeof(sfu_lazy_frames[0]);
		sfu_lazy_err = sys3(16, fd, SFU_IOC_UNWIND_SELF, (long)&sfu_lazy_req);
		sys3(3, fd, 0, 0);		/* close */
	} else {
		sfu_lazy_err = fd;
	}
	return lazy_target_impl;
}

int lazy_target(int x) __attribute__((ifunc("lazy_target_resolve")));
