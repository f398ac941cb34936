// SPDX-License-Identifier: GPL-2.0
/*
 * timed - run a program and print how long it ran, in the guest's
 * CLOCK_MONOTONIC nanoseconds (instructions when the guest runs under
 * QEMU's -icount: scripts/vm-run --icount):
 *
 *   timed OUT PROG [ARG...]     runs PROG, writes "<ns>\n" to OUT
 *
 * Static, so that with PROG static too and both on a tmpfs nothing in the
 * timed span waits for a file system on the host (tests/e2e/bench-perf).
 * Exits with PROG's status.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

int main(int argc, char **argv)
{
	long long start, end;
	int status;
	FILE *out;
	pid_t pid;

	if (argc < 3) {
		fprintf(stderr, "usage: timed OUT PROG [ARG...]\n");
		return 2;
	}
	start = now_ns();
	pid = fork();
	if (pid < 0) {
		perror("fork");
		return 2;
	}
	if (!pid) {
		execv(argv[2], argv + 2);
		perror(argv[2]);
		_exit(127);
	}
	if (waitpid(pid, &status, 0) != pid) {
		perror("waitpid");
		return 2;
	}
	end = now_ns();
	out = fopen(argv[1], "w");
	if (!out || fprintf(out, "%lld\n", end - start) < 0 || fclose(out)) {
		perror(argv[1]);
		return 2;
	}
	return WIFEXITED(status) ? WEXITSTATUS(status) : 2;
}
