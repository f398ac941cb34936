// SPDX-License-Identifier: GPL-2.0
/*
 * sfu-stack-check - compare the module's unwind of a running program with
 * the return addresses the program itself records (tests/fixtures/src).
 *
 *   sfu-stack-check chain  [opts] BIN          chain: leaf .. main
 *   sfu-stack-check uselib [opts] BIN [LIB]    uselib: callback .. main
 *   sfu-stack-check edges  BIN                 SFU_IOC_UNWIND_TASK corner cases
 *   sfu-stack-check perm   BIN                 who may unwind whom (as root)
 *   sfu-stack-check flood  BIN                 what callers can leave queued (caps)
 *   sfu-stack-check self                       SFU_IOC_UNWIND_SELF smoke test
 *   sfu-stack-check exec-nop | nop             (the exec target of "edges")
 *   sfu-stack-check sample [opts] BIN          user_stack events from the sampler
 *   sfu-stack-check trigger [opts] BIN         ... from the sys_enter trigger
 *   sfu-stack-check hold FILE                  as uid 65534: a stopped child
 *                                              with an SFU_IOC_UNWIND_TASK
 *                                              request queued on it, until
 *                                              FILE exists
 *
 * opts:
 *   --at body|entry|plt   where the target is unwound: spinning in its
 *                         innermost function (default), stopped by a
 *                         breakpoint on its first instruction, or on the
 *                         PLT stub at --plt (uselib)
 *   --expect sframe|fp|stop
 *                         sframe: every frame up to main exact, found from
 *                         SFrame; fp: the same from frame pointers; stop:
 *                         no SFrame, no frame pointers: the walk must end
 *                         cleanly, every frame in executable memory and
 *                         those in BIN true return addresses in order
 *   --nofault             SFU_UNWIND_NOFAULT
 *   --main-ret OFF        uselib: offset in BIN of main's return address
 *                         from shared_apply()
 *   --plt OFF             uselib: offset in BIN of shared_apply's PLT stub
 *   --freq HZ             sample: the sampler's frequency (default 199)
 *   --events N            sample, trigger: how many events to wait for
 *                         (default 5)
 *
 * The target runs with argument 0 (spin until `stop` is set); the helper
 * waits until it records its innermost frame, unwinds it with
 * SFU_IOC_UNWIND_TASK, sets `stop` through /proc/PID/mem, and parses what
 * it prints.  Another process is unwound with an fd on its /proc/PID/mem
 * (SFU_UNWIND_MEM_FD), as the module requires.  Exit status 0 when
 * everything matched; the reasons otherwise on stderr.
 */
#define _GNU_SOURCE
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <grp.h>
#include <time.h>
#include <unistd.h>

#include "../../include/uapi/sframe_unwind.h"
#include "../../include/sframe_unwind/stop_names.h"

static const char *const stop_names[SFU_STOP_NR] = SFU_STOP_NAMES_INIT;

#define STOP_DEPTH	3

#define MAX_FRAMES	64
#define DEVICE		"/dev/sframe_unwind"
#define STATS		"/sys/kernel/debug/sframe_unwind/device_stats"
#define QUEUE_ALWAYS	"/sys/kernel/debug/sframe_unwind/remote_queue_always"

static const char *prog_name = "sfu-stack-check";
static int failures;
static pid_t target_pid;	/* killed when we give up: it spins forever */
static const char *volatile phase = "starting";	/* reported on a timeout */

static void kill_target(void)
{
	if (target_pid > 0)
		kill(target_pid, SIGKILL);
}

static void on_alarm(int sig __attribute__((unused)))
{
	static const char msg[] = "sfu-stack-check: timed out while ";
	const char *p = phase;

	kill_target();
	if (write(2, msg, sizeof(msg) - 1) < 0 || write(2, p, strlen(p)) < 0 ||
	    write(2, "\n", 1) < 0)
		_exit(3);
	_exit(3);
}

/* One line on stderr, after the program's name. */
static void report(const char *fmt, va_list ap)
{
	fprintf(stderr, "%s: ", prog_name);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

static void fail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	report(fmt, ap);
	va_end(ap);
	failures++;
}

static void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	report(fmt, ap);
	va_end(ap);
	kill_target();
	exit(2);
}

/* ---- ELF symbols ---------------------------------------------------- */

struct elf_file {
	const char *path;
	unsigned char *data;
	size_t size;
	int type;		/* ET_EXEC or ET_DYN */
};

static void elf_open(struct elf_file *ef, const char *path)
{
	struct stat st;
	int fd = open(path, O_RDONLY);

	if (fd < 0 || fstat(fd, &st))
		die("cannot open %s: %s", path, strerror(errno));
	ef->path = path;
	ef->size = st.st_size;
	ef->data = mmap(NULL, ef->size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (ef->data == MAP_FAILED || ef->size < sizeof(Elf64_Ehdr) ||
	    memcmp(ef->data, ELFMAG, SELFMAG) || ef->data[EI_CLASS] != ELFCLASS64)
		die("%s: not a 64-bit ELF file", path);
	ef->type = ((Elf64_Ehdr *)ef->data)->e_type;
}

/* Value and size of symbol @name; 0 if absent. */
static uint64_t elf_sym(const struct elf_file *ef, const char *name, uint64_t *size)
{
	const Elf64_Ehdr *eh = (const void *)ef->data;
	const Elf64_Shdr *sh = (const void *)(ef->data + eh->e_shoff);
	int i;

	for (i = 0; i < eh->e_shnum; i++) {
		const Elf64_Sym *sym;
		const char *str;
		size_t n, j;

		if (sh[i].sh_type != SHT_SYMTAB)
			continue;
		sym = (const void *)(ef->data + sh[i].sh_offset);
		str = (const char *)ef->data + sh[sh[i].sh_link].sh_offset;
		n = sh[i].sh_size / sizeof(*sym);
		for (j = 0; j < n; j++) {
			if (sym[j].st_name && !strcmp(str + sym[j].st_name, name) &&
			    sym[j].st_shndx != SHN_UNDEF) {
				if (size)
					*size = sym[j].st_size;
				return sym[j].st_value;
			}
		}
	}
	return 0;
}

static uint64_t elf_sym_must(const struct elf_file *ef, const char *name, uint64_t *size)
{
	uint64_t v = elf_sym(ef, name, size);

	if (!v)
		die("%s: no symbol %s", ef->path, name);
	return v;
}

/* ---- the target's memory --------------------------------------------- */

/*
 * Load bias of @path in @pid: 0 for ET_EXEC, the offset-0 mapping for
 * ET_DYN, or 0 if that is not mapped (yet).
 */
static uint64_t map_base_now(pid_t pid, const struct elf_file *ef)
{
	char maps[64], line[512], real[PATH_MAX];
	unsigned long start, off;
	uint64_t base = 0;
	FILE *f;

	if (ef->type == ET_EXEC)
		return 0;
	if (!realpath(ef->path, real))
		die("realpath %s: %s", ef->path, strerror(errno));
	snprintf(maps, sizeof(maps), "/proc/%d/maps", pid);
	f = fopen(maps, "r");
	if (!f)
		die("cannot read %s", maps);
	while (fgets(line, sizeof(line), f)) {
		char *path = strchr(line, '/');

		if (!path || sscanf(line, "%lx-%*x %*s %lx", &start, &off) != 2)
			continue;
		path[strcspn(path, "\n")] = '\0';
		if (!off && !strcmp(path, real)) {
			base = start;
			break;
		}
	}
	fclose(f);
	return base;
}

/* Executable mappings of the target, taken while it still runs. */
static struct {
	unsigned long start, end;
} exec_maps[256];
static unsigned int nr_exec_maps;

static void snapshot_exec_maps(pid_t pid)
{
	char maps[64], line[512], perms[8];
	unsigned long start, end;
	FILE *f;

	snprintf(maps, sizeof(maps), "/proc/%d/maps", pid);
	f = fopen(maps, "r");
	if (!f)
		die("cannot read %s", maps);
	nr_exec_maps = 0;
	while (nr_exec_maps < 256 && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%lx-%lx %7s", &start, &end, perms) == 3 && perms[2] == 'x') {
			exec_maps[nr_exec_maps].start = start;
			exec_maps[nr_exec_maps++].end = end;
		}
	}
	fclose(f);
}

static int in_exec_mapping(uint64_t addr)
{
	unsigned int i;

	for (i = 0; i < nr_exec_maps; i++)
		if (addr >= exec_maps[i].start && addr < exec_maps[i].end)
			return 1;
	return 0;
}

/* Load bias of @path in @pid, waiting while exec maps the program. */
static uint64_t map_base(pid_t pid, const struct elf_file *ef)
{
	uint64_t base = 0;
	int i;

	if (ef->type == ET_EXEC)
		return 0;
	for (i = 0; i < 20000 && !(base = map_base_now(pid, ef)); i++)
		usleep(1000);
	if (!base)
		die("%s is not mapped in the target", ef->path);
	return base;
}

