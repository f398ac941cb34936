// SPDX-License-Identifier: GPL-2.0
/*
 * stressor - load generators for scripts/stress, run in the guest.
 *
 *   stressor maps SECONDS LIB   map LIB like ld.so, then per round one of:
 *                               munmap; mprotect dropping and restoring
 *                               PROT_EXEC; anonymous MAP_FIXED over the
 *                               text; mremap of the text elsewhere; 100
 *                               mappings of its text alone (sections
 *                               waiting for their data, beyond the cap of
 *                               64); anonymous memory flipped between RW
 *                               and RX; and threads that start and exit
 *                               meanwhile
 *   stressor forks SECONDS      fork + exec + exit storm (children exec
 *                               this program with "exit")
 *   stressor hostile SECONDS    hostile input for the module: mutated
 *                               copies of this program's own .sframe
 *                               registered over its text and unwound
 *                               through; stacks and frame pointers aimed
 *                               at unmapped pages and kernel addresses;
 *                               a section rewritten through a shared
 *                               file mapping while it is unwound; a
 *                               thread's stack changing while another
 *                               unwinds it
 *   stressor spin SECONDS       a deep call chain spinning (a target for
 *                               samplers)
 *   stressor attacker SECONDS   an unprivileged user (uid 65534) against
 *                               everyone else: registration floods from
 *                               several processes (beyond the per-mm and
 *                               per-user limits) and remote unwinds of its
 *                               own stopped children (unwound where they
 *                               stopped, or, caught running, left queued:
 *                               interrupted waits) across module unloads,
 *                               and unload attempts of its own (EPERM)
 *   stressor victim SECONDS     another unprivileged user (uid 65533) that
 *                               registers its own section and unwinds
 *                               through it meanwhile: none of its
 *                               registrations may be refused for a limit
 *   stressor unload MODULE      delete_module(MODULE) as rmmod calls it,
 *                               again each second while it is busy (an
 *                               open device pins it), 120 tries at most
 *                               (the stressors close the device after
 *                               their batch, which a loaded TCG host
 *                               running KASAN can stretch to tens of
 *                               seconds); on failure names the processes
 *                               that still hold the device;
 *                               prints "unload ms N tries T": N the
 *                               milliseconds the successful call took in
 *                               the kernel, without the time a command
 *                               takes to start
 *
 * Each mode prints "stressor MODE key value" lines at the end; the guest
 * script adds them up.  Exit status is non-zero only when the module
 * broke its ABI (an unwind result out of range, an ioctl error nobody
 * documents); refusals and stops are counted, not failures.
 */
#define _GNU_SOURCE
#include <elf.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <grp.h>
#include <limits.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/time.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "sframe_unwind.h"

#define DEV "/dev/sframe_unwind"
#define MAX_FRAMES 128
#define NR_STOPS 16

static volatile int stop_now;
static int dev = -1;
static int abi_errors;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static unsigned long rnd(void)
{
	static unsigned long x = 88172645463325252UL;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return x;
}

/* ---------------------------------------------------------------- maps */

#define MAPS_OPS	7
#define TEXT_ONLY_MAX	100	/* text-only mappings at once, beyond the cap of 64 */

struct mapped {
	char *base;
	size_t len;
	char *text;
	size_t text_len;
};

static int map_elf(const char *path, struct mapped *m)
{
	unsigned long lo = -1UL, hi = 0, pg = sysconf(_SC_PAGESIZE);
	Elf64_Phdr ph[64];
	Elf64_Ehdr eh;
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
	m->base = mmap(NULL, m->len, PROT_READ, MAP_PRIVATE, fd, 0);
	if (m->base == MAP_FAILED) {
		close(fd);
		return -1;
	}
	for (i = 0; i < eh.e_phnum; i++) {
		unsigned long off = ph[i].p_offset & -pg;
		char *at = m->base + (ph[i].p_vaddr & -pg) - lo;
		size_t len = ph[i].p_filesz + (ph[i].p_offset - off);
		int prot = 0;

		if (ph[i].p_type != PT_LOAD)
			continue;
		prot |= (ph[i].p_flags & PF_R) ? PROT_READ : 0;
		prot |= (ph[i].p_flags & PF_W) ? PROT_WRITE : 0;
		prot |= (ph[i].p_flags & PF_X) ? PROT_EXEC : 0;
		if (mmap(at, len, prot, MAP_PRIVATE | MAP_FIXED, fd, off) == MAP_FAILED) {
			close(fd);
			munmap(m->base, m->len);
			return -1;
		}
		if (prot & PROT_EXEC) {
			m->text = at;
			m->text_len = (len + pg - 1) & -pg;
		}
	}
	close(fd);
	return m->text ? 0 : -1;
}

