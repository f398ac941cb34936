// SPDX-License-Identifier: GPL-2.0
/*
 * idle-threads - many threads, each asked about once by the deferred
 * unwinder, then idle (tests/e2e/deferred_corners.sh):
 *
 *   idle-threads TRIGGER N
 *
 * Arms TRIGGER (<debugfs>/sframe_unwind/trigger) on its own process at
 * getppid(), starts N threads that each call getppid() once (a deferred
 * request, served before the call returns) and then block, disarms the
 * trigger, prints "ready N", and keeps its threads until its standard
 * input ends.  Exit status 1 on any error.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

static int served;
static int block_fds[2];

static void *thread_fn(void *arg)
{
	char c;

	(void)arg;
	syscall(SYS_getppid);
	__atomic_add_fetch(&served, 1, __ATOMIC_SEQ_CST);
	/* Idle until the process ends: nobody writes to the pipe. */
	while (read(block_fds[0], &c, 1) < 0)
		;
	return NULL;
}

static int trigger(const char *path, const char *what)
{
	FILE *f = fopen(path, "w");
	int ok;

	if (!f) {
		perror(path);
		return -1;
	}
	ok = fputs(what, f) >= 0;
	if (fclose(f) || !ok) {
		perror(path);
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	pthread_attr_t attr;
	char arm[64], c;
	int i, n;

	n = argc == 3 ? atoi(argv[2]) : 0;
	if (n <= 0) {
		fprintf(stderr, "usage: idle-threads TRIGGER N\n");
		return 1;
	}
	/* Small stacks (arm64's PTHREAD_STACK_MIN is 128 KiB): 1,100 threads fit anywhere. */
	if (pipe(block_fds) || pthread_attr_init(&attr) ||
	    pthread_attr_setstacksize(&attr, 256 << 10)) {
		fprintf(stderr, "idle-threads: cannot set up its threads\n");
		return 1;
	}
	snprintf(arm, sizeof(arm), "sys_enter pid=%d nr=%d", getpid(), SYS_getppid);
	if (trigger(argv[1], arm))
		return 1;
	for (i = 0; i < n; i++) {
		pthread_t t;

		if (pthread_create(&t, &attr, thread_fn, NULL)) {
			perror("pthread_create");
			trigger(argv[1], "off");
			return 1;
		}
	}
	while (__atomic_load_n(&served, __ATOMIC_SEQ_CST) < n)
		usleep(10000);
	if (trigger(argv[1], "off"))
		return 1;
	printf("ready %d\n", n);
	fflush(stdout);
	while (read(0, &c, 1) > 0)
		;
	return 0;
}
