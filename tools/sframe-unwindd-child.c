// SPDX-License-Identifier: GPL-2.0
/*
 * sframe-unwindd, its children: the converter, which makes a file's
 * sidecar, and the fetcher, which asks debuginfod for one.  Each runs as
 * --user under limits of its own and a system call filter
 * (sframe-unwindd-sandbox.c), with no descriptor but its pipes and the
 * file it converts, in a process group of its own that the daemon kills
 * whole when it is done with the child, and the daemon reads what it
 * writes within bounds of time and size.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdnoreturn.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <elfutils/debuginfod.h>
#include <linux/kernel.h>

#include "sframe_gen.h"
#include "sframe-unwindd.h"

/* The fetcher's answer to one build-id, then @len bytes with CHILD_OK. */
struct fetch_reply {
	int32_t status;		/* CHILD_OK, FETCH_MISS or FETCH_ERRNO + errno */
	uint32_t pad;
	uint64_t len;
};

/* RLIMIT_CPU of one fetcher over its life, and the requests it serves. */
#define FETCH_CPU_S		60
#define FETCH_MAX_SERVED	256

size_t vdso_size;
uid_t child_uid = 65534;
gid_t child_gid = 65534;
bool use_debuginfod;
char debuginfod_cache[4096];
u64 debuginfod_fetchers;

/*
 * With DEBUGINFOD_URLS set and no --no-debuginfod: the fetching child's
 * client cache, DIR/.debuginfod-cache, made or taken over as the child
 * user's (mode 0700).  Only the fetcher writes there, and nothing there is
 * trusted: what it fetches is checked like a converter's output.  A
 * failure leaves debuginfod unasked.
 */
void debuginfod_init(void)
{
	const char *urls = getenv("DEBUGINFOD_URLS");
	struct stat s;
	int fd;

	if (opt.no_debuginfod || !urls || !*urls)
		return;
	if (mkdirat(dir_fd, DEBUGINFOD_CACHE, 0700) && errno != EEXIST)
		goto fail;
	/* DIR is root's: nobody else can have put a link there. */
	fd = openat(dir_fd, DEBUGINFOD_CACHE, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		goto fail;
	/* Made so already, it needs no CAP_CHOWN (the service does not have it). */
	if (fstat(fd, &s) || ((s.st_uid != child_uid || s.st_gid != child_gid) &&
			      fchown(fd, child_uid, child_gid)) ||
	    ((s.st_mode & 07777) != 0700 && fchmod(fd, 0700))) {
		close(fd);
		goto fail;
	}
	close(fd);
	if (snprintf(debuginfod_cache, sizeof(debuginfod_cache), "%s/%s", opt.dir,
		     DEBUGINFOD_CACHE) >= (int)sizeof(debuginfod_cache)) {
		errno = ENAMETOOLONG;
		goto fail;
	}
	use_debuginfod = true;
	logmsg("debuginfod: asking %s first, within %u s", urls, opt.debuginfod_timeout);
	return;
fail:
	logmsg("%s/%s: %s: debuginfod not asked", opt.dir, DEBUGINFOD_CACHE, strerror(errno));
}

/*
 * fork(), the child in a process group of its own (set on both sides, so
 * that it is in place whichever runs first): what it leaves behind dies
 * with it (reap()).
 */
static pid_t fork_child(void)
{
	pid_t pid = fork();

	if (!pid)
		setpgid(0, 0);
	else if (pid > 0)
		setpgid(pid, pid);
	return pid;
}

/*
 * End child @pid, which exited or was killed: its process group killed
 * while the child is not reaped yet, so that its pid, the group's id,
 * cannot be another's; then reaped.  Return: its exit code; CHILD_SIGSYS
 * if its system call filter killed it; CHILD_KILLED if anything else did.
 */
static int reap(pid_t pid)
{
	siginfo_t si;
	int status;

	while (waitid(P_PID, pid, &si, WEXITED | WNOWAIT) && errno == EINTR)
		;
	kill(-pid, SIGKILL);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	return WIFSIGNALED(status) && WTERMSIG(status) == SIGSYS ? CHILD_SIGSYS : CHILD_KILLED;
}

/*
 * In the child: limits (@cpu seconds, files of at most @fsize bytes, @nofile
 * descriptors), then the unprivileged user and, with @no_procs, no process
 * of its own (RLIMIT_NPROC 0, set as that user: the kernel counts the
 * user's processes); then nothing else open, and no signal of the
 * daemon's handled.
 */
static int child_setup(int in, int out, unsigned int cpu_s, rlim_t fsize, rlim_t nofile,
		       bool no_procs)
{
	struct rlimit cpu = { cpu_s, cpu_s + 1 }, as = { opt.mem, opt.mem };
	struct rlimit zero = { 0, 0 }, fsz = { fsize, fsize }, files = { nofile, nofile };
	pid_t parent = getppid();
	int fd;

	for (fd = 3; fd < 1024; fd++)
		if (fd != in && fd != out)
			close(fd);
	/* The daemon's handlers are not the child's: a signal they take ends it. */
	signal(SIGTERM, SIG_DFL);
	signal(SIGINT, SIG_DFL);
	signal(SIGUSR1, SIG_DFL);
	if (setrlimit(RLIMIT_CPU, &cpu) || setrlimit(RLIMIT_AS, &as) ||
	    setrlimit(RLIMIT_FSIZE, &fsz) || setrlimit(RLIMIT_CORE, &zero) ||
	    setrlimit(RLIMIT_NOFILE, &files))
		return -1;
	if (setgroups(0, NULL) || setresgid(child_gid, child_gid, child_gid) ||
	    setresuid(child_uid, child_uid, child_uid) || !getuid())
		return -1;
	if (no_procs && setrlimit(RLIMIT_NPROC, &zero))
		return -1;
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) || prctl(PR_SET_DUMPABLE, 0, 0, 0, 0))
		return -1;
	/* Set after the change of user, which clears it; the daemon gone, so is the child. */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) || getppid() != parent)
		return -1;
	return 0;
}