/* Wait until @pid runs @path (the fork has exec'd). */
static void wait_running(pid_t pid, const char *path)
{
	char exe[64], real[PATH_MAX], now[PATH_MAX];
	ssize_t n = -1;
	int i;

	if (!realpath(path, real))
		die("realpath %s: %s", path, strerror(errno));
	snprintf(exe, sizeof(exe), "/proc/%d/exe", pid);
	for (i = 0; i < 20000; i++) {
		n = readlink(exe, now, sizeof(now) - 1);
		if (n > 0) {
			now[n] = '\0';
			if (!strcmp(now, real))
				return;
		}
		usleep(1000);
	}
	die("%s never started", path);
}

static int mem_fd(pid_t pid, int flags)
{
	char path[64];
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/mem", pid);
	fd = open(path, flags);
	if (fd < 0)
		die("cannot open %s: %s", path, strerror(errno));
	return fd;
}

/* The word at @addr, or 0 if it cannot be read (yet: exec maps it late). */
static uint64_t peek(pid_t pid, uint64_t addr)
{
	uint64_t v = 0;
	int fd = mem_fd(pid, O_RDONLY);

	if (pread(fd, &v, sizeof(v), addr) != sizeof(v))
		v = 0;
	close(fd);
	return v;
}

static void poke_int(pid_t pid, uint64_t addr, int v)
{
	int fd = mem_fd(pid, O_RDWR);

	if (pwrite(fd, &v, sizeof(v), addr) != sizeof(v))
		die("cannot write target memory at %#llx", (unsigned long long)addr);
	close(fd);
}

/* ---- the unwind ------------------------------------------------------ */

/*
 * struct unwind_req.mem: how SFU_IOC_UNWIND_TASK proves access to @pid.
 * MEM_AUTO opens /proc/PID/mem for another process (and passes nothing
 * when that open fails: the ioctl says what it thinks of that).
 */
enum { MEM_AUTO, MEM_NONE, MEM_FD };

struct unwind_req {
	pid_t pid;
	unsigned int flags;
	unsigned int max;	/* frames asked for; 0: MAX_FRAMES */
	int mem;		/* MEM_* */
	int mem_fd;		/* MEM_FD: the fd to pass */
	struct sfu_frame frames[MAX_FRAMES];
	struct sfu_unwind u;
	int err;
};

/* Is @tid a thread of this process? */
static int is_own_thread(pid_t tid)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/self/task/%d", tid);
	return !access(path, F_OK);
}

/* An fd on /proc/@pid/mem for reading, or -1 with errno set. */
static int open_mem(pid_t pid)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/mem", pid);
	return open(path, O_RDONLY);
}

static int unwind_run(struct unwind_req *r, unsigned long cmd)
{
	int fd = open(DEVICE, O_RDWR), mem = -1;

	if (fd < 0)
		die("cannot open " DEVICE ": %s", strerror(errno));
	memset(&r->u, 0, sizeof(r->u));
	r->u.frames = (uintptr_t)r->frames;
	r->u.max = r->max && r->max < MAX_FRAMES ? r->max : MAX_FRAMES;
	r->u.flags = r->flags;
	r->u.pid = r->pid;
	if (r->mem == MEM_FD) {
		r->u.flags |= SFU_UNWIND_MEM_FD;
		r->u.mem_fd = r->mem_fd;
	} else if (r->mem == MEM_AUTO && cmd == SFU_IOC_UNWIND_TASK && r->pid > 0 &&
		   !is_own_thread(r->pid)) {
		mem = open_mem(r->pid);
		if (mem >= 0) {
			r->u.flags |= SFU_UNWIND_MEM_FD;
			r->u.mem_fd = mem;
		}
	}
	r->err = ioctl(fd, cmd, &r->u) ? errno : 0;
	if (mem >= 0)
		close(mem);
	close(fd);
	return r->err;
}

static void *unwind_thread(void *arg)
{
	unwind_run(arg, SFU_IOC_UNWIND_TASK);
	return NULL;
}

static const char *stop_name(int reason)
{
	if (reason < 0 || reason >= (int)(sizeof(stop_names) / sizeof(stop_names[0])))
		return "?";
	return stop_names[reason];
}

static void print_frames(FILE *f, const struct unwind_req *r)
{
	static const char *const method[] = { "?", "regs", "sframe", "fp" };
	unsigned int i;

	for (i = 0; i < r->u.nr; i++)
		fprintf(f, "  #%-2u %#14llx cfa %#14llx %s\n", i,
			(unsigned long long)r->frames[i].ip,
			(unsigned long long)r->frames[i].cfa,
			method[r->frames[i].method < 4 ? r->frames[i].method : 0]);
	fprintf(f, "  stop: %s\n", stop_name(r->u.stop_reason));
}

/* Debugfs count of requests queued on targets that have not run them. */
static int remote_pending(void)
{
	char line[128];
	int n = -1;
	FILE *f = fopen(STATS, "r");

	if (!f)
		die("cannot read " STATS);
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "remote_pending %d", &n) == 1)
			break;
	fclose(f);
	return n;
}

/*
 * Whether the module can be made to queue every request: its test build's
 * debugfs knob, which the product build does not have.
 */
static int have_queue_always(void)
{
	return !access(QUEUE_ALWAYS, F_OK);
}

/*
 * Whether the module queues every request on its target, as it does for a
 * running one, instead of unwinding a target off the CPU itself: for the
 * tests of the queued path (caps, waits, exec and exit while queued).
 */
static void queue_always(int on)
{
	FILE *f = fopen(QUEUE_ALWAYS, "w");

	if (!f || fputs(on ? "1\n" : "0\n", f) < 0 || fclose(f))
		die("cannot write " QUEUE_ALWAYS);
}

static void wait_pending(int want)
{
	int i;

	for (i = 0; i < 20000 && remote_pending() < want; i++)
		usleep(1000);
	if (remote_pending() < want)
		die("the unwind request was never queued");
}

/* ---- running the target ------------------------------------------------ */

struct target {
	pid_t pid;
	int out;		/* its stdout */
	struct elf_file elf;
	uint64_t base;
};

static void target_start(struct target *t, char *const argv[], int traced)
{
	int pipefd[2];

	if (pipe(pipefd))
		die("pipe: %s", strerror(errno));
	t->pid = fork();
	if (t->pid < 0)
		die("fork: %s", strerror(errno));
	if (!t->pid) {
		dup2(pipefd[1], 1);
		close(pipefd[0]);
		close(pipefd[1]);
		if (traced)
			ptrace(PTRACE_TRACEME, 0, 0, 0);
		execv(argv[0], argv);
		_exit(127);
	}
	close(pipefd[1]);
	t->out = pipefd[0];
	target_pid = t->pid;
}

static char *target_finish(struct target *t, uint64_t stop_addr)
{
	static char buf[8192];
	size_t len = 0;
	ssize_t n;
	int status;

	poke_int(t->pid, stop_addr, 1);
	while (len < sizeof(buf) - 1 && (n = read(t->out, buf + len, sizeof(buf) - 1 - len)) > 0)
		len += n;
	buf[len] = '\0';
	close(t->out);
	waitpid(t->pid, &status, 0);
	if (!WIFEXITED(status) || WEXITSTATUS(status))
		fail("target exited with status %#x", status);
	return buf;
}

/* What a target that does not get on is doing. */
static void show_task(pid_t pid)
{
	static const char *const files[] = { "status", "wchan", "syscall", "stack" };
	char path[64], buf[4096];
	unsigned int i;
	ssize_t n;
	int fd;

	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		snprintf(path, sizeof(path), "/proc/%d/%s", pid, files[i]);
		fd = open(path, O_RDONLY);
		n = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);
		if (fd >= 0)
			close(fd);
		buf[n > 0 ? n : 0] = '\0';
		fprintf(stderr, "%s:\n%s\n", path, buf);
	}
}

/*
 * Wait until the word at @addr holds an address in [@lo, @hi) (@lo 0: in
 * executable memory): the return address the innermost function records.
 * While exec loads the program, the page that ends .data and starts .bss
 * shows file bytes for a moment:
 * "non-zero" alone is not enough.
 */
static void wait_word(pid_t pid, uint64_t addr, uint64_t lo, uint64_t hi)
{
	struct timespec t0, t1;
	uint64_t v = 0;
	int status;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		clock_gettime(CLOCK_MONOTONIC, &t1);
		if (t1.tv_sec - t0.tv_sec > 60)
			break;
		v = peek(pid, addr);
		if (lo && v >= lo && v < hi)
			return;
		if (!lo && v) {
			snapshot_exec_maps(pid);
			if (in_exec_mapping(v))
				return;
		}
		usleep(1000);
	}
	if (waitpid(pid, &status, WNOHANG) == pid)
		die("target died (status %#x) before reaching its innermost function", status);
	show_task(pid);
	die("target never reached its innermost function (%#llx)", (unsigned long long)v);
}

