// SPDX-License-Identifier: GPL-2.0
/*
 * bench - cost per frame of SFrame and frame-pointer unwinding.
 *
 * Built with both frame pointers and .sframe, so that the two unwinders
 * walk the very same stack: a recursion DEPTH frames deep, whose innermost
 * frame makes SFU_IOC_UNWIND_SELF system calls itself (libc's ioctl() has
 * no .sframe).  Each mode is timed at two depths; the difference divided
 * by the difference in frames is the cost of one frame, free of the
 * system call's fixed cost.  The modes take turns, in many short rounds,
 * and each keeps its best time at each depth: load on the machine (TCG
 * guests share their host) comes in bursts, and the best of many short
 * rounds is the one it spared.  SFrame is timed with the
 * module's row cache on and off (the row_cache parameter, when the module
 * has it).  Prints one line per mode and the ratios.
 *
 *   bench [iterations [mode|all [rounds]]]
 *         (mode: sframe, fp, sframe-nofault, fp-nofault, sframe-uncached,
 *          sframe-nofault-uncached; default 1000 iterations, 15 rounds)
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
#include "../../include/sframe_unwind/stop_names.h"

static const char *const stop_names[SFU_STOP_NR] = SFU_STOP_NAMES_INIT;

#if defined(__x86_64__)
#define ARCH	"x86_64"
#else
#define ARCH	"arm64"
#endif

#define DEEP	64
#define SHALLOW	8
#define MAX	(DEEP + 16)
#define ROW_CACHE "/sys/module/sframe_unwind/parameters/row_cache"

static int dev;
static unsigned long iterations = 1000;
static unsigned int rounds = 15;
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
	unsigned int depth;	/* functions of the chain on the stack */
	unsigned int nr;	/* frames the unwinder stored */
	unsigned int stop;	/* why it stopped (SFU_STOP_*) */
	double seconds;
};

/* Unwind from here @iterations times; the walk is bounded to the chain. */
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
	r->stop = u.stop_reason;
}

/*
 * DEEP distinct functions, so that every frame is a lookup of its own
 * (a recursion would look up the same row over and over): fn_k calls
 * fn_{k+1}, the last one measures.  Starting at fn_{DEEP - depth} gives a
 * stack of depth of them.
 */
typedef int (*bench_fn)(struct run *r);
static const bench_fn chain[DEEP + 1];

#define BENCH_FN(a, b)							\
static __attribute__((noinline)) int fn_##a##_##b(struct run *r)	\
{									\
	volatile int pad = (a) * 8 + (b);				\
									\
	return chain[(a) * 8 + (b) + 1](r) + pad;			\
}

#define BENCH_FN8(a)	BENCH_FN(a, 0) BENCH_FN(a, 1) BENCH_FN(a, 2) BENCH_FN(a, 3) \
			BENCH_FN(a, 4) BENCH_FN(a, 5) BENCH_FN(a, 6) BENCH_FN(a, 7)
BENCH_FN8(0) BENCH_FN8(1) BENCH_FN8(2) BENCH_FN8(3)
BENCH_FN8(4) BENCH_FN8(5) BENCH_FN8(6) BENCH_FN8(7)

/*
 * Not a tail call: GCC for AArch64 would pop last()'s frame record and
 * branch to measure(), which lies below it, and a frame-pointer walk
 * does not follow a tail call to a function before the one called
 * (Documentation/unwinder.rst): it would stop after one frame.
 */
static __attribute__((noinline)) int last(struct run *r)
{
	measure(r);
	asm volatile("" ::: "memory");
	return 0;
}

#define F8(a)	fn_##a##_0, fn_##a##_1, fn_##a##_2, fn_##a##_3, \
		fn_##a##_4, fn_##a##_5, fn_##a##_6, fn_##a##_7
static const bench_fn chain[DEEP + 1] = {
	F8(0), F8(1), F8(2), F8(3), F8(4), F8(5), F8(6), F8(7), last,
};

static int recurse(struct run *r, unsigned int depth)
{
	return chain[DEEP - depth](r);
}

/*
 * Time @flags at both depths; keep the best time of each in @best (the
 * first round fills it).  Return: frames stored at depth DEEP, and in
 * *@stop why that walk stopped.
 */
static unsigned int measure_both(unsigned int flags, struct run best[2], int first,
				 unsigned int *stop)
{
	struct run deep = { .flags = flags, .depth = DEEP };
	struct run shallow = { .flags = flags, .depth = SHALLOW };

	recurse(&shallow, SHALLOW);
	recurse(&deep, DEEP);
	if (first || shallow.seconds < best[0].seconds)
		best[0] = shallow;
	if (first || deep.seconds < best[1].seconds)
		best[1] = deep;
	*stop = deep.stop;
	return deep.nr;
}