/*
 * --test-sandbox stray: a process in the child's group, left running (60 s)
 * when the child is done.  Made before the child's limits and filter,
 * since they leave no way to make one: it stands for whatever might get
 * past them, and the daemon's kill of the group must end it.
 */
static void test_stray(void)
{
	struct timespec t = { 60, 0 };
	int fd;

	/* fork() alone: it stays in the child's group. */
	if (fork() != 0)
		return;
	for (fd = 0; fd < 1024; fd++)
		close(fd);
	prctl(PR_SET_NAME, "sfu-stray", 0, 0, 0);
	while (nanosleep(&t, &t) && errno == EINTR)
		;
	_exit(0);
}

/*
 * --test-sandbox nproc: a fork() as --user, before the filter: RLIMIT_NPROC
 * must refuse it.  One that is not refused ends at once, and the child
 * converts as usual (a sidecar written where none may be).
 */
static void test_nproc(void)
{
	pid_t pid = fork();

	if (pid < 0)
		_exit(CHILD_TEST_REFUSED);
	if (!pid)
		_exit(0);
	while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
		;
}

/*
 * --test-sandbox socket, fork, open or mmap-exec: a call the filter must
 * kill the child for.  One that returns changes nothing: the child goes on
 * and converts (a sidecar written where none may be).
 */
static void test_forbidden(void)
{
	pid_t pid;
	void *p;
	int fd;

	switch (opt.test_sandbox) {
	case TEST_SOCKET:
		fd = socket(AF_INET, SOCK_STREAM, 0);
		if (fd >= 0)
			close(fd);
		break;
	case TEST_FORK:
		pid = fork();
		if (!pid)
			_exit(0);
		break;
	case TEST_OPEN:
		fd = open("/etc/passwd", O_RDONLY | O_CLOEXEC);
		if (fd >= 0)
			close(fd);
		break;
	case TEST_MMAP_EXEC:
		p = mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p != MAP_FAILED)
			munmap(p, 4096);
		break;
	default:
		break;
	}
}

