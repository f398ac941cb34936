// SPDX-License-Identifier: GPL-2.0
/*
 * A program whose own code is built with -Wa,--gsframe and linked
 * statically: its .sframe covers main(), work() and cmp(), while qsort(),
 * memcpy(), snprintf() and the start-up code come from libc.a, built
 * without --gsframe, and have .eh_frame only (tests/sframe-gen/static-libc).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N 64

static int cmp(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

int work(int n)
{
	int v[N], w[N];
	char buf[64];
	int i;

	for (i = 0; i < N; i++)
		v[i] = (i * 7919 + n) % 101;
	qsort(v, N, sizeof(v[0]), cmp);
	memcpy(w, v, sizeof(w));
	snprintf(buf, sizeof(buf), "%d %d", w[0], w[N - 1]);
	return (int)strlen(buf);
}

int main(int argc, char **argv)
{
	(void)argv;
	return work(argc) == 0;
}
