// SPDX-License-Identifier: GPL-2.0
/*
 * go-unwind-diff - a walk of a Go program's stack, by sframe-gen's rows
 * in user space or by the kernel module, against the Go runtime's own
 * traceback of the same moment.
 *
 *   go-unwind-diff --sframe FILE|--kernel [--runs N] [--seed S] [--stdin IN]
 *                  [--delay MIN-MAX] [-v] -- PROG ARGS...
 *
 * Each run starts PROG under ptrace with GOTRACEBACK=system, lets it run
 * for a random while (MIN to MAX ms, default 20-200), sends SIGQUIT to
 * one of its threads (a running one where there is one) and, at that
 * thread's signal-delivery-stop, walks its stack:
 *
 *   --sframe FILE  (x86_64) in user space with the section FILE (the
 *                  project's decoder, the link-time addresses of
 *                  sframe-gen -o), reading the stack through /proc/PID/mem;
 *   --kernel       by the module: SFU_IOC_UNWIND_TASK on /dev/sframe_unwind
 *                  for the stopped thread (SFU_UNWIND_MEM_FD with the
 *                  tracer's /proc/PID/mem), with whatever unwind
 *                  information the module has for PROG (its sidecar).
 *
 * Then it delivers the SIGQUIT: the runtime's handler prints the
 * traceback of the goroutine the signal interrupted, from the signal's PC
 * and SP, with "fp= sp= pc=" for every physical frame, and exits.  The
 * two walks are compared frame by frame (return PC, SP, and the CFA the
 * runtime calls fp; the module's SP of a frame is the CFA of the frame
 * below, and a CFA or SP the module does not report is not compared).
 * Where the runtime starts elsewhere (a goroutine in a system call is
 * traced from where it entered it; C code of a cgo call from its Go
 * caller), its first frame is looked for among ours.
 *
 * A thread interrupted on its system stack inside systemstack() (the g0
 * of its m running a function for the goroutine m.curg) is printed as two
 * tracebacks: g0's frames, which end at runtime.systemstack, then, for
 * m.curg, runtime.systemstack_switch (where systemstack() saved the
 * goroutine's SP) and the goroutine's frames.  With --kernel, whose walk
 * steps from systemstack() to the goroutine's stack as the runtime's
 * profiler does (unwind/go.c), the two are joined into one: g0's frames,
 * systemstack with the CFA of systemstack_switch (the goroutine's stack
 * above the return address), then the goroutine's frames.
 *
 * The runtime's traceback stops at the other stack switches
 * (runtime.mcall, runtime.morestack, and runtime.systemstack where the
 * goroutine's frames do not follow it: a thread in the vDSO has both
 * printed from where it entered the vDSO), with an fp for that frame
 * computed on the system stack as though nothing had switched, which is
 * not compared; frames of ours beyond it are extra.
 *
 * Prints one line per sample with -v, then:
 *   go-unwind-diff: samples N compared N silent N unaligned N frames N exact N
 *     contradicted N missing N extra N nocfa N systemstack N systemstack-exact N
 *     switch-ends N extra-confirmed N extra-contradicted N failed N exact-share P%
 * the contradicted samples by where their first wrong step was (the
 * function stepped out of, or the injected call below it), if any:
 *   go-unwind-diff: contradicted samples by first wrong step: FUNC N ...
 * and the samples with extra frames by the runtime's last frame, if any:
 *   go-unwind-diff: samples with extra frames by the runtime's last: FUNC N ...
 * and with --kernel the stop reasons of the module's walks:
 *   go-unwind-diff: stops REASON N ...
 * silent: the runtime printed no traceback (signalled before it installed
 * its handlers); unaligned: its first frame is none of ours;
 * contradicted: a frame both walks have, differing; missing: a frame the
 * runtime has beyond our last; extra: frames of ours beyond the
 * runtime's last; nocfa: exact frames whose CFA was not compared (ours
 * not known: no row at our last frame, or the module did not report it;
 * or the runtime's fp at a stack switch); systemstack: compared samples
 * whose traceback went from systemstack() on to the goroutine's stack,
 * systemstack-exact: those of them whose every frame was exact;
 * switch-ends: samples whose traceback ended at a stack switch it does
 * not follow and ours went on (their frames beyond are extra);
 * extra-confirmed, extra-contradicted: extra frames that a frame of
 * another goroutine the runtime printed (from where it was saved, a while
 * after our walk) is, or contradicts (its SP, another PC; or their SP
 * inside its frame); failed: unwinds the module refused.
 * Exit status 1 when any frame was contradicted.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/elf.h>
#include <linux/kernel.h>
#include <linux/types.h>

#include "sframe/sframe.h"
#include "uapi/sframe_unwind.h"
#include "sframe_unwind/stop_names.h"

#define GUD_MAX_FRAMES	128
#define GUD_MAX_TIDS	256
#define GUD_FN_LEN	64
#define GUD_MAX_TALLY	16
#define GUD_MAX_OTHERS	4096
#define GUD_DEVICE	"/dev/sframe_unwind"

#if defined(__x86_64__)
#define GUD_PC(r)	((r).rip)
#define GUD_SP(r)	((r).rsp)
#elif defined(__aarch64__)
#define GUD_PC(r)	((r).pc)
#define GUD_SP(r)	((r).sp)
#else
#error "x86_64 or arm64"
#endif

struct gud_frame {
	u64 pc;
	u64 sp;		/* 0: not known (the module's, above a frame without CFA) */
	u64 cfa;	/* 0: not known */
	char fn[GUD_FN_LEN];	/* the runtime's frames: the function's name */
};