/*
 * The ELF file on @in, read whole (libelf maps it) and its descriptor
 * closed; or where @in is -1, this process's vDSO, a private copy as
 * sframe-gen's.  Return: NULL where it cannot be, or libelf's handle,
 * maybe of a file that is no ELF.
 */
static Elf *elf_open(int in)
{
	char *copy;
	Elf *elf;

	if (in >= 0) {
		/*
		 * Not elf_memory() of a mapping of its own: libelf points into
		 * that, libdw writes there (decompressing .debug_frame), and the
		 * digest taken after is no longer the file's.
		 */
		elf = elf_begin(in, ELF_C_READ_MMAP, NULL);
		/* All of it in memory, the descriptor no longer libelf's. */
		if (elf && elf_cntl(elf, ELF_C_FDREAD)) {
			elf_end(elf);
			elf = NULL;
		}
		close(in);
		return elf;
	}
	copy = malloc(vdso_size);
	if (!copy)
		return NULL;
	memcpy(copy, (const void *)getauxval(AT_SYSINFO_EHDR), vdso_size);
	return elf_memory(copy, vdso_size);
}

/*
 * The child: convert the ELF file on @in into a sidecar written to @out.
 * The file is mapped and its descriptor closed before the filter is
 * installed, so that what parses it has only memory and the pipe.
 */
static noreturn void child(int in, int out, const char *want)
{
	struct sfu_sidecar_header hdr;
	char id[2 * SFU_SIDECAR_BUILD_ID_MAX + 1];
	struct sfg_output o;
	unsigned int i, n;
	Elf *elf;
	int err;

	if (opt.test_sandbox == TEST_STRAY)
		test_stray();
	if (child_setup(in, out, opt.cpu, 0, 16, true))
		_exit(CHILD_SETUP);
	if (opt.test_sandbox == TEST_NPROC)
		test_nproc();
	if (elf_version(EV_CURRENT) == EV_NONE)
		_exit(CHILD_SETUP);
	elf = elf_open(in);
	if (sandbox_converter(out))
		_exit(CHILD_SETUP);
	test_forbidden();
	if (!elf || sfg_elf_machine_abi(elf) < 0)
		_exit(CHILD_NOT_ELF);
	if (sfg_elf_build_id(elf, id, sizeof(id)) || (want && strcmp(id, want)))
		_exit(CHILD_MISMATCH);
	/* As sframe-gen --install: the module reads a file's own section first. */
	err = sfg_convert(elf, 0, SFG_COMPLEMENT, &o);
	if (err == -SFG_E_NO_CFI)
		_exit(CHILD_NOTHING);
	if (err)
		_exit(CHILD_FAILED);
	if (o.stats.own_sframe && !o.stats.fdes)
		_exit(CHILD_NOTHING);
	n = strlen(id) / 2;
	memset(&hdr, 0, sizeof(hdr));
	memcpy(hdr.magic, SFU_SIDECAR_MAGIC, sizeof(hdr.magic));
	hdr.build_id_len = n;
	hdr.digest_kind = o.digest_kind;
	memcpy(hdr.digest, o.digest, sizeof(hdr.digest));
	hdr.section_off = sizeof(hdr);
	hdr.section_size = o.len;
	for (i = 0; i < n; i++)
		if (sscanf(id + 2 * i, "%2hhx", &hdr.build_id[i]) != 1)
			_exit(CHILD_FAILED);
	if (write_all(out, &hdr, sizeof(hdr)) || write_all(out, o.buf, o.len))
		_exit(CHILD_WRITE);
	_exit(CHILD_OK);
}

