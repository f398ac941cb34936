// SPDX-License-Identifier: GPL-2.0
/*
 * libc-heavy - a program whose time goes to the C library: qsort() with a
 * callback, memcpy(), malloc()/free() and snprintf(), each reached through
 * a few frames of its own, so that a callchain is complete only if the
 * unwinder gets through libc (and, for qsort, back out of it through the
 * callback's caller).  Built -O2 -fomit-frame-pointer -Wa,--gsframe: the
 * program has .sframe, the C library only .eh_frame.
 *
 *   libc-heavy SECONDS
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "touch-eh-frame-hdr.h"

#define NOINL __attribute__((noinline))

static volatile unsigned long sink;

static int cmp_long(const void *a, const void *b)
{
	long x = *(const long *)a, y = *(const long *)b;

	return (x > y) - (x < y);
}

static NOINL void do_sort(long *v, size_t n, unsigned int seed)
{
	size_t i;

	for (i = 0; i < n; i++)
		v[i] = (long)(rand_r(&seed) % 100000);
	qsort(v, n, sizeof(*v), cmp_long);
	sink += v[n / 2];
}

static NOINL void do_copy(char *dst, const char *src, size_t n)
{
	int i;

	for (i = 0; i < 64; i++) {
		memcpy(dst, src, n);
		sink += dst[i];
	}
}

static NOINL void do_alloc(void)
{
	void *p[256];
	int i;

	for (i = 0; i < 256; i++)
		p[i] = malloc(16 + (i * 37) % 2000);
	for (i = 0; i < 256; i++)
		free(p[255 - i]);
}

static NOINL void do_format(char *buf, size_t len, unsigned long i)
{
	int k;

	for (k = 0; k < 32; k++)
		sink += snprintf(buf, len, "%lu %s %f %08x", i, "libc-heavy",
				 (double)i / 3.0, (unsigned int)(i * k));
}

static NOINL void round_robin(unsigned long i, long *v, char *a, char *b)
{
	do_sort(v, 512, (unsigned int)i);
	do_copy(a, b, 1 << 16);
	do_alloc();
	do_format(a, 256, i);
}

int main(int argc, char **argv)
{
	double seconds = argc > 1 ? atof(argv[1]) : 5;
	static long v[512];
	static char a[1 << 16], b[1 << 16];
	struct timespec t0, t;
	unsigned long i = 0;

	touch_eh_frame_hdrs();
	memset(b, 'x', sizeof(b));
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		round_robin(i++, v, a, b);
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while (t.tv_sec - t0.tv_sec + (t.tv_nsec - t0.tv_nsec) / 1e9 < seconds);
	printf("%lu rounds\n", i);
	return 0;
}
