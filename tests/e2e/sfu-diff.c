// SPDX-License-Identifier: GPL-2.0
/*
 * libsfu-diff.so - the module's unwind against libgcc's, at signals, in a
 * real program.  Preloaded (LD_PRELOAD) into any dynamic program, it arms
 * ITIMER_PROF; at each SIGPROF the handler takes glibc's backtrace()
 * (libgcc's DWARF unwinder, from .eh_frame) and the module's
 * SFU_IOC_UNWIND_SELF at the same instant, and compares them frame by
 * frame from the interrupted PC on (both walk the handler and the signal
 * trampoline first; each is aligned on the PC the kernel saved in the
 * ucontext).  A sample is:
 *
 *   identical     both give the same addresses all the way
 *   shorter       the module stops first; where both have a frame it is
 *                 the same (a profiler's incomplete but true callchain)
 *   longer        libgcc stops first (the same otherwise)
 *   contradicted  at some frame both have, the addresses differ: the
 *                 module (or libgcc) invented a caller
 *   unaligned     the module's walk, or libgcc's, does not reach the
 *                 interrupted PC (neither gets through the signal frame)
 *
 * Beside them, perf's own frame-pointer walk of the same instant, as
 * perf_callchain_user() makes it on x86_64 (the PC, then each record's
 * return address from the interrupted RBP on, records read until one
 * cannot be, at most MAX_FRAMES; nothing else checked), is judged against
 * libgcc's on the frames a profiler's complete chain has
 * (tests/e2e/perf-complete): from the PC to the caller of the program's
 * outermost function (main's caller, __libc_start_call_main, or a thread
 * function's, start_thread): complete= counts the samples whose module
 * walk has all of those as libgcc has them, perf_right= the same of
 * perf's walk, perf_skips= those where a frame of perf's walk differs
 * (a record that skips a frame), and behind= the samples perf's walk got
 * right that the module did not (fewer of those frames, or one that
 * differs): where loading the module loses a callchain perf would have
 * given.
 *
 * At exit the library appends one line per process to $SFU_DIFF_OUT
 * (default: stderr):
 *
 *   sfu-diff prog=NAME pid=N samples=N identical=N shorter=N longer=N
 *            contradicted=N unaligned=N errors=N complete=N perf_right=N perf_skips=N
 *            behind=N stops=REASON:N,... behind_stops=REASON:N,...
 *
 * and a line per contradicted sample (up to 8): the frame index from the
 * PC, libgcc's address and the module's, each as object+offset, and the
 * method of the module's frame and of the one before it.  stops= counts
 * the module's stop reasons of the shorter samples, behind_stops= those of
 * the samples behind perf's walk.
 *
 * Environment: SFU_DIFF_US the timer's interval in microseconds of CPU
 * time (default 2000); SFU_DIFF_MAX the most samples to take (default
 * 1000); SFU_DIFF_FLAGS the ioctl's flags (default 0: faultable reads);
 * SFU_DIFF_PROG only in the process whose /proc/self/exe ends with this
 * name (others load the library and do nothing); SFU_DIFF_VERBOSE set: each
 * contradicted sample in full (both walks, the interrupted SP and FP, the
 * module's stop reason and the 160 words above that SP), and when it names
 * a stop reason the first shorter samples that stopped so too; and the
 * first samples behind perf's walk, with perf's walk beside the others.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <execinfo.h>
#include <fcntl.h>
#include <limits.h>
#include <link.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/uio.h>
#include <ucontext.h>
#include <unistd.h>

#include "../../include/uapi/sframe_unwind.h"
#include "../../include/sframe_unwind/stop_names.h"

#define MAX_FRAMES	512
#define MAX_DETAILS	8
#define NR_STOPS	32

static const char *const stop_names[SFU_STOP_NR] = SFU_STOP_NAMES_INIT;

#define DETAIL_CHAIN	12
#define DETAIL_WORDS	160

struct detail {
	int depth;
	unsigned long pc, gcc, mod;
	unsigned int method, prev_method;
	/* With SFU_DIFF_VERBOSE: both walks from the PC, and the stack. */
	unsigned long sp, fp, ngcc, nmod, nperf, stop;
	unsigned long gcc_chain[DETAIL_CHAIN], mod_chain[DETAIL_CHAIN], perf_chain[DETAIL_CHAIN];
	unsigned char mod_method[DETAIL_CHAIN];
	unsigned long words[DETAIL_WORDS];
};

