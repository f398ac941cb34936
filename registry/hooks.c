// SPDX-License-Identifier: GPL-2.0
/*
 * What keeps the registries in step with the address spaces:
 *
 *  - perf_event_mmap(), which the kernel calls for every new mapping
 *    (exec's ELF mappings, the dynamic loader's, dlopen, mprotect adding
 *    PROT_EXEC), under the mmap write lock;
 *  - vm_area_free(), called for every VMA that goes away (munmap, partial
 *    munmap, MAP_FIXED over a mapping, mremap, merges);
 *  - change_protection(), called by mprotect() after the VMA's flags
 *    changed, to notice text losing PROT_EXEC;
 *  - the exit_mmap tracepoint (an mm is torn down: exit, or the old mm at
 *    exec) and sched_process_fork (a child with its own copy of the mm).
 *
 * The three functions are hooked with one ftrace_ops filtered to them
 * (include/sframe_unwind/compat/ftrace.h): a call from the function's
 * ftrace call site, where a kprobe would add its own bookkeeping on
 * x86_64 and take a breakpoint exception and a single-step on arm64 at
 * every mmap, munmap and mprotect of every program.  Where ftrace cannot
 * hook one (a kernel without DYNAMIC_FTRACE_WITH_REGS or _WITH_ARGS, or
 * the function not traceable), a kprobe does; debugfs "hooks" says which.
 * The handlers first drop, as cheaply as they can, what cannot matter:
 * mappings that are not executable and have no file, VMAs freed with
 * their mm.
 *
 * None of them may sleep.  They record what happened and queue a counted
 * task_work that runs before the task returns to user space, where the ELF
 * file can be read and the mmap_lock taken: the executable and its
 * interpreter are registered before the first user instruction after
 * exec, a library before dlopen()'s mmap() returns.  VMA changes mark the
 * sections they touch stale at once, so lookups stop using them before the
 * re-check has run; the re-check looks at the range that changed only.
 *
 * The tracepoints are not exported to modules on 6.1: they are found by
 * name with for_each_kernel_tracepoint().
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cred.h>
#include <linux/ftrace.h>
#include <linux/kallsyms.h>
#include <linux/kprobes.h>
#include <linux/mm.h>
#include <linux/seq_file.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/tracepoint.h>

#include "internal.h"
#include "stats.h"
#include "sframe_unwind/compat/ftrace.h"
#include "sframe_unwind/lib.h"
#include "sframe_unwind/task_work.h"

/**
 * struct sfu_range_work - a task_work about a range of the current mm
 * @cb: the task_work
 * @start: start of the range
 * @end: end of the range
 */
struct sfu_range_work {
	struct callback_head cb;
	unsigned long start;
	unsigned long end;
};

/* The task may be past exit_mm() when the work runs (exit_task_work()). */
static struct mm_struct *sfu_work_mm(void)
{
	if (current->flags & PF_EXITING)
		return NULL;
	return current->mm;
}

static void sfu_scan_work_fn(struct callback_head *cb)
{
	struct sfu_range_work *w = container_of(cb, struct sfu_range_work, cb);
	struct mm_struct *mm = sfu_work_mm();

	if (mm)
		sfu_scan(mm, w->start, w->end, current->tgid, current_cred());
	kfree(w);
	sfu_task_work_done();
}

static void sfu_recheck_work_fn(struct callback_head *cb)
{
	struct sfu_range_work *w = container_of(cb, struct sfu_range_work, cb);
	struct mm_struct *mm = sfu_work_mm();

	if (mm)
		sfu_recheck(mm, w->start, w->end - 1);
	kfree(w);
	sfu_task_work_done();
}

/* Queue @fn for @task (which must be current or not yet running). */
static void sfu_queue(struct task_struct *task, task_work_func_t fn,
		      unsigned long start, unsigned long end)
{
	struct sfu_range_work *w;

	if (task->flags & (PF_KTHREAD | PF_EXITING))
		return;		/* never returns to user space to run it */
	w = kmalloc(sizeof(*w), GFP_ATOMIC | __GFP_ACCOUNT);
	if (!w) {
		sfu_stat_inc(SFU_STAT_WORK_ALLOC_FAILED);
		return;
	}
	w->start = start;
	w->end = end;
	if (sfu_task_work_add(task, &w->cb, fn, TWA_RESUME))
		kfree(w);
}

