// SPDX-License-Identifier: GPL-2.0
/*
 * threads-heavy - four threads whose time goes to the C library (qsort()
 * with a callback, malloc()/free(), snprintf(), strtod()) through a few
 * frames of their own, and the main thread waiting in pthread_join(): a
 * threaded program for tests/e2e/unwind_differential.sh, whose signals
 * land in any of its threads.  Built as the other workloads.
 *
 *   threads-heavy SECONDS
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define NOINL __attribute__((noinline))
#define THREADS 4

static volatile unsigned long sink;
static double seconds = 5;

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static NOINL void sort_some(double *v, size_t n, unsigned int *seed)
{
	size_t i;

	for (i = 0; i < n; i++)
		v[i] = rand_r(seed) / 7.0;
	qsort(v, n, sizeof(*v), cmp_double);
	sink += (unsigned long)v[n / 2];
}

static NOINL void churn(unsigned int *seed)
{
	char *p[128];
	int i;

	for (i = 0; i < 128; i++)
		p[i] = malloc(24 + rand_r(seed) % 3000);
	for (i = 0; i < 128; i++)
		free(p[(i * 37) % 128]);
}

static NOINL void parse(char *buf, size_t len, unsigned long i)
{
	int k;

	for (k = 0; k < 16; k++) {
		snprintf(buf, len, "%lu.%02d e%d", i, k, k % 7);
		sink += (unsigned long)strtod(buf, NULL);
	}
}

static NOINL void one_round(unsigned long i, double *v, unsigned int *seed)
{
	char buf[64];

	sort_some(v, 400, seed);
	churn(seed);
	parse(buf, sizeof(buf), i);
}

static void *worker(void *arg)
{
	unsigned int seed = (unsigned int)(unsigned long)arg;
	struct timespec t0, t;
	double v[400];
	unsigned long i = 0;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		one_round(i++, v, &seed);
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while (t.tv_sec - t0.tv_sec + (t.tv_nsec - t0.tv_nsec) / 1e9 < seconds);
	return (void *)i;
}

int main(int argc, char **argv)
{
	pthread_t th[THREADS];
	unsigned long rounds = 0;
	void *r;
	int i;

	if (argc > 1)
		seconds = atof(argv[1]);
	for (i = 0; i < THREADS; i++)
		if (pthread_create(&th[i], NULL, worker, (void *)(unsigned long)(i + 1)))
			return 1;
	for (i = 0; i < THREADS; i++) {
		pthread_join(th[i], &r);
		rounds += (unsigned long)r;
	}
	printf("%lu rounds\n", rounds);
	return 0;
}