static int dev_fd = -1;
static unsigned int max_samples = 1000, ioctl_flags, verbose;
static int verbose_stop = -1;
static struct detail stopped[MAX_DETAILS];
static unsigned long nstopped;
static volatile int active;
static unsigned long samples, identical, shorter, longer, contradicted, unaligned, errors;
static unsigned long stops[NR_STOPS], behind_stops[NR_STOPS];
static unsigned long complete, perf_right, perf_skips, behind;
static struct detail behind_details[MAX_DETAILS];
static unsigned long nbehind_details;
static pid_t self;
static bool use_pvr;
static unsigned long main_stack_start, main_stack_end;
/* The program's own executable segments (dl_iterate_phdr()'s first object). */
#define MAX_EXE_SEGS	4
static unsigned long exe_lo[MAX_EXE_SEGS], exe_hi[MAX_EXE_SEGS];
static int exe_segs;
static struct detail details[MAX_DETAILS];
static unsigned long ndetails;
static char prog[64];

/* Static TLS: no allocation at a thread's first signal. */
#define TLS_IE __attribute__((tls_model("initial-exec")))

/*
 * The system call made here, not in libc's wrapper: the module's walk then
 * starts in this library, which has .sframe, and reaches the signal frame
 * whether or not libc has unwind rows (sidecars).
 */
static inline long raw_ioctl(int fd, unsigned long cmd, void *arg)
{
	long ret;

	asm volatile("syscall"
		     : "=a"(ret)
		     : "0"((long)SYS_ioctl), "D"((long)fd), "S"(cmd), "d"(arg)
		     : "rcx", "r11", "memory");
	return ret;
}

static unsigned long count(unsigned long *c)
{
	return __atomic_fetch_add(c, 1, __ATOMIC_RELAXED);
}

static void disarm(void)
{
	struct itimerval it = {};

	setitimer(ITIMER_PROF, &it, NULL);
}

/* Both walks and the stack words of a sample (SFU_DIFF_VERBOSE). */
static void keep_chains(struct detail *d, const ucontext_t *uc, void **bt, int nbt,
			const struct sfu_frame *frames, int nfr, int stop)
{
	int i;

	d->pc = uc->uc_mcontext.gregs[REG_RIP];
	d->sp = uc->uc_mcontext.gregs[REG_RSP];
	d->fp = uc->uc_mcontext.gregs[REG_RBP];
	d->stop = stop;
	d->ngcc = nbt < DETAIL_CHAIN ? nbt : DETAIL_CHAIN;
	d->nmod = nfr < DETAIL_CHAIN ? nfr : DETAIL_CHAIN;
	for (i = 0; i < (int)d->ngcc; i++)
		d->gcc_chain[i] = (unsigned long)bt[i];
	for (i = 0; i < (int)d->nmod; i++) {
		d->mod_chain[i] = frames[i].ip;
		d->mod_method[i] = frames[i].method;
	}
	/* The interrupted frame's stack, from its SP: the thread's own stack. */
	memcpy(d->words, (void *)d->sp, sizeof(d->words));
}

/*
 * A frame record at @fp, read as perf's __get_user() would: through
 * process_vm_readv(), which fails where that would fault, where the
 * kernel has it (CONFIG_CROSS_MEMORY_ATTACH); else only within the main
 * thread's stack above @sp (a walk that leaves it is no complete chain
 * of the frames libgcc finds, whatever it reads there).
 */
