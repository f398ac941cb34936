// SPDX-License-Identifier: GPL-2.0
/*
 * bench - cost per frame of SFrame and frame-pointer unwinding.
 *
 * Built with both frame pointers and .sframe, so that the two unwinders
 * walk the very same stack: a recursion DEPTH frames deep, whose innermost
 * frame makes SFU_IOC_UNWIND_SELF system calls itself (libc's ioctl() has
 * no .sframe).  Each mode is timed at two depths; the difference divided
 * by the difference in frames is the cost of one frame, free of the
 * system call's fixed cost.  Prints one line per mode and the ratios.
 *
 *   bench [iterations]
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../../include/uapi/sframe_unwind.h"

#define DEEP	64
#define SHALLOW	8
#define MAX	(DEEP + 16)

static int dev;
static unsigned long iterations = 2000;
static struct sfu_frame frames[MAX];

/* ioctl(2) without libc, so that the innermost frame has SFrame too. */
static long sys_ioctl(int fd, unsigned long cmd, void *arg)
{
	long ret;
#if defined(__x86_64__)
	asm volatile("syscall" : "=a" (ret) : "0" (16L), "D" ((long)fd), "S" (cmd), "d" (arg)
		     : "rcx", "r11", "memory");
#elif defined(__aarch64__)
	register long x0 asm("x0") = fd;
	register long x1 asm("x1") = (long)cmd;
	register long x2 asm("x2") = (long)arg;
	register long x8 asm("x8") = 29;

	asm volatile("svc #0" : "+r" (x0) : "r" (x1), "r" (x2), "r" (x8) : "memory");
	ret = x0;
#endif
	return ret;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

struct run {
	unsigned int flags;
	unsigned int depth;	/* frames of the recursion */
	unsigned int nr;	/* frames the unwinder stored */
	double seconds;
};

/* Unwind from here @iterations times; the walk is bounded to the recursion. */
static __attribute__((noinline)) void measure(struct run *r)
{
	struct sfu_unwind u = {
		.frames = (uintptr_t)frames, .max = r->depth + 1, .flags = r->flags,
	};
	unsigned long i;
	double t0 = now();

	for (i = 0; i < iterations; i++) {
		if (sys_ioctl(dev, SFU_IOC_UNWIND_SELF, &u)) {
			fprintf(stderr, "bench: SFU_IOC_UNWIND_SELF failed\n");
			exit(1);
		}
	}
	r->seconds = now() - t0;
	r->nr = u.nr;
}

static __attribute__((noinline)) int recurse(struct run *r, unsigned int n)
{
	volatile int pad = n;

	if (n)
		return recurse(r, n - 1) + pad;
	measure(r);
	return pad;
}

/* Nanoseconds per frame: the slope between the shallow and the deep stack. */
static double per_frame(unsigned int flags, unsigned int *nr_deep)
{
	struct run deep = { .flags = flags, .depth = DEEP };
	struct run shallow = { .flags = flags, .depth = SHALLOW };

	recurse(&shallow, SHALLOW);
	recurse(&deep, DEEP);
	*nr_deep = deep.nr;
	if (deep.nr <= shallow.nr)
		return 0;
	return (deep.seconds - shallow.seconds) * 1e9 / iterations / (deep.nr - shallow.nr);
}

int main(int argc, char **argv)
{
	static const struct {
		const char *name;
		unsigned int flags;
	} modes[] = {
		{ "sframe", SFU_UNWIND_NO_FP },
		{ "fp", SFU_UNWIND_NO_SFRAME },
		{ "sframe-nofault", SFU_UNWIND_NO_FP | SFU_UNWIND_NOFAULT },
		{ "fp-nofault", SFU_UNWIND_NO_SFRAME | SFU_UNWIND_NOFAULT },
	};
	double ns[4];
	unsigned int i, nr;

	if (argc > 1)
		iterations = strtoul(argv[1], NULL, 0);
	dev = open("/dev/sframe_unwind", O_RDWR);
	if (dev < 0) {
		perror("bench: /dev/sframe_unwind");
		return 1;
	}
	/* Warm up: fault in the stack, the section and the code. */
	per_frame(0, &nr);
	for (i = 0; i < 4; i++) {
		ns[i] = per_frame(modes[i].flags, &nr);
		printf("%-15s %8.1f ns/frame  (%u frames at depth %u, %lu unwinds)\n",
		       modes[i].name, ns[i], nr, DEEP, iterations);
		if (nr < DEEP) {
			fprintf(stderr, "bench: %s unwound only %u frames\n", modes[i].name, nr);
			return 1;
		}
	}
	printf("ratio sframe/fp          %.2f\n", ns[1] > 0 ? ns[0] / ns[1] : 0);
	printf("ratio sframe/fp nofault  %.2f\n", ns[3] > 0 ? ns[2] / ns[3] : 0);
	return 0;
}