struct gud_walk {
	struct gud_frame f[GUD_MAX_FRAMES];
	unsigned int n;
	int stop;		/* the module's stop reason, -1 if none */
	bool systemstack;	/* the runtime's: joined from g0's and m.curg's */
	bool ends_at_switch;	/* the runtime's: ends at a switch it does not follow */
};

struct gud_tally {
	char fn[GUD_FN_LEN];
	u64 n;
};

struct gud_totals {
	u64 samples, compared, silent, unaligned, frames, exact, contradicted, missing, extra;
	u64 nocfa, systemstack, systemstack_exact, switch_ends, extra_confirmed, extra_contradicted;
	u64 failed;
	u64 stops[SFU_STOP_NR];
	struct gud_tally blame[GUD_MAX_TALLY], beyond[GUD_MAX_TALLY];
	unsigned int nblame, nbeyond;
};

static struct sfu_sframe_section sec;
static u64 rng = 0x9e3779b97f4a7c15ULL;
static bool verbose;
static const char *stdin_path = "/dev/null";
/* --kernel: the module's device, else -1 */
static int kernel_dev = -1;
static const char *const stop_names[] = SFU_STOP_NAMES_INIT;
/* The frames of the other goroutines the runtime printed (after the first). */
static struct gud_frame gud_others[GUD_MAX_OTHERS];
static unsigned int gud_nothers;

static u64 gud_rand(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

#ifdef __x86_64__
static bool gud_read(int mem, u64 addr, u64 *v)
{
	return pread(mem, v, 8, (off_t)addr) == 8;
}
#endif

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
#ifdef __x86_64__
	u64 pc = r->rip, sp = r->rsp, fp = r->rbp, cfa, ra, nfp;
	struct sfu_sframe_row row;
	bool exact = true;

	w->stop = -1;
	for (w->n = 0; w->n < GUD_MAX_FRAMES; ) {
		/* As the module: an injected call's return address is exact. */
		u64 look = (exact ? pc : pc - 1) - bias;

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
		exact = row.flags & SFRAME_ROW_INJECTED_CALL;
		pc = ra;
		sp = cfa;
		fp = nfp;
	}
#else
	(void)mem;
	(void)bias;
	(void)r;
	w->n = 0;
	w->stop = -1;
#endif
}

/*
 * The module's walk of the stopped thread @tid: SFU_IOC_UNWIND_TASK, with
 * @mem (the tracer's /proc/PID/mem of its process) as the proof of
 * access.  Each frame's SP is the CFA of the frame below it (the stack
 * pointer its caller had before the call), the first one's the
 * register's.  Returns the ioctl's errno, 0 on success.
 */
static int gud_kernel(int mem, pid_t tid, const struct user_regs_struct *r, struct gud_walk *w)
{
	struct sfu_frame f[GUD_MAX_FRAMES];
	struct sfu_unwind u = {
		.frames = (uintptr_t)f, .max = GUD_MAX_FRAMES, .pid = tid,
		.flags = SFU_UNWIND_MEM_FD, .mem_fd = mem,
	};
	unsigned int k;

	w->n = 0;
	w->stop = -1;
	if (ioctl(kernel_dev, SFU_IOC_UNWIND_TASK, &u))
		return errno;
	for (k = 0; k < u.nr && k < GUD_MAX_FRAMES; k++) {
		w->f[k].pc = f[k].ip;
		w->f[k].cfa = f[k].cfa;
		w->f[k].sp = k ? f[k - 1].cfa : GUD_SP(*r);
		w->f[k].fn[0] = 0;
	}
	w->n = k;
	w->stop = u.stop_reason;
	return 0;
}