/* perf_event_mmap(vma) */
static void sfu_mmap_hook(const unsigned long *arg)
{
	struct vm_area_struct *vma = (void *)arg[0];
	struct sfu_mm *smm;
	bool wanted, pending;

	if (vma->vm_mm != current->mm)
		return;
	/* The vDSO, which exec maps, has rows if its sidecar is installed. */
	if (!vma->vm_file && !sfu_vma_is_vdso(vma))
		return;
	wanted = vma->vm_flags & VM_EXEC;
	if (!wanted) {
		/* A data mapping matters if a section waits for data there. */
		rcu_read_lock();
		smm = sfu_mm_find(vma->vm_mm);
		wanted = smm && sfu_mm_pending_in(smm, vma->vm_start, vma->vm_end);
		rcu_read_unlock();
	}
	if (wanted && (vma->vm_flags & VM_EXEC) && vma->vm_file) {
		/*
		 * Text made executable again whose section the hook below
		 * found usable: the scan would find it registered, with no
		 * data to wait for.
		 */
		rcu_read_lock();
		smm = sfu_mm_find(vma->vm_mm);
		pending = smm && sfu_mm_pending_in(smm, vma->vm_start, vma->vm_end);
		wanted = pending || !smm || !sfu_section_live_for(smm, vma);
		rcu_read_unlock();
		/*
		 * A file read before and found without a section (most of a
		 * distribution's libraries): the scan would register nothing.
		 */
		if (wanted && !pending && sfu_file_known_without(vma->vm_file)) {
			sfu_stat_inc(SFU_STAT_MMAP_KNOWN_WITHOUT);
			wanted = false;
		}
	}
	if (wanted) {
		sfu_stat_inc(SFU_STAT_MMAP_EVENTS);
		sfu_queue(current, sfu_scan_work_fn, vma->vm_start, vma->vm_end);
	}
}

/*
 * What a changed VMA tells sfu_vma_changed() (sfu_vma_plan() decides what
 * that means for the sections there); queue the re-check it asks for.
 */
static void sfu_vma_hook(struct vm_area_struct *vma, enum sfu_vma_event event,
			 unsigned long start, unsigned long end)
{
	struct sfu_vma_change c = {
		.event = event, .start = start, .end = end, .file = vma->vm_file,
		.exec = vma->vm_flags & VM_EXEC, .read = vma->vm_flags & VM_READ,
	};
	struct sfu_vma_plan p;

	/* Most changes ask nothing: decided here, inline, without a call. */
	if (start >= end || !sfu_vma_plan(&c, &p))
		return;
	if (sfu_vma_changed(vma->vm_mm, &c, p))
		sfu_queue(current, sfu_recheck_work_fn, start, end);
}

/* vm_area_free(vma) */
static void sfu_vma_free_hook(const unsigned long *arg)
{
	struct vm_area_struct *vma = (void *)arg[0];

	/*
	 * Sections are registered over executable text, file-backed or not
	 * (JIT code, the vDSO), and read their data from file mappings only
	 * (an explicit section's data is copied): an anonymous VMA that is
	 * not executable holds neither.
	 */
	if (!vma->vm_file && !(vma->vm_flags & VM_EXEC))
		return;
	sfu_vma_hook(vma, SFU_VMA_UNMAP, vma->vm_start, vma->vm_end);
}

/* change_protection(tlb, vma, start, end, ...) */
static void sfu_change_protection_hook(const unsigned long *arg)
{
	struct vm_area_struct *vma = (void *)arg[1];

	/* Another mm (NUMA balancing, userfaultfd): marked, its next re-check looks. */
	sfu_vma_hook(vma, vma->vm_mm == current->mm ? SFU_VMA_PROTECT : SFU_VMA_PROTECT_REMOTE,
		     arg[2], arg[3]);
}

/* How a hooked function is followed, and its name in debugfs "hooks". */
enum sfu_hook_via { SFU_HOOK_OFF, SFU_HOOK_FTRACE, SFU_HOOK_KPROBE };

static const char * const sfu_hook_via_name[] = {
	[SFU_HOOK_OFF] = "off", [SFU_HOOK_FTRACE] = "ftrace", [SFU_HOOK_KPROBE] = "kprobe",
};

/**
 * struct sfu_hook - a kernel function the registry follows
 * @symbol: its name
 * @fn: what to do at each call, given its first arguments
 * @nargs: how many of them it reads (at most SFU_HOOK_ARGS)
 * @ip: the address ftrace calls sfu_hooks_ops from in it, once seen
 * @kp: the kprobe on it, when ftrace cannot hook it
 * @via: how it is hooked now
 */
struct sfu_hook {
	const char *symbol;
	void (*fn)(const unsigned long *arg);
	unsigned int nargs;
	unsigned long ip;
	struct kprobe kp;
	enum sfu_hook_via via;
};

#define SFU_HOOK_ARGS	4

static struct sfu_hook sfu_hooks[] = {
	{ .symbol = "perf_event_mmap", .fn = sfu_mmap_hook, .nargs = 1 },
	{ .symbol = "vm_area_free", .fn = sfu_vma_free_hook, .nargs = 1 },
	{ .symbol = "change_protection", .fn = sfu_change_protection_hook, .nargs = 4 },
};