static bool read_record(unsigned long fp, unsigned long sp, unsigned long rec[2])
{
	struct iovec local = { rec, 2 * sizeof(rec[0]) }, remote = { (void *)fp, local.iov_len };

	if (use_pvr)
		return syscall(SYS_process_vm_readv, self, &local, 1, &remote, 1, 0) ==
		       (long)local.iov_len;
	if (fp < sp || fp > main_stack_end - local.iov_len || sp < main_stack_start)
		return false;
	memcpy(rec, (void *)fp, local.iov_len);
	return true;
}

/*
 * perf's own walk from the interrupted registers: perf_callchain_user()
 * on x86_64 stores the PC, then, while a record at the frame pointer can
 * be read, its return address, and follows its saved frame pointer.
 * Returns the number of addresses in @pc.
 */
static int perf_walk(const ucontext_t *uc, unsigned long *pc, int max)
{
	unsigned long fp = uc->uc_mcontext.gregs[REG_RBP], rec[2];
	unsigned long sp = uc->uc_mcontext.gregs[REG_RSP];
	int n = 0;

	pc[n++] = uc->uc_mcontext.gregs[REG_RIP];
	while (n < max && fp) {
		if (!read_record(fp, sp, rec))
			break;
		pc[n++] = rec[1];
		fp = rec[0];
	}
	return n;
}

static bool in_exe(unsigned long addr)
{
	int i;

	for (i = 0; i < exe_segs; i++)
		if (addr >= exe_lo[i] && addr < exe_hi[i])
			return true;
	return false;
}

/*
 * How many of libgcc's frames from the PC (@bt, @nbt) a complete chain
 * has: through the caller of the outermost frame of the program's own
 * code, below the program's entry (_start, libgcc's last frame): main's
 * caller, or a thread function's.  All of them where no frame but the
 * last is the program's.
 */
static int complete_frames(void *const *bt, int nbt)
{
	int k;

	for (k = nbt - 2; k >= 0; k--)
		if (in_exe((unsigned long)bt[k]))
			return k + 2 < nbt ? k + 2 : nbt;
	return nbt;
}

/*
 * A walk (@w, @nw) against libgcc's from its PC (@bt, @nbt, aligned):
 * true if it has the first @need frames as libgcc has them; *@differs
 * set if one of those differs.
 */
static bool walk_complete(const unsigned long *w, int nw, void *const *bt, int need,
			  bool *differs)
{
	int k;

	*differs = false;
	for (k = 0; k < need && k < nw; k++) {
		if ((unsigned long)bt[k] != w[k]) {
			*differs = true;
			return false;
		}
	}
	return k == need;
}