#if defined(__x86_64__)
#define BREAK_INSN	0xccULL		/* int3 */
#define BREAK_MASK	0xffULL
#define PC_AFTER_TRAP	1		/* int3 leaves the PC after itself */
#define REG_PC(r)	((r).rip)
typedef struct user_regs_struct user_regs;
#elif defined(__aarch64__)
#define BREAK_INSN	0xd4200000ULL	/* brk #0 */
#define BREAK_MASK	0xffffffffULL
#define PC_AFTER_TRAP	0
#define REG_PC(r)	((r).pc)
typedef struct user_regs_struct user_regs;
#else
#error "x86_64 or aarch64 only"
#endif

static void get_regs(pid_t pid, user_regs *regs)
{
	struct iovec iov = { .iov_base = regs, .iov_len = sizeof(*regs) };

	if (ptrace(PTRACE_GETREGSET, pid, NT_PRSTATUS, &iov))
		die("PTRACE_GETREGSET: %s", strerror(errno));
}

static void set_regs(pid_t pid, user_regs *regs)
{
	struct iovec iov = { .iov_base = regs, .iov_len = sizeof(*regs) };

	if (ptrace(PTRACE_SETREGSET, pid, NT_PRSTATUS, &iov))
		die("PTRACE_SETREGSET: %s", strerror(errno));
}

/* The traced target is stopped after exec: run it to @addr and stop it there. */
static void run_to(pid_t pid, uint64_t addr)
{
	long orig, patched;
	user_regs regs;
	int status;

	errno = 0;
	orig = ptrace(PTRACE_PEEKTEXT, pid, addr, 0);
	if (errno)
		die("PTRACE_PEEKTEXT %#llx: %s", (unsigned long long)addr, strerror(errno));
	patched = (orig & ~BREAK_MASK) | BREAK_INSN;
	if (ptrace(PTRACE_POKETEXT, pid, addr, patched) || ptrace(PTRACE_CONT, pid, 0, 0))
		die("cannot set a breakpoint: %s", strerror(errno));
	if (waitpid(pid, &status, 0) != pid || !WIFSTOPPED(status) || WSTOPSIG(status) != SIGTRAP)
		die("target did not stop at the breakpoint (status %#x)", status);
	get_regs(pid, &regs);
	if (REG_PC(regs) != addr + PC_AFTER_TRAP)
		die("stopped at %#llx, not at the breakpoint", (unsigned long long)REG_PC(regs));
	REG_PC(regs) = addr;
	set_regs(pid, &regs);
	if (ptrace(PTRACE_POKETEXT, pid, addr, orig))
		die("cannot remove the breakpoint: %s", strerror(errno));
}

static void wait_exec_stop(pid_t pid)
{
	int status;

	if (waitpid(pid, &status, 0) != pid || !WIFSTOPPED(status))
		die("traced target did not stop at exec (status %#x)", status);
}

/*
 * Start @argv, stopped at its exec if @traced (under this tracer), and
 * wait until it runs @bin, whose ELF is @t->elf: @t->base is then set.
 */
static void target_launch(struct target *t, char *const argv[], const char *bin, int traced)
{
	target_start(t, argv, traced);
	if (traced)
		wait_exec_stop(t->pid);
	wait_running(t->pid, bin);
	t->base = map_base(t->pid, &t->elf);
}

/*
 * Unwind @t where it is: spinning (@bp 0), or at @bp, reached by a
 * breakpoint: stopped there by its tracer, it is unwound at once, from
 * here, with nothing queued on it.
 */
static void unwind_target(struct target *t, uint64_t bp, struct unwind_req *r)
{
	int before;

	r->pid = t->pid;
	if (!bp) {
		/*
		 * No-fault reads give up on pages the target never touched,
		 * .sframe pages included: fault them in first, as any earlier
		 * faultable unwind would have.
		 */
		if (r->flags & SFU_UNWIND_NOFAULT) {
			r->flags &= ~SFU_UNWIND_NOFAULT;
			unwind_run(r, SFU_IOC_UNWIND_TASK);
			r->flags |= SFU_UNWIND_NOFAULT;
		}
		unwind_run(r, SFU_IOC_UNWIND_TASK);
		snapshot_exec_maps(t->pid);
		return;
	}
	run_to(t->pid, bp);
	before = remote_pending();
	unwind_run(r, SFU_IOC_UNWIND_TASK);
	if (remote_pending() != before)
		fail("a request was queued on a target stopped by its tracer");
	snapshot_exec_maps(t->pid);
	if (ptrace(PTRACE_DETACH, t->pid, 0, 0))
		die("PTRACE_DETACH: %s", strerror(errno));
}

/* ---- checks ------------------------------------------------------------- */

struct options {
	const char *at;
	const char *expect;
	unsigned int flags;
	uint64_t main_ret;
	uint64_t plt;
	unsigned int freq;
	unsigned int events;
};

static void check_stop(const struct unwind_req *r)
{
	if (r->u.nr >= MAX_FRAMES || r->u.stop_reason == STOP_DEPTH)
		fail("the walk did not end by itself (%u frames, %s)", r->u.nr,
		     stop_name(r->u.stop_reason));
}

/*
 * Frames [1, n] must be @want[0..n-1] exactly, found by @method; frames
 * [0, ncfa) must have the CFAs @cfa where the unwinder reports one.
 */
static void check_exact(const struct unwind_req *r, const uint64_t *want, unsigned int n,
			const uint64_t *cfa, unsigned int ncfa, unsigned int method)
{
	unsigned int i;

	if (r->u.nr < n + 1) {
		fail("%u frames, want at least %u", r->u.nr, n + 1);
		n = r->u.nr ? r->u.nr - 1 : 0;
	}
	for (i = 0; i < n; i++) {
		const struct sfu_frame *f = &r->frames[i + 1];

		if (f->ip != want[i])
			fail("frame %u: ip %#llx, want %#llx", i + 1, (unsigned long long)f->ip,
			     (unsigned long long)want[i]);
		if (f->method != method)
			fail("frame %u: method %u, want %u", i + 1, f->method, method);
	}
	for (i = 0; i < ncfa && i < r->u.nr; i++)
		if (r->frames[i].cfa && r->frames[i].cfa != cfa[i])
			fail("frame %u: cfa %#llx, want %#llx", i,
			     (unsigned long long)r->frames[i].cfa, (unsigned long long)cfa[i]);
	check_stop(r);
}

struct range {
	uint64_t lo, hi;
};

/*
 * No unwind information: every frame must be in executable memory, and
 * those in the program's functions @funcs true return addresses, in order.
 */
static void check_clean_stop(const struct unwind_req *r, const uint64_t *want,
			     unsigned int n, const struct range *funcs, unsigned int nfuncs)
{
	unsigned int i, k, next = 0;

	for (i = 1; i < r->u.nr; i++) {
		uint64_t ip = r->frames[i].ip;

		if (!in_exec_mapping(ip)) {
			fail("frame %u: %#llx is not in executable memory", i,
			     (unsigned long long)ip);
			continue;
		}
		for (k = 0; k < nfuncs; k++)
			if (ip > funcs[k].lo && ip <= funcs[k].hi)
				break;
		if (k == nfuncs)
			continue;
		while (next < n && want[next] != ip)
			next++;
		if (next == n)
			fail("frame %u: %#llx is not one of the program's return addresses %s",
			     i, (unsigned long long)ip, "in order");
	}
	check_stop(r);
}

static unsigned int method_of(const char *expect)
{
	return !strcmp(expect, "fp") ? SFU_FRAME_FP : SFU_FRAME_SFRAME;
}

/* ---- chain --------------------------------------------------------------- */

/* Wait until the chain program's trace.ret[9] holds leaf's return into f8. */
static void wait_leaf(struct target *t, uint64_t trace)
{
	uint64_t f8_size, f8 = t->base + elf_sym_must(&t->elf, "f8", &f8_size);

	wait_word(t->pid, t->base + trace + 19 * 8, f8, f8 + f8_size + 1);
}

