// SPDX-License-Identifier: GPL-2.0
/*
 * regtest - end-to-end checks of the per-mm SFrame registry, from inside a
 * process.  Reads <debugfs>/sframe_unwind/sections for its own pid.
 *
 *   regtest self NAME               NAME (this program) is registered at main()
 *   regtest mapelf LIB              map LIB's PT_LOADs as a loader would: registered;
 *                                   MAP_FIXED over its text: gone; unmap: gone
 *   regtest remap LIB COPY          map LIB, then COPY (a copy of it) over it, segment
 *                                   by segment: LIB's section gone, COPY's registered
 *   regtest mprotect LIB            map LIB; its text made not executable: its
 *                                   section kept; executable again: usable
 *                                   again; not executable and unmapped: gone
 *   regtest fork NAME               a forked child has NAME registered too
 *   regtest cycle N LIB             N map/unmap cycles leave the count unchanged
 *   regtest dlopen LIB              (dynamic builds) dlopen: registered; dlclose: gone
 *   regtest dlcycle N LIB           (dynamic builds) N dlopen/dlclose cycles leave the
 *                                   count unchanged
 *   regtest churn SECONDS LIB       map/unmap LIB and fork children that exit, for SECONDS
 *   regtest waitfile FILE NAME      wait until FILE exists, then check NAME
 *   regtest bench N LIB [WHAT]      time N cycles of each registry path: map/unmap,
 *                                   mprotect -x/+x of the text, fork+exec+wait of
 *                                   "regtest nop" (and dlopen/dlclose): prints
 *                                   "mapelf_ns X", "mprotect_ns X", "forkexec_ns X"
 *                                   (and "dlopen_ns X"): the cost per cycle of the
 *                                   cheapest batch of 5; WHAT, a list
 *                                   such as "map,mprotect", keeps only those of
 *                                   map, mprotect, forkexec, dlopen, dl50 (50
 *                                   dlopens of DL50_DIR/lib1.so ... lib50.so,
 *                                   then 50 dlcloses, N/20 cycles, at least 25), and of the
 *                                   paths that map no code: anon4k, anon2m
 *                                   (anonymous mmap+munmap), anonprot (64 KiB
 *                                   RW -> RX -> RW), brk (+64 KiB, -64 KiB),
 *                                   fault (16 pages touched, then dropped with
 *                                   MADV_DONTNEED), madvise (MADV_DONTNEED of
 *                                   64 KiB with nothing in it); each prints
 *                                   "<name>_ns X"
 *   regtest nop                     exit 0 at once (what bench execs)
 *   regtest dlfirst LIB             (dynamic builds) time one dlopen of LIB, the
 *                                   first of this process: prints "dlopen_first_ns X"
 *                                   (scripts/bench-sidecars)
 *   regtest hold FILE LIB...        print "ready", wait until FILE exists, map every
 *                                   LIB as a loader would, print "mapped N", wait
 *                                   until FILE is gone (scripts/bench-sidecars)
 *
 * Exit status 0 when the check holds; messages say what did not.
 */
#ifdef REGTEST_DLOPEN
#include <dlfcn.h>
#endif
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define SECTIONS "/sys/kernel/debug/sframe_unwind/sections"

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

static char first_state[16];

/*
 * Count this process's sections named @name (NULL: all); first range in
 * @lo/@hi, its state (ok, stale, kept) in first_state.
 */
static int count_sections(const char *name, unsigned long *lo, unsigned long *hi)
{
	char line[512], nm[128], state[16];
	unsigned long a, b;
	int mine = 0, n = 0, pid;
	FILE *f = fopen(SECTIONS, "r");

	if (!f) {
		perror(SECTIONS);
		exit(2);
	}
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "mm %d", &pid) == 1) {
			mine = pid == getpid();
			continue;
		}
		if (!mine || sscanf(line, " %lx-%lx sframe %*s %*s fdes %*u %15s %127s",
				    &a, &b, state, nm) != 4)
			continue;
		if (name && strcmp(nm, name))
			continue;
		if (!n && lo) {
			*lo = a;
			*hi = b;
		}
		if (!n)
			snprintf(first_state, sizeof(first_state), "%s", state);
		n++;
	}
	fclose(f);
	return n;
}

