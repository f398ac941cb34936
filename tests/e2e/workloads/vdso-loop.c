// SPDX-License-Identifier: GPL-2.0
/*
 * vdso-loop - a program that spends its time in clock_gettime(), that is
 * in the vDSO (reached through libc's clock_gettime): main -> spin ->
 * clock_gettime (libc) -> __vdso_clock_gettime.  Built -O2
 * -fomit-frame-pointer -Wa,--gsframe.
 *
 *   vdso-loop SECONDS
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static volatile long sink;

static __attribute__((noinline)) unsigned long spin(double seconds)
{
	struct timespec t0, t;
	unsigned long n = 0;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		clock_gettime(CLOCK_MONOTONIC, &t);
		sink += t.tv_nsec;
		n++;
	} while (t.tv_sec - t0.tv_sec + (t.tv_nsec - t0.tv_nsec) / 1e9 < seconds);
	return n;
}

int main(int argc, char **argv)
{
	printf("%lu calls\n", spin(argc > 1 ? atof(argv[1]) : 5));
	return 0;
}