static int sfu_hook_kprobe(struct kprobe *kp, struct pt_regs *regs)
{
	struct sfu_hook *h = container_of(kp, struct sfu_hook, kp);
	unsigned long arg[SFU_HOOK_ARGS];
	int i;

	for (i = 0; i < h->nargs; i++)
		arg[i] = regs_get_kernel_argument(regs, i);
	h->fn(arg);
	return 0;
}

#if SFU_FTRACE_REDIRECT != SFU_FTRACE_NONE
/*
 * One ftrace_ops follows the three functions.  Where the kernel calls
 * each ops of a traced function from a list (arm64 before 6.3, which has
 * no DYNAMIC_FTRACE_WITH_CALL_OPS, whenever two ops are registered, and
 * the perf redirection is one), every call of a hooked function tests
 * the filter of each ops in turn: one ops for the three instead of three
 * halves that cost on every mmap and munmap.  The handler tells the
 * functions apart by the address ftrace calls it from, named once
 * through kallsyms (core kernel text: lock-free) and remembered; racing
 * writers store the same answer.
 */
static struct ftrace_ops sfu_hooks_ops;

static noinline struct sfu_hook *sfu_hook_name_ip(unsigned long ip)
{
	char name[KSYM_SYMBOL_LEN];
	size_t len;
	int i;

	sprint_symbol_no_offset(name, ip);
	for (i = 0; i < ARRAY_SIZE(sfu_hooks); i++) {
		len = strlen(sfu_hooks[i].symbol);
		/* A compiler-made copy of the function is "<name>.<suffix>". */
		if (!strncmp(name, sfu_hooks[i].symbol, len) &&
		    (name[len] == '\0' || name[len] == '.')) {
			WRITE_ONCE(sfu_hooks[i].ip, ip);
			return &sfu_hooks[i];
		}
	}
	return NULL;
}

static void notrace sfu_hook_ftrace(unsigned long ip, unsigned long parent_ip,
				    struct ftrace_ops *op, struct ftrace_regs *fregs)
{
	unsigned long arg[SFU_HOOK_ARGS];
	struct sfu_hook *h = NULL;
	int i;

	for (i = 0; i < ARRAY_SIZE(sfu_hooks) && !h; i++)
		if (READ_ONCE(sfu_hooks[i].ip) == ip)
			h = &sfu_hooks[i];
	h = h ?: sfu_hook_name_ip(ip);
	if (!h)
		return;
	for (i = 0; i < h->nargs; i++)
		if (!sfu_ftrace_arg(fregs, i, &arg[i]))
			return;
	h->fn(arg);
}

/* Add @h to sfu_hooks_ops' filter; 0 or -errno. */
static int sfu_hook_filter_ftrace(struct sfu_hook *h)
{
	return ftrace_set_filter(&sfu_hooks_ops, (unsigned char *)h->symbol,
				 strlen(h->symbol), 0);
}

/* Register sfu_hooks_ops for the functions in its filter; 0 or -errno. */
static int sfu_hooks_register_ftrace(void)
{
	int err;

	sfu_hooks_ops.func = sfu_hook_ftrace;
	/*
	 * No FTRACE_OPS_FL_RECURSION: the handlers never call a function
	 * they hook (nor anything that might: they allocate atomically and
	 * queue task_work), so ftrace calls them without its recursion guard.
	 */
	sfu_hooks_ops.flags = SFU_FTRACE_ARGS_FLAGS;
	err = register_ftrace_function(&sfu_hooks_ops);
	if (err)
		ftrace_free_filter(&sfu_hooks_ops);
	return err;
}

static void sfu_hooks_unregister_ftrace(void)
{
	unregister_ftrace_function(&sfu_hooks_ops);
	ftrace_free_filter(&sfu_hooks_ops);
}
#else
static int sfu_hook_filter_ftrace(struct sfu_hook *h)
{
	return -EOPNOTSUPP;
}

static int sfu_hooks_register_ftrace(void)
{
	return -EOPNOTSUPP;
}

static void sfu_hooks_unregister_ftrace(void)
{
}
#endif

/* Hook @h with a kprobe; 0 or -errno. */
static int sfu_hook_attach_kprobe(struct sfu_hook *h)
{
	int err;

	h->kp.symbol_name = h->symbol;
	h->kp.pre_handler = sfu_hook_kprobe;
	err = register_kprobe(&h->kp);
	if (err) {
		pr_err("cannot hook %s: %d\n", h->symbol, err);
		return err;
	}
	h->via = SFU_HOOK_KPROBE;
	return 0;
}