/*
 * Bytes between the fp the runtime prints for a frame of @fn and its
 * caller's SP, its CFA: on arm64, 16 for the functions a signal handler
 * enters by an injected call, which stored LR there first (the runtime's
 * traceback adds them to the caller's SP: usesLR && injectedCall); else 0.
 */
static u64 gud_injected_pushed(const char *fn)
{
#ifdef __aarch64__
	return !strcmp(fn, "runtime.asyncPreempt") || !strcmp(fn, "runtime.sigpanic") ||
	       !strcmp(fn, "runtime.debugCallV2") ? 16 : 0;
#else
	(void)fn;
	return 0;
#endif
}

/*
 * The frames of the goroutine block that starts at the line after @p
 * ("goroutine N [...]:", up to an empty line) into @g from index g->n on;
 * each frame's function name from the line before its "fp= sp= pc=" line.
 * Returns where the block ended (its empty line, or the end), NULL if no
 * block starts there.
 */
static const char *gud_go_block(const char *p, struct gud_walk *g)
{
	char line[1024], name[GUD_FN_LEN] = "";
	bool in = false;

	while ((p = strchr(p + 1, '\n')) && g->n < GUD_MAX_FRAMES) {
		size_t len = strcspn(p + 1, "\n");
		const char *fp, *paren;

		len = min_t(size_t, len, sizeof(line) - 1);
		snprintf(line, sizeof(line), "%.*s", (int)len, p + 1);
		if (!in) {
			in = !strncmp(line, "goroutine ", 10);
			/* Only empty lines between two blocks. */
			if (!in && *line)
				return NULL;
			continue;
		}
		if (!*line)
			return p;
		fp = strstr(line, " fp=0x");
		if (line[0] == '\t' && fp &&
		    sscanf(fp, " fp=0x%llx sp=0x%llx pc=0x%llx", &g->f[g->n].cfa, &g->f[g->n].sp,
			   &g->f[g->n].pc) == 3) {
			snprintf(g->f[g->n].fn, GUD_FN_LEN, "%s", name);
			g->f[g->n].cfa += gud_injected_pushed(name);
			g->n++;
		} else if (line[0] != '\t') {
			/* "pkg.(*T).method(args...)": the name up to the arguments */
			paren = strrchr(line, '(');
			len = min_t(size_t, paren ? (size_t)(paren - line) : strlen(line),
				    GUD_FN_LEN - 1);
			snprintf(name, sizeof(name), "%.*s", (int)len, line);
		}
	}
	return in ? p : NULL;
}

/*
 * The runtime's stack switches it does not follow when it prints a
 * traceback: it stops there ("SPWRITE" functions), with an fp computed on
 * the system stack as though nothing had switched, which is no CFA.  The
 * vDSO callers switch to g0's stack and align SP (ANDQ $~15): in a
 * sample taken there the runtime printed nanotime1 alone, its fp its SP +
 * 8, where the module's CFA led on through 12 frames to goexit.
 */
static const char *const gud_switches[] = {
	"runtime.systemstack", "runtime.mcall", "runtime.morestack",
	"runtime.nanotime1", "runtime.walltime", "runtime.walltime1",
};

/*
 * The runtime's frames of the first goroutine it printed after "PC=".
 * With @join, a traceback of g0 that ends at runtime.systemstack goes on
 * with the goroutine printed next, whose first frame is
 * runtime.systemstack_switch: systemstack's CFA is that frame's, and the
 * goroutine's frames follow (see the top of this file).  A traceback that
 * ends at a stack switch otherwise has no CFA for that frame (g->ends_at_switch).
 * The frames of the goroutines printed after the first go to gud_others.
 */