/*
 * The fetcher: a child that lives across requests, so that libdebuginfod
 * and libcurl are loaded, and the client set up, once (each costs more
 * than the question itself on a slow machine).  It reads build-ids from
 * @in, each a length byte and the bytes, and answers each on @out with
 * a struct fetch_reply and the section sframe-gen --publish wrote.
 *
 * It runs apart from the daemon because what it does is talk to a
 * server: HTTP, whatever libcurl and libdebuginfod parse, a cache to
 * write.  A server (or whoever stands between it and this machine) then
 * reaches an unprivileged process under the limits of a converting child,
 * RLIMIT_CPU over its whole life, which holds no descriptor but its pipes
 * (not even the files': it needs the build-ids alone), in a cache of the
 * child user's; the daemon, root, never loads libcurl and reads only bytes
 * from the pipe, which it checks as it checks a converter's
 * (sidecar_of()), and kills the fetcher where an answer takes longer than
 * --debuginfod-timeout or more than --max-output bytes.  The cache is only
 * where the client writes: each file fetched is removed at once, the
 * sidecar directory is what keeps sidecars; what stays are the client's
 * records of misses, which spare the server a question asked again within
 * ten minutes.
 *
 * Its system call filter is a deny-list (sframe-unwindd-sandbox.c: what a
 * client does is too wide for an allow-list to mean much), and it may
 * make threads (libcurl resolves names in one), so it has no RLIMIT_NPROC,
 * which counts threads too: the filter refuses it new processes.
 */
/*
 * The fetcher set up: limits, user, filter, environment, libdebuginfod and
 * its client.
 */
static debuginfod_client *fetcher_client(int in, int out,
					 typeof(debuginfod_find_section) **find)
{
	typeof(debuginfod_begin) *begin;
	debuginfod_client *client;
	char num[32];
	void *lib;

	/* The client's files are bounded as the output is. */
	if (child_setup(in, out, FETCH_CPU_S, opt.max_output, 64, false) || sandbox_fetcher())
		_exit(CHILD_SETUP);
	umask(077);
	snprintf(num, sizeof(num), "%u", opt.debuginfod_timeout);
	if (setenv("DEBUGINFOD_CACHE_PATH", debuginfod_cache, 1) ||
	    setenv("DEBUGINFOD_TIMEOUT", num, 1) || setenv("DEBUGINFOD_MAXTIME", num, 1) ||
	    setenv("DEBUGINFOD_RETRY_LIMIT", "0", 1) || unsetenv("DEBUGINFOD_PROGRESS"))
		_exit(CHILD_SETUP);
	snprintf(num, sizeof(num), "%llu", opt.max_output);
	if (setenv("DEBUGINFOD_MAXSIZE", num, 1))
		_exit(CHILD_SETUP);
	lib = dlopen(LIBDEBUGINFOD, RTLD_NOW | RTLD_LOCAL);
	if (!lib)
		_exit(FETCH_NO_LIB);
	begin = dlsym(lib, "debuginfod_begin");
	*find = dlsym(lib, "debuginfod_find_section");
	if (!begin || !*find || !dlsym(lib, "debuginfod_end"))
		_exit(FETCH_NO_LIB);
	client = begin();
	if (!client)
		_exit(FETCH_ERRNO + ENOMEM);
	return client;
}

/* The fetcher's answer to build-id @id, @n_id bytes, on @out. */
static void fetcher_answer(debuginfod_client *client, typeof(debuginfod_find_section) *find,
			   const unsigned char *id, int n_id, int out)
{
	char chunk[1 << 16], *path = NULL;
	struct fetch_reply rep;
	struct stat s;
	off_t off;
	ssize_t n;
	int fd;

	memset(&rep, 0, sizeof(rep));
	fd = find(client, id, n_id, SFG_PUBLISH_SECTION, &path);
	if (path)
		unlink(path);
	free(path);
	if (fd == -ENOENT)
		rep.status = FETCH_MISS;
	else if (fd < 0)
		rep.status = FETCH_ERRNO + min(-fd, 127);
	else if (fstat(fd, &s))
		rep.status = FETCH_ERRNO + min(errno, 127);
	else
		rep.len = s.st_size;
	if (write_all(out, &rep, sizeof(rep)))
		_exit(CHILD_WRITE);
	/* From the start: the client may return the descriptor it wrote with. */
	for (off = 0; fd >= 0 && !rep.status && off < (off_t)rep.len; off += n) {
		n = pread(fd, chunk, min_t(u64, sizeof(chunk), rep.len - off), off);
		if (n < 0 && errno == EINTR) {
			n = 0;
			continue;
		}
		/* Cut short: the daemon, waiting for rep.len bytes, kills it. */
		if (n <= 0 || write_all(out, chunk, n))
			_exit(CHILD_WRITE);
	}
	if (fd >= 0)
		close(fd);
}