static int expect_count(const char *what, const char *name, int want)
{
	int got = count_sections(name, NULL, NULL);

	if (got != want) {
		fprintf(stderr, "%s: %d sections named %s, want %d\n", what, got, name, want);
		return 1;
	}
	return 0;
}

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

struct mapped {
	char *base;
	size_t len;
	char *text;	/* the first executable segment */
	size_t text_len;
	char *anon;	/* ANON_LEN bytes of anonymous memory (regtest bench) */
};

#define ANON_LEN	(64 << 10)
#define DL50		50

/*
 * Map the PT_LOAD segments of @path the way ld.so does; with @at, over
 * what is mapped at @at, each segment in turn (no reservation first).
 */
static int map_elf_at(const char *path, struct mapped *m, char *at)
{
	Elf64_Phdr ph[64];
	Elf64_Ehdr eh;
	unsigned long lo = -1UL, hi = 0, pg = sysconf(_SC_PAGESIZE);
	int fd = open(path, O_RDONLY), i;

	if (fd < 0 || pread(fd, &eh, sizeof(eh), 0) != sizeof(eh) || eh.e_phnum > 64 ||
	    pread(fd, ph, eh.e_phnum * sizeof(*ph), eh.e_phoff) !=
	    (ssize_t)(eh.e_phnum * sizeof(*ph))) {
		perror(path);
		return -1;
	}
	for (i = 0; i < eh.e_phnum; i++) {
		if (ph[i].p_type != PT_LOAD)
			continue;
		if ((ph[i].p_vaddr & -pg) < lo)
			lo = ph[i].p_vaddr & -pg;
		if (ph[i].p_vaddr + ph[i].p_memsz > hi)
			hi = ph[i].p_vaddr + ph[i].p_memsz;
	}
	m->len = ((hi + pg - 1) & -pg) - lo;
	/* Reserve the span with the first segment's file mapping, as ld.so does. */
	m->base = at ?: mmap(NULL, m->len, PROT_READ, MAP_PRIVATE, fd, 0);
	if (m->base == MAP_FAILED) {
		perror("mmap span");
		return -1;
	}
	m->text = NULL;
	for (i = 0; i < eh.e_phnum; i++) {
		int prot = 0;
		unsigned long off = ph[i].p_offset & -pg;

		if (ph[i].p_type != PT_LOAD)
			continue;
		if ((ph[i].p_flags & PF_X) && !m->text) {
			m->text = m->base + (ph[i].p_vaddr & -pg) - lo;
			m->text_len = ph[i].p_filesz + (ph[i].p_offset - off);
		}
		prot |= (ph[i].p_flags & PF_R) ? PROT_READ : 0;
		prot |= (ph[i].p_flags & PF_W) ? PROT_WRITE : 0;
		prot |= (ph[i].p_flags & PF_X) ? PROT_EXEC : 0;
		if (mmap(m->base + (ph[i].p_vaddr & -pg) - lo,
			 ph[i].p_filesz + (ph[i].p_offset - off), prot,
			 MAP_PRIVATE | MAP_FIXED, fd, off) == MAP_FAILED) {
			perror("mmap segment");
			return -1;
		}
	}
	close(fd);
	return 0;
}

/* @name's one section is in state @want; 0, else 1 with a message. */
static int expect_state(const char *what, const char *name, const char *want)
{
	int n = count_sections(name, NULL, NULL);

	if (n != 1 || strcmp(first_state, want)) {
		fprintf(stderr, "%s: %d sections named %s, state %s, want one %s\n", what, n, name,
			n ? first_state : "-", want);
		return 1;
	}
	return 0;
}

static int map_elf(const char *path, struct mapped *m)
{
	return map_elf_at(path, m, NULL);
}