static void on_prof(int sig, siginfo_t *si, void *ucv)
{
	static __thread TLS_IE struct sfu_frame frames[MAX_FRAMES];
	static __thread TLS_IE void *bt[MAX_FRAMES];
	static __thread TLS_IE unsigned long pw[MAX_FRAMES], mw[MAX_FRAMES];
	bool module_right, pright, pskips, mdiffers;
	int npw, need;
	ucontext_t *uc = ucv;
	struct sfu_unwind req = {
		.frames = (uintptr_t)frames, .max = MAX_FRAMES, .flags = ioctl_flags,
	};
	unsigned long pc = uc->uc_mcontext.gregs[REG_RIP];
	int saved = errno, n, i, j = -1, g = -1, k;

	(void)sig;
	(void)si;
	if (!active)
		return;
	if (count(&samples) >= max_samples) {
		active = 0;
		disarm();
		__atomic_fetch_sub(&samples, 1, __ATOMIC_RELAXED);
		goto out;
	}
	npw = perf_walk(uc, pw, MAX_FRAMES);
	n = backtrace(bt, MAX_FRAMES);
	if (raw_ioctl(dev_fd, SFU_IOC_UNWIND_SELF, &req)) {
		count(&errors);
		goto out;
	}
	for (i = 0; i < (int)req.nr; i++) {
		if (frames[i].ip == pc && frames[i].method == SFU_FRAME_SIGNAL) {
			j = i;
			break;
		}
	}
	for (i = 0; i < n; i++) {
		if ((unsigned long)bt[i] == pc) {
			g = i;
			break;
		}
	}
	if (j < 0 || g < 0) {
		count(&unaligned);
		goto out;
	}
	need = complete_frames(bt + g, n - g);
	pright = walk_complete(pw, npw, bt + g, need, &pskips);
	for (i = j; i < (int)req.nr; i++)
		mw[i - j] = frames[i].ip;
	module_right = walk_complete(mw, req.nr - j, bt + g, need, &mdiffers);
	if (module_right)
		count(&complete);
	if (pright)
		count(&perf_right);
	if (pskips)
		count(&perf_skips);
	for (k = 0; g + k < n && j + k < (int)req.nr; k++) {
		if ((unsigned long)bt[g + k] != frames[j + k].ip) {
			unsigned long d = count(&contradicted);

			if (d < MAX_DETAILS) {
				details[d].depth = k;
				details[d].pc = pc;
				details[d].gcc = (unsigned long)bt[g + k];
				details[d].mod = frames[j + k].ip;
				details[d].method = frames[j + k].method;
				details[d].prev_method = frames[j + k - 1].method;
				if (verbose)
					keep_chains(&details[d], uc, bt + g, n - g, frames + j,
						    req.nr - j, req.stop_reason);
				__atomic_fetch_add(&ndetails, 1, __ATOMIC_RELEASE);
			}
			goto judge;
		}
	}
	if (g + k == n && j + k == (int)req.nr) {
		count(&identical);
	} else if (j + k == (int)req.nr) {
		count(&shorter);
		if (req.stop_reason >= 0 && req.stop_reason < NR_STOPS)
			count(&stops[req.stop_reason]);
		if (req.stop_reason == verbose_stop) {
			unsigned long d = count(&nstopped);

			if (d < MAX_DETAILS)
				keep_chains(&stopped[d], uc, bt + g, n - g, frames + j, req.nr - j,
					    req.stop_reason);
		}
	} else {
		count(&longer);
	}
judge:
	if (pright && !module_right) {
		unsigned long d = count(&behind);

		if (req.stop_reason >= 0 && req.stop_reason < NR_STOPS)
			count(&behind_stops[req.stop_reason]);
		if (verbose && d < MAX_DETAILS) {
			struct detail *bd = &behind_details[d];

			keep_chains(bd, uc, bt + g, n - g, frames + j, req.nr - j,
				    req.stop_reason);
			bd->nperf = npw < DETAIL_CHAIN ? npw : DETAIL_CHAIN;
			memcpy(bd->perf_chain, pw, bd->nperf * sizeof(pw[0]));
			__atomic_fetch_add(&nbehind_details, 1, __ATOMIC_RELEASE);
		}
	}
out:
	errno = saved;
}

/* "object+0xoff" of @addr, or the bare address. */
static void where(unsigned long addr, char *buf, size_t len)
{
	Dl_info info;
	const char *base;

	if (dladdr((void *)addr, &info) && info.dli_fname) {
		base = strrchr(info.dli_fname, '/');
		base = base ? base + 1 : info.dli_fname;
		if (!*base)
			base = prog;
		snprintf(buf, len, "%s+%#lx", base, addr - (unsigned long)info.dli_fbase);
	} else {
		snprintf(buf, len, "%#lx", addr);
	}
}

static const char *stop_name(unsigned int i)
{
	return i < sizeof(stop_names) / sizeof(stop_names[0]) ? stop_names[i] : "?";
}