static noreturn void fetcher(int in, int out)
{
	typeof(debuginfod_find_section) *find;
	unsigned char id[SFU_SIDECAR_BUILD_ID_MAX], n_id;
	debuginfod_client *client = fetcher_client(in, out, &find);

	/* The daemon closing its end ends the fetcher. */
	while (read_all(in, &n_id, 1) == 1 && n_id && n_id <= sizeof(id) &&
	       read_all(in, id, n_id) == n_id)
		fetcher_answer(client, find, id, n_id, out);
	_exit(CHILD_OK);
}

/* The fetcher's pid (0: none running) and the daemon's ends of its pipes. */
static pid_t fetch_pid;
static int fetch_to = -1, fetch_from = -1;
static unsigned int fetch_served;

/*
 * Stop the fetcher, with its process group.  Return: its exit code,
 * CHILD_SIGSYS if its filter killed it, CHILD_KILLED if anything else did
 * or none ran.
 */
int fetcher_stop(bool kill_it)
{
	int ret;

	if (!fetch_pid)
		return CHILD_KILLED;
	close(fetch_to);
	close(fetch_from);
	fetch_to = -1;
	fetch_from = -1;
	if (kill_it)
		kill(-fetch_pid, SIGKILL);
	ret = reap(fetch_pid);
	fetch_pid = 0;
	return ret;
}

static int fetcher_start(void)
{
	int to[2], from[2];
	pid_t pid;

	if (pipe2(to, O_CLOEXEC))
		return -1;
	if (pipe2(from, O_CLOEXEC)) {
		close(to[0]);
		close(to[1]);
		return -1;
	}
	pid = fork_child();
	if (!pid) {
		/* The inherited fds survive close-on-exec: there is no exec. */
		close(to[1]);
		close(from[0]);
		fetcher(to[0], from[1]);
	}
	close(to[0]);
	close(from[1]);
	if (pid < 0) {
		close(to[1]);
		close(from[0]);
		return -1;
	}
	debuginfod_fetchers++;
	fetch_pid = pid;
	fetch_to = to[1];
	fetch_from = from[0];
	fetch_served = 0;
	return 0;
}

/*
 * Read @len bytes from the fetcher within --debuginfod-timeout of @start.
 * Return: 0; -1 late or failed; -2 the fetcher's end of the pipe closed.
 */