/*
 * A copy of @lib (another file) mapped over @lib, segment by segment, each
 * mmap() replacing the one of @lib there: the copy's text replaces @lib's
 * executable text in one call.  @lib's section goes, the copy's comes.
 */
static int cmd_remap(const char *lib, const char *copy)
{
	struct mapped m, c;
	int bad = 0;

	if (map_elf(lib, &m))
		return 2;
	bad |= expect_state("mapped", base_name(lib), "ok");
	if (map_elf_at(copy, &c, m.base))
		return 2;
	bad |= expect_count("replaced by its copy", base_name(lib), 0);
	bad |= expect_state("the copy mapped over it", base_name(copy), "ok");
	munmap(m.base, m.len);
	return bad | expect_count("the copy unmapped", base_name(copy), 0);
}

static int cmd_mapelf(const char *lib)
{
	const char *name = base_name(lib);
	unsigned long lo, hi;
	struct mapped m;
	int bad = 0;

	if (map_elf(lib, &m))
		return 2;
	if (count_sections(name, &lo, &hi) != 1) {
		fprintf(stderr, "mapelf: %s not registered after mapping\n", name);
		return 1;
	}
	/* Anonymous memory MAP_FIXED over the first page of the text. */
	if (mmap((void *)lo, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED,
		 -1, 0) == MAP_FAILED) {
		perror("MAP_FIXED");
		return 2;
	}
	bad |= expect_count("after MAP_FIXED over text", name, 0);
	munmap(m.base, m.len);
	bad |= expect_count("after munmap", name, 0);
	return bad;
}

/*
 * mprotect takes PROT_EXEC from the text and gives it back: the section is
 * kept meanwhile, also when the text loses every permission, and usable
 * again after, execute-only text included; taken away and then unmapped,
 * it goes, and so it does when only its text is unmapped.
 */
static int cmd_mprotect(const char *lib)
{
	/* Each protection in turn, and the state it leaves (none: not looked at). */
	static const struct {
		int prot;
		const char *what, *state;
	} steps[] = {
		{ PROT_READ, "text not executable", "kept" },
		{ PROT_READ | PROT_EXEC, "text executable again", "ok" },
		{ PROT_READ, NULL, NULL },
		{ PROT_NONE, "text inaccessible", "kept" },
		{ PROT_EXEC, "text execute-only", "ok" },
		{ PROT_NONE, "text inaccessible, again", "kept" },
		{ PROT_READ | PROT_EXEC, "text executable again, after", "ok" },
		{ PROT_READ, NULL, NULL },
	};
	const char *name = base_name(lib);
	struct mapped m;
	unsigned int i;
	int bad = 0;

	if (map_elf(lib, &m) || !m.text)
		return 2;
	bad |= expect_state("mapped", name, "ok");
	for (i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
		if (mprotect(m.text, m.text_len, steps[i].prot))
			return 2;
		if (steps[i].what)
			bad |= expect_state(steps[i].what, name, steps[i].state);
	}
	munmap(m.base, m.len);
	bad |= expect_count("kept, then unmapped", name, 0);
	/* Its text alone unmapped, its data still there: the VMA that goes is not executable. */
	if (map_elf(lib, &m) || !m.text)
		return 2;
	if (mprotect(m.text, m.text_len, PROT_READ))
		return 2;
	bad |= expect_state("text not executable, again", name, "kept");
	munmap(m.text, m.text_len);
	bad |= expect_count("kept, then its text unmapped", name, 0);
	munmap(m.base, m.len);
	return bad;
}

static int cmd_cycle(int n, const char *lib)
{
	int before = count_sections(NULL, NULL, NULL), i, after;
	struct mapped m;

	for (i = 0; i < n; i++) {
		if (map_elf(lib, &m))
			return 2;
		if (count_sections(base_name(lib), NULL, NULL) != 1) {
			fprintf(stderr, "cycle %d: %s not registered\n", i, base_name(lib));
			return 1;
		}
		munmap(m.base, m.len);
	}
	after = count_sections(NULL, NULL, NULL);
	if (after != before) {
		fprintf(stderr, "cycle: %d sections before, %d after %d cycles\n",
			before, after, n);
		return 1;
	}
	printf("cycle: %d map/unmap cycles, %d sections before and after\n", n, before);
	return 0;
}