static unsigned int gud_go_frames(const char *out, u64 *sigpc, struct gud_walk *g, bool join)
{
	const char *p = strstr(out, "\nPC=0x"), *q;
	static struct gud_walk c;
	struct gud_frame *last;
	unsigned int k;

	g->n = 0;
	g->systemstack = false;
	g->ends_at_switch = false;
	*sigpc = 0;
	if (!p || sscanf(p, "\nPC=0x%llx", sigpc) != 1)
		return 0;
	p = gud_go_block(p, g);
	if (!g->n)
		return 0;
	/* Every other goroutine's frames, for the frames of ours beyond. */
	gud_nothers = 0;
	for (q = p; q; ) {
		c.n = 0;
		q = gud_go_block(q, &c);
		for (k = 0; k < c.n && gud_nothers < GUD_MAX_OTHERS; k++)
			gud_others[gud_nothers++] = c.f[k];
	}
	last = &g->f[g->n - 1];
	c.n = 0;
	if (join && p && !strcmp(last->fn, "runtime.systemstack") && gud_go_block(p, &c) &&
	    c.n >= 2 && !strcmp(c.f[0].fn, "runtime.systemstack_switch")) {
		last->cfa = c.f[0].cfa;
		for (k = 1; k < c.n && g->n < GUD_MAX_FRAMES; k++)
			g->f[g->n++] = c.f[k];
		g->systemstack = true;
		return g->n;
	}
	for (k = 0; k < ARRAY_SIZE(gud_switches); k++)
		if (!strcmp(last->fn, gud_switches[k])) {
			last->cfa = 0;
			g->ends_at_switch = true;
		}
	return g->n;
}

static void gud_print_walks(const struct gud_walk *o, const struct gud_walk *g, unsigned int run)
{
	unsigned int k;

	for (k = 0; k < o->n; k++)
		printf("run %u:   ours %2u: pc %llx sp %llx cfa %llx\n", run, k, o->f[k].pc,
		       o->f[k].sp, o->f[k].cfa);
	if (o->stop >= 0 && o->stop < SFU_STOP_NR)
		printf("run %u:   ours stopped: %s\n", run, stop_names[o->stop]);
	for (k = 0; k < g->n; k++)
		printf("run %u:   runtime's %2u: pc %llx sp %llx fp %llx %s\n", run, k, g->f[k].pc,
		       g->f[k].sp, g->f[k].cfa, g->f[k].fn);
}

/* Count one sample under @name in @tally (of @n names so far). */
static void gud_tally(struct gud_tally *tally, unsigned int *n, const char *name)
{
	unsigned int i;

	for (i = 0; i < *n && strcmp(tally[i].fn, name); i++)
		;
	if (i == *n) {
		if (i == GUD_MAX_TALLY)
			return;
		snprintf(tally[i].fn, GUD_FN_LEN, "%s", name);
		(*n)++;
	}
	tally[i].n++;
}

/*
 * Tally a contradicted sample by where its first wrong step was: the step
 * out of the runtime's frame @k when that frame's PC is ours (@pc_ok),
 * else out of the frame below it.  Named by the function stepped out of,
 * or by the call below it where that was injected (runtime.asyncPreempt,
 * runtime.sigpanic: the PC of the function stepped out of is no return
 * address).
 */
static void gud_blame(struct gud_totals *t, const struct gud_walk *g, unsigned int k, bool pc_ok)
{
	const char *name;

	if (!pc_ok && k)
		k--;
	name = g->f[k].fn;
	if (k && (!strcmp(g->f[k - 1].fn, "runtime.asyncPreempt") ||
		  !strcmp(g->f[k - 1].fn, "runtime.sigpanic")))
		name = g->f[k - 1].fn;
	gud_tally(t->blame, &t->nblame, name);
}

/*
 * A frame of ours beyond the runtime's traceback, against the frames of
 * the other goroutines it printed (those not running: from where they
 * were saved): 1 if one of them is that frame (same SP and PC), -1 if
 * one contradicts it (same SP, another PC; or its SP inside one of
 * theirs), 0 if none says.
 */
static int gud_other_frame(const struct gud_frame *e, const struct gud_frame **by)
{
	unsigned int i;

	*by = NULL;
	if (!e->sp)
		return 0;
	for (i = 0; i < gud_nothers; i++) {
		const struct gud_frame *r = &gud_others[i];

		if (r->sp == e->sp) {
			*by = r;
			return r->pc == e->pc && (!e->cfa || e->cfa == r->cfa) ? 1 : -1;
		}
		if (r->sp < e->sp && e->sp < r->cfa)
			*by = r;
	}
	return *by ? -1 : 0;
}

static void gud_compare(const struct gud_walk *o, const struct gud_walk *g, u64 regs_pc,
			struct gud_totals *t, unsigned int run)
{
	unsigned int j, k, exact = 0, bad = 0, miss = 0, nocfa = 0;

