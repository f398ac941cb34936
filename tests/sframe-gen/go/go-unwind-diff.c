// SPDX-License-Identifier: GPL-2.0
/*
 * go-unwind-diff - the rows sframe-gen made from a Go program's pclntab
 * against the Go runtime's own traceback of the same moment.
 *
 *   go-unwind-diff --sframe FILE [--runs N] [--seed S] [--stdin IN] [-v] -- PROG ARGS...
 *
 * Each run starts PROG (x86_64) under ptrace with GOTRACEBACK=system,
 * lets it run for a random while, sends SIGQUIT to one of its threads
 * (a running one where there is one) and, at that thread's
 * signal-delivery-stop, reads its registers and unwinds its stack in user
 * space with the section FILE (the project's decoder, the link-time
 * addresses of sframe-gen -o), reading the stack through /proc/PID/mem.
 * Then it delivers the SIGQUIT: the runtime's handler prints the
 * traceback of the goroutine the signal interrupted, from the signal's PC
 * and SP, with "fp= sp= pc=" for every physical frame, and exits.  The
 * two walks are compared frame by frame (return PC, SP, and the CFA the
 * runtime calls fp).  Where the runtime starts elsewhere (a goroutine in
 * a system call is traced from where it entered it; C code of a cgo call
 * from its Go caller), its first frame is looked for among ours.
 *
 * Prints one line per sample with -v, then:
 *   go-unwind-diff: samples N compared N silent N unaligned N frames N exact N
 *     contradicted N missing N extra N exact-share P%
 * silent: the runtime printed no traceback (signalled before it installed
 * its handlers); unaligned: its first frame is none of ours;
 * contradicted: a frame both walks have, differing; missing: a frame the
 * runtime has beyond our last; extra: frames of ours beyond the
 * runtime's last.  Exit status 1 when any frame was contradicted.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/elf.h>
#include <linux/kernel.h>
#include <linux/types.h>

#include "sframe/sframe.h"

#define GUD_MAX_FRAMES	128
#define GUD_MAX_TIDS	256

struct gud_frame {
	u64 pc;
	u64 sp;
	u64 cfa;
};

struct gud_walk {
	struct gud_frame f[GUD_MAX_FRAMES];
	unsigned int n;
};

struct gud_totals {
	u64 samples, compared, silent, unaligned, frames, exact, contradicted, missing, extra;
};

static struct sfu_sframe_section sec;
static u64 rng = 0x9e3779b97f4a7c15ULL;
static bool verbose;
static const char *stdin_path = "/dev/null";

static u64 gud_rand(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static bool gud_read(int mem, u64 addr, u64 *v)
{
	return pread(mem, v, 8, (off_t)addr) == 8;
}

/* The load bias of @exe in @pid: 0 for ET_EXEC. */
static u64 gud_bias(pid_t pid, const char *exe)
{
	u64 lo, off, vaddr = 0;
	char path[64], line[512], real[PATH_MAX], *name;
	struct elf64_hdr eh;
	struct elf64_phdr ph;
	FILE *f;
	int fd, i;

	fd = open(exe, O_RDONLY);
	if (fd < 0 || pread(fd, &eh, sizeof(eh), 0) != sizeof(eh) || eh.e_type != ET_DYN) {
		if (fd >= 0)
			close(fd);
		return 0;
	}
	for (i = 0; i < eh.e_phnum; i++)
		if (pread(fd, &ph, sizeof(ph), eh.e_phoff + i * sizeof(ph)) == sizeof(ph) &&
		    ph.p_type == PT_LOAD && !ph.p_offset) {
			vaddr = ph.p_vaddr & ~0xfffULL;
			break;
		}
	close(fd);
	if (!realpath(exe, real))
		return 0;
	snprintf(path, sizeof(path), "/proc/%d/maps", pid);
	f = fopen(path, "r");
	while (f && fgets(line, sizeof(line), f)) {
		name = strchr(line, '/');
		if (!name || sscanf(line, "%llx-%*x %*s %llx", &lo, &off) != 2 || off)
			continue;
		name[strcspn(name, "\n")] = 0;
		if (!strcmp(name, real)) {
			fclose(f);
			return lo - vaddr;
		}
	}
	if (f)
		fclose(f);
	return 0;
}