#ifdef REGTEST_DLOPEN
static int cmd_dlopen(const char *lib)
{
	const char *name = base_name(lib);
	void *h = dlopen(lib, RTLD_NOW);
	int bad;

	if (!h) {
		fprintf(stderr, "dlopen: %s\n", dlerror());
		return 2;
	}
	bad = expect_count("after dlopen", name, 1);
	dlclose(h);
	return bad | expect_count("after dlclose", name, 0);
}

static int cmd_dlcycle(int n, const char *lib)
{
	int before = count_sections(NULL, NULL, NULL), i, after;

	for (i = 0; i < n; i++) {
		void *h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);

		if (!h) {
			fprintf(stderr, "dlopen: %s\n", dlerror());
			return 2;
		}
		if (count_sections(base_name(lib), NULL, NULL) != 1) {
			fprintf(stderr, "dlcycle %d: %s not registered\n", i, base_name(lib));
			return 1;
		}
		dlclose(h);
	}
	after = count_sections(NULL, NULL, NULL);
	if (after != before) {
		fprintf(stderr, "dlcycle: %d sections before, %d after %d cycles\n",
			before, after, n);
		return 1;
	}
	printf("dlcycle: %d dlopen/dlclose cycles, %d sections before and after\n", n, before);
	return 0;
}

/*
 * The first dlopen of @lib in this process, timed: what the kernel and the
 * module do for a file they have not seen since the module's file cache
 * was last emptied.
 */
static int cmd_dlfirst(const char *lib)
{
	double t = now_ns();
	void *h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);

	t = now_ns() - t;
	if (!h) {
		fprintf(stderr, "dlopen: %s\n", dlerror());
		return 2;
	}
	printf("dlopen_first_ns %.0f\n", t);
	dlclose(h);
	return 0;
}
#else
static int cmd_dlfirst(const char *lib)
{
	fprintf(stderr, "dlopen: not in a static build (%s)\n", lib);
	return 77;
}

static int cmd_dlopen(const char *lib)
{
	fprintf(stderr, "dlopen: not in a static build (%s)\n", lib);
	return 77;
}

static int cmd_dlcycle(int n, const char *lib)
{
	(void)n;
	return cmd_dlopen(lib);
}
#endif

/* Keep the registry busy: mappings come and go, children fork and exit. */
static int cmd_churn(int seconds, const char *lib)
{
	double end = now_ns() + seconds * 1e9;
	struct mapped m;
	long cycles = 0;

	while (now_ns() < end) {
		if (map_elf(lib, &m))
			return 2;
		if (!(cycles % 16)) {
			pid_t pid = fork();

			if (!pid)
				_exit(0);
			if (pid > 0)
				waitpid(pid, NULL, 0);
		}
		munmap(m.base, m.len);
		cycles++;
	}
	printf("churn: %ld map/unmap cycles\n", cycles);
	return 0;
}

/*
 * Once @file exists, map every library of @libs; keep them until @file is
 * gone.  Whoever drives it reads the module's figures between the two.
 */
static int cmd_hold(const char *file, char **libs, int n)
{
	struct mapped m;
	struct stat st;
	int i;

	printf("ready\n");
	fflush(stdout);
	while (stat(file, &st))
		usleep(10000);
	for (i = 0; i < n; i++)
		if (map_elf(libs[i], &m))
			return 2;
	printf("mapped %d\n", n);
	fflush(stdout);
	while (!stat(file, &st))
		usleep(10000);
	return 0;
}

static int cmd_fork(const char *name)
{
	int status;
	pid_t pid;

	if (expect_count("parent", name, 1))
		return 1;
	pid = fork();
	if (!pid)
		_exit(expect_count("child", name, 1));
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return 2;
	return WEXITSTATUS(status);
}