/*
 * Map only @lib's executable segment, @n times, and unmap them again: each
 * is a section waiting for its .sframe data (where that lives in a segment
 * of its own), beyond the module's cap on such sections per mm.
 */
static int map_text_only(const char *lib, int n)
{
	unsigned long pg = sysconf(_SC_PAGESIZE);
	void *at[TEXT_ONLY_MAX];
	Elf64_Phdr ph[64];
	Elf64_Ehdr eh;
	int fd = open(lib, O_RDONLY), i, k = 0;

	if (fd < 0 || pread(fd, &eh, sizeof(eh), 0) != sizeof(eh) || eh.e_phnum > 64 ||
	    pread(fd, ph, eh.e_phnum * sizeof(*ph), eh.e_phoff) !=
	    (ssize_t)(eh.e_phnum * sizeof(*ph))) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	for (i = 0; i < eh.e_phnum; i++)
		if (ph[i].p_type == PT_LOAD && (ph[i].p_flags & PF_X))
			break;
	if (i == eh.e_phnum) {
		close(fd);
		return -1;
	}
	for (k = 0; k < n && k < TEXT_ONLY_MAX; k++) {
		unsigned long off = ph[i].p_offset & -pg;

		at[k] = mmap(NULL, ph[i].p_filesz + (ph[i].p_offset - off), PROT_READ | PROT_EXEC,
			     MAP_PRIVATE, fd, off);
		if (at[k] == MAP_FAILED)
			break;
	}
	close(fd);
	while (k--)
		munmap(at[k], ph[i].p_filesz + (ph[i].p_offset - (ph[i].p_offset & -pg)));
	return 0;
}

