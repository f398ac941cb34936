// SPDX-License-Identifier: GPL-2.0
/*
 * perf-workload-check - how many of a whole program's samples get a
 * complete user callchain from the kernel's native perf callchains,
 * without the perf tool (the arm64 guest has none).
 *
 *   perf-workload-check [-c N] [-d N] BIN [ARG...]
 *
 * Runs BIN ARG... with a cpu-clock sampling event (user only,
 * PERF_SAMPLE_IP | PERF_SAMPLE_CALLCHAIN, every 0.5 ms of CPU time) opened
 * on it before its exec, and reads every sample's callchain from the ring
 * buffer while it runs.  The event follows the main thread only (a
 * per-task event that is inherited cannot be mapped).
 *
 * A sample is complete when its chain reaches main: the sampled
 * instruction or a return address lies in main (or, for a thread, in
 * start_thread or clone).  That is, the unwinder got from the sampled
 * instruction all the way out, through signal frames too: a sample in a
 * signal handler is complete only if its chain goes on past the signal
 * frame to main.  Reaching _start or the C library's caller of main is not
 * enough: a walk that lost its way and went on along a chain of frame
 * records gets there while it skips main; so the few samples taken before
 * main or after it returned count as incomplete too.  Addresses are those
 * of BIN's own symbol table (.symtab, else .dynsym), moved by the load
 * bias of its first mapping when BIN is position-independent.
 *
 * Prints "SAMPLES COMPLETE" on stdout: every sample with a user frame, and
 * the complete ones.  On stderr: the program's own output, then samples
 * and complete ones per innermost symbol (where the time went), and the
 * first N incomplete (-d N) and complete (-c N) chains, symbolized.  Exit
 * status 0 unless something failed to run, the program failed, or samples
 * were lost.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <limits.h>
#include <linux/elf.h>
#include <linux/perf_event.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define DATA_PAGES	512	/* ring buffer: 2 MiB of 4 KiB pages */
#define MAX_CHAIN	256	/* user entries kept per sample */
#define MAX_ANCHORS	32
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#ifndef STT_GNU_IFUNC
#define STT_GNU_IFUNC	10
#endif

enum anchor_kind {
	ANCHOR_MAIN,		/* a chain that reaches it is complete */
	ANCHOR_STARTUP,		/* the C library's code before and after main */
	ANCHOR_START,		/* the main thread's outermost frame */
};

static const struct {
	const char *name;
	enum anchor_kind kind;
} anchor_names[] = {
	{ "main", ANCHOR_MAIN }, { "start_thread", ANCHOR_MAIN }, { "clone", ANCHOR_MAIN },
	{ "__clone", ANCHOR_MAIN }, { "clone3", ANCHOR_MAIN }, { "__clone3", ANCHOR_MAIN },
	{ "thread_start", ANCHOR_MAIN }, { "_start", ANCHOR_START },
	{ "__libc_start_main", ANCHOR_STARTUP }, { "__libc_start_main_impl", ANCHOR_STARTUP },
	{ "__libc_start_main_alias_2", ANCHOR_STARTUP },
	{ "__libc_start_call_main", ANCHOR_STARTUP },
};

struct sym {
	__u64 lo, hi;
	const char *name;
	enum anchor_kind kind;
};

struct sample {
	__u64 *ips;
	unsigned int nr;
};

struct tally {
	const char *name;
	unsigned long samples, complete;
};

static struct sym *syms;
static size_t nsyms;
static const struct elf64_shdr *shdrs;
static unsigned int nshdrs;
static const char *shstrtab;
static __u64 shstrsize;
static struct sym anchors[MAX_ANCHORS];
static unsigned int nanchors;
static __s64 bias;
static bool pie, bias_known;
static const char *image;
static size_t image_size;
static unsigned int machine;
static const struct elf64_phdr *phdrs;
static unsigned int nphdrs;
static char bin_path[PATH_MAX];
static __u64 vdso_lo, vdso_hi;