/* Whether process_vm_readv() works; if not, where the main thread's stack is. */
static void find_main_stack(void)
{
	unsigned long probe[2] = { 1, 2 }, rec[2];
	struct iovec local = { rec, sizeof(rec) }, remote = { probe, sizeof(probe) };
	char line[512];
	FILE *f;

	use_pvr = syscall(SYS_process_vm_readv, self, &local, 1, &remote, 1, 0) ==
		  (long)sizeof(rec) && rec[1] == 2;
	f = fopen("/proc/self/maps", "re");
	while (f && fgets(line, sizeof(line), f))
		if (strstr(line, "[stack]"))
			sscanf(line, "%lx-%lx", &main_stack_start, &main_stack_end);
	if (f)
		fclose(f);
}

/* The first object dl_iterate_phdr() reports is the program: its text. */
static int exe_segments(struct dl_phdr_info *info, size_t size, void *data)
{
	int i;

	(void)size;
	(void)data;
	for (i = 0; i < info->dlpi_phnum && exe_segs < MAX_EXE_SEGS; i++) {
		const Elf64_Phdr *ph = &info->dlpi_phdr[i];

		if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X))
			continue;
		exe_lo[exe_segs] = info->dlpi_addr + ph->p_vaddr;
		exe_hi[exe_segs++] = info->dlpi_addr + ph->p_vaddr + ph->p_memsz;
	}
	return 1;
}

__attribute__((constructor)) static void sfu_diff_start(void)
{
	const char *us = getenv("SFU_DIFF_US"), *max = getenv("SFU_DIFF_MAX");
	const char *flags = getenv("SFU_DIFF_FLAGS"), *want = getenv("SFU_DIFF_PROG");
	struct sigaction sa = {};
	struct itimerval it = {};
	char exe[PATH_MAX], *base;
	void *warm[4];
	ssize_t len;
	int i;
	long usec;

	len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	exe[len > 0 ? len : 0] = 0;
	base = strrchr(exe, '/');
	base = base ? base + 1 : exe;
	len = strlen(base);
	memcpy(prog, base, len < (ssize_t)sizeof(prog) ? len : (ssize_t)sizeof(prog) - 1);
	if (want && *want && strcmp(prog, want))
		return;
	self = getpid();
	dl_iterate_phdr(exe_segments, NULL);
	find_main_stack();
	dev_fd = open("/dev/sframe_unwind", O_RDONLY | O_CLOEXEC);
	if (dev_fd < 0) {
		fprintf(stderr, "sfu-diff: /dev/sframe_unwind: %s\n", strerror(errno));
		return;
	}
	/* The first backtrace() loads libgcc_s: not in a signal handler. */
	backtrace(warm, 4);
	usec = us ? strtol(us, NULL, 0) : 2000;
	if (max)
		max_samples = strtoul(max, NULL, 0);
	if (flags)
		ioctl_flags = strtoul(flags, NULL, 0);
	verbose = !!getenv("SFU_DIFF_VERBOSE");
	for (i = 0; verbose && i < NR_STOPS; i++)
		if (!strcmp(getenv("SFU_DIFF_VERBOSE"), stop_name(i)))
			verbose_stop = i;
	sa.sa_sigaction = on_prof;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGPROF, &sa, NULL)) {
		perror("sfu-diff: sigaction");
		return;
	}
	it.it_interval.tv_sec = usec / 1000000;
	it.it_interval.tv_usec = usec % 1000000;
	it.it_value = it.it_interval;
	active = 1;
	if (setitimer(ITIMER_PROF, &it, NULL))
		perror("sfu-diff: setitimer");
}

