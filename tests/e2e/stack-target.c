// SPDX-License-Identifier: GPL-2.0
/*
 * stack-target - a process whose threads block at known stacks, for
 * tools/sframe-stack (tests/e2e/sframe_stack.sh):
 *
 *   main -> outer -> middle -> inner -> pause()
 *   a thread: worker -> worker_inner -> nanosleep()
 *
 * Built -O2 -fomit-frame-pointer with .sframe; the functions are noinline
 * and each does work after its call, so none is a tail call.  It prints
 * "ready PID TID" once both threads are about to block, then blocks until
 * killed.
 */
#include <pthread.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static volatile int sink;
static volatile int thread_ready;

__attribute__((noinline)) static void worker_inner(void)
{
	struct timespec ts = { 3600, 0 };

	thread_ready = 1;
	while (nanosleep(&ts, &ts) == 0 || 1)
		sink++;
}

__attribute__((noinline)) static void *worker(void *arg)
{
	worker_inner();
	sink += (int)(long)arg;
	return NULL;
}

__attribute__((noinline)) static void inner(void)
{
	for (;;)
		pause();
}

__attribute__((noinline)) static void middle(void)
{
	inner();
	sink++;
}

__attribute__((noinline)) static void outer(void)
{
	middle();
	sink++;
}

int main(void)
{
	pthread_t t;

	if (pthread_create(&t, NULL, worker, NULL))
		return 1;
	while (!thread_ready)
		usleep(1000);
	usleep(100000);
	printf("ready %d %ld\n", getpid(), (long)syscall(SYS_gettid));
	fflush(stdout);
	outer();
	return sink;
}