/* A JIT's W^X flips of anonymous memory: RW, RX, RW again. */
static void flip_anon(void)
{
	void *p = mmap(NULL, 65536, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	int i;

	if (p == MAP_FAILED)
		return;
	for (i = 0; i < 8; i++) {
		mprotect(p, 65536, PROT_READ | PROT_EXEC);
		mprotect(p, 65536, PROT_READ | PROT_WRITE);
	}
	munmap(p, 65536);
}

static void *short_thread(void *arg)
{
	volatile unsigned long x = 0;
	int i;

	for (i = 0; i < 1000; i++)
		x += i;
	return arg;
}

static int cmd_maps(int seconds, const char *lib)
{
	unsigned long rounds = 0, ops[MAPS_OPS] = { 0 }, threads = 0, failed = 0;
	double end = now() + seconds;
	struct mapped m;

	while (now() < end) {
		pthread_t t;
		int op = rnd() % MAPS_OPS;
		void *p;

		if (map_elf(lib, &m)) {
			failed++;
			continue;
		}
		if (!pthread_create(&t, NULL, short_thread, NULL))
			threads++;
		switch (op) {
		case 0:		/* plain munmap below */
			break;
		case 1:		/* mprotect drops PROT_EXEC, then restores it */
			mprotect(m.text, m.text_len, PROT_READ);
			mprotect(m.text, m.text_len, PROT_READ | PROT_EXEC);
			break;
		case 2:		/* anonymous memory over the first text page */
			mmap(m.text, 4096, PROT_READ | PROT_WRITE,
			     MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
			break;
		case 3:		/* the text moves elsewhere */
			p = mremap(m.text, m.text_len, m.text_len, MREMAP_MAYMOVE);
			if (p != MAP_FAILED && p != m.text)
				munmap(p, m.text_len);
			break;
		case 4:		/* partial munmap of the text's tail */
			if (m.text_len > 4096)
				munmap(m.text + 4096, m.text_len - 4096);
			break;
		case 5:		/* text waiting for its data, beyond the cap */
			if (map_text_only(lib, TEXT_ONLY_MAX))
				failed++;
			break;
		case 6:		/* anonymous memory flipped RW <-> RX */
			flip_anon();
			break;
		}
		ops[op]++;
		munmap(m.base, m.len);
		if (threads && !(rounds % 1))
			pthread_join(t, NULL);
		rounds++;
	}
	printf("stressor maps rounds %lu\n", rounds);
	printf("stressor maps munmap %lu\nstressor maps mprotect %lu\nstressor maps map_fixed %lu\n"
	       "stressor maps mremap %lu\nstressor maps partial_munmap %lu\n",
	       ops[0], ops[1], ops[2], ops[3], ops[4]);
	printf("stressor maps text_only %lu\nstressor maps anon_flips %lu\n", ops[5], ops[6]);
	printf("stressor maps threads %lu\nstressor maps map_failed %lu\n", threads, failed);
	return 0;
}

/* --------------------------------------------------------------- forks */

static int cmd_forks(int seconds, const char *self)
{
	unsigned long forks = 0, execs = 0, failed = 0;
	double end = now() + seconds;

	while (now() < end) {
		int status;
		pid_t pid = fork();

		if (pid < 0) {
			failed++;
			continue;
		}
		if (!pid) {
			if (forks & 1)
				_exit(0);	/* fork + exit */
			execl(self, self, "exit", (char *)NULL);
			_exit(127);
		}
		forks++;
		if (waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
		    !WEXITSTATUS(status) && !(forks & 1))
			execs++;
	}
	printf("stressor forks forks %lu\nstressor forks execs %lu\nstressor forks failed %lu\n",
	       forks, execs / 1, failed);
	return 0;
}

/* ------------------------------------------------------------- unwinds */

static unsigned long stops[NR_STOPS], unwinds, unwind_errors[2];

static int unwind(int cmd, pid_t pid, unsigned int flags)
{
	struct sfu_frame frames[MAX_FRAMES];
	struct sfu_unwind u = {
		.frames = (uintptr_t)frames, .max = MAX_FRAMES, .flags = flags, .pid = pid,
	};
	int err = ioctl(dev, cmd, &u);

	unwinds++;
	if (err) {
		/* A task that is gone or not in user space: counted, not an error. */
		if (errno == ESRCH || errno == EAGAIN || errno == EBUSY || errno == EINTR) {
			unwind_errors[0]++;
			return 0;
		}
		unwind_errors[1]++;
		fprintf(stderr, "stressor: unwind ioctl: %s\n", strerror(errno));
		abi_errors++;
		return -1;
	}
	if (u.nr > MAX_FRAMES || u.stop_reason <= 0 || u.stop_reason >= NR_STOPS) {
		fprintf(stderr, "stressor: unwind returned nr %u stop %d\n", u.nr, u.stop_reason);
		abi_errors++;
		return -1;
	}
	stops[u.stop_reason]++;
	return 0;
}

/* Unwind through @depth frames of this file's own code (which has .sframe). */
static __attribute__((noinline)) int nested(int depth, unsigned int flags)
{
	volatile int guard = depth;
	int r;

	if (depth <= 0)
		return unwind(SFU_IOC_UNWIND_SELF, 0, flags);
	r = nested(depth - 1, flags);
	return r + guard - depth;
}

/* ------------------------------------------------------------- hostile */

struct own {
	unsigned long text, text_end;
	unsigned long sframe;
	size_t sframe_size;
};

static int find_own(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct own *o = arg;
	int i;

	(void)size;
	if (o->text)
		return 1;	/* the first object is the program itself */
	for (i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *p = &info->dlpi_phdr[i];

		if (p->p_type == PT_LOAD && (p->p_flags & PF_X)) {
			o->text = info->dlpi_addr + p->p_vaddr;
			o->text_end = o->text + p->p_memsz;
		}
		if (p->p_type == 0x6474e554) {	/* PT_GNU_SFRAME */
			o->sframe = info->dlpi_addr + p->p_vaddr;
			o->sframe_size = p->p_memsz;
		}
	}
	return 1;
}

/* This program's text and .sframe section in @o; 0, or -1 if it has none. */
static int find_own_section(struct own *o)
{
	dl_iterate_phdr(find_own, o);
	if (!o->text || !o->sframe) {
		fprintf(stderr, "stressor: this program has no .sframe\n");
		return -1;
	}
	return 0;
}

static unsigned long refused[64], accepted, restored;

static int reg(const struct own *o)
{
	struct sfu_register r = {
		.sframe_addr = o->sframe, .sframe_size = o->sframe_size,
		.text_start = o->text, .text_end = o->text_end,
	};

	if (!ioctl(dev, SFU_IOC_REGISTER, &r))
		return 0;
	return errno;
}

static unsigned long absent;

/*
 * The device is open only for one batch of work at a time: an open file
 * pins the module, and the stress run unloads it in the middle of the load.
 */
static int dev_open(void)
{
	const char *pause = getenv("STRESS_PAUSE");

	/* The guest script asks for a gap while it unloads the module. */
	while (pause && !access(pause, F_OK))
		usleep(10000);
	dev = open(DEV, O_RDWR);
	if (dev >= 0)
		return 1;
	absent++;	/* between an unload and the next load */
	usleep(20000);
	return 0;
}

static void dev_close(void)
{
	close(dev);
	dev = -1;
}

/* A raw ioctl(UNWIND_SELF) made with the frame pointer (or SP) set to @val. */
static long ioctl_with(int which, unsigned long val, struct sfu_unwind *u)
{
	long ret;
#if defined(__x86_64__)
	register long rax __asm__("rax") = __NR_ioctl;
	register long rdi __asm__("rdi") = dev;
	register long rsi __asm__("rsi") = SFU_IOC_UNWIND_SELF;
	register long rdx __asm__("rdx") = (long)u;

	if (which == 0)
		__asm__ volatile("mov %%rbp, %%r12\n\tmov %[v], %%rbp\n\tsyscall\n\tmov %%r12, %%rbp"
				 : "+r"(rax) : "r"(rdi), "r"(rsi), "r"(rdx), [v] "r"(val)
				 : "rcx", "r11", "r12", "memory");
	else
		__asm__ volatile("mov %%rsp, %%r12\n\tmov %[v], %%rsp\n\tsyscall\n\tmov %%r12, %%rsp"
				 : "+r"(rax) : "r"(rdi), "r"(rsi), "r"(rdx), [v] "r"(val)
				 : "rcx", "r11", "r12", "memory");
	ret = rax;
#elif defined(__aarch64__)
	register long x8 __asm__("x8") = __NR_ioctl;
	register long x0 __asm__("x0") = dev;
	register long x1 __asm__("x1") = SFU_IOC_UNWIND_SELF;
	register long x2 __asm__("x2") = (long)u;

	if (which == 0)
		__asm__ volatile("mov x19, x29\n\tmov x29, %[v]\n\tsvc #0\n\tmov x29, x19"
				 : "+r"(x0) : "r"(x8), "r"(x1), "r"(x2), [v] "r"(val)
				 : "x19", "memory");
	else
		__asm__ volatile("mov x19, sp\n\tmov sp, %[v]\n\tsvc #0\n\tmov sp, x19"
				 : "+r"(x0) : "r"(x8), "r"(x1), "r"(x2), [v] "r"(val)
				 : "x19", "memory");
	ret = x0;
#else
#error "stressor: unsupported architecture"
#endif
	return ret;
}

static unsigned long bad_regs;

/* Frame pointer and stack pointer aimed where no unwinder may read. */
static void bad_registers(void)
{
	static const unsigned long kernel[] = {
		0xffff800000001000UL, 0xffffffff81000000UL, 0xfffffffffffff000UL,
	};
	struct sfu_frame frames[MAX_FRAMES];
	unsigned long hole, vals[6];
	int i, which;
	char *p;

	p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	munmap(p, 4096);
	hole = (unsigned long)p + 2048;
	vals[0] = kernel[0];
	vals[1] = kernel[1];
	vals[2] = kernel[2];
	vals[3] = hole;
	vals[4] = hole + 3;			/* misaligned, unmapped */
	vals[5] = (unsigned long)&frames[0] + 1;	/* misaligned, mapped */
	for (which = 0; which < 2; which++) {
		for (i = 0; i < 6; i++) {
			struct sfu_unwind u = {
				.frames = (uintptr_t)frames, .max = MAX_FRAMES,
				.flags = (i & 1) ? SFU_UNWIND_NOFAULT : 0,
			};
			long ret = ioctl_with(which, vals[i], &u);

			bad_regs++;
			unwinds++;
			if (ret || u.nr > MAX_FRAMES || u.stop_reason <= 0 ||
			    u.stop_reason >= NR_STOPS) {
				fprintf(stderr, "stressor: bad %s %#lx: ret %ld nr %u stop %d\n",
					which ? "sp" : "fp", vals[i], ret, u.nr, u.stop_reason);
				abi_errors++;
				continue;
			}
			stops[u.stop_reason]++;
		}
	}
}

/* A thread whose stack keeps changing while another thread unwinds it. */
static volatile pid_t scribbler_tid;

static __attribute__((noinline)) void scribble(int depth)
{
	volatile unsigned long junk[16];
	int i;

	for (i = 0; i < 16; i++)
		junk[i] = rnd();
	if (depth > 0)
		scribble(depth - 1);
	else
		for (i = 0; i < 2000; i++)
			junk[i & 15] ^= rnd();
}

static void *scribbler(void *arg)
{
	(void)arg;
	scribbler_tid = syscall(SYS_gettid);
	while (!stop_now)
		scribble(rnd() % 24);
	return NULL;
}

/* Rewrites the section through a shared mapping of a file while it is used. */
struct rewrite {
	int fd;
	off_t off;
	size_t size;
	unsigned long writes;
};

static void *rewriter(void *arg)
{
	struct rewrite *rw = arg;
	unsigned char b;

	while (!stop_now) {
		b = rnd();
		if (pwrite(rw->fd, &b, 1, rw->off + rnd() % rw->size) == 1)
			rw->writes++;
	}
	return NULL;
}

/* Cover the pages of the section with a MAP_SHARED file holding the same bytes. */
static int share_section(const struct own *o, struct rewrite *rw)
{
	unsigned long pg = sysconf(_SC_PAGESIZE);
	unsigned long lo = o->sframe & -pg;
	unsigned long hi = (o->sframe + o->sframe_size + pg - 1) & -pg;
	char path[] = "/tmp/stressor-sframe-XXXXXX";
	int fd = mkstemp(path);

	if (fd < 0)
		return -1;
	unlink(path);
	if (pwrite(fd, (void *)lo, hi - lo, 0) != (ssize_t)(hi - lo) ||
	    mmap((void *)lo, hi - lo, PROT_READ, MAP_SHARED | MAP_FIXED, fd, 0) == MAP_FAILED) {
		close(fd);
		return -1;
	}
	rw->fd = fd;
	rw->off = o->sframe - lo;
	rw->size = o->sframe_size;
	return 0;
}

static int cmd_hostile(int seconds)
{
	unsigned long mutations = 0, rewrites_unwound = 0, remote = 0;
	double end = now() + seconds, phase;
	struct rewrite rw = { 0 };
	unsigned char *orig;
	struct own o = { 0 };
	pthread_t t;
	int i, err;

	if (find_own_section(&o))
		return 2;
	orig = malloc(o.sframe_size);
	memcpy(orig, (void *)o.sframe, o.sframe_size);
	/* The section's pages become writable (private copies). */
	if (mprotect((void *)(o.sframe & -sysconf(_SC_PAGESIZE)),
		     o.sframe + o.sframe_size - (o.sframe & -sysconf(_SC_PAGESIZE)),
		     PROT_READ | PROT_WRITE)) {
		perror("mprotect");
		return 2;
	}

	/* Phase 1: mutated sections, registered over this program's text. */
	phase = now() + seconds / 3.0;
	while (now() < phase && now() < end) {
		unsigned char *sec = (unsigned char *)o.sframe;
		int n = 1 + rnd() % 4;

		if (!dev_open())
			continue;
		for (i = 0; i < n; i++) {
			/* Half the mutations hit the header, half anywhere. */
			size_t at = (rnd() & 1) ? rnd() % 32 : rnd() % o.sframe_size;

			sec[at % o.sframe_size] = rnd();
		}
		mutations++;
		err = reg(&o);
		if (err) {
			refused[err < 64 ? err : 0]++;
		} else {
			accepted++;
			nested(rnd() % 8, 0);
			nested(rnd() % 8, SFU_UNWIND_NOFAULT);
			nested(rnd() % 8, SFU_UNWIND_NO_FP);
		}
		memcpy(sec, orig, o.sframe_size);
		if (reg(&o)) {
			fprintf(stderr, "stressor: the original section is refused: %s\n",
				strerror(errno));
			abi_errors++;
		} else {
			restored++;
		}
		dev_close();
	}

	/* Phase 2: bad registers, and a stack that changes under the unwinder. */
	stop_now = 0;
	pthread_create(&t, NULL, scribbler, NULL);
	while (!scribbler_tid)
		;
	phase = now() + seconds / 3.0;
	while (now() < phase && now() < end) {
		if (!dev_open())
			continue;
		bad_registers();
		for (i = 0; i < 20; i++, remote++)
			unwind(SFU_IOC_UNWIND_TASK, scribbler_tid,
			       (i & 1) ? SFU_UNWIND_NOFAULT : 0);
		dev_close();
	}
	stop_now = 1;
	pthread_join(t, NULL);

	/* Phase 3: the section rewritten through a shared file while unwound. */
	if (!share_section(&o, &rw)) {
		stop_now = 0;
		pthread_create(&t, NULL, rewriter, &rw);
		while (now() < end) {
			if (!dev_open())
				continue;
			/* Register whatever the file holds now (often refused). */
			reg(&o);
			for (i = 0; i < 32; i++) {
				nested(rnd() % 8, 0);
				nested(rnd() % 8, SFU_UNWIND_NOFAULT);
				rewrites_unwound += 2;
			}
			dev_close();
		}
		stop_now = 1;
		pthread_join(t, NULL);
	}

	printf("stressor hostile mutations %lu\nstressor hostile accepted %lu\n", mutations,
	       accepted);
	for (i = 0; i < 64; i++)
		if (refused[i])
			printf("stressor hostile refused_%s %lu\n", i ? strerrorname_np(i) : "other",
			       refused[i]);
	printf("stressor hostile restored %lu\nstressor hostile bad_registers %lu\n", restored,
	       bad_regs);
	printf("stressor hostile remote_unwinds %lu\nstressor hostile rewrites %lu\n"
	       "stressor hostile rewritten_unwinds %lu\n", remote, rw.writes, rewrites_unwound);
	printf("stressor hostile unwinds %lu\nstressor hostile unwind_gone %lu\n", unwinds,
	       unwind_errors[0]);
	for (i = 1; i < NR_STOPS; i++)
		if (stops[i])
			printf("stressor hostile stop_%d %lu\n", i, stops[i]);
	printf("stressor hostile module_absent %lu\n", absent);
	printf("stressor hostile abi_errors %d\n", abi_errors);
	return abi_errors ? 1 : 0;
}

/* ------------------------------------------------------ attacker, victim */

#define ATTACK_FLOODERS	3	/* processes, each beyond max_sections_per_mm */
#define ATTACK_PAGES	1100
#define ATTACK_STOPPED	4	/* stopped children with remote unwinds queued */

/* Become @uid, with no supplementary groups; 0 or -1. */
static int become(uid_t uid)
{
	if (getuid() == uid)
		return 0;
	if (setgroups(0, NULL) || setgid(uid) || setuid(uid)) {
		perror("stressor: dropping privileges");
		return -1;
	}
	/* What setuid() took: its own children are readable by it again. */
	prctl(PR_SET_DUMPABLE, 1, 0, 0, 0);
	return 0;
}

static void on_alarm(int sig)
{
	(void)sig;
}

/*
 * Copies of this program's own section, each registered over one of @pages
 * anonymous executable pages: sections whose text and data overlap no
 * other (one that did would replace it).
 */
static void flood(const struct own *o, int pages, unsigned long *ok, unsigned long *nospc,
		  unsigned long *other)
{
	size_t slot = (o->sframe_size + 63) & ~63UL;
	long pg = sysconf(_SC_PAGESIZE);
	char *text, *data;
	int i;

	text = mmap(NULL, pages * pg, PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (text == MAP_FAILED)
		return;
	data = mmap(NULL, pages * slot, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (data == MAP_FAILED) {
		munmap(text, pages * pg);
		return;
	}
	for (i = 0; i < pages && !stop_now; i++) {
		struct sfu_register r = {
			.sframe_addr = (uintptr_t)data + i * slot, .sframe_size = o->sframe_size,
			.text_start = (uintptr_t)text + i * pg,
			.text_end = (uintptr_t)text + (i + 1) * pg,
		};

		memcpy(data + i * slot, (void *)o->sframe, o->sframe_size);
		if (!ioctl(dev, SFU_IOC_REGISTER, &r))
			(*ok)++;
		else if (errno == ENOSPC)
			(*nospc)++;
		else
			(*other)++;
	}
	/* Unmapped: the module drops them at its next re-check. */
	munmap(text, pages * pg);
	munmap(data, pages * slot);
}

static int flooder(const struct own *o, double end)
{
	unsigned long ok = 0, nospc = 0, other = 0;

	while (now() < end) {
		if (!dev_open())
			continue;
		flood(o, ATTACK_PAGES, &ok, &nospc, &other);
		dev_close();
		usleep(50000);
	}
	printf("stressor attacker registered %lu\nstressor attacker refused_ENOSPC %lu\n"
	       "stressor attacker refused_other %lu\n", ok, nospc, other);
	return 0;
}

/*
 * Unwind a stopped child, and stop waiting at once (a signal interrupts
 * the wait): the module unwinds a stopped child from here; one caught
 * running keeps the request queued until it returns to user space.
 * Counted either way.
 */
static unsigned long remote_refused_cap;

static int queue_on_stopped(pid_t child, unsigned long *queued)
{
	struct sfu_frame frames[MAX_FRAMES];
	struct sfu_unwind u = { .frames = (uintptr_t)frames, .max = MAX_FRAMES, .pid = child };
	struct itimerval it = { .it_value = { .tv_usec = 20000 } };
	char path[64];
	int mem, err;

	/* The proof of access the module asks for another process's stack. */
	snprintf(path, sizeof(path), "/proc/%d/mem", child);
	mem = open(path, O_RDONLY);
	if (mem < 0) {
		fprintf(stderr, "stressor: cannot open %s: %s\n", path, strerror(errno));
		abi_errors++;
		return -1;
	}
	u.flags = SFU_UNWIND_MEM_FD;
	u.mem_fd = mem;
	setitimer(ITIMER_REAL, &it, NULL);
	err = ioctl(dev, SFU_IOC_UNWIND_TASK, &u) ? errno : 0;
	close(mem);
	errno = err;
	if (!err || err == EINTR || err == ETIMEDOUT) {
		(*queued)++;
		return 0;
	}
	if (errno == ESRCH)
		return 0;
	/* Beyond the requests one caller or one target may have queued. */
	if (errno == EBUSY) {
		remote_refused_cap++;
		return 0;
	}
	fprintf(stderr, "stressor: remote unwind of a stopped child: %s\n", strerror(errno));
	abi_errors++;
	return -1;
}

static int cmd_attacker(int seconds)
{
	struct sigaction sa = { .sa_handler = on_alarm };	/* no SA_RESTART */
	pid_t flooders[ATTACK_FLOODERS], stopped[ATTACK_STOPPED];
	unsigned long queued = 0, rounds = 0, unloads = 0;
	double end = now() + seconds;
	struct own o = { 0 };
	int i, status;

	if (become(65534) || find_own_section(&o))
		return 2;
	for (i = 0; i < ATTACK_FLOODERS; i++) {
		flooders[i] = fork();
		if (!flooders[i])
			_exit(flooder(&o, end));
	}
	for (i = 0; i < ATTACK_STOPPED; i++) {
		stopped[i] = fork();
		if (!stopped[i]) {
			for (;;)
				pause();
		}
	}
	sigaction(SIGALRM, &sa, NULL);
	while (now() < end) {
		if (!dev_open())
			continue;
		for (i = 0; i < ATTACK_STOPPED; i++) {
			/* Now and then one runs what it holds, and stops again. */
			if (!(rounds % 8) && i == (int)(rounds / 8) % ATTACK_STOPPED)
				kill(stopped[i], SIGCONT);
			kill(stopped[i], SIGSTOP);
			queue_on_stopped(stopped[i], &queued);
		}
		/*
		 * A flood on one of them: a stopped child is unwound from the
		 * caller, so these are served, not queued; any refusal beyond
		 * the caps (EBUSY) is counted.
		 */
		for (i = 0; i < 2 * ATTACK_STOPPED; i++)
			queue_on_stopped(stopped[rounds % ATTACK_STOPPED], &queued);
		dev_close();
		/* Unloading is root's: refused, whatever it holds. */
		if (!syscall(SYS_delete_module, "sframe_unwind", O_NONBLOCK) || errno != EPERM) {
			fprintf(stderr, "stressor: uid 65534 unloading the module: %s\n",
				strerror(errno));
			abi_errors++;
		}
		unloads++;
		rounds++;
		usleep(200000);
	}
	for (i = 0; i < ATTACK_FLOODERS; i++)
		waitpid(flooders[i], &status, 0);
	for (i = 0; i < ATTACK_STOPPED; i++) {
		kill(stopped[i], SIGKILL);
		waitpid(stopped[i], &status, 0);
	}
	printf("stressor attacker stopped_unwinds_queued %lu\n", queued);
	printf("stressor attacker remote_refused_cap %lu\n", remote_refused_cap);
	printf("stressor attacker unloads_refused %lu\n", unloads);
	printf("stressor attacker abi_errors %d\n", abi_errors);
	return abi_errors ? 1 : 0;
}

static int cmd_victim(int seconds)
{
	unsigned long ok = 0, limited = 0, other = 0;
	double end = now() + seconds;
	struct own o = { 0 };
	int err;

	if (become(65533) || find_own_section(&o))
		return 2;
	while (now() < end) {
		if (!dev_open())
			continue;
		err = reg(&o);
		if (!err) {
			ok++;
			nested(rnd() % 8, SFU_UNWIND_NO_FP);
			nested(rnd() % 8, SFU_UNWIND_NOFAULT | SFU_UNWIND_NO_FP);
		} else if (err == ENOSPC) {
			limited++;
		} else {
			other++;
		}
		dev_close();
		usleep(20000);
	}
	printf("stressor victim registered %lu\nstressor victim refused_ENOSPC %lu\n"
	       "stressor victim refused_other %lu\nstressor victim unwinds %lu\n", ok, limited,
	       other, unwinds);
	for (err = 1; err < NR_STOPS; err++)
		if (stops[err])
			printf("stressor victim stop_%d %lu\n", err, stops[err]);
	printf("stressor victim abi_errors %d\n", abi_errors);
	return abi_errors || limited ? 1 : 0;
}

/* ---------------------------------------------------------------- spin */

static volatile unsigned long spin_sink;

static __attribute__((noinline)) void spin_leaf(double end)
{
	while (now() < end)
		spin_sink++;
}

static __attribute__((noinline)) void spin_chain(int depth, double end)
{
	if (depth)
		spin_chain(depth - 1, end);
	else
		spin_leaf(end);
	spin_sink += depth;
}

static int cmd_spin(int seconds)
{
	double end = now() + seconds;

	while (now() < end)
		spin_chain(rnd() % 32, now() + 0.05);
	printf("stressor spin loops %lu\n", spin_sink);
	return 0;
}

/* The first line of /proc/PID/NAME into @buf, without its newline ("" if none). */
static void proc_line(const char *pid, const char *name, char *buf, size_t size)
{
	char path[PATH_MAX];
	FILE *fp;

	buf[0] = '\0';
	snprintf(path, sizeof(path), "/proc/%s/%s", pid, name);
	fp = fopen(path, "r");
	if (!fp)
		return;
	if (!fgets(buf, size, fp))
		buf[0] = '\0';
	fclose(fp);
	buf[strcspn(buf, "\n")] = '\0';
}

/* Print the processes that hold /dev/sframe_unwind open, and where. */
static void print_holders(void)
{
	char path[PATH_MAX], link[PATH_MAX], comm[64], wchan[64];
	struct dirent *p, *f;
	DIR *proc, *fds;
	ssize_t n;

	proc = opendir("/proc");
	if (!proc)
		return;
	while ((p = readdir(proc))) {
		if (p->d_name[0] < '0' || p->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/fd", p->d_name);
		fds = opendir(path);
		if (!fds)
			continue;
		while ((f = readdir(fds))) {
			snprintf(path, sizeof(path), "/proc/%s/fd/%s", p->d_name, f->d_name);
			n = readlink(path, link, sizeof(link) - 1);
			if (n <= 0)
				continue;
			link[n] = '\0';
			if (strcmp(link, DEV))
				continue;
			proc_line(p->d_name, "comm", comm, sizeof(comm));
			proc_line(p->d_name, "wchan", wchan, sizeof(wchan));
			fprintf(stderr, "  held by pid %s (%s), waiting in %s\n", p->d_name, comm,
				wchan[0] ? wchan : "-");
		}
		closedir(fds);
	}
	closedir(proc);
}

static int cmd_unload(const char *name)
{
	double t0, t1;
	int tries, err = 0;

	for (tries = 1; tries <= 10; tries++) {
		t0 = now();
		if (!syscall(SYS_delete_module, name, O_NONBLOCK)) {
			t1 = now();
			printf("unload ms %.0f tries %d\n", (t1 - t0) * 1000, tries);
			return 0;
		}
		/* sleep() and print_holders() may change errno. */
		err = errno;
		if (err != EBUSY && err != EAGAIN)
			break;
		sleep(1);
	}
	fprintf(stderr, "delete_module(%s): %s after %d tries\n", name, strerror(err),
		tries - 1);
	print_holders();
	/* In use: queued work holds the module (run-guest tells it apart). */
	return err == EBUSY || err == EAGAIN ? 2 : 1;
}

int main(int argc, char **argv)
{
	int seconds = argc >= 3 ? atoi(argv[2]) : 0;

	if (argc >= 2 && !strcmp(argv[1], "exit"))
		return 0;
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc >= 4 && !strcmp(argv[1], "maps"))
		return cmd_maps(seconds, argv[3]);
	if (argc >= 3 && !strcmp(argv[1], "forks"))
		return cmd_forks(seconds, "/proc/self/exe");
	if (argc >= 3 && !strcmp(argv[1], "spin"))
		return cmd_spin(seconds);
	if (argc >= 3 && !strcmp(argv[1], "hostile"))
		return cmd_hostile(seconds);
	if (argc >= 3 && !strcmp(argv[1], "attacker"))
		return cmd_attacker(seconds);
	if (argc >= 3 && !strcmp(argv[1], "victim"))
		return cmd_victim(seconds);
	if (argc >= 3 && !strcmp(argv[1], "unload"))
		return cmd_unload(argv[2]);
	fprintf(stderr, "usage: see the comment at the top of stressor.c\n");
	return 2;
}