/* One cycle of each registry path timed by "regtest bench". */
static int cycle_map(const char *lib, struct mapped *unused)
{
	struct mapped m;

	(void)unused;
	if (map_elf(lib, &m))
		return -1;
	munmap(m.base, m.len);
	return 0;
}

static int cycle_mprotect(const char *lib, struct mapped *m)
{
	(void)lib;
	if (mprotect(m->text, m->text_len, PROT_READ) ||
	    mprotect(m->text, m->text_len, PROT_READ | PROT_EXEC)) {
		perror("mprotect");
		return -1;
	}
	return 0;
}

/*
 * Fork, exec @path with @argv in the child (chrooted to @root first, if
 * not NULL) and wait for it; 0 if it exited with 0, else -1 and a word
 * about @what.
 */
static int spawn_wait(const char *root, const char *path, char *const argv[], const char *what)
{
	int status;
	pid_t pid;

	pid = fork();
	if (pid < 0) {
		perror("fork");
		return -1;
	}
	if (!pid) {
		if (root && (chroot(root) || chdir("/")))
			_exit(126);
		execv(path, argv);
		_exit(127);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status)) {
		fprintf(stderr, "%s failed\n", what);
		return -1;
	}
	return 0;
}

static int cycle_forkexec(const char *lib, struct mapped *m)
{
	char *const argv[] = { "regtest", "nop", NULL };

	(void)lib;
	(void)m;
	return spawn_wait(NULL, "/proc/self/exe", argv, "fork+exec of regtest nop");
}

/*
 * The start-up of a Python program that imports 30 modules of the
 * standard library, 14 of them with C extensions or the libraries behind
 * them (ssl, sqlite3, ctypes, lzma, bz2, decimal, ...): python3 maps
 * about 24 shared objects.  /usr/bin/python3, chrooted to
 * $REGTEST_PYTHON_ROOT when that is set (tests/e2e/progs/python-root).
 */
#define PY_IMPORTS	"import json, decimal, ssl, sqlite3, ctypes, hashlib, datetime, csv, " \
			"struct, array, math, random, socket, select, zlib, bz2, lzma, pickle, " \
			"asyncio, email.message, http.client, xml.etree.ElementTree, uuid, " \
			"fractions, statistics, base64, binascii, subprocess, logging, argparse"

static int cycle_python(const char *lib, struct mapped *m)
{
	char *const argv[] = { "python3", "-c", PY_IMPORTS, NULL };

	(void)lib;
	(void)m;
	return spawn_wait(getenv("REGTEST_PYTHON_ROOT"), "/usr/bin/python3", argv,
			  "python3 importing 30 modules");
}

/*
 * The paths that map no code: anonymous memory mapped and unmapped (4 KiB
 * and 2 MiB), flipped between RW and RX as a JIT does, the heap grown and
 * shrunk with brk, 16 pages faulted in and dropped again, and
 * madvise(MADV_DONTNEED) of a range with nothing in it.  @m->anon is a
 * 64 KiB anonymous mapping made before the timing.
 */
static int cycle_anon(size_t len)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED) {
		perror("mmap anonymous");
		return -1;
	}
	return munmap(p, len);
}

static int cycle_anon4k(const char *lib, struct mapped *m)
{
	(void)lib;
	(void)m;
	return cycle_anon(4096);
}

static int cycle_anon2m(const char *lib, struct mapped *m)
{
	(void)lib;
	(void)m;
	return cycle_anon(2 << 20);
}

static int cycle_anonprot(const char *lib, struct mapped *m)
{
	(void)lib;
	if (mprotect(m->anon, ANON_LEN, PROT_READ | PROT_EXEC) ||
	    mprotect(m->anon, ANON_LEN, PROT_READ | PROT_WRITE)) {
		perror("mprotect anonymous");
		return -1;
	}
	return 0;
}

static int cycle_brk(const char *lib, struct mapped *m)
{
	(void)lib;
	(void)m;
	if (sbrk(ANON_LEN) == (void *)-1 || sbrk(-ANON_LEN) == (void *)-1) {
		perror("sbrk");
		return -1;
	}
	return 0;
}