/* Unwind from the registers with the section's rows, as the module does. */
static void gud_unwind(int mem, u64 bias, const struct user_regs_struct *r, struct gud_walk *w)
{
	u64 pc = r->rip, sp = r->rsp, fp = r->rbp, cfa, ra, nfp;
	struct sfu_sframe_row row;

	for (w->n = 0; w->n < GUD_MAX_FRAMES; ) {
		u64 look = (w->n ? pc - 1 : pc) - bias;

		w->f[w->n].pc = pc;
		w->f[w->n].sp = sp;
		w->f[w->n].cfa = 0;
		w->n++;
		if (sfu_sframe_find_row(&sec, look, &row) || (row.flags & SFRAME_ROW_OUTERMOST))
			return;
		if (row.cfa.deref ||
		    (row.cfa.base != SFRAME_BASE_SP && row.cfa.base != SFRAME_BASE_FP))
			return;
		cfa = (row.cfa.base == SFRAME_BASE_SP ? sp : fp) + row.cfa.offset;
		w->f[w->n - 1].cfa = cfa;
		if ((row.ra.kind != SFRAME_RULE_FIXED && row.ra.kind != SFRAME_RULE_CFA_DEREF) ||
		    !gud_read(mem, cfa + row.ra.offset, &ra))
			return;
		nfp = fp;
		if (row.fp.kind == SFRAME_RULE_CFA_DEREF &&
		    !gud_read(mem, cfa + row.fp.offset, &nfp))
			return;
		if (row.fp.kind != SFRAME_RULE_SAME && row.fp.kind != SFRAME_RULE_CFA_DEREF)
			return;
		if (!ra)
			return;
		pc = ra;
		sp = cfa;
		fp = nfp;
	}
}

/* The runtime's frames of the first goroutine it printed after "PC=". */
static unsigned int gud_go_frames(const char *out, u64 *sigpc, struct gud_walk *g)
{
	const char *p = strstr(out, "\nPC=0x");
	char line[1024];
	bool in = false;

	g->n = 0;
	*sigpc = 0;
	if (!p || sscanf(p, "\nPC=0x%llx", sigpc) != 1)
		return 0;
	while ((p = strchr(p + 1, '\n')) && g->n < GUD_MAX_FRAMES) {
		size_t len = strcspn(p + 1, "\n");
		const char *fp;

		len = min_t(size_t, len, sizeof(line) - 1);
		snprintf(line, sizeof(line), "%.*s", (int)len, p + 1);
		if (!in) {
			in = !strncmp(line, "goroutine ", 10);
			continue;
		}
		if (!*line)
			break;
		fp = strstr(line, " fp=0x");
		if (line[0] == '\t' && fp &&
		    sscanf(fp, " fp=0x%llx sp=0x%llx pc=0x%llx", &g->f[g->n].cfa, &g->f[g->n].sp,
			   &g->f[g->n].pc) == 3)
			g->n++;
	}
	return g->n;
}

static void gud_compare(const struct gud_walk *o, const struct gud_walk *g, u64 regs_pc,
			struct gud_totals *t, unsigned int run)
{
	unsigned int j, k, exact = 0, bad = 0, miss = 0;

	/* The runtime traces from the signal's PC (a restarted system call: 2 bytes back). */
	for (j = 0; j < o->n; j++)
		if (g->f[0].sp == o->f[j].sp &&
		    (g->f[0].pc == o->f[j].pc || (!j && o->f[0].pc - g->f[0].pc <= 2)))
			break;
	if (!g->n) {
		/* Before the runtime installs its handlers SIGQUIT kills silently. */
		t->silent++;
		return;
	}
	if (j == o->n) {
		t->unaligned++;
		if (verbose)
			printf("run %u: pc %llx: its frame 0 %llx, sp %llx: none of our %u\n",
			       run, regs_pc, g->f[0].pc, g->f[0].sp, o->n);
		return;
	}
	t->compared++;
	for (k = 0; k < g->n; k++) {
		const struct gud_frame *a = &o->f[j + k], *b = &g->f[k];

		if (j + k >= o->n) {
			miss++;
			continue;
		}
		/* Our last frame has no CFA when no row holds at its PC. */
		if (a->sp == b->sp && (a->pc == b->pc || (!k && !j)) &&
		    (a->cfa == b->cfa || (!a->cfa && j + k + 1 == o->n))) {
			exact++;
			continue;
		}
		bad++;
		printf("run %u: frame %u: ours pc %llx sp %llx cfa %llx,", run, k, a->pc, a->sp,
		       a->cfa);
		printf(" runtime's pc %llx sp %llx fp %llx\n", b->pc, b->sp, b->cfa);
	}
	t->frames += g->n;
	t->exact += exact;
	t->contradicted += bad;
	t->missing += miss;
	t->extra += o->n > j + g->n ? o->n - j - g->n : 0;
	if (verbose)
		printf("run %u: pc %llx: %u frames, ours %u from %u, exact %u missing %u\n", run,
		       regs_pc, g->n, o->n, j, exact, miss);
}

