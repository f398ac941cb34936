// SPDX-License-Identifier: GPL-2.0
/*
 * perf-callchain-check - the kernel's native perf callchains of a fixture
 * program, without the perf tool (the arm64 guest has none).
 *
 *   perf-callchain-check BIN ITERATIONS
 *
 * Runs BIN ITERATIONS (tests/fixtures/src/chain.c: main -> f1 .. f8 ->
 * leaf, which spins) with a cpu-clock sampling event (user only,
 * PERF_SAMPLE_IP | PERF_SAMPLE_CALLCHAIN, every 0.5 ms of CPU time) opened
 * on it before its exec, reads the samples from the ring buffer when it
 * has exited, and compares the callchain of every sample in leaf with the return addresses
 * the program prints.  Prints "LEAF COMPLETE": the samples in leaf, and
 * those whose chain holds exactly leaf's return address into f8 up to
 * f1's into main.  Exit status 0 unless something failed to run.
 */
#define _GNU_SOURCE
#include <linux/perf_event.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define FRAMES		10	/* main, f1 .. f8, leaf */
#define DATA_PAGES	512	/* ring buffer: 2 MiB of 4 KiB pages */

static void die(const char *what)
{
	perror(what);
	exit(2);
}

int main(int argc, char **argv)
{
	__u64 entry[FRAMES] = {}, ret[FRAMES + 1] = {}, leaf_lo, leaf_hi;
	unsigned long leaf = 0, complete = 0;
	struct perf_event_attr attr;
	struct perf_event_mmap_page *meta;
	int go[2], out[2], fd, status, i;
	size_t page = sysconf(_SC_PAGESIZE);
	char line[256], *data;
	__u64 head, pos;
	FILE *child_out;
	pid_t pid;

	if (argc != 3) {
		fprintf(stderr, "usage: %s BIN ITERATIONS\n", argv[0]);
		return 2;
	}
	if (pipe(go) || pipe(out))
		die("pipe");

	pid = fork();
	if (pid < 0)
		die("fork");
	if (!pid) {
		char c;

		/* Wait until the event is open, then become the program. */
		close(go[1]);
		if (read(go[0], &c, 1) != 1)
			_exit(2);
		dup2(out[1], 1);
		execl(argv[1], argv[1], argv[2], (char *)NULL);
		_exit(2);
	}
	close(go[0]);
	close(out[1]);

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_SOFTWARE;
	attr.config = PERF_COUNT_SW_CPU_CLOCK;
	/* A fixed period: frequency mode wanders under emulation. */
	attr.sample_period = 500000;
	attr.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_CALLCHAIN;
	attr.exclude_kernel = 1;
	attr.exclude_hv = 1;
	attr.exclude_callchain_kernel = 1;
	attr.disabled = 1;
	attr.enable_on_exec = 1;
	fd = syscall(SYS_perf_event_open, &attr, pid, -1, -1, 0);
	if (fd < 0)
		die("perf_event_open");
	meta = mmap(NULL, (DATA_PAGES + 1) * page, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (meta == MAP_FAILED)
		die("mmap");
	if (write(go[1], "x", 1) != 1)
		die("write");
	close(go[1]);

	child_out = fdopen(out[0], "r");
	if (!child_out)
		die("fdopen");
	while (fgets(line, sizeof(line), child_out)) {
		unsigned long long e, r;
		int n;

		/* "frame <n> <name> entry=<addr> cfa=<addr> ret=<addr>" */
		if (sscanf(line, "frame %d %*s entry=%llx cfa=%*s ret=%llx", &n, &e, &r) == 3 &&
		    n >= 0 && n < FRAMES) {
			entry[FRAMES - 1 - n] = e;
			ret[n + 1] = r;
		}
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status)) {
		fprintf(stderr, "%s did not run to completion\n", argv[1]);
		return 2;
	}
	if (!entry[FRAMES - 1]) {
		fprintf(stderr, "%s printed no frames\n", argv[1]);
		return 2;
	}

	/* leaf runs from its entry to the next function's. */
	leaf_lo = entry[FRAMES - 1];
	leaf_hi = leaf_lo + 4096;
	for (i = 0; i < FRAMES - 1; i++)
		if (entry[i] > leaf_lo && entry[i] < leaf_hi)
			leaf_hi = entry[i];

	data = (char *)meta + page;
	head = __atomic_load_n(&meta->data_head, __ATOMIC_ACQUIRE);
	if (head > (__u64)DATA_PAGES * page) {
		fprintf(stderr, "ring buffer wrapped: use fewer iterations\n");
		return 2;
	}
	for (pos = 0; pos < head;) {
		struct perf_event_header *h = (void *)(data + pos);
		__u64 *w = (__u64 *)(h + 1), nr, k;
		__u64 chain[FRAMES + 1];
		unsigned int n = 0;

		if (!h->size)
			break;
		pos += h->size;
		if (h->type != PERF_RECORD_SAMPLE)
			continue;
		/* ip, nr, ips[nr]; context markers are not addresses */
		nr = w[1];
		for (k = 0; k < nr && n <= FRAMES; k++)
			if (w[2 + k] < PERF_CONTEXT_MAX)
				chain[n++] = w[2 + k];
		if (!n || chain[0] < leaf_lo || chain[0] >= leaf_hi)
			continue;
		leaf++;
		if (n < FRAMES)
			continue;
		for (k = 1; k < FRAMES; k++)
			if (chain[k] != ret[k])
				break;
		complete += k == FRAMES;
	}
	printf("%lu %lu\n", leaf, complete);
	return 0;
}
