// SPDX-License-Identifier: GPL-2.0
/*
 * signal-hot - a program whose hot code runs inside a signal handler: an
 * interval timer raises SIGPROF every 10 ms of CPU time (ITIMER_PROF) and
 * the handler spins for 8 ms of it, so that most samples
 * land in handler -> (the kernel's signal frame, glibc's __restore_rt) ->
 * the interrupted code -> main.  Built -O2 -fomit-frame-pointer
 * -Wa,--gsframe.
 *
 *   signal-hot SECONDS
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>

#define NOINL __attribute__((noinline))

static volatile unsigned long sink;
static volatile sig_atomic_t handled;

static double cpu_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

/*
 * Shorter than the timer's interval: a handler that outlasts it would find
 * the next signal pending at every return, and the program would never
 * leave it.
 */
static NOINL void hot_in_handler(void)
{
	double end = cpu_ms() + 8;
	unsigned long i = 0;

	do {
		for (int k = 0; k < 2000; k++, i++)
			sink += i ^ (i >> 3);
	} while (cpu_ms() < end);
}

static void on_prof(int sig)
{
	(void)sig;
	hot_in_handler();
	handled++;
}

/*
 * The code signals interrupt: its own loop, with the clock read once every
 * 200000 iterations, so that signals land in this program's code rather
 * than in the vDSO's (which the vdso-loop workload is about; on arm64 the
 * vDSO has no unwind information at all).
 */
static NOINL void interrupted(double seconds)
{
	struct timespec t0, t;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		for (int k = 0; k < 200000; k++)
			sink++;
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while (t.tv_sec - t0.tv_sec + (t.tv_nsec - t0.tv_nsec) / 1e9 < seconds);
}

int main(int argc, char **argv)
{
	struct itimerval it = { { 0, 10000 }, { 0, 10000 } };
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_prof;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGPROF, &sa, NULL) || setitimer(ITIMER_PROF, &it, NULL)) {
		perror("signal-hot");
		return 1;
	}
	interrupted(argc > 1 ? atof(argv[1]) : 5);
	printf("%d signals handled\n", (int)handled);
	return 0;
}