/* A thread in state R, else any, of the @n in @tids. */
static pid_t gud_pick(pid_t pid, const pid_t *tids, unsigned int n)
{
	pid_t run[GUD_MAX_TIDS];
	unsigned int i, nr = 0;
	char path[64], buf[256], *s;

	for (i = 0; i < n; i++) {
		int fd;
		ssize_t len;

		snprintf(path, sizeof(path), "/proc/%d/task/%d/stat", pid, tids[i]);
		fd = open(path, O_RDONLY);
		len = fd >= 0 ? read(fd, buf, sizeof(buf) - 1) : -1;
		if (fd >= 0)
			close(fd);
		if (len <= 0)
			continue;
		buf[len] = 0;
		s = strrchr(buf, ')');
		if (s && s[1] == ' ' && s[2] == 'R')
			run[nr++] = tids[i];
	}
	if (nr)
		return run[gud_rand() % nr];
	return tids[gud_rand() % n];
}

static u64 gud_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000ULL + ts.tv_nsec / 1000000;
}

/* One traced process: its threads, and what the sample found. */
struct gud_run {
	pid_t pid;
	pid_t tids[GUD_MAX_TIDS];
	unsigned int ntids;
	pid_t target;
	bool sampled;
	struct gud_walk ours;
	u64 regs_pc;
};

static void gud_forget(struct gud_run *r, pid_t tid)
{
	unsigned int i;

	for (i = 0; i < r->ntids; i++)
		if (r->tids[i] == tid) {
			r->tids[i] = r->tids[--r->ntids];
			return;
		}
}

static void gud_add(struct gud_run *r, pid_t tid)
{
	unsigned int i;

	for (i = 0; i < r->ntids; i++)
		if (r->tids[i] == tid)
			return;
	if (r->ntids < GUD_MAX_TIDS)
		r->tids[r->ntids++] = tid;
}

/*
 * One ptrace stop of thread @tid: new threads are followed, the
 * runtime's own signals (SIGURG preemption...) passed on, and the SIGQUIT
 * of the target thread sampled before it is delivered.
 */
static void gud_stop(struct gud_run *r, int mem, u64 bias, pid_t tid, int status)
{
	int sig = WSTOPSIG(status), event = status >> 16;
	struct user_regs_struct regs;
	unsigned long msg;

	gud_add(r, tid);
	if (event) {
		if (event == PTRACE_EVENT_CLONE && !ptrace(PTRACE_GETEVENTMSG, tid, 0, &msg))
			gud_add(r, (pid_t)msg);
		ptrace(PTRACE_CONT, tid, 0, 0);
		return;
	}
	if (sig == SIGSTOP || sig == SIGTRAP) {
		ptrace(PTRACE_CONT, tid, 0, 0);
		return;
	}
	if (sig == SIGQUIT && tid == r->target && !r->sampled &&
	    !ptrace(PTRACE_GETREGS, tid, 0, &regs)) {
		r->sampled = true;
		r->regs_pc = regs.rip;
		gud_unwind(mem, bias, &regs, &r->ours);
	}
	ptrace(PTRACE_CONT, tid, 0, (void *)(long)sig);
}

/*
 * Start the program traced, stop one thread after @delay ms with SIGQUIT
 * and sample it, and collect the runtime's output in @errfd until the
 * process is gone (10 s at most).  The ptrace event loop is one piece,
 * so it is longer than most.
 */
static bool gud_run_one(char **argv, int errfd, unsigned int delay, struct gud_run *r)
{
	u64 start = gud_now_ms(), bias = 0;
	int status, mem = -1;
	bool sent = false;
	char path[64];
	pid_t tid;

	memset(r, 0, sizeof(*r));
	r->pid = fork();
	if (r->pid < 0)
		return false;
	if (!r->pid) {
		struct rlimit nocore = { 0, 0 };

		setrlimit(RLIMIT_CORE, &nocore);
		dup2(errfd, 2);
		close(0);
		if (open(stdin_path, O_RDONLY))
			_exit(127);
		setenv("GOTRACEBACK", "system", 1);
		ptrace(PTRACE_TRACEME, 0, 0, 0);
		execvp(argv[0], argv);
		_exit(127);
	}
	if (waitpid(r->pid, &status, 0) != r->pid || !WIFSTOPPED(status))
		return false;
	ptrace(PTRACE_SETOPTIONS, r->pid, 0, PTRACE_O_TRACECLONE | PTRACE_O_EXITKILL);
	snprintf(path, sizeof(path), "/proc/%d/mem", r->pid);
	mem = open(path, O_RDONLY);
	bias = gud_bias(r->pid, argv[0]);
	gud_add(r, r->pid);
	ptrace(PTRACE_CONT, r->pid, 0, 0);
	for (;;) {
		tid = waitpid(-1, &status, __WALL | WNOHANG);
		if (tid < 0 && errno == ECHILD)
			break;
		if (tid > 0 && (WIFEXITED(status) || WIFSIGNALED(status))) {
			gud_forget(r, tid);
			if (tid == r->pid)
				break;
		} else if (tid > 0 && WIFSTOPPED(status)) {
			gud_stop(r, mem, bias, tid, status);
		} else {
			usleep(200);
		}
		if (!sent && gud_now_ms() - start >= delay && r->ntids) {
			r->target = gud_pick(r->pid, r->tids, r->ntids);
			syscall(SYS_tgkill, r->pid, r->target, SIGQUIT);
			sent = true;
		}
		if (gud_now_ms() - start > delay + 10000)
			kill(r->pid, SIGKILL);
	}
	while (waitpid(-1, &status, __WALL | WNOHANG) > 0)
		;
	if (mem >= 0)
		close(mem);
	return r->sampled;
}