static int fetch_read(void *buf, size_t len, const struct timespec *start)
{
	char *p = buf;

	while (len) {
		struct pollfd pfd = { .fd = fetch_from, .events = POLLIN };
		double left = opt.debuginfod_timeout - now_s(start);
		ssize_t n;

		if (left <= 0)
			return -1;
		if (poll(&pfd, 1, left * 1000 + 1) < 0 && errno != EINTR)
			return -1;
		if (!pfd.revents)
			continue;
		n = read(fetch_from, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n ? -1 : -2;
		p += n;
		len -= n;
	}
	return 0;
}

/*
 * Ask the fetcher, started if none runs, for the sidecar of @r's build-id
 * within --debuginfod-timeout.  Return: its status (CHILD_OK, FETCH_MISS,
 * FETCH_ERRNO + errno), the exit code of a fetcher that ended (FETCH_NO_LIB,
 * CHILD_SETUP), CHILD_SIGSYS for one its filter killed, or CHILD_KILLED for
 * one killed otherwise: late, or an answer over --max-output; *@buf, *@len
 * the sidecar with CHILD_OK.
 */
int fetch(const struct sfu_sidecar_request *r, const struct timespec *start, char **buf,
	  size_t *len)
{
	unsigned char req[1 + SFU_SIDECAR_BUILD_ID_MAX];
	struct fetch_reply rep;
	int err;

	*buf = NULL;
	*len = 0;
	/* A fresh one now and then: what one client gathers stays bounded. */
	if (fetch_pid && fetch_served >= FETCH_MAX_SERVED)
		fetcher_stop(true);
	if (!fetch_pid && fetcher_start())
		return CHILD_KILLED;
	fetch_served++;
	req[0] = r->build_id_len;
	memcpy(req + 1, r->build_id, r->build_id_len);
	/* A write that fails, or the pipe's end: the fetcher ended; its code says why. */
	err = write_all(fetch_to, req, 1 + r->build_id_len) ? -2 :
	      fetch_read(&rep, sizeof(rep), start);
	if (err)
		return fetcher_stop(err == -1);
	/* What a fetcher a server took over may say: only the answers it has. */
	if (rep.status == FETCH_MISS ||
	    (rep.status >= FETCH_ERRNO && rep.status < FETCH_ERRNO + 128))
		return rep.status;
	if (rep.status || rep.len > opt.max_output || !rep.len) {
		fetcher_stop(true);
		return CHILD_KILLED;
	}
	*buf = malloc(rep.len);
	if (!*buf || fetch_read(*buf, rep.len, start)) {
		free(*buf);
		*buf = NULL;
		fetcher_stop(true);
		return CHILD_KILLED;
	}
	*len = rep.len;
	return CHILD_OK;
}

/*
 * Read what the child writes on @fd into *@b (grown from @cap bytes), at
 * most --max-output bytes, within @timeout seconds.  Return: 0 at its
 * end, with *@len the bytes read; -1 for a child to kill.
 */
static int child_read(int fd, unsigned int timeout, char **b, size_t cap, size_t *len)
{
	struct timespec start;
	size_t n = 0;

	clock_gettime(CLOCK_MONOTONIC, &start);
	for (;;) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		double left = timeout - now_s(&start);
		ssize_t r;

		if (left <= 0)
			return -1;
		if (poll(&pfd, 1, left * 1000 + 1) < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		if (!pfd.revents)
			continue;
		if (n == cap) {
			char *nb;

			if (cap >= opt.max_output)
				return -1;
			cap = cap * 2 > opt.max_output ? opt.max_output : cap * 2;
			nb = realloc(*b, cap);
			if (!nb)
				return -1;
			*b = nb;
		}
		r = read(fd, *b + n, cap - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		n += r;
	}
	*len = n;
	return 0;
}

/*
 * Run the converter on @fd (the vDSO where @fd is -1), whose build-id must
 * be @want, and read what it writes, at most --max-output bytes, within
 * @timeout seconds.  Return: the child's exit code, CHILD_SIGSYS if its
 * filter killed it, CHILD_KILLED if it was killed otherwise (by the daemon,
 * past --timeout or --max-output, or by its limits) or could not be run;
 * *@buf, *@len the output.
 */
static int run_child(int fd, const char *want, unsigned int timeout, char **buf, size_t *len)
{
	size_t cap = opt.max_output < 1 << 16 ? opt.max_output : 1 << 16, n = 0;
	int p[2], ret, killed;
	char *b = malloc(cap ?: 1);
	pid_t pid;

	*buf = NULL;
	*len = 0;
	if (!b || pipe2(p, O_CLOEXEC)) {
		free(b);
		return CHILD_KILLED;
	}
	pid = fork_child();
	if (pid < 0) {
		close(p[0]);
		close(p[1]);
		free(b);
		return CHILD_KILLED;
	}
	if (!pid) {
		/* The inherited fds survive close-on-exec: there is no exec. */
		close(p[0]);
		child(fd, p[1], want);
	}
	close(p[1]);
	killed = child_read(p[0], timeout, &b, cap, &n);
	if (killed)
		kill(-pid, SIGKILL);
	close(p[0]);
	ret = reap(pid);
	if (killed || ret < 0) {
		free(b);
		return killed ? CHILD_KILLED : ret;
	}
	*buf = b;
	*len = n;
	return ret;
}

/* The converter on @fd, whose build-id must be @want; see run_child(). */
int convert(int fd, const char *want, char **buf, size_t *len)
{
	return run_child(fd, want, opt.timeout, buf, len);
}