static int cycle_fault(const char *lib, struct mapped *m)
{
	long pg = sysconf(_SC_PAGESIZE), off;

	(void)lib;
	for (off = 0; off < 16 * pg && off < ANON_LEN; off += pg)
		__atomic_store_n(&m->anon[off], 1, __ATOMIC_RELAXED);
	return madvise(m->anon, ANON_LEN, MADV_DONTNEED);
}

static int cycle_madvise(const char *lib, struct mapped *m)
{
	(void)lib;
	return madvise(m->anon, ANON_LEN, MADV_DONTNEED);
}

#ifdef REGTEST_DLOPEN
/*
 * The macro figure: a program that dlopens 50 libraries, distinct files
 * DL50_DIR/lib1.so ... lib50.so (copies the benchmark makes), and closes
 * them again.
 */
static int cycle_dl50(const char *lib, struct mapped *m)
{
	const char *dir = getenv("DL50_DIR") ?: "/tmp/dl50";
	void *h[DL50];
	char path[256];
	int i;

	(void)lib;
	(void)m;
	for (i = 0; i < DL50; i++) {
		snprintf(path, sizeof(path), "%s/lib%d.so", dir, i + 1);
		h[i] = dlopen(path, RTLD_NOW | RTLD_LOCAL);
		if (!h[i]) {
			fprintf(stderr, "dlopen: %s\n", dlerror());
			while (i--)
				dlclose(h[i]);
			return -1;
		}
	}
	while (i--)
		dlclose(h[i]);
	return 0;
}

static int cycle_dlopen(const char *lib, struct mapped *m)
{
	void *h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);

	(void)m;
	if (!h) {
		fprintf(stderr, "dlopen: %s\n", dlerror());
		return -1;
	}
	dlclose(h);
	return 0;
}
#endif

#define BENCH_BATCH 5
#define BENCH_MAX_BATCHES 1024

/*
 * @n cycles of @fn in batches of BENCH_BATCH; prints @label and the cost
 * per cycle of every batch, in order.  The host takes the median of every
 * batch of every round (scripts/bench-registry): a batch's cost depends on
 * what earlier cycles left (per-CPU slab freelists, RCU callbacks not yet
 * run, the VMA tree's nodes), so that its cheapest batch moves by some
 * percent from round to round where the median of all of them does not,
 * and a batch that a timer tick or the module's load-time work lands in
 * does not move the median either.
 */
static int bench_batches(int n, int (*fn)(const char *, struct mapped *), const char *lib,
			 struct mapped *m, const char *label)
{
	static double cost[BENCH_MAX_BATCHES];
	int i, k, c = 0;
	double t;

	for (i = 0; i < n && c < BENCH_MAX_BATCHES; i += BENCH_BATCH) {
		t = now_ns();
		for (k = 0; k < BENCH_BATCH; k++)
			if (fn(lib, m))
				return -1;
		cost[c++] = (now_ns() - t) / BENCH_BATCH;
	}
	printf("%s", label);
	for (i = 0; i < c; i++)
		printf(" %.0f", cost[i]);
	printf("\n");
	return 0;
}