/* SFU_DIFF_VERBOSE: a contradicted sample in full. */
static void report_chains(int fd, const struct detail *d)
{
	char a[256];
	unsigned long i;

	dprintf(fd, "sfu-diff     sample pc=%#lx sp=%#lx fp=%#lx stop=%s\n", d->pc, d->sp, d->fp,
		stop_name(d->stop));
	for (i = 0; i < d->ngcc; i++) {
		where(d->gcc_chain[i], a, sizeof(a));
		dprintf(fd, "sfu-diff     libgcc %lu %#lx %s\n", i, d->gcc_chain[i], a);
	}
	for (i = 0; i < d->nmod; i++) {
		where(d->mod_chain[i], a, sizeof(a));
		dprintf(fd, "sfu-diff     module %lu %#lx %s method %u\n", i, d->mod_chain[i], a,
			d->mod_method[i]);
	}
	for (i = 0; i < d->nperf; i++) {
		where(d->perf_chain[i], a, sizeof(a));
		dprintf(fd, "sfu-diff     perf %lu %#lx %s\n", i, d->perf_chain[i], a);
	}
	for (i = 0; i < DETAIL_WORDS; i++) {
		where(d->words[i], a, sizeof(a));
		dprintf(fd, "sfu-diff     word sp+%#lx %#lx %s\n", i * 8, d->words[i], a);
	}
}

/* ",REASON:N" for each reason counted in @c, after @pos in @line. */
static int add_stops(char *line, int pos, int size, const unsigned long *c)
{
	unsigned int i;

	for (i = 0; i < NR_STOPS && pos < size - 64; i++) {
		if (c[i])
			pos += snprintf(line + pos, size - pos, "%s%s:%lu",
					line[pos - 1] == '=' ? "" : ",", stop_name(i), c[i]);
	}
	return pos;
}

__attribute__((destructor)) static void sfu_diff_report(void)
{
	const char *out = getenv("SFU_DIFF_OUT");
	char line[4096], a[256], b[256];
	unsigned long i, nd;
	int fd = 2, len, pos;

	if (dev_fd < 0)
		return;
	active = 0;
	disarm();
	if (out && *out)
		fd = open(out, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	if (fd < 0)
		return;
	pos = snprintf(line, sizeof(line),
		       "sfu-diff prog=%s pid=%d samples=%lu identical=%lu shorter=%lu longer=%lu contradicted=%lu unaligned=%lu errors=%lu complete=%lu perf_right=%lu perf_skips=%lu behind=%lu stops=",
		       prog, getpid(), samples, identical, shorter, longer, contradicted,
		       unaligned, errors, complete, perf_right, perf_skips, behind);
	pos = add_stops(line, pos, sizeof(line), stops);
	pos += snprintf(line + pos, sizeof(line) - pos, " behind_stops=");
	pos = add_stops(line, pos, sizeof(line), behind_stops);
	pos += snprintf(line + pos, sizeof(line) - pos, "\n");
	nd = __atomic_load_n(&ndetails, __ATOMIC_ACQUIRE);
	for (i = 0; i < nd && i < MAX_DETAILS && pos < (int)sizeof(line) - 600; i++) {
		where(details[i].gcc, a, sizeof(a));
		where(details[i].mod, b, sizeof(b));
		len = snprintf(line + pos, sizeof(line) - pos,
			       "sfu-diff   contradicted prog=%s frame %d from the PC: libgcc %s, module %s (method %u after %u)\n",
			       prog, details[i].depth, a, b, details[i].method,
			       details[i].prev_method);
		pos += len;
	}
	if (write(fd, line, pos) < 0)
		perror("sfu-diff: write");
	for (i = 0; verbose && i < nd && i < MAX_DETAILS; i++)
		report_chains(fd, &details[i]);
	for (i = 0; i < nstopped && i < MAX_DETAILS; i++)
		report_chains(fd, &stopped[i]);
	nd = __atomic_load_n(&nbehind_details, __ATOMIC_ACQUIRE);
	for (i = 0; i < nd && i < MAX_DETAILS; i++) {
		dprintf(fd, "sfu-diff   behind perf's walk prog=%s\n", prog);
		report_chains(fd, &behind_details[i]);
	}
	if (fd != 2)
		close(fd);
}
