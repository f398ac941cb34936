// SPDX-License-Identifier: GPL-2.0
/*
 * sframe-stack - every thread's user stack of a running process, from the
 * module's unwinder, symbolized: what eu-stack -p prints, without
 * stopping the process.
 *
 *   sframe-stack [-d DEPTH] [-n] PID [TID...]
 *
 * Each thread is unwound with SFU_IOC_UNWIND_TASK on /dev/sframe_unwind,
 * on the strength of an fd on the process's /proc/PID/mem (the ptrace
 * read rule: the caller must be allowed to read the process's memory).
 * Addresses are symbolized with elfutils' libdwfl from the process's
 * mappings (ELF symbol tables, build-ids), and where it finds no symbol
 * (stripped Go programs) from the file's Go function table
 * (sframe_gen_go.c); a return address is looked up one byte back, in the
 * call that made it.  -n prints addresses only.
 *
 * Output, one block per thread:
 *   TID 1234:
 *   #0  0x00007f2b1c4e5a3d __poll+0x4d - /usr/lib/x86_64-linux-gnu/libc.so.6
 *   ...
 *   stop: outermost (sframe 7, fp 0, regs 1, signal 0)
 * Exit status: 0 when every thread named (or found) was unwound, 1 when
 * some could not be, 2 on bad usage or when the device or the process
 * cannot be opened.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <elfutils/libdwfl.h>

#include "uapi/sframe_unwind.h"
#include "sframe_unwind/stop_names.h"
#include "sframe_gen.h"

#define SFS_DEFAULT_DEPTH	256
#define SFS_MAX_DEPTH		4096
#define SFS_MAX_GO_MODULES	64

static const char *const sfs_stop_names[SFU_STOP_NR] = SFU_STOP_NAMES_INIT;

/* Frames by enum sfu_frame_method, from SFU_FRAME_REGS on. */
static const char *const sfs_method_names[] = { "regs", "sframe", "fp", "signal" };

static const char *sfs_stop_name(int reason)
{
	if (reason < 0 || reason >= (int)(sizeof(sfs_stop_names) / sizeof(sfs_stop_names[0])))
		return "unknown";
	return sfs_stop_names[reason];
}

static void sfs_usage(FILE *f)
{
	fprintf(f, "usage: sframe-stack [-d DEPTH] [-n] PID [TID...]\n"
		   "  -d DEPTH  frames per thread at most (1-%d, default %d)\n"
		   "  -n        addresses only, no symbols\n",
		SFS_MAX_DEPTH, SFS_DEFAULT_DEPTH);
}

static bool sfs_parse_id(const char *s, unsigned long max, unsigned long *v)
{
	char *end;

	errno = 0;
	*v = strtoul(s, &end, 10);
	return !errno && end != s && !*end && *v > 0 && *v <= max;
}

/* The process's modules, as libdwfl reads them from /proc/PID/maps. */
static Dwfl *sfs_dwfl_open(pid_t pid)
{
	static const Dwfl_Callbacks cb = {
		.find_elf = dwfl_linux_proc_find_elf,
		.find_debuginfo = dwfl_standard_find_debuginfo,
	};
	Dwfl *dwfl = dwfl_begin(&cb);

	if (!dwfl)
		return NULL;
	dwfl_report_begin(dwfl);
	if (dwfl_linux_proc_report(dwfl, pid) || dwfl_report_end(dwfl, NULL, NULL)) {
		dwfl_end(dwfl);
		return NULL;
	}
	return dwfl;
}

/* The Go function table of a module's ELF, read once; NULL if it has none. */
static const struct sfg_go *sfs_go_table(Dwfl_Module *mod)
{
	static struct {
		Dwfl_Module *mod;
		struct sfg_go *go;
	} cache[SFS_MAX_GO_MODULES];
	static unsigned int n;
	GElf_Addr bias;
	unsigned int i;
	Elf *elf;

	for (i = 0; i < n; i++)
		if (cache[i].mod == mod)
			return cache[i].go;
	if (n == SFS_MAX_GO_MODULES)
		return NULL;
	cache[n].mod = mod;
	elf = dwfl_module_getelf(mod, &bias);
	if (!elf || sfg_go_load(elf, &cache[n].go) <= 0)
		cache[n].go = NULL;
	return cache[n++].go;
}