static int cmd_chain(const struct options *o, const char *bin)
{
	uint64_t leaf, leaf_size, trace, stop, ret[10] = {}, cfa[10] = {};
	char *argv[] = { (char *)bin, "0", NULL };
	struct unwind_req r = { .flags = o->flags };
	static const char *const funcs[] = {
		"main", "f1", "f2", "f3", "f4", "f5", "f6", "f7", "f8", "leaf",
	};
	struct range ranges[10];
	uint64_t ip, sz;
	unsigned int k;
	struct target t = {};
	char *out, *line;
	unsigned int n = 0;
	int entry = !strcmp(o->at, "entry");

	elf_open(&t.elf, bin);
	leaf = elf_sym_must(&t.elf, "leaf", &leaf_size);
	trace = elf_sym_must(&t.elf, "trace", NULL);
	stop = elf_sym_must(&t.elf, "stop", NULL);

	phase = "waiting for the program to start";
	target_launch(&t, argv, bin, entry);
	leaf += t.base;
	if (!entry) {
		phase = "waiting for the program to reach leaf";
		wait_leaf(&t, trace);
	}
	phase = "unwinding";
	unwind_target(&t, entry ? leaf : 0, &r);
	/* a return address may be the first byte after its function */
	for (k = 0; k < 10; k++) {
		ranges[k].lo = t.base + elf_sym_must(&t.elf, funcs[k], &sz);
		ranges[k].hi = ranges[k].lo + sz;
	}
	phase = "reading what the program printed";
	out = target_finish(&t, t.base + stop);

	/* "frame <n> <name> entry=<a> cfa=<a> ret=<a>", leaf first */
	for (line = out; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
		unsigned long long c, a;

		if (n < 10 &&
		    sscanf(line, "frame %*u %*s entry=%*s cfa=%llx ret=%llx", &c, &a) == 2) {
			cfa[n] = c;
			ret[n++] = a;
		}
	}
	if (n != 10)
		fail("target printed %u frames, want 10", n);

	if (r.err) {
		fail("SFU_IOC_UNWIND_TASK: %s", strerror(r.err));
	} else {
		ip = r.frames[0].ip;
		if (entry ? ip != leaf : (ip < leaf || ip >= leaf + leaf_size))
			fail("frame 0: %#llx is not %s leaf", (unsigned long long)ip,
			     entry ? "the first instruction of" : "in");
		if (!strcmp(o->expect, "stop"))
			check_clean_stop(&r, ret, n, ranges, 10);
		else
			check_exact(&r, ret, n, cfa, n, method_of(o->expect));
	}
	if (failures) {
		fprintf(stderr, "%s --at %s --expect %s%s: unwind was\n", bin, o->at, o->expect,
			o->flags & SFU_UNWIND_NOFAULT ? " --nofault" : "");
		print_frames(stderr, &r);
		fprintf(stderr, "program said:\n%s", out);
	}
	return failures ? 1 : 0;
}

/* ---- user_stack trace events --------------------------------------------- */

#define DEBUGFS		"/sys/kernel/debug/sframe_unwind/"

static void write_text(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY);

	if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text))
		die("cannot write '%s' to %s: %s", text, path, strerror(errno));
	close(fd);
}

/* @path's text to stderr, indented (a failure's context). */
static void dump_file(const char *path)
{
	char line[256];
	FILE *f = fopen(path, "r");

	if (!f) {
		fprintf(stderr, "  %s: %s\n", path, strerror(errno));
		return;
	}
	fprintf(stderr, "  %s:\n", path);
	while (fgets(line, sizeof(line), f))
		fprintf(stderr, "    %s", line);
	fclose(f);
}

/* A counter of <debugfs>/sframe_unwind/deferred_stats. */
static long deferred_stat(const char *name)
{
	char line[128], key[64];
	long v, found = -1;
	FILE *f = fopen(DEBUGFS "deferred_stats", "r");

	if (!f)
		die("cannot open " DEBUGFS "deferred_stats: %s", strerror(errno));
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%63s %ld", key, &v) == 2 && !strcmp(key, name))
			found = v;
	fclose(f);
	if (found < 0)
		die("no counter %s in deferred_stats", name);
	return found;
}

/*
 * sample, trigger: run BIN (chain, or syscall-chain for the trigger) until
 * it reaches its innermost function, have the module emit user_stack
 * events for it until --events more callbacks were delivered (the sampler
 * on its pid, or the sys_enter trigger on its getppid calls), stop it, and
 * print what each of its events must hold, for tests/e2e/user-stack-compare:
 *
 *   pid PID
 *   leaf LO HI             frame 0 is in [LO, HI)
 *   ret ADDR...            frames 1.., leaf's return address first
 */
static int cmd_events(const struct options *o, const char *cmd, const char *bin)
{
	char *argv[] = { (char *)bin, "0", NULL };
	uint64_t leaf, leaf_size, caller, caller_size, trace, stop, ret[10];
	unsigned int nfuncs, n = 0, k;
	struct timespec t0, t1;
	struct target t = {};
	const char *ctl;
	char text[96], *out, *line;
	long want;

	elf_open(&t.elf, bin);
	leaf = elf_sym_must(&t.elf, "leaf", &leaf_size);
	trace = elf_sym_must(&t.elf, "trace", NULL);
	stop = elf_sym_must(&t.elf, "stop", NULL);
	/* chain: main, f1..f8, leaf; syscall-chain: main, f1, f2, leaf */
	nfuncs = elf_sym(&t.elf, "f8", NULL) ? 10 : 4;
	caller = elf_sym_must(&t.elf, nfuncs == 10 ? "f8" : "f2", &caller_size);

	phase = "waiting for the program to start";
	target_launch(&t, argv, bin, 0);
	phase = "waiting for the program to reach leaf";
	/* trace.ret[nfuncs - 1]: leaf has recorded its return into its caller */
	wait_word(t.pid, t.base + trace + (2 * nfuncs - 1) * 8, t.base + caller,
		  t.base + caller + caller_size + 1);

	phase = "waiting for events";
	want = deferred_stat("delivered") + o->events;
	if (!strcmp(cmd, "sample")) {
		ctl = DEBUGFS "sampler";
		snprintf(text, sizeof(text), "pid=%d freq=%u", t.pid, o->freq);
	} else {
		ctl = DEBUGFS "trigger";
		snprintf(text, sizeof(text), "sys_enter pid=%d nr=%d", t.pid, SYS_getppid);
	}
	write_text(ctl, text);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		usleep(20000);
		clock_gettime(CLOCK_MONOTONIC, &t1);
	} while (deferred_stat("delivered") < want && t1.tv_sec - t0.tv_sec < 60);
	if (deferred_stat("delivered") < want) {
		fail("fewer than %u events in 60 s", o->events);
		/* What became of the requests, and what the control file says. */
		dump_file(DEBUGFS "deferred_stats");
		dump_file(ctl);
	}
	write_text(ctl, "off");

	phase = "reading what the program printed";
	out = target_finish(&t, t.base + stop);
	for (line = out; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
		unsigned long long c, a;

		if (n < nfuncs &&
		    sscanf(line, "frame %*u %*s entry=%*s cfa=%llx ret=%llx", &c, &a) == 2)
			ret[n++] = a;
	}
	if (n != nfuncs)
		fail("target printed %u frames, want %u", n, nfuncs);
	printf("pid %d\nleaf %#llx %#llx\nret", t.pid, (unsigned long long)(t.base + leaf),
	       (unsigned long long)(t.base + leaf + leaf_size));
	for (k = 0; k < n; k++)
		printf(" %#llx", (unsigned long long)ret[k]);
	printf("\n");
	if (failures)
		fprintf(stderr, "program said:\n%s", out);
	return failures ? 1 : 0;
}

/* ---- uselib -------------------------------------------------------------- */

static int cmd_uselib(const struct options *o, const char *bin)
{
	uint64_t cb, cb_size, cb_ret, stop, want[2], cfa[1], ip;
	char *argv[] = { (char *)bin, "0", NULL };
	struct unwind_req r = { .flags = o->flags };
	unsigned long long e, c, a;
	struct target t = {};
	int plt = !strcmp(o->at, "plt");
	char *out;

	if (!o->main_ret || (plt && !o->plt))
		die("uselib needs --main-ret (and --plt for --at plt)");
	elf_open(&t.elf, bin);
	cb = elf_sym_must(&t.elf, "callback", &cb_size);
	cb_ret = elf_sym_must(&t.elf, "cb_ret", NULL);
	stop = elf_sym_must(&t.elf, "stop", NULL);

	target_launch(&t, argv, bin, plt);
	cb += t.base;
	if (!plt)	/* cb_ret: the return into the library */
		wait_word(t.pid, t.base + cb_ret, 0, 0);
	unwind_target(&t, plt ? t.base + o->plt : 0, &r);
	out = target_finish(&t, t.base + stop);

	if (sscanf(out, "callback entry=%llx cfa=%llx ret=%llx", &e, &c, &a) != 3)
		die("cannot parse the target's output:\n%s", out);

	if (r.err) {
		fail("SFU_IOC_UNWIND_TASK: %s", strerror(r.err));
	} else if (plt) {
		/* In shared_apply@plt, called from main. */
		ip = r.frames[0].ip;
		if (ip != t.base + o->plt)
			fail("frame 0: %#llx is not the PLT stub", (unsigned long long)ip);
		want[0] = t.base + o->main_ret;
		check_exact(&r, want, 1, NULL, 0, method_of(o->expect));
	} else {
		/* callback <- shared_apply (the library) <- main */
		ip = r.frames[0].ip;
		if (ip < cb || ip >= cb + cb_size)
			fail("frame 0: %#llx is not in callback", (unsigned long long)ip);
		want[0] = a;
		want[1] = t.base + o->main_ret;
		cfa[0] = c;
		check_exact(&r, want, 2, cfa, 1, method_of(o->expect));
	}
	if (failures) {
		fprintf(stderr, "%s --at %s: unwind was\n", bin, o->at);
		print_frames(stderr, &r);
		fprintf(stderr, "program said:\n%s", out);
	}
	return failures ? 1 : 0;
}