/* Nanoseconds per frame: the slope between the shallow and the deep stack. */
static double slope(const struct run best[2])
{
	if (best[1].nr <= best[0].nr)
		return 0;
	return (best[1].seconds - best[0].seconds) * 1e9 / iterations /
	       (best[1].nr - best[0].nr);
}

/* Turn the module's row cache on or off; false if it has none. */
static int row_cache(int on)
{
	int fd = open(ROW_CACHE, O_WRONLY);
	int ok;

	if (fd < 0)
		return 0;
	ok = write(fd, on ? "1" : "0", 1) == 1;
	close(fd);
	return ok;
}

int main(int argc, char **argv)
{
	static const struct {
		const char *name;
		unsigned int flags;
		int uncached;
	} modes[] = {
		{ "sframe", SFU_UNWIND_NO_FP, 0 },
		{ "fp", SFU_UNWIND_NO_SFRAME, 0 },
		{ "sframe-nofault", SFU_UNWIND_NO_FP | SFU_UNWIND_NOFAULT, 0 },
		{ "fp-nofault", SFU_UNWIND_NO_SFRAME | SFU_UNWIND_NOFAULT, 0 },
		{ "sframe-uncached", SFU_UNWIND_NO_FP, 1 },
		{ "sframe-nofault-uncached", SFU_UNWIND_NO_FP | SFU_UNWIND_NOFAULT, 1 },
	};
	struct run best[6][2];
	const char *only = NULL, *unit;
	double ns[6] = { 0 };
	unsigned int i, r, nr[6] = { 0 }, nmodes = 6, stop;
	unsigned long n;

	if (argc > 1)
		iterations = strtoul(argv[1], NULL, 0);
	if (argc > 2 && strcmp(argv[2], "all"))
		only = argv[2];
	if (argc > 3)
		rounds = strtoul(argv[3], NULL, 0) ?: 1;
	dev = open("/dev/sframe_unwind", O_RDWR);
	if (dev < 0) {
		perror("bench: /dev/sframe_unwind");
		return 1;
	}
	if (!row_cache(1))
		nmodes = 4;
	/* Warm up: fault in the stack, the section and the code. */
	n = iterations;
	iterations = 20;
	measure_both(0, best[0], 1, &stop);
	iterations = n;
	for (r = 0; r < rounds; r++) {
		for (i = 0; i < nmodes; i++) {
			if (only && strcmp(only, modes[i].name))
				continue;
			if (modes[i].uncached)
				row_cache(0);
			nr[i] = measure_both(modes[i].flags, best[i], !r, &stop);
			if (modes[i].uncached)
				row_cache(1);
			if (nr[i] < DEEP) {
				fprintf(stderr, "bench: %s unwound only %u frames (stop: %s)\n",
					modes[i].name, nr[i],
					stop < SFU_STOP_NR ? stop_names[stop] : "?");
				return 1;
			}
		}
	}
	for (i = 0; i < nmodes; i++)
		if (!only || !strcmp(only, modes[i].name))
			ns[i] = slope(best[i]);
	/* Under QEMU's -icount the guest's clock counts instructions. */
	unit = getenv("SFU_CLOCK") && !strcmp(getenv("SFU_CLOCK"), "icount") ?
	       "insns/frame" : "ns/frame";
	for (i = 0; i < nmodes; i++)
		if (!only || !strcmp(only, modes[i].name))
			printf("%-23s %8.1f %s  (%u frames at depth %u, best of %u x %lu)\n",
			       modes[i].name, ns[i], unit, nr[i], DEEP, rounds, iterations);
	printf("ratio unwind %s sframe/fp                   %.3f\n", ARCH,
	       ns[1] > 0 ? ns[0] / ns[1] : 0);
	printf("ratio unwind %s sframe/fp nofault           %.3f\n", ARCH,
	       ns[3] > 0 ? ns[2] / ns[3] : 0);
	if (nmodes > 4) {
		printf("ratio unwind %s sframe/fp uncached          %.3f\n", ARCH,
		       ns[1] > 0 ? ns[4] / ns[1] : 0);
		printf("ratio unwind %s sframe/fp nofault uncached  %.3f\n", ARCH,
		       ns[3] > 0 ? ns[5] / ns[3] : 0);
	}
	return 0;
}