	/* The runtime traces from the signal's PC (a restarted system call: 2 bytes back). */
	for (j = 0; j < o->n; j++)
		if ((g->f[0].sp == o->f[j].sp || !o->f[j].sp) &&
		    (g->f[0].pc == o->f[j].pc || (!j && o->f[0].pc - g->f[0].pc <= 2)))
			break;
	if (!g->n) {
		/* Before the runtime installs its handlers SIGQUIT kills silently. */
		t->silent++;
		return;
	}
	if (j == o->n) {
		t->unaligned++;
		if (verbose) {
			printf("run %u: pc %llx: its frame 0 %llx, sp %llx: none of our %u\n",
			       run, regs_pc, g->f[0].pc, g->f[0].sp, o->n);
			gud_print_walks(o, g, run);
		}
		return;
	}
	t->compared++;
	for (k = 0; k < g->n; k++) {
		const struct gud_frame *a = &o->f[j + k], *b = &g->f[k];
		/*
		 * Our last frame has no CFA when no row holds at its PC; the
		 * module's frames none where it does not know it exactly.
		 */
		bool cfa_ok = a->cfa == b->cfa || !b->cfa ||
			      (!a->cfa && (kernel_dev >= 0 || j + k + 1 == o->n));

		if (j + k >= o->n) {
			miss++;
			continue;
		}
		if ((a->sp == b->sp || (!a->sp && kernel_dev >= 0)) &&
		    (a->pc == b->pc || (!k && !j)) && cfa_ok) {
			exact++;
			nocfa += !a->cfa || !b->cfa;
			continue;
		}
		if (!bad++)
			gud_blame(t, g, k, a->pc == b->pc);
		printf("run %u: frame %u: ours pc %llx sp %llx cfa %llx,", run, k, a->pc, a->sp,
		       a->cfa);
		printf(" runtime's pc %llx sp %llx fp %llx %s\n", b->pc, b->sp, b->cfa, b->fn);
	}
	t->frames += g->n;
	t->exact += exact;
	t->nocfa += nocfa;
	t->contradicted += bad;
	t->missing += miss;
	t->extra += o->n > j + g->n ? o->n - j - g->n : 0;
	if (o->n > j + g->n)
		gud_tally(t->beyond, &t->nbeyond, g->f[g->n - 1].fn);
	for (k = j + g->n; k < o->n; k++) {
		const struct gud_frame *by;
		int said = gud_other_frame(&o->f[k], &by);

		t->extra_confirmed += said > 0;
		t->extra_contradicted += said < 0;
		if (said >= 0)
			continue;
		printf("run %u: extra frame %u: ours pc %llx sp %llx cfa %llx,", run, k,
		       o->f[k].pc, o->f[k].sp, o->f[k].cfa);
		printf(" a goroutine's pc %llx sp %llx fp %llx %s\n", by->pc, by->sp, by->cfa,
		       by->fn);
	}
	t->systemstack += g->systemstack;
	t->systemstack_exact += g->systemstack && exact == g->n;
	t->switch_ends += g->ends_at_switch && o->n > j + g->n;
	if (verbose) {
		printf("run %u: pc %llx: %u frames%s, ours %u from %u, exact %u missing %u\n", run,
		       regs_pc, g->n, g->systemstack ? " (through systemstack)" : "", o->n, j,
		       exact, miss);
		if (bad || miss || o->n > j + g->n)
			gud_print_walks(o, g, run);
	}
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
	int err;		/* the module's errno, 0 if it unwound */
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
	struct iovec iov = { &regs, sizeof(regs) };
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
	    !ptrace(PTRACE_GETREGSET, tid, (void *)NT_PRSTATUS, &iov)) {
		r->sampled = true;
		r->regs_pc = GUD_PC(regs);
		if (kernel_dev >= 0)
			r->err = gud_kernel(mem, tid, &regs, &r->ours);
		else
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
		int fd;

		setrlimit(RLIMIT_CORE, &nocore);
		dup2(errfd, 2);
		/*
		 * What the program prints is not wanted: fzf --filter prints
		 * each line it matches, megabytes a run, which filled the
		 * guest's memory (its /tmp) over a batch of runs.
		 */
		close(0);
		if (open(stdin_path, O_RDONLY))
			_exit(127);
		fd = open("/dev/null", O_WRONLY);
		if (fd < 0 || dup2(fd, 1) != 1)
			_exit(127);
		if (fd != 1)
			close(fd);
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
	unsigned int runs = 50, i, arg = 1, delay_min = 20, delay_max = 200, delay;
	struct gud_totals t = { 0 };
	const char *sframe = NULL;
	char tmpl[] = "/tmp/go-unwind-diff.XXXXXX";
	struct gud_run r;
	struct gud_walk g;
	bool kernel = false;
	int errfd;

	for (; arg < (unsigned int)argc && strcmp(argv[arg], "--"); arg++) {
		if (!strcmp(argv[arg], "--sframe") && arg + 1 < (unsigned int)argc)
			sframe = argv[++arg];
		else if (!strcmp(argv[arg], "--kernel"))
			kernel = true;
		else if (!strcmp(argv[arg], "--runs") && arg + 1 < (unsigned int)argc)
			runs = strtoul(argv[++arg], NULL, 0);
		else if (!strcmp(argv[arg], "--seed") && arg + 1 < (unsigned int)argc)
			rng ^= strtoull(argv[++arg], NULL, 0) * 0x2545f4914f6cdd1dULL;
		else if (!strcmp(argv[arg], "--delay") && arg + 1 < (unsigned int)argc &&
			 sscanf(argv[arg + 1], "%u-%u", &delay_min, &delay_max) == 2 &&
			 delay_min <= delay_max)
			arg++;
		else if (!strcmp(argv[arg], "--stdin") && arg + 1 < (unsigned int)argc)
			stdin_path = argv[++arg];
		else if (!strcmp(argv[arg], "-v"))
			verbose = true;
	}
	if (!sframe == !kernel || arg + 1 >= (unsigned int)argc) {
		fprintf(stderr, "usage: go-unwind-diff --sframe FILE|--kernel [--runs N]");
		fprintf(stderr, " [--seed S] [--stdin IN] [--delay MIN-MAX] [-v]");
		fprintf(stderr, " -- PROG ARGS...\n");
		return 2;
	}
#ifndef __x86_64__
	if (sframe) {
		fprintf(stderr, "go-unwind-diff: --sframe: x86_64 only\n");
		return 2;
	}
#endif
	if (sframe && gud_load(sframe)) {
		fprintf(stderr, "go-unwind-diff: %s: not a valid x86_64 SFrame section\n", sframe);
		return 2;
	}
	if (kernel) {
		kernel_dev = open(GUD_DEVICE, O_RDWR);
		if (kernel_dev < 0) {
			fprintf(stderr, "go-unwind-diff: %s: %s\n", GUD_DEVICE, strerror(errno));
			return 2;
		}
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
		delay = delay_min + gud_rand() % (delay_max - delay_min + 1);
		if (verbose)
			printf("run %u: signalled after %u ms\n", i, delay);
		if (!gud_run_one(argv + arg + 1, errfd, delay, &r))
			continue;
		t.samples++;
		if (r.err) {
			t.failed++;
			printf("run %u: pc %llx: SFU_IOC_UNWIND_TASK: %s\n", i, r.regs_pc,
			       strerror(r.err));
			continue;
		}
		if (r.ours.stop >= 0 && r.ours.stop < SFU_STOP_NR)
			t.stops[r.ours.stop]++;
		out = gud_slurp(errfd);
		if (out && gud_go_frames(out, &sigpc, &g, kernel) && sigpc != r.regs_pc && verbose)
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
	printf(" nocfa %llu systemstack %llu systemstack-exact %llu switch-ends %llu", t.nocfa,
	       t.systemstack, t.systemstack_exact, t.switch_ends);
	printf(" extra-confirmed %llu extra-contradicted %llu failed %llu", t.extra_confirmed,
	       t.extra_contradicted, t.failed);
	printf(" exact-share %.2f%%\n", t.frames ? 100.0 * t.exact / t.frames : 0.0);
	if (t.nblame) {
		printf("go-unwind-diff: contradicted samples by first wrong step:");
		for (i = 0; i < t.nblame; i++)
			printf(" %s %llu", t.blame[i].fn, t.blame[i].n);
		printf("\n");
	}
	if (t.nbeyond) {
		printf("go-unwind-diff: samples with extra frames by the runtime's last:");
		for (i = 0; i < t.nbeyond; i++)
			printf(" %s %llu", t.beyond[i].fn, t.beyond[i].n);
		printf("\n");
	}
	if (kernel) {
		printf("go-unwind-diff: stops");
		for (i = 0; i < SFU_STOP_NR; i++)
			if (t.stops[i])
				printf(" %s %llu", stop_names[i], t.stops[i]);
		printf("\n");
	}
	return t.contradicted ? 1 : 0;
}