static struct sample *samples;
static size_t nsamples, samples_cap;
static unsigned long lost, throttled;

static void die(const char *what)
{
	perror(what);
	exit(2);
}

static void fail(const char *fmt, const char *arg)
{
	fprintf(stderr, "perf-workload-check: ");
	fprintf(stderr, fmt, arg);
	fputc('\n', stderr);
	exit(2);
}

static int sym_cmp(const void *a, const void *b)
{
	const struct sym *x = a, *y = b;

	return (x->lo > y->lo) - (x->lo < y->lo);
}

/* BIN's function symbols, its program headers, and the anchors among them. */
static void load_symbols(const char *path)
{
	const struct elf64_shdr *sh, *symtab = NULL;
	const struct elf64_hdr *eh;
	const struct elf64_sym *s;
	const char *strtab;
	struct stat st;
	size_t i, j, n;
	const char *map;
	int fd;

	fd = open(path, O_RDONLY);
	if (fd < 0 || fstat(fd, &st))
		die(path);
	if ((size_t)st.st_size < sizeof(*eh))
		fail("%s: not an ELF file", path);
	map = mmap(NULL, st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (map == MAP_FAILED)
		die("mmap");
	close(fd);
	eh = (const struct elf64_hdr *)map;
	if (memcmp(eh->e_ident, ELFMAG, SELFMAG) || eh->e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh->e_ident[EI_DATA] != ELFDATA2LSB || (eh->e_type != ET_EXEC && eh->e_type != ET_DYN))
		fail("%s: not a 64-bit little-endian executable", path);
	if (eh->e_shoff > (__u64)st.st_size ||
	    (st.st_size - eh->e_shoff) / sizeof(*sh) < eh->e_shnum ||
	    eh->e_phoff > (__u64)st.st_size ||
	    (st.st_size - eh->e_phoff) / sizeof(struct elf64_phdr) < eh->e_phnum)
		fail("%s: headers beyond the file", path);
	pie = eh->e_type == ET_DYN;
	machine = eh->e_machine;
	image = map;
	image_size = st.st_size;
	phdrs = (const struct elf64_phdr *)(map + eh->e_phoff);
	nphdrs = eh->e_phnum;

	sh = (const struct elf64_shdr *)(map + eh->e_shoff);
	if (eh->e_shstrndx < eh->e_shnum && sh[eh->e_shstrndx].sh_offset <= (__u64)st.st_size &&
	    sh[eh->e_shstrndx].sh_size <= st.st_size - sh[eh->e_shstrndx].sh_offset) {
		shdrs = sh;
		nshdrs = eh->e_shnum;
		shstrtab = map + sh[eh->e_shstrndx].sh_offset;
		shstrsize = sh[eh->e_shstrndx].sh_size;
	}
	for (i = 0; i < eh->e_shnum; i++)
		if (sh[i].sh_type == SHT_SYMTAB || (sh[i].sh_type == SHT_DYNSYM && !symtab))
			symtab = &sh[i];
	if (!symtab || symtab->sh_link >= eh->e_shnum || symtab->sh_offset > (__u64)st.st_size ||
	    symtab->sh_size > st.st_size - symtab->sh_offset ||
	    sh[symtab->sh_link].sh_offset > (__u64)st.st_size)
		fail("%s: no symbol table", path);
	strtab = map + sh[symtab->sh_link].sh_offset;
	s = (const struct elf64_sym *)(map + symtab->sh_offset);
	n = symtab->sh_size / sizeof(*s);
	syms = calloc(n, sizeof(*syms));
	if (!syms)
		die("calloc");
	for (i = 0; i < n; i++) {
		int type = ELF64_ST_TYPE(s[i].st_info);

		if ((type != STT_FUNC && type != STT_GNU_IFUNC) || s[i].st_shndx == SHN_UNDEF ||
		    !s[i].st_size || s[i].st_name >= sh[symtab->sh_link].sh_size)
			continue;
		syms[nsyms].lo = s[i].st_value;
		syms[nsyms].hi = s[i].st_value + s[i].st_size;
		syms[nsyms].name = strtab + s[i].st_name;
		for (j = 0; j < ARRAY_SIZE(anchor_names) && nanchors < MAX_ANCHORS; j++) {
			if (strcmp(syms[nsyms].name, anchor_names[j].name))
				continue;
			anchors[nanchors] = syms[nsyms];
			anchors[nanchors++].kind = anchor_names[j].kind;
		}
		nsyms++;
	}
	qsort(syms, nsyms, sizeof(*syms), sym_cmp);
	for (i = 0; i < nanchors; i++)
		if (!strcmp(anchors[i].name, "main"))
			break;
	if (i == nanchors)
		fail("%s: no main in its symbol table", path);
	if (eh->e_machine != EM_AARCH64 && eh->e_machine != EM_X86_64)
		fail("%s: neither x86_64 nor aarch64", path);
	if (!realpath(path, bin_path))
		die(path);
}

/* The symbol at link-time address @a, or NULL. */
static const struct sym *sym_find(__u64 a)
{
	size_t lo = 0, hi = nsyms, n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (syms[mid].lo <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* The last symbols starting at or below @a: aliases, or one enclosing another. */
	for (n = 0; lo > 0 && n < 8; n++)
		if (a < syms[--lo].hi)
			return &syms[lo];
	return NULL;
}

/*
 * Is entry @k of a chain in an anchor of @kind.  Entries after the first
 * are return addresses, looked up one byte back (a call may end a
 * function); the interrupted instruction after a signal frame is not, so
 * either.
 */
/*
 * What run-time address @a is in: the vDSO, a function of BIN, else the
 * executable section of BIN (.plt: stubs without a symbol), or "?".
 */
static const char *name_of(__u64 a, const struct sym **sym)
{
	unsigned int i;

	*sym = NULL;
	if (a >= vdso_lo && a < vdso_hi)
		return "[vdso]";
	a -= bias;
	*sym = sym_find(a);
	if (*sym)
		return (*sym)->name;
	for (i = 0; i < nshdrs; i++)
		if ((shdrs[i].sh_flags & SHF_EXECINSTR) && a >= shdrs[i].sh_addr &&
		    a - shdrs[i].sh_addr < shdrs[i].sh_size && shdrs[i].sh_name < shstrsize &&
		    memchr(shstrtab + shdrs[i].sh_name, 0, shstrsize - shdrs[i].sh_name))
			return shstrtab + shdrs[i].sh_name;
	return "?";
}

static bool in_anchor(const struct sample *s, unsigned int k, enum anchor_kind kind)
{
	__u64 a = s->ips[k] - bias;
	unsigned int i;

	for (i = 0; i < nanchors; i++)
		if (anchors[i].kind == kind &&
		    ((a >= anchors[i].lo && a < anchors[i].hi) ||
		     (k && a - 1 >= anchors[i].lo && a - 1 < anchors[i].hi)))
			return true;
	return false;
}

/* The bytes of BIN at link-time address @a, @len of them, or NULL. */
static const char *code_at(__u64 a, size_t len)
{
	unsigned int i;

	for (i = 0; i < nphdrs; i++) {
		const struct elf64_phdr *p = &phdrs[i];

		if (p->p_type == PT_LOAD && a >= p->p_vaddr && len <= p->p_filesz &&
		    a - p->p_vaddr <= p->p_filesz - len && p->p_offset <= image_size &&
		    a - p->p_vaddr + len <= image_size - p->p_offset)
			return image + p->p_offset + (a - p->p_vaddr);
	}
	return NULL;
}

/*
 * The target of the direct branch at link-time address @a: a call (bl,
 * call rel32) with @call, else a jump (b, jmp rel32).
 */
static bool direct_branch(__u64 a, bool call, __u64 *target)
{
	const char *c;
	__u32 insn;
	__s32 rel;

	if (machine == EM_AARCH64) {
		/* bl, b: imm26, in instructions */
		c = code_at(a, 4);
		if (!c)
			return false;
		memcpy(&insn, c, 4);
		if ((insn & 0xfc000000U) != (call ? 0x94000000U : 0x14000000U))
			return false;
		*target = a + (__s64)((__s32)(insn << 6) >> 6) * 4;
		return true;
	}
	c = code_at(a, 5);
	if (!c || (unsigned char)c[0] != (call ? 0xe8 : 0xe9))
		return false;
	memcpy(&rel, c + 1, 4);
	*target = a + 5 + rel;
	return true;
}

/*
 * Is link-time address @prev in @callee, or in a function @callee jumps
 * to (a tail call: its frame is gone, its callee's is next).  x86_64 code
 * is scanned byte by byte: a wrong match only makes this more lenient.
 */
static bool called_from(const struct sym *callee, __u64 prev)
{
	const struct sym *s;
	__u64 a, target;

	if (prev >= callee->lo && prev <= callee->hi)
		return true;
	for (a = callee->lo; a < callee->hi; a += machine == EM_AARCH64 ? 4 : 1) {
		if (!direct_branch(a, false, &target) ||
		    (target >= callee->lo && target < callee->hi))
			continue;
		s = sym_find(target);
		if (s && prev >= s->lo && prev <= s->hi)
			return true;
	}
	return false;
}

/*
 * A chain of the main thread that ends in _start without passing main,
 * taken before main or after it returned: complete if it went into the C
 * library's startup code the way that code calls.  Where a return address
 * there follows a direct call, the frame before must be in the function
 * called (or in one it tail-calls).  A walk that lost its way in main's callees and followed frame
 * records out to __libc_start_main fails this.
 */
static bool startup_complete(const struct sample *s)
{
	unsigned int k;

	if (!in_anchor(s, s->nr - 1, ANCHOR_START))
		return false;
	for (k = 1; k < s->nr; k++) {
		__u64 ret = s->ips[k] - bias, prev = s->ips[k - 1] - bias, target;
		const struct sym *callee;

		if (!in_anchor(s, k, ANCHOR_STARTUP) && !in_anchor(s, k, ANCHOR_START))
			continue;
		if (!direct_branch(ret - (machine == EM_AARCH64 ? 4 : 5), true, &target))
			continue;
		callee = sym_find(target);
		/* A call through a stub (an IFUNC's PLT entry) is not followed. */
		if (callee && !called_from(callee, prev))
			return false;
	}
	return true;
}

/* Complete: reaches main (or a thread's start), or startup_complete(). */
static bool chain_complete(const struct sample *s)
{
	unsigned int k;

	for (k = 0; k < s->nr; k++)
		if (in_anchor(s, k, ANCHOR_MAIN))
			return true;
	return startup_complete(s);
}

/* "name+0xoff" for a run-time address into @buf. */
static const char *symbolize(__u64 a, bool ret, char *buf, size_t len)
{
	const struct sym *s;
	const char *name = name_of(a - ret, &s);

	if (s)
		snprintf(buf, len, "%s+0x%llx", name, (unsigned long long)(a - bias - s->lo));
	else if (a >= vdso_lo && a < vdso_hi)
		snprintf(buf, len, "%s+0x%llx", name, (unsigned long long)(a - vdso_lo));
	else
		snprintf(buf, len, "%s", name);
	return buf;
}

/* The mapping of BIN or the vDSO that a PERF_RECORD_MMAP(2) reports. */
static void handle_mmap(const struct perf_event_header *h)
{
	const __u64 *w = (const __u64 *)(h + 1);
	const char *name;
	__u64 addr, len, pgoff;
	unsigned int i;

	/* pid, tid; addr, len, pgoff; MMAP2: maj, min, ino, ino_generation, prot, flags */
	addr = w[1];
	len = w[2];
	pgoff = w[3];
	name = (const char *)(w + (h->type == PERF_RECORD_MMAP2 ? 8 : 4));
	if (!strcmp(name, "[vdso]")) {
		vdso_lo = addr;
		vdso_hi = addr + len;
		return;
	}
	if (!pie || bias_known || strcmp(name, bin_path))
		return;
	/* The PT_LOAD holding file offset @pgoff was mapped at @addr. */
	for (i = 0; i < nphdrs; i++) {
		const struct elf64_phdr *p = &phdrs[i];

		if (p->p_type == PT_LOAD && pgoff >= (p->p_offset & ~0xfffULL) &&
		    pgoff < p->p_offset + p->p_filesz) {
			bias = addr - (p->p_vaddr - p->p_offset + pgoff);
			bias_known = true;
			return;
		}
	}
}

static void handle_sample(const struct perf_event_header *h)
{
	const __u64 *w = (const __u64 *)(h + 1);
	__u64 nr = w[1], k;
	struct sample s = {};

	/* ip, nr, ips[nr]; context markers are not addresses */
	if (2 + nr > (h->size - sizeof(*h)) / sizeof(__u64))
		return;
	s.ips = malloc(MAX_CHAIN * sizeof(*s.ips));
	if (!s.ips)
		die("malloc");
	for (k = 0; k < nr && s.nr < MAX_CHAIN; k++)
		if (w[2 + k] < PERF_CONTEXT_MAX)
			s.ips[s.nr++] = w[2 + k];
	if (!s.nr) {
		free(s.ips);
		return;
	}
	if (nsamples == samples_cap) {
		samples_cap = samples_cap ? 2 * samples_cap : 4096;
		samples = realloc(samples, samples_cap * sizeof(*samples));
		if (!samples)
			die("realloc");
	}
	samples[nsamples++] = s;
}

/* @len bytes from ring offset @pos of @data (@size bytes), across its end. */
static void ring_copy(const char *data, size_t size, __u64 pos, void *dst, size_t len)
{
	size_t off = pos % size, first = len < size - off ? len : size - off;

	memcpy(dst, data + off, first);
	memcpy((char *)dst + first, data, len - first);
}

/* Consume every record the kernel wrote since the last call. */
static void drain(struct perf_event_mmap_page *meta, const char *data, size_t size)
{
	static union {
		struct perf_event_header h;
		char bytes[65536];
	} rec;
	__u64 head = __atomic_load_n(&meta->data_head, __ATOMIC_ACQUIRE);
	__u64 tail = meta->data_tail;

	while (tail < head) {
		ring_copy(data, size, tail, &rec.h, sizeof(rec.h));
		if (rec.h.size < sizeof(rec.h))
			fail("%s", "a record of no size in the ring buffer");
		ring_copy(data, size, tail, rec.bytes, rec.h.size);
		switch (rec.h.type) {
		case PERF_RECORD_SAMPLE:
			handle_sample(&rec.h);
			break;
		case PERF_RECORD_MMAP:
		case PERF_RECORD_MMAP2:
			handle_mmap(&rec.h);
			break;
		case PERF_RECORD_LOST:
			lost += ((__u64 *)(&rec.h + 1))[1];
			break;
		case PERF_RECORD_THROTTLE:
			throttled++;
			break;
		}
		tail += rec.h.size;
	}
	__atomic_store_n(&meta->data_tail, tail, __ATOMIC_RELEASE);
}

static int tally_cmp(const void *a, const void *b)
{
	const struct tally *x = a, *y = b;

	if (x->samples != y->samples)
		return x->samples < y->samples ? 1 : -1;
	return strcmp(x->name, y->name);
}

/* One chain, symbolized, on stderr. */
static void print_chain(const char *what, const struct sample *s)
{
	unsigned int k;
	char buf[128];

	fprintf(stderr, "%s:", what);
	for (k = 0; k < s->nr; k++)
		fprintf(stderr, " %llx %s", (unsigned long long)s->ips[k],
			symbolize(s->ips[k], k, buf, sizeof(buf)));
	fputc('\n', stderr);
}

/*
 * Samples and complete ones per innermost symbol, then the first
 * @dump[0] incomplete and @dump[1] complete chains, on stderr.
 */
static void report(const bool *ok, unsigned long *dump)
{
	struct tally *t = calloc(nsamples + 1, sizeof(*t));
	size_t i, j, nt = 0;

	if (!t)
		die("calloc");
	for (i = 0; i < nsamples; i++) {
		const struct sym *s;
		const char *name = name_of(samples[i].ips[0], &s);

		for (j = 0; j < nt && strcmp(t[j].name, name); j++)
			;
		if (j == nt)
			t[nt++].name = name;
		t[j].samples++;
		t[j].complete += ok[i];
	}
	qsort(t, nt, sizeof(*t), tally_cmp);
	for (j = 0; j < nt; j++)
		fprintf(stderr, "  %-40s %6lu samples, %6lu complete\n", t[j].name, t[j].samples,
			t[j].complete);
	free(t);
	for (i = 0; i < nsamples; i++) {
		if (!dump[ok[i]])
			continue;
		dump[ok[i]]--;
		print_chain(ok[i] ? "complete" : "incomplete", &samples[i]);
	}
}

int main(int argc, char **argv)
{
	size_t page = sysconf(_SC_PAGESIZE), size = DATA_PAGES * page;
	struct perf_event_attr attr;
	struct perf_event_mmap_page *meta;
	unsigned long dump[2] = {}, complete = 0;
	int go[2], fd, status, opt;
	bool exited = false, *ok;
	const char *data;
	size_t i;
	pid_t pid;

	while ((opt = getopt(argc, argv, "+c:d:")) != -1) {
		if (opt != 'c' && opt != 'd') {
			optind = argc;
			break;
		}
		dump[opt == 'c'] = strtoul(optarg, NULL, 0);
	}
	if (optind >= argc) {
		fprintf(stderr, "usage: %s [-c N] [-d N] BIN [ARG...]\n", argv[0]);
		return 2;
	}
	load_symbols(argv[optind]);
	if (pipe(go))
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
		dup2(2, 1);
		execv(argv[optind], argv + optind);
		_exit(2);
	}
	close(go[0]);

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
	attr.mmap = 1;
	attr.disabled = 1;
	attr.enable_on_exec = 1;
	fd = syscall(SYS_perf_event_open, &attr, pid, -1, -1, 0);
	if (fd < 0)
		die("perf_event_open");
	meta = mmap(NULL, (DATA_PAGES + 1) * page, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (meta == MAP_FAILED)
		die("mmap");
	data = (const char *)meta + page;
	if (write(go[1], "x", 1) != 1)
		die("write");
	close(go[1]);

	while (!exited) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		pid_t w = waitpid(pid, &status, WNOHANG);

		if (w < 0)
			die("waitpid");
		exited = w == pid;
		if (!exited && poll(&p, 1, 20) < 0)
			die("poll");
		drain(meta, data, size);
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		fprintf(stderr, "%s did not run to completion\n", argv[optind]);
		return 2;
	}
	if (pie && !bias_known) {
		fprintf(stderr, "no mapping of %s reported: its load bias is unknown\n", bin_path);
		return 2;
	}

	ok = calloc(nsamples + 1, sizeof(*ok));
	if (!ok)
		die("calloc");
	for (i = 0; i < nsamples; i++) {
		ok[i] = chain_complete(&samples[i]);
		complete += ok[i];
	}
	report(ok, dump);
	if (throttled)
		fprintf(stderr, "throttled %lu times\n", throttled);
	printf("%zu %lu\n", nsamples, complete);
	if (lost) {
		fprintf(stderr, "%lu samples lost\n", lost);
		return 2;
	}
	return 0;
}