/* A Go function's name for @look, where libdwfl has no symbol. */
static const char *sfs_go_name(Dwfl_Module *mod, uint64_t look, GElf_Off *off)
{
	const struct sfg_go *go = sfs_go_table(mod);
	GElf_Addr bias = 0;
	const char *name;
	u64 entry;

	if (!go || !dwfl_module_getelf(mod, &bias))
		return NULL;
	name = sfg_go_func_at(go, look - bias, &entry);
	if (name)
		*off = look - bias - entry;
	return name;
}

/* " sym+0xoff - /path" for @addr, or "" when nothing is known. */
static void sfs_symbolize(Dwfl *dwfl, uint64_t addr, bool caller, char *buf, size_t len)
{
	uint64_t look = caller && addr ? addr - 1 : addr;
	const char *name = NULL, *file = NULL;
	Dwfl_Module *mod;
	GElf_Off off = 0;
	GElf_Sym sym;

	buf[0] = '\0';
	mod = dwfl ? dwfl_addrmodule(dwfl, look) : NULL;
	if (!mod)
		return;
	name = dwfl_module_addrinfo(mod, look, &off, &sym, NULL, NULL, NULL);
	if (!name)
		name = sfs_go_name(mod, look, &off);
	dwfl_module_info(mod, NULL, NULL, NULL, NULL, NULL, &file, NULL);
	if (!file)
		file = dwfl_module_info(mod, NULL, NULL, NULL, NULL, NULL, NULL, NULL);
	/* The offset of @addr itself, not of the byte looked up. */
	if (name)
		snprintf(buf, len, " %s+0x%" PRIx64 " - %s", name, (uint64_t)off + (addr - look),
			 file ? file : "?");
	else
		snprintf(buf, len, " - %s", file ? file : "?");
}

/* Unwind and print one thread; 0, or -1 if it could not be unwound. */
static int sfs_thread(int dev, int mem, pid_t tid, struct sfu_frame *frames, unsigned int max,
		      Dwfl *dwfl)
{
	unsigned long by_method[4] = { 0 };
	struct sfu_unwind u = {
		.frames = (uintptr_t)frames,
		.max = max,
		.flags = SFU_UNWIND_MEM_FD,
		.pid = (uint32_t)tid,
		.mem_fd = mem,
	};
	char sym[512];
	unsigned int i;

	printf("TID %d:\n", tid);
	if (ioctl(dev, SFU_IOC_UNWIND_TASK, &u)) {
		printf("  not unwound: %s\n", strerror(errno));
		return -1;
	}
	for (i = 0; i < u.nr; i++) {
		sfs_symbolize(dwfl, frames[i].ip, i > 0 && frames[i].method != SFU_FRAME_SIGNAL,
			      sym, sizeof(sym));
		printf("#%-3u 0x%016" PRIx64 "%s\n", i, (uint64_t)frames[i].ip, sym);
		if (frames[i].method >= SFU_FRAME_REGS && frames[i].method <= SFU_FRAME_SIGNAL)
			by_method[frames[i].method - SFU_FRAME_REGS]++;
	}
	printf("stop: %s (", sfs_stop_name(u.stop_reason));
	for (i = 0; i < 4; i++)
		printf("%s%s %lu", i ? ", " : "", sfs_method_names[i], by_method[i]);
	printf(")\n");
	return 0;
}

/* The process unwound: its descriptors, room for the frames, its symbols. */
struct sfs_target {
	int dev;
	int mem;
	struct sfu_frame *frames;
	unsigned int depth;
	Dwfl *dwfl;
};