/* Unhook every function; the ftrace ones first, all at once. */
static void sfu_hooks_detach(void)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(sfu_hooks); i++)
		if (sfu_hooks[i].via == SFU_HOOK_FTRACE)
			break;
	if (i < ARRAY_SIZE(sfu_hooks))
		sfu_hooks_unregister_ftrace();
	for (i = 0; i < ARRAY_SIZE(sfu_hooks); i++) {
		if (sfu_hooks[i].via == SFU_HOOK_KPROBE)
			unregister_kprobe(&sfu_hooks[i].kp);
		sfu_hooks[i].via = SFU_HOOK_OFF;
	}
}

/*
 * Hook every function: through the one ftrace_ops those ftrace can
 * follow, the others with kprobes.  Return: 0, or -errno with nothing
 * hooked.
 */
static int sfu_hooks_attach(void)
{
	bool any = false;
	int i, err;

	for (i = 0; i < ARRAY_SIZE(sfu_hooks); i++) {
		sfu_hooks[i].via = SFU_HOOK_OFF;
		if (!sfu_hook_filter_ftrace(&sfu_hooks[i])) {
			sfu_hooks[i].via = SFU_HOOK_FTRACE;
			any = true;
		}
	}
	if (any && sfu_hooks_register_ftrace())
		for (i = 0; i < ARRAY_SIZE(sfu_hooks); i++)
			sfu_hooks[i].via = SFU_HOOK_OFF;
	for (i = 0; i < ARRAY_SIZE(sfu_hooks); i++) {
		if (sfu_hooks[i].via == SFU_HOOK_FTRACE)
			continue;
		err = sfu_hook_attach_kprobe(&sfu_hooks[i]);
		if (err) {
			sfu_hooks_detach();
			return err;
		}
	}
	return 0;
}

/* debugfs "hooks": which mechanism follows each function */
static int sfu_hooks_show(struct seq_file *m, void *v)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(sfu_hooks); i++)
		seq_printf(m, "%s %s\n", sfu_hooks[i].symbol, sfu_hook_via_name[sfu_hooks[i].via]);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(sfu_hooks);

static void sfu_exit_mmap_probe(void *data, struct mm_struct *mm)
{
	sfu_mm_destroy(mm);
}

static void sfu_fork_probe(void *data, struct task_struct *parent, struct task_struct *child)
{
	struct sfu_mm *smm;

	if (!child->mm || child->mm == parent->mm || !parent->mm)
		return;
	smm = sfu_mm_lookup(parent->mm);
	if (!smm)
		return;
	/* The child rebuilds its registry from its own VMAs before it runs. */
	sfu_stat_inc(SFU_STAT_FORKS_REBUILT);
	sfu_queue(child, sfu_scan_work_fn, 0, TASK_SIZE);
}

/**
 * struct sfu_tracepoint - a tracepoint the module attaches to by name
 * @name: its name
 * @probe: the probe
 * @tp: found by for_each_kernel_tracepoint()
 */
struct sfu_tracepoint {
	const char *name;
	void *probe;
	struct tracepoint *tp;
};

static struct sfu_tracepoint sfu_tracepoints[] = {
	{ .name = "exit_mmap", .probe = sfu_exit_mmap_probe },
	{ .name = "sched_process_fork", .probe = sfu_fork_probe },
};

static void sfu_find_tracepoint(struct tracepoint *tp, void *priv)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(sfu_tracepoints); i++)
		if (!strcmp(tp->name, sfu_tracepoints[i].name))
			sfu_tracepoints[i].tp = tp;
}

static void sfu_tracepoints_unregister(int n)
{
	while (n-- > 0)
		tracepoint_probe_unregister(sfu_tracepoints[n].tp, sfu_tracepoints[n].probe, NULL);
	tracepoint_synchronize_unregister();
}

/**
 * sfu_hooks_init() - attach the hooks and tracepoints
 *
 * Return: 0, or -errno if one of them is missing (nothing stays attached).
 */
int sfu_hooks_init(void)
{
	int i, err;

	for_each_kernel_tracepoint(sfu_find_tracepoint, NULL);
	for (i = 0; i < ARRAY_SIZE(sfu_tracepoints); i++) {
		err = -ENOENT;
		if (sfu_tracepoints[i].tp)
			err = tracepoint_probe_register(sfu_tracepoints[i].tp,
							sfu_tracepoints[i].probe, NULL);
		if (err) {
			pr_err("cannot attach to tracepoint %s: %d\n",
			       sfu_tracepoints[i].name, err);
			sfu_tracepoints_unregister(i);
			return err;
		}
	}
	err = sfu_hooks_attach();
	if (err) {
		sfu_tracepoints_unregister(ARRAY_SIZE(sfu_tracepoints));
		return err;
	}
	sfu_debugfs_file("hooks", 0444, NULL, &sfu_hooks_fops);
	return 0;
}

/**
 * sfu_hooks_exit() - detach everything; no probe runs after this returns
 */
void sfu_hooks_exit(void)
{
	sfu_hooks_detach();
	sfu_tracepoints_unregister(ARRAY_SIZE(sfu_tracepoints));
}