/* ---- a stopped child holding a request -------------------------------- */

static const char *err_name(int err);

/*
 * What any user can do: stop its own child and ask for its stack.  The
 * child is unwound where it stopped, nothing queued on it.  Then the same
 * with the module made to queue the request (remote_queue_always, set as
 * root once "unwound PID" is printed, then @release.queue created): the
 * wait times out (the child runs nothing while stopped) and the request
 * stays queued on the child; the device is closed, so only the request
 * pins the module.  Prints "held PID" and keeps the child stopped until
 * @release exists (at most 100 s).
 */
static int cmd_hold(const char *release)
{
	struct sfu_frame frames[MAX_FRAMES];
	struct sfu_unwind u = { .frames = (uintptr_t)frames, .max = MAX_FRAMES };
	int fd, mem, status, err, i;
	char queue_file[PATH_MAX];
	pid_t child;

	queue_always(0);
	if (getuid() == 0 && (setgroups(0, NULL) || setgid(65534) || setuid(65534)))
		die("cannot become uid 65534: %s", strerror(errno));
	/* setuid() made it undumpable: its own child is readable by it again. */
	prctl(PR_SET_DUMPABLE, 1, 0, 0, 0);
	child = fork();
	if (!child) {
		for (;;)
			pause();
	}
	kill(child, SIGSTOP);
	waitpid(child, &status, WUNTRACED);
	fd = open(DEVICE, O_RDWR);
	if (fd < 0)
		die("cannot open " DEVICE ": %s", strerror(errno));
	mem = open_mem(child);
	if (mem < 0)
		die("cannot open the stopped child's /proc/PID/mem: %s", strerror(errno));
	u.pid = child;
	u.flags = SFU_UNWIND_MEM_FD;
	u.mem_fd = mem;
	phase = "unwinding the stopped child";
	err = ioctl(fd, SFU_IOC_UNWIND_TASK, &u) ? errno : 0;
	if (err || !u.nr) {
		kill(child, SIGKILL);
		die("unwind of a stopped child: %s, %u frames", err_name(err), u.nr);
	}
	/* Root (the shell) sets remote_queue_always, then creates @release.queue. */
	printf("unwound %d\n", child);
	fflush(stdout);
	snprintf(queue_file, sizeof(queue_file), "%s.queue", release);
	for (i = 0; i < 300 && access(queue_file, F_OK); i++)
		usleep(100000);
	phase = "waiting for the stopped child's unwind";
	err = ioctl(fd, SFU_IOC_UNWIND_TASK, &u) ? errno : 0;
	close(mem);
	close(fd);
	if (err != ETIMEDOUT) {
		kill(child, SIGKILL);
		die("unwind of a stopped child: %s, not ETIMEDOUT", strerror(err));
	}
	printf("held %d\n", child);
	fflush(stdout);
	alarm(0);
	for (i = 0; i < 1000 && access(release, F_OK); i++)
		usleep(100000);
	kill(child, SIGKILL);
	waitpid(child, &status, 0);
	return 0;
}

/* ---- SFU_IOC_UNWIND_SELF ---------------------------------------------- */

static int cmd_self(void)
{
	struct unwind_req r = {};
	unsigned int i;

	if (unwind_run(&r, SFU_IOC_UNWIND_SELF))
		fail("SFU_IOC_UNWIND_SELF: %s", strerror(r.err));
	else if (!r.u.nr || r.frames[0].method != SFU_FRAME_REGS)
		fail("no topmost frame from the registers");
	snapshot_exec_maps(getpid());
	for (i = 0; i < r.u.nr; i++)
		if (!in_exec_mapping(r.frames[i].ip))
			fail("frame %u: %#llx is not in executable memory", i,
			     (unsigned long long)r.frames[i].ip);
	check_stop(&r);
	/* pid must be 0 for SELF, max must not be 0 */
	r.pid = 1;
	if (unwind_run(&r, SFU_IOC_UNWIND_SELF) != EINVAL)
		fail("SELF with a pid: %s, want EINVAL", strerror(r.err));
	if (failures)
		print_frames(stderr, &r);
	return failures ? 1 : 0;
}

/* ---- corner cases of SFU_IOC_UNWIND_TASK ------------------------------- */

static void on_usr1(int sig __attribute__((unused)))
{
}

struct waiter {
	struct unwind_req r;
	pthread_t th;
	int done;	/* set when the ioctl has returned */
};