static char *gud_slurp(int fd)
{
	struct stat st;
	char *buf;

	if (fstat(fd, &st))
		return NULL;
	buf = calloc(1, st.st_size + 1);
	if (buf && pread(fd, buf, st.st_size, 0) != st.st_size) {
		free(buf);
		return NULL;
	}
	return buf;
}

static int gud_load(const char *path)
{
	static struct sfu_sframe_reader r = { .kind = SFRAME_READER_BUFFER };
	int fd = open(path, O_RDONLY);
	struct stat st;
	void *buf;

	if (fd < 0 || fstat(fd, &st))
		return -1;
	buf = malloc(st.st_size);
	if (!buf || read(fd, buf, st.st_size) != st.st_size)
		return -1;
	close(fd);
	r.buf = buf;
	r.size = st.st_size;
	if (sfu_sframe_section_init(&sec, &r, 0, SFRAME_ABI_AMD64_ENDIAN_LITTLE) ||
	    sfu_sframe_section_validate(&sec))
		return -1;
	return 0;
}

int main(int argc, char **argv)
{
	unsigned int runs = 50, i, arg = 1;
	struct gud_totals t = { 0 };
	const char *sframe = NULL;
	char tmpl[] = "/tmp/go-unwind-diff.XXXXXX";
	struct gud_run r;
	struct gud_walk g;
	int errfd;

	for (; arg < (unsigned int)argc && strcmp(argv[arg], "--"); arg++) {
		if (!strcmp(argv[arg], "--sframe") && arg + 1 < (unsigned int)argc)
			sframe = argv[++arg];
		else if (!strcmp(argv[arg], "--runs") && arg + 1 < (unsigned int)argc)
			runs = strtoul(argv[++arg], NULL, 0);
		else if (!strcmp(argv[arg], "--seed") && arg + 1 < (unsigned int)argc)
			rng ^= strtoull(argv[++arg], NULL, 0) * 0x2545f4914f6cdd1dULL;
		else if (!strcmp(argv[arg], "--stdin") && arg + 1 < (unsigned int)argc)
			stdin_path = argv[++arg];
		else if (!strcmp(argv[arg], "-v"))
			verbose = true;
	}
	if (!sframe || arg + 1 >= (unsigned int)argc) {
		fprintf(stderr, "usage: go-unwind-diff --sframe FILE [--runs N] [--seed S]");
		fprintf(stderr, " [--stdin IN] [-v] -- PROG ARGS...\n");
		return 2;
	}
	if (gud_load(sframe)) {
		fprintf(stderr, "go-unwind-diff: %s: not a valid x86_64 SFrame section\n", sframe);
		return 2;
	}
	errfd = mkstemp(tmpl);
	if (errfd < 0)
		return 2;
	unlink(tmpl);
	for (i = 0; i < runs; i++) {
		char *out;
		u64 sigpc;

		if (ftruncate(errfd, 0) || lseek(errfd, 0, SEEK_SET))
			return 2;
		if (!gud_run_one(argv + arg + 1, errfd, 20 + gud_rand() % 180, &r))
			continue;
		t.samples++;
		out = gud_slurp(errfd);
		if (out && gud_go_frames(out, &sigpc, &g) && sigpc != r.regs_pc && verbose)
			printf("run %u: signal pc %llx, registers %llx\n", i, sigpc, r.regs_pc);
		if (out)
			gud_compare(&r.ours, &g, r.regs_pc, &t, i);
		if (out && verbose && !g.n)
			printf("run %u: the runtime printed:\n%.600s\n", i, out);
		free(out);
	}
	printf("go-unwind-diff: samples %llu compared %llu silent %llu unaligned %llu", t.samples,
	       t.compared, t.silent, t.unaligned);
	printf(" frames %llu exact %llu contradicted %llu missing %llu extra %llu", t.frames,
	       t.exact, t.contradicted, t.missing, t.extra);
	printf(" exact-share %.2f%%\n", t.frames ? 100.0 * t.exact / t.frames : 0.0);
	return t.contradicted ? 1 : 0;
}