static int cmd_bench(int n, const char *lib, const char *what)
{
	static const struct {
		const char *name, *label;
		int (*fn)(const char *lib, struct mapped *m);
		int div;	/* of N: the macro figure runs fewer cycles */
		/*
		 * But at least this many.  The 50 libraries' first dlopen()
		 * after a module load costs 10 times a later one's where
		 * sidecar_dir names a directory the guest's 9p root lacks
		 * (each file's sidecar is looked up there once): 5 batches a
		 * round, so that a round's median leaves that batch out.
		 */
		int min;
	} paths[] = {
		{ "map", "mapelf_ns", cycle_map, 1, BENCH_BATCH },
		{ "mprotect", "mprotect_ns", cycle_mprotect, 1, BENCH_BATCH },
		{ "forkexec", "forkexec_ns", cycle_forkexec, 1, BENCH_BATCH },
#ifdef REGTEST_DLOPEN
		{ "dlopen", "dlopen_ns", cycle_dlopen, 1, BENCH_BATCH },
		{ "dl50", "dl50_ns", cycle_dl50, 20, 5 * BENCH_BATCH },
#endif
		{ "python", "python_ns", cycle_python, 20, BENCH_BATCH },
		{ "anon4k", "anon4k_ns", cycle_anon4k, 1, BENCH_BATCH },
		{ "anon2m", "anon2m_ns", cycle_anon2m, 1, BENCH_BATCH },
		{ "anonprot", "anonprot_ns", cycle_anonprot, 1, BENCH_BATCH },
		{ "brk", "brk_ns", cycle_brk, 1, BENCH_BATCH },
		{ "fault", "fault_ns", cycle_fault, 1, BENCH_BATCH },
		{ "madvise", "madvise_ns", cycle_madvise, 1, BENCH_BATCH },
	};
	struct mapped m = { 0 };
	char list[256];
	unsigned int i;
	int ret;

	snprintf(list, sizeof(list), ",%s,", what ?: "map,mprotect,forkexec,dlopen");
	what = list;
	m.anon = mmap(NULL, ANON_LEN, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m.anon == MAP_FAILED)
		return 2;
	for (i = 0; i < sizeof(paths) / sizeof(paths[0]); i++) {
		char name[16];

		/* Whole words of the list only. */
		snprintf(name, sizeof(name), ",%s,", paths[i].name);
		if (!strstr(what, name))
			continue;
		/*
		 * Only mprotect needs the library mapped: the other paths
		 * are timed with no mapping of it left, as a program that
		 * first maps it would be.
		 */
		if (paths[i].fn == cycle_mprotect && (map_elf(lib, &m) || !m.text))
			return 2;
		ret = bench_batches(n / paths[i].div > paths[i].min ? n / paths[i].div :
				    paths[i].min, paths[i].fn, lib, &m, paths[i].label);
		if (paths[i].fn == cycle_mprotect)
			munmap(m.base, m.len);
		if (ret)
			return 2;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct stat st;

	if (argc == 2 && !strcmp(argv[1], "nop"))
		return 0;
	if (argc >= 3 && !strcmp(argv[1], "self"))
		return expect_count("at main", argv[2], 1);
	if (argc >= 3 && !strcmp(argv[1], "mapelf"))
		return cmd_mapelf(argv[2]);
	if (argc >= 3 && !strcmp(argv[1], "mprotect"))
		return cmd_mprotect(argv[2]);
	if (argc >= 4 && !strcmp(argv[1], "remap"))
		return cmd_remap(argv[2], argv[3]);
	if (argc >= 4 && !strcmp(argv[1], "cycle"))
		return cmd_cycle(atoi(argv[2]), argv[3]);
	if (argc >= 4 && !strcmp(argv[1], "bench"))
		return cmd_bench(atoi(argv[2]), argv[3], argc > 4 ? argv[4] : NULL);
	if (argc >= 4 && !strcmp(argv[1], "dlcycle"))
		return cmd_dlcycle(atoi(argv[2]), argv[3]);
	if (argc >= 4 && !strcmp(argv[1], "churn"))
		return cmd_churn(atoi(argv[2]), argv[3]);
	if (argc >= 3 && !strcmp(argv[1], "dlopen"))
		return cmd_dlopen(argv[2]);
	if (argc >= 3 && !strcmp(argv[1], "dlfirst"))
		return cmd_dlfirst(argv[2]);
	if (argc >= 4 && !strcmp(argv[1], "hold"))
		return cmd_hold(argv[2], argv + 3, argc - 3);
	if (argc >= 3 && !strcmp(argv[1], "fork"))
		return cmd_fork(argv[2]);
	if (argc >= 4 && !strcmp(argv[1], "waitfile")) {
		while (stat(argv[2], &st))
			usleep(10000);
		return expect_count("after waiting", argv[3], 1);
	}
	fprintf(stderr, "usage: see the comment at the top of regtest.c\n");
	return 2;
}