static void *waiter_thread(void *arg)
{
	struct waiter *w = arg;

	unwind_run(&w->r, SFU_IOC_UNWIND_TASK);
	__atomic_store_n(&w->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

/* The target exec()s while a request is queued: the request fails with ESRCH. */
static void edge_exec(void)
{
#if defined(__x86_64__)
	const long nr_execve = SYS_execve;
#else
	const long nr_execve = 221;
#endif
	char self[PATH_MAX] = {};
	char *argv[] = { self, "exec-nop", NULL };
	struct unwind_req r = {};
	struct target t = {};
	user_regs regs;
	int status, before, i;
	pthread_t th;
	long nr;

	if (readlink("/proc/self/exe", self, sizeof(self) - 1) < 0)
		die("readlink /proc/self/exe: %s", strerror(errno));
	target_start(&t, argv, 1);
	wait_exec_stop(t.pid);
	/* run to the entry of its execve() of "nop" */
	for (i = 0; i < 1000; i++) {
		struct iovec iov = { .iov_base = &nr, .iov_len = sizeof(nr) };

		if (ptrace(PTRACE_SYSCALL, t.pid, 0, 0) || waitpid(t.pid, &status, 0) != t.pid ||
		    !WIFSTOPPED(status))
			die("lost the exec target (status %#x)", status);
		get_regs(t.pid, &regs);
#if defined(__x86_64__)
		nr = regs.orig_rax;
		(void)iov;
#else
		if (ptrace(PTRACE_GETREGSET, t.pid, NT_ARM_SYSTEM_CALL, &iov))
			die("NT_ARM_SYSTEM_CALL: %s", strerror(errno));
#endif
		if (nr == nr_execve)
			break;
	}
	if (nr != nr_execve)
		die("the exec target never called execve");
	r.pid = t.pid;
	before = remote_pending();
	pthread_create(&th, NULL, unwind_thread, &r);
	wait_pending(before + 1);
	ptrace(PTRACE_DETACH, t.pid, 0, 0);
	pthread_join(th, NULL);
	if (r.err != ESRCH)
		fail("request pending across exec: %s, want ESRCH",
		     r.err ? strerror(r.err) : "success");
	close(t.out);
	waitpid(t.pid, &status, 0);
}

static int cmd_edges(const char *bin)
{
	char *argv[] = { (char *)bin, "0", NULL };
	struct sigaction sa = { .sa_handler = on_usr1 };
	struct unwind_req r = {};
	struct target t = {};
	struct waiter w = {};
	int status, before;
	pid_t child;

	/* A thread that does not exist, and one with no user stack. */
	r.pid = 0x3fffffff;
	if (unwind_run(&r, SFU_IOC_UNWIND_TASK) != ESRCH)
		fail("missing pid: %s, want ESRCH", strerror(r.err));
	r.pid = 2;	/* kthreadd */
	if (unwind_run(&r, SFU_IOC_UNWIND_TASK) != EINVAL)
		fail("kernel thread: %s, want EINVAL", strerror(r.err));
	/* Our own thread id: unwound at once. */
	r.pid = syscall(SYS_gettid);
	if (unwind_run(&r, SFU_IOC_UNWIND_TASK) || !r.u.nr)
		fail("own tid: %s, %u frames", strerror(r.err), r.u.nr);
	r.pid = 0;
	r.flags = 0x80;
	if (unwind_run(&r, SFU_IOC_UNWIND_TASK) != EINVAL)
		fail("unknown flag: %s, want EINVAL", strerror(r.err));
	r.flags = 0;

	/*
	 * The target must be past its exec and spinning in leaf: a request
	 * queued while it is still in execve() ends with -ESRCH, as it should.
	 */
	elf_open(&t.elf, bin);
	target_launch(&t, argv, bin, 0);
	wait_leaf(&t, elf_sym_must(&t.elf, "trace", NULL));

	/* Another user may not read a root process's stack. */
	child = fork();
	if (!child) {
		r.pid = t.pid;
		if (setgid(65534) || setuid(65534))
			_exit(3);
		_exit(unwind_run(&r, SFU_IOC_UNWIND_TASK) == EPERM ? 0 : 1);
	}
	waitpid(child, &status, 0);
	if (!WIFEXITED(status) || WEXITSTATUS(status))
		fail("another user's unwind was not refused with EPERM (status %#x)", status);

	/* A stopped target is unwound where it stopped, nothing queued on it. */
	kill(t.pid, SIGSTOP);
	waitpid(t.pid, &status, WUNTRACED);
	r.pid = t.pid;
	before = remote_pending();
	if (unwind_run(&r, SFU_IOC_UNWIND_TASK) || !r.u.nr)
		fail("stopped target: %s, %u frames", err_name(r.err), r.u.nr);
	if (remote_pending() != before)
		fail("stopped target: %d requests queued, want %d", remote_pending(), before);

	/*
	 * The queued path from here on: were the target running, it would
	 * serve the request; stopped, it never does, and the waiter times out.
	 * Only the test build can be made to queue on a stopped target.
	 */
	if (!have_queue_always()) {
		printf("no remote_queue_always (product build): the queued path is not tested\n");
		kill(t.pid, SIGKILL);
		close(t.out);
		waitpid(t.pid, &status, 0);
		return failures ? 1 : 0;
	}
	queue_always(1);
	if (unwind_run(&r, SFU_IOC_UNWIND_TASK) != ETIMEDOUT)
		fail("stopped target, queued: %s, want ETIMEDOUT", strerror(r.err));

	/*
	 * A waiter interrupted by a signal returns EINTR.  It asks for what
	 * the timed-out request asked for, so it waits on that one, still
	 * queued, rather than queueing another: nothing is added.  Its wait
	 * cannot be seen from here, so the signal is sent until it returns.
	 */
	sigaction(SIGUSR1, &sa, NULL);
	w.r.pid = t.pid;
	before = remote_pending();
	w.done = 0;
	pthread_create(&w.th, NULL, waiter_thread, &w);
	while (!__atomic_load_n(&w.done, __ATOMIC_ACQUIRE)) {
		usleep(100000);
		pthread_kill(w.th, SIGUSR1);
	}
	pthread_join(w.th, NULL);
	if (w.r.err != EINTR)
		fail("interrupted waiter: %s, want EINTR", strerror(w.r.err));
	if (remote_pending() != before)
		fail("the same request again queued another: %d queued, want %d",
		     remote_pending(), before);

	/* Both abandoned requests run when the target goes on, or dies. */
	kill(t.pid, SIGCONT);
	r.pid = t.pid;
	if (unwind_run(&r, SFU_IOC_UNWIND_TASK) || !r.u.nr)
		fail("running target after the abandoned requests: %s", strerror(r.err));
	for (before = 0; before < 5000 && remote_pending(); before++)
		usleep(1000);
	if (remote_pending())
		fail("%d requests still queued on a running target", remote_pending());

	/* A target killed with a request queued: the request ends with it. */
	kill(t.pid, SIGSTOP);
	waitpid(t.pid, &status, WUNTRACED);
	w.r.pid = t.pid;
	pthread_create(&w.th, NULL, unwind_thread, &w.r);
	wait_pending(1);
	kill(t.pid, SIGKILL);
	pthread_join(w.th, NULL);
	if (w.r.err != ESRCH)
		fail("target killed while queued: %s, want ESRCH", strerror(w.r.err));
	close(t.out);
	waitpid(t.pid, &status, 0);
	if (remote_pending())
		fail("%d requests still queued after the target died", remote_pending());

	edge_exec();
	queue_always(0);
	return failures ? 1 : 0;
}

/* ---- who may unwind whom ------------------------------------------------ */

#define NOBODY		65534
#define YAMA		"/proc/sys/kernel/yama/ptrace_scope"

static const char *err_name(int err)
{
	return err ? strerror(err) : "success";
}

/*
 * Drop to an unprivileged user: no capability is left after setuid().
 * The uid change left the process not dumpable (suid_dumpable), which a
 * user's own processes are: its /proc files would belong to root.
 */
static void become_nobody(void)
{
	if (setgroups(0, NULL) || setgid(NOBODY) || setuid(NOBODY) ||
	    prctl(PR_SET_DUMPABLE, 1, 0, 0, 0))
		die("cannot become uid %d: %s", NOBODY, strerror(errno));
}

/* Run @fn(@arg) in a child that became nobody; it fails the test unless 0. */
static void as_nobody(int (*fn)(void *), void *arg, const char *what)
{
	int status;
	pid_t c = fork();

	if (c < 0)
		die("fork: %s", strerror(errno));
	if (!c) {
		target_pid = 0;
		failures = 0;
		become_nobody();
		_exit(fn(arg) ? 1 : 0);
	}
	if (waitpid(c, &status, 0) != c || !WIFEXITED(status) || WEXITSTATUS(status))
		fail("%s: failed (status %#x)", what, status);
}

/* Start the chain program @bin (spinning in leaf) as @uid, and wait for leaf. */
static void start_spinner(struct target *t, const char *bin, int nobody)
{
	char *argv[] = { (char *)bin, "0", NULL };

	elf_open(&t->elf, bin);
	t->pid = fork();
	if (t->pid < 0)
		die("fork: %s", strerror(errno));
	if (!t->pid) {
		if (nobody)
			become_nobody();
		execv(bin, argv);
		_exit(127);
	}
	target_pid = t->pid;
	wait_running(t->pid, bin);
	t->base = map_base(t->pid, &t->elf);
	wait_leaf(t, elf_sym_must(&t->elf, "trace", NULL));
}

static void stop_spinner(struct target *t)
{
	kill(t->pid, SIGKILL);
	waitpid(t->pid, NULL, 0);
	target_pid = 0;
}

static int yama_on;

/*
 * A process of the same user that is not an ancestor of the target: the
 * thread group rule refuses it without an fd, an fd of another kind or of
 * another address space does not help, and under ptrace_scope 1 it cannot
 * open the target's /proc/PID/mem at all.
 */
static int perm_sibling(void *arg)
{
	struct target *t = arg;
	struct unwind_req r = { .pid = t->pid, .mem = MEM_NONE };
	char path[64];
	int fd;

	if (unwind_run(&r, SFU_IOC_UNWIND_TASK) != EPERM)
		fail("same user, not a descendant, no fd: %s, want EPERM", err_name(r.err));
	fd = open_mem(t->pid);
	if (yama_on && fd >= 0)
		fail("a non-descendant opened /proc/%d/mem under ptrace_scope 1", t->pid);
	if (fd >= 0)
		close(fd);
	/* /proc/PID/maps: ptrace's read mode, which Yama allows. */
	snprintf(path, sizeof(path), "/proc/%d/maps", t->pid);
	fd = open(path, O_RDONLY);
	if (fd < 0) {
		fail("cannot open %s: %s", path, strerror(errno));
	} else {
		r.mem = MEM_FD;
		r.mem_fd = fd;
		if (unwind_run(&r, SFU_IOC_UNWIND_TASK) != EPERM)
			fail("an fd on %s: %s, want EPERM", path, err_name(r.err));
		close(fd);
	}
	/* A mem file, but of our own address space. */
	fd = open("/proc/self/mem", O_RDONLY);
	r.mem = MEM_FD;
	r.mem_fd = fd;
	if (fd < 0 || unwind_run(&r, SFU_IOC_UNWIND_TASK) != EPERM)
		fail("an fd on our own /proc/self/mem: %s, want EPERM", err_name(r.err));
	if (fd >= 0)
		close(fd);
	return failures;
}

/* A descendant without capabilities: allowed with its /proc/PID/mem. */
static int perm_descendant(void *arg)
{
	struct target t = {};
	struct unwind_req r = {};
	uint64_t leaf, size;

	start_spinner(&t, arg, 0);
	leaf = t.base + elf_sym_must(&t.elf, "leaf", &size);
	r.pid = t.pid;
	if (unwind_run(&r, SFU_IOC_UNWIND_TASK) || !r.u.nr)
		fail("descendant with its /proc/PID/mem: %s, %u frames", err_name(r.err), r.u.nr);
	else if (r.frames[0].ip < leaf || r.frames[0].ip >= leaf + size)
		fail("descendant: frame 0 %#llx is not in leaf",
		     (unsigned long long)r.frames[0].ip);
	r.mem = MEM_NONE;
	if (unwind_run(&r, SFU_IOC_UNWIND_TASK) != EPERM)
		fail("descendant without an fd: %s, want EPERM", err_name(r.err));
	stop_spinner(&t);
	return failures;
}

/* The target's effective uid, from /proc/PID/status (readable by all). */
static long task_euid(pid_t pid)
{
	char path[64], line[256];
	long ruid, euid = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Uid: %ld %ld", &ruid, &euid) == 2)
			break;
	fclose(f);
	return euid;
}

/*
 * A child of ours execs a setuid-root program: the fd we opened on its
 * /proc/PID/mem before (and that allowed an unwind then) is for the old
 * address space and allows nothing after; a new open is refused.
 */
static int perm_setuid_exec(void *arg)
{
	const char *suid = arg;
	struct unwind_req r = { .mem = MEM_FD };
	int go[2], out[2], fd, i;
	char c;
	pid_t pid;

	if (pipe(go) || pipe(out))
		die("pipe: %s", strerror(errno));
	pid = fork();
	if (pid < 0)
		die("fork: %s", strerror(errno));
	if (!pid) {
		dup2(out[1], 1);
		close(out[0]);
		close(go[1]);
		if (read(go[0], &c, 1) != 1)
			_exit(126);
		execl(suid, suid, "suid-spin", (char *)NULL);
		_exit(127);
	}
	target_pid = pid;
	close(out[1]);
	close(go[0]);
	fd = open_mem(pid);
	if (fd < 0)
		die("cannot open our child's /proc/%d/mem: %s", pid, strerror(errno));
	r.pid = pid;
	r.mem_fd = fd;
	if (unwind_run(&r, SFU_IOC_UNWIND_TASK) || !r.u.nr)
		fail("before the exec, with the fd: %s, %u frames", err_name(r.err), r.u.nr);
	if (write(go[1], "x", 1) != 1 || read(out[0], &c, 1) != 1)
		die("the setuid program did not start");
	for (i = 0; i < 100 && task_euid(pid) != 0; i++)
		usleep(10000);
	if (task_euid(pid) != 0)
		die("%s did not run with euid 0 (is /tmp nosuid?)", suid);
	if (unwind_run(&r, SFU_IOC_UNWIND_TASK) != EPERM)
		fail("fd opened before the target's setuid exec: %s, want EPERM", err_name(r.err));
	close(fd);
	fd = open_mem(pid);
	if (fd >= 0)
		fail("opened /proc/%d/mem of a setuid-root program", pid);
	if (fd >= 0)
		close(fd);
	r.mem = MEM_NONE;
	if (unwind_run(&r, SFU_IOC_UNWIND_TASK) != EPERM)
		fail("setuid target without an fd: %s, want EPERM", err_name(r.err));
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	target_pid = 0;
	return failures;
}

/* ---- what callers can leave queued ------------------------------------ */

/* Documentation/uapi.rst: requests queued per target thread, per caller. */
#define REMOTE_PER_TARGET	4
#define REMOTE_PER_CALLER	4
#define CGROUP_ROOT		"/sys/fs/cgroup"
#define FLOOD_CGROUP		CGROUP_ROOT "/sfu-flood"

static void on_usr2(int sig __attribute__((unused)))
{
}

/*
 * A SIGUSR2 every 20 ms (a timer of its own: SIGALRM is the watchdog's),
 * without SA_RESTART: each request on a stopped target is abandoned within
 * 20 ms (EINTR) instead of 5 s (ETIMEDOUT).
 */
static void interrupt_waits(int on)
{
	static timer_t timer;
	static pid_t owner;	/* timers are not inherited across fork() */
	struct itimerspec its = { { 0, 20000000 }, { 0, 20000000 } };
	struct sigevent ev = { .sigev_notify = SIGEV_SIGNAL, .sigev_signo = SIGUSR2 };
	struct sigaction sa = { .sa_handler = on_usr2 };

	if (owner != getpid()) {
		sigaction(SIGUSR2, &sa, NULL);
		if (timer_create(CLOCK_MONOTONIC, &ev, &timer))
			die("timer_create: %s", strerror(errno));
		owner = getpid();
	}
	if (!on)
		memset(&its, 0, sizeof(its));
	timer_settime(timer, 0, &its, NULL);
}

/*
 * Of @n requests for depths 1, 2, ... MAX_FRAMES - 1, 1, 2, ... from one
 * caller, those the caps let through: the first REMOTE_PER_CALLER depths
 * are queued, and each later request for one of those depths waits on the
 * request left queued for it; every other one is refused.
 */
static unsigned int flood_admitted(unsigned int n)
{
	unsigned int i, k = 0;

	for (i = 0; i < n; i++)
		k += i % (MAX_FRAMES - 1) < REMOTE_PER_CALLER;
	return k;
}

/* @n requests on @pid for depths as above; count EINTR and EBUSY. */
static void flood(pid_t pid, unsigned int n, unsigned int *eintr, unsigned int *ebusy)
{
	struct unwind_req r = { .pid = pid };
	unsigned int i;

	*eintr = 0;
	*ebusy = 0;
	interrupt_waits(1);
	for (i = 0; i < n; i++) {
		r.max = 1 + i % (MAX_FRAMES - 1);
		switch (unwind_run(&r, SFU_IOC_UNWIND_TASK)) {
		case EINTR:
			++*eintr;
			break;
		case EBUSY:
			++*ebusy;
			break;
		default:
			fail("request %u on a stopped target: %s, want EINTR or EBUSY", i,
			     r.err ? strerror(r.err) : "success");
		}
	}
	interrupt_waits(0);
}

static void stop_target(pid_t pid)
{
	int status;

	kill(pid, SIGSTOP);
	waitpid(pid, &status, WUNTRACED);
}

/* The target goes on: every request queued on it runs. */
static void drain_target(pid_t pid, const char *what)
{
	int i;

	kill(pid, SIGCONT);
	for (i = 0; i < 5000 && remote_pending(); i++)
		usleep(1000);
	if (remote_pending())
		fail("%s: %d requests still queued on a running target", what, remote_pending());
}

/* Nobody's flood: what the unprivileged child did, in shared memory. */
struct flood_nobody {
	const char *bin;
	pid_t spinner;
	unsigned int eintr;
	unsigned int ebusy;
};

/*
 * As nobody: flood a stopped spinner of its own with 1,000 requests, and
 * leave it stopped for root to count what is queued (nobody cannot read
 * debugfs).
 */
static int flood_as_nobody(void *arg)
{
	struct flood_nobody *n = arg;
	struct target t = {};

	start_spinner(&t, n->bin, 0);
	stop_target(t.pid);
	n->spinner = t.pid;
	target_pid = 0;
	flood(t.pid, 1000, &n->eintr, &n->ebusy);
	return failures ? 1 : 0;
}

/* Run nobody's flood and check it; its spinner is killed at the end. */
static void flood_nobody(const char *bin, const char *what)
{
	struct flood_nobody *n = mmap(NULL, sizeof(*n), PROT_READ | PROT_WRITE,
				      MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	if (n == MAP_FAILED)
		die("mmap: %s", strerror(errno));
	memset(n, 0, sizeof(*n));
	n->bin = bin;
	fflush(NULL);
	as_nobody(flood_as_nobody, n, what);
	printf("workload flood-nobody requests 1000 admitted %u refused %u queued %d\n",
	       n->eintr, n->ebusy, remote_pending());
	if (n->eintr != flood_admitted(1000) || n->ebusy != 1000 - flood_admitted(1000))
		fail("nobody's flood: %u admitted, %u refused (EBUSY), want %u and %u", n->eintr,
		     n->ebusy, flood_admitted(1000), 1000 - flood_admitted(1000));
	if (remote_pending() != REMOTE_PER_CALLER)
		fail("%d requests queued after nobody's flood, want %d", remote_pending(),
		     REMOTE_PER_CALLER);
	if (n->spinner > 0) {
		drain_target(n->spinner, "nobody's flood");
		kill(n->spinner, SIGKILL);
	}
	munmap(n, sizeof(*n));
}

/* A file's first number, or -1. */
static long long read_number(const char *path)
{
	long long v = -1;
	FILE *f = fopen(path, "r");

	if (f) {
		if (fscanf(f, "%lld", &v) != 1)
			v = -1;
		fclose(f);
	}
	return v;
}

/* Is cgroup v2's memory controller available at CGROUP_ROOT? */
static int have_memcg(void)
{
	char buf[512] = "";
	FILE *f = fopen(CGROUP_ROOT "/cgroup.controllers", "r");

	if (!f) {
		mkdir(CGROUP_ROOT, 0755);
		if (system("mount -t cgroup2 none " CGROUP_ROOT " 2>/dev/null"))
			return 0;
		f = fopen(CGROUP_ROOT "/cgroup.controllers", "r");
		if (!f)
			return 0;
	}
	if (!fgets(buf, sizeof(buf), f))
		buf[0] = '\0';
	fclose(f);
	if (!strstr(buf, "memory"))
		return 0;
	write_text(CGROUP_ROOT "/cgroup.subtree_control", "+memory");
	return 1;
}

/*
 * Requests a caller abandons stay queued on a stopped target, so they are
 * capped: REMOTE_PER_CALLER per calling process, REMOTE_PER_TARGET per
 * target thread, EBUSY past either; and charged to the caller's memory
 * cgroup.  Then an unprivileged user's flood of 1,000, inside a cgroup
 * limited to 50 MB where the kernel has the memory controller.
 */
static int cmd_flood(const char *bin)
{
	unsigned int eintr, ebusy, i;
	struct target t = {};
	long long before_mem, after_mem;
	int status, memcg;
	char pid[32];
	pid_t c;

	/* What is left queued on a stopped target, were it running: see edges. */
	if (!have_queue_always()) {
		printf("no remote_queue_always (the product build): flood is not tested\n");
		return 0;
	}
	queue_always(1);
	start_spinner(&t, bin, 0);
	stop_target(t.pid);

	/* Callers one after another, one request each: the target fills up. */
	for (i = 0; i < REMOTE_PER_TARGET + 2; i++) {
		c = fork();
		if (!c) {
			target_pid = 0;
			flood(t.pid, 1, &eintr, &ebusy);
			_exit(eintr * 10 + ebusy);
		}
		waitpid(c, &status, 0);
		if (!WIFEXITED(status) ||
		    WEXITSTATUS(status) != (i < REMOTE_PER_TARGET ? 10 : 1))
			fail("caller %u of one request each: status %#x, want %s", i, status,
			     i < REMOTE_PER_TARGET ? "queued" : "EBUSY");
	}
	if (remote_pending() != REMOTE_PER_TARGET)
		fail("%d requests queued on one target, want %d", remote_pending(),
		     REMOTE_PER_TARGET);
	drain_target(t.pid, "callers of one request each");

	/* One caller, many requests: its own cap, and then the target's. */
	stop_target(t.pid);
	flood(t.pid, 50, &eintr, &ebusy);
	printf("workload flood-one-caller requests 50 admitted %u refused %u queued %d\n", eintr,
	       ebusy, remote_pending());
	if (eintr != flood_admitted(50) || ebusy != 50 - flood_admitted(50))
		fail("one caller's flood: %u admitted, %u refused (EBUSY), want %u and %u", eintr,
		     ebusy, flood_admitted(50), 50 - flood_admitted(50));
	if (remote_pending() != REMOTE_PER_CALLER)
		fail("%d requests queued after one caller's flood, want %d", remote_pending(),
		     REMOTE_PER_CALLER);
	drain_target(t.pid, "one caller's flood");
	stop_spinner(&t);

	memcg = have_memcg();
	if (!memcg) {
		printf("no memory cgroup controller: nobody's flood runs in no cgroup\n");
		flood_nobody(bin, "nobody's flood");
		queue_always(0);
		return failures ? 1 : 0;
	}
	rmdir(FLOOD_CGROUP);
	if (mkdir(FLOOD_CGROUP, 0755))
		die("mkdir " FLOOD_CGROUP ": %s", strerror(errno));
	write_text(FLOOD_CGROUP "/memory.max", "50M");
	snprintf(pid, sizeof(pid), "%d", getpid());
	write_text(FLOOD_CGROUP "/cgroup.procs", pid);
	before_mem = read_number(FLOOD_CGROUP "/memory.current");
	flood_nobody(bin, "nobody's flood in a 50 MB cgroup");
	after_mem = read_number(FLOOD_CGROUP "/memory.peak");
	write_text(CGROUP_ROOT "/cgroup.procs", pid);
	printf("workload flood-memcg current-before %lld peak %lld limit %lld\n", before_mem,
	       after_mem, 50LL << 20);
	if (after_mem >= 0 && after_mem >= 50LL << 20)
		fail("the cgroup reached its 50 MB limit");
	rmdir(FLOOD_CGROUP);
	queue_always(0);
	return failures ? 1 : 0;
}

/* A setuid-root copy of this program in /tmp, for perm_setuid_exec(). */
static void make_setuid_copy(char *path, size_t len)
{
	char buf[65536];
	ssize_t n;
	int in, out;

	snprintf(path, len, "/tmp/sfu-suid-%d", getpid());
	in = open("/proc/self/exe", O_RDONLY);
	out = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0700);
	if (in < 0 || out < 0)
		die("cannot copy this program to %s: %s", path, strerror(errno));
	while ((n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, n) != n)
			die("write %s: %s", path, strerror(errno));
	close(in);
	if (fchown(out, 0, 0) || fchmod(out, 04755))
		die("cannot make %s setuid root: %s", path, strerror(errno));
	close(out);
}

static int cmd_perm(const char *bin)
{
	char scope[16] = "", suid[64], path[64];
	struct unwind_req r = {};
	struct target t = {};
	int fd;
	FILE *f;

	if (geteuid())
		die("perm must run as root");
	f = fopen(YAMA, "r");
	if (f) {
		if (!fgets(scope, sizeof(scope), f))
			scope[0] = '\0';
		fclose(f);
		write_text(YAMA, "1");
		yama_on = 1;
	} else {
		printf("no Yama in this kernel: ptrace_scope 1 not tried\n");
	}

	/* The argument's own checks. */
	r.pid = 0;
	r.mem = MEM_FD;
	r.mem_fd = 1000;
	if (unwind_run(&r, SFU_IOC_UNWIND_TASK) != EBADF)
		fail("mem_fd not open: %s, want EBADF", err_name(r.err));
	r.mem_fd = -1;
	if (unwind_run(&r, SFU_IOC_UNWIND_TASK) != EINVAL)
		fail("negative mem_fd: %s, want EINVAL", err_name(r.err));
	r.mem_fd = 0;
	if (unwind_run(&r, SFU_IOC_UNWIND_SELF) != EINVAL)
		fail("SFU_UNWIND_MEM_FD with SELF: %s, want EINVAL", err_name(r.err));

	start_spinner(&t, bin, 1);
	/* Open, but not for reading. */
	snprintf(path, sizeof(path), "/proc/%d/mem", t.pid);
	fd = open(path, O_WRONLY);
	r.pid = t.pid;
	r.mem_fd = fd;
	if (fd < 0 || unwind_run(&r, SFU_IOC_UNWIND_TASK) != EPERM)
		fail("an fd on /proc/PID/mem open for writing only: %s, want EPERM",
		     err_name(r.err));
	if (fd >= 0)
		close(fd);
	as_nobody(perm_sibling, &t, "same user, not a descendant");
	stop_spinner(&t);

	as_nobody(perm_descendant, (void *)bin, "descendant without capabilities");

	make_setuid_copy(suid, sizeof(suid));
	as_nobody(perm_setuid_exec, suid, "across the target's setuid exec");
	unlink(suid);

	if (yama_on && scope[0])
		write_text(YAMA, scope);
	return failures ? 1 : 0;
}

/* ---- main ------------------------------------------------------------- */

int main(int argc, char **argv)
{
	struct options o = { .at = "body", .expect = "sframe", .freq = 199, .events = 5 };
	const char *cmd;
	int i;

	signal(SIGALRM, on_alarm);
	alarm(120);
	if (argc < 2)
		die("usage: %s chain|uselib|edges|self [options] [BIN]", prog_name);
	cmd = argv[1];
	for (i = 2; i < argc && !strncmp(argv[i], "--", 2); i++) {
		if (!strcmp(argv[i], "--nofault"))
			o.flags |= SFU_UNWIND_NOFAULT;
		else if (i + 1 >= argc)
			die("%s needs a value", argv[i]);
		else if (!strcmp(argv[i], "--at"))
			o.at = argv[++i];
		else if (!strcmp(argv[i], "--expect"))
			o.expect = argv[++i];
		else if (!strcmp(argv[i], "--main-ret"))
			o.main_ret = strtoull(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--plt"))
			o.plt = strtoull(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--freq"))
			o.freq = strtoul(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--events"))
			o.events = strtoul(argv[++i], NULL, 0);
		else
			die("unknown option %s", argv[i]);
	}
	if (!strcmp(cmd, "self"))
		return cmd_self();
	if (!strcmp(cmd, "nop"))
		return 0;
	if (!strcmp(cmd, "suid-spin")) {
		/* perm's setuid target: say it runs, then wait to be killed. */
		if (write(1, "x", 1) != 1)
			return 1;
		for (;;)
			pause();
	}
	if (!strcmp(cmd, "exec-nop")) {
		char *nop[] = { argv[0], "nop", NULL };

		execv("/proc/self/exe", nop);
		return 127;
	}
	if (i >= argc)
		die("%s: which program?", cmd);
	if (!strcmp(cmd, "chain"))
		return cmd_chain(&o, argv[i]);
	if (!strcmp(cmd, "uselib"))
		return cmd_uselib(&o, argv[i]);
	if (!strcmp(cmd, "edges"))
		return cmd_edges(argv[i]);
	if (!strcmp(cmd, "perm"))
		return cmd_perm(argv[i]);
	if (!strcmp(cmd, "flood"))
		return cmd_flood(argv[i]);
	if (!strcmp(cmd, "sample") || !strcmp(cmd, "trigger"))
		return cmd_events(&o, cmd, argv[i]);
	if (!strcmp(cmd, "hold"))
		return cmd_hold(argv[i]);
	die("unknown command %s", cmd);
	return 2;
}