/* The options and the PID; Return: -1, or the status to exit with. */
static int sfs_args(int argc, char **argv, unsigned long *depth, bool *symbols,
		    unsigned long *pid)
{
	int opt;

	while ((opt = getopt(argc, argv, "d:nh")) != -1) {
		switch (opt) {
		case 'd':
			if (!sfs_parse_id(optarg, SFS_MAX_DEPTH, depth)) {
				sfs_usage(stderr);
				return 2;
			}
			break;
		case 'n':
			*symbols = false;
			break;
		case 'h':
			sfs_usage(stdout);
			return 0;
		default:
			sfs_usage(stderr);
			return 2;
		}
	}
	if (optind >= argc || !sfs_parse_id(argv[optind], INT32_MAX, pid)) {
		sfs_usage(stderr);
		return 2;
	}
	return -1;
}

/* The device and the process's memory; Return: 0, or the status to exit with. */
static int sfs_open(unsigned long pid, struct sfs_target *t)
{
	char path[64];

	t->dev = open("/dev/sframe_unwind", O_RDONLY | O_CLOEXEC);
	if (t->dev < 0) {
		fprintf(stderr, "sframe-stack: /dev/sframe_unwind: %s (is the module loaded?)\n",
			strerror(errno));
		return 2;
	}
	snprintf(path, sizeof(path), "/proc/%lu/mem", pid);
	t->mem = open(path, O_RDONLY | O_CLOEXEC);
	if (t->mem < 0) {
		fprintf(stderr, "sframe-stack: %s: %s\n", path, strerror(errno));
		return 2;
	}
	t->frames = calloc(t->depth, sizeof(*t->frames));
	if (!t->frames) {
		fprintf(stderr, "sframe-stack: out of memory\n");
		return 2;
	}
	return 0;
}

/* The threads named, @n of them; Return: 0, or 1 if one was not unwound. */
static int sfs_named(const struct sfs_target *t, char **tids, int n)
{
	unsigned long tid;
	int i, rc = 0;

	for (i = 0; i < n; i++) {
		if (!sfs_parse_id(tids[i], INT32_MAX, &tid)) {
			fprintf(stderr, "sframe-stack: bad TID %s\n", tids[i]);
			rc = 1;
			continue;
		}
		if (sfs_thread(t->dev, t->mem, (pid_t)tid, t->frames, t->depth, t->dwfl))
			rc = 1;
	}
	return rc;
}

/* Every thread of @pid; Return: 0, 1 if one was not unwound, 2 if none was found. */
static int sfs_all(const struct sfs_target *t, unsigned long pid)
{
	unsigned long tid;
	struct dirent *de;
	char path[64];
	int rc = 0;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%lu/task", pid);
	d = opendir(path);
	if (!d) {
		fprintf(stderr, "sframe-stack: %s: %s\n", path, strerror(errno));
		return 2;
	}
	while ((de = readdir(d))) {
		if (!sfs_parse_id(de->d_name, INT32_MAX, &tid))
			continue;
		if (sfs_thread(t->dev, t->mem, (pid_t)tid, t->frames, t->depth, t->dwfl))
			rc = 1;
	}
	closedir(d);
	return rc;
}

int main(int argc, char **argv)
{
	unsigned long depth = SFS_DEFAULT_DEPTH, pid;
	struct sfs_target t = { .dev = -1, .mem = -1 };
	bool symbols = true;
	int rc;

	rc = sfs_args(argc, argv, &depth, &symbols, &pid);
	if (rc >= 0)
		return rc;
	elf_version(EV_CURRENT);
	t.depth = depth;
	rc = sfs_open(pid, &t);
	if (rc)
		return rc;
	if (symbols) {
		t.dwfl = sfs_dwfl_open((pid_t)pid);
		if (!t.dwfl)
			fprintf(stderr, "sframe-stack: no symbols for %lu: %s\n", pid,
				dwfl_errmsg(-1));
	}

	printf("PID %lu\n", pid);
	if (optind + 1 < argc)
		rc = sfs_named(&t, argv + optind + 1, argc - optind - 1);
	else
		rc = sfs_all(&t, pid);
	if (t.dwfl)
		dwfl_end(t.dwfl);
	free(t.frames);
	return rc;
}
