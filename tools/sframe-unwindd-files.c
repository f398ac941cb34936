// SPDX-License-Identifier: GPL-2.0
/*
 * sframe-unwindd, its files: the sidecar directory, DIR, and the
 * debuginfod client's cache in it; a sidecar written there, replacing
 * nothing; what DIR holds, and the least recently read sidecars pruned
 * to keep it within the quotas; and what binds a sidecar to a file, its
 * content digest and its build-id, read here rather than believed from a
 * child; and the sidecar of the running kernel's vDSO, made at start.
 */
#define _GNU_SOURCE
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "sframe_gen.h"
#include "sframe_unwind/elf_digest.h"
#include "sframe-unwindd.h"

int dir_fd = -1;
u64 dir_sidecars;
u64 dir_bytes;

/* Read @len bytes; Return: how many were read before the end or an error. */
size_t read_all(int fd, void *buf, size_t len)
{
	char *p = buf;
	size_t done = 0;

	while (done < len) {
		ssize_t n = read(fd, p + done, len - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		done += n;
	}
	return done;
}

int write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		p += n;
		len -= n;
	}
	return 0;
}

/* Open DIR, which must be a directory of root's that nobody else may write. */
int open_dir(void)
{
	struct stat s;

	if (mkdir(opt.dir, 0755) && errno != EEXIST) {
		logmsg("%s: %s", opt.dir, strerror(errno));
		return -1;
	}
	dir_fd = open(opt.dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (dir_fd < 0 || fstat(dir_fd, &s)) {
		logmsg("%s: %s", opt.dir, strerror(errno));
		return -1;
	}
	if (s.st_uid || (s.st_mode & 022)) {
		logmsg("%s: not root's, or writable by others: refused", opt.dir);
		return -1;
	}
	return 0;
}

/* A sidecar in DIR, where it is and when it was last read. */
struct dir_sidecar {
	struct timespec atime;
	u64 size;
	char sub[3];
	char name[2 * SFU_SIDECAR_BUILD_ID_MAX + 2 * SFU_SIDECAR_NAME_DIGEST + 16];
};

/* The sidecars found by dir_scan(), those it was asked to collect. */
struct dir_list {
	struct dir_sidecar *v;
	size_t n, cap;
	time_t before;		/* collect those last read before this time */
};

/*
 * DIR/<sub>, opened without following a link: a subdirectory of two hex
 * digits, root's and writable by nobody else (as install() writes them and
 * the module reads them).  Return: its descriptor, or -1.
 */
static int open_sub(const char *sub)
{
	struct stat s;
	int d;

	if (strlen(sub) != 2 || strspn(sub, "0123456789abcdef") != 2)
		return -1;
	d = openat(dir_fd, sub, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (d >= 0 && (fstat(d, &s) || s.st_uid || (s.st_mode & 022))) {
		close(d);
		d = -1;
	}
	return d;
}

static void dir_collect(struct dir_list *l, const char *sub, const char *name,
			const struct stat *s)
{
	size_t len = strlen(name);
	struct dir_sidecar *e;

	if (s->st_atim.tv_sec >= l->before || len >= sizeof(e->name))
		return;
	if (l->n == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 256;

		e = realloc(l->v, cap * sizeof(*e));
		if (!e)
			return;
		l->v = e;
		l->cap = cap;
	}
	e = &l->v[l->n++];
	e->atime = s->st_atim;
	e->size = s->st_size;
	memcpy(e->sub, sub, 3);
	memcpy(e->name, name, len + 1);
}

/* A stream over directory descriptor @fd, or NULL (@fd closed, if any). */
static DIR *dir_of(int fd)
{
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;

	if (!d && fd >= 0)
		close(fd);
	return d;
}

/*
 * Count what DIR holds: every regular file named *.sframe in a
 * subdirectory of two hex digits (whoever wrote it: this daemon,
 * sframe-unwind-sidecars, an administrator), into dir_sidecars and
 * dir_bytes; with @l, collect those last read before @l->before.
 */
static void dir_scan(struct dir_list *l)
{
	struct dirent *de, *fe;
	DIR *top, *sub;
	int fd;

	dir_sidecars = 0;
	dir_bytes = 0;
	top = dir_of(openat(dir_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC));
	if (!top)
		return;
	while ((de = readdir(top))) {
		fd = open_sub(de->d_name);
		sub = dir_of(fd);
		if (!sub)
			continue;
		while ((fe = readdir(sub))) {
			size_t len = strlen(fe->d_name);
			struct stat s;

			if (fe->d_name[0] == '.' || len <= 7 ||
			    strcmp(fe->d_name + len - 7, ".sframe") ||
			    fstatat(fd, fe->d_name, &s, AT_SYMLINK_NOFOLLOW) || !S_ISREG(s.st_mode))
				continue;
			dir_sidecars++;
			dir_bytes += s.st_size;
			if (l)
				dir_collect(l, de->d_name, fe->d_name, &s);
		}
		closedir(sub);
	}
	closedir(top);
}

/* What DIR holds at start (dir_sidecars, dir_bytes). */
void dir_count(void)
{
	dir_scan(NULL);
}

static int by_atime(const void *a, const void *b)
{
	const struct dir_sidecar *x = a, *y = b;

	if (x->atime.tv_sec != y->atime.tv_sec)
		return x->atime.tv_sec < y->atime.tv_sec ? -1 : 1;
	if (x->atime.tv_nsec != y->atime.tv_nsec)
		return x->atime.tv_nsec < y->atime.tv_nsec ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* Whether DIR has room for one sidecar more, of @bytes bytes. */
static bool dir_room(u64 bytes)
{
	return dir_sidecars < opt.max_sidecars && dir_bytes + bytes <= opt.max_bytes;
}

/*
 * Make room in DIR for one sidecar more of @bytes bytes within
 * --max-sidecars and --max-bytes: if what DIR holds leaves none, remove
 * the sidecars least recently read (their atime), oldest first, but none
 * read in the last PRUNE_MIN_IDLE_S seconds, until it does; none at all
 * if those it may remove are not enough.  DIR is counted again first
 * (others write there too), at most every DIR_RESCAN_S seconds while
 * there is no room.  Return: true if there is room; *@p what was removed
 * for it.
 */
bool dir_make_room(u64 bytes, struct dir_pruned *p)
{
	static struct timespec last_scan;
	static bool scanned;
	struct dir_list l = { .before = time(NULL) - PRUNE_MIN_IDLE_S };
	size_t i;
	u64 b;

	memset(p, 0, sizeof(*p));
	if (dir_room(bytes))
		return true;
	if (scanned && now_s(&last_scan) < DIR_RESCAN_S)
		return false;
	scanned = true;
	clock_gettime(CLOCK_MONOTONIC, &last_scan);
	dir_scan(&l);
	qsort(l.v, l.n, sizeof(*l.v), by_atime);
	/* Nothing removed where removing all it may would not do. */
	for (i = 0, b = 0; i < l.n; i++)
		b += l.v[i].size;
	if (dir_sidecars - l.n >= opt.max_sidecars || dir_bytes - b + bytes > opt.max_bytes)
		l.n = 0;
	for (i = 0; i < l.n && !dir_room(bytes); i++) {
		int d = open_sub(l.v[i].sub);
		struct stat s;

		if (d < 0)
			continue;
		/* Still a sidecar, as it was scanned. */
		if (!fstatat(d, l.v[i].name, &s, AT_SYMLINK_NOFOLLOW) && S_ISREG(s.st_mode) &&
		    s.st_atim.tv_sec < l.before && !unlinkat(d, l.v[i].name, 0)) {
			dir_sidecars--;
			dir_bytes -= s.st_size;
			p->sidecars++;
			p->bytes += s.st_size;
			p->last_read = s.st_atim.tv_sec;
		}
		close(d);
	}
	free(l.v);
	if (dir_room(bytes)) {
		/* Room made: the next time there is none, count again at once. */
		scanned = false;
		return true;
	}
	return false;
}

static int fd_read(void *ctx, u64 off, void *buf, size_t len)
{
	int fd = *(const int *)ctx;
	size_t done = 0;

	while (done < len) {
		ssize_t n = pread(fd, (char *)buf + done, len - done, off + done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -EIO;
		done += n;
	}
	return 0;
}

/*
 * Whether the sidecar header @hdr, which the child wrote, is bound to the
 * file on @fd: its digest taken again here, so that a child a hostile file
 * took over cannot bind rows to another file's content.
 */
bool digest_is(int fd, const struct sfu_sidecar_header *hdr)
{
	u8 digest[SFU_SIDECAR_DIGEST_LEN];
	struct sfu_digest_src src = { .read = fd_read, .ctx = &fd };
	struct stat s;
	bool same;

	if (fstat(fd, &s))
		return false;
	src.size = s.st_size;
	src.buf = malloc(SFU_DIGEST_CHUNK);
	if (!src.buf)
		return false;
	same = !sfu_elf_digest(&src, hdr->digest_kind, digest) &&
	       !memcmp(digest, hdr->digest, sizeof(digest));
	free(src.buf);
	return same;
}

/*
 * Whether @buf, @len bytes, is a sidecar of the file of request @r: its
 * header names @r's build-id and lays the section out as sframe-gen does,
 * and its digest is the file's, taken here again (digest_is()).  Asked of
 * a converter's output and of debuginfod's alike.
 */
bool sidecar_of(const struct sfu_sidecar_request *r, const char *buf, size_t len)
{
	const struct sfu_sidecar_header *hdr = (const void *)buf;

	return len > sizeof(*hdr) && !memcmp(hdr->magic, SFU_SIDECAR_MAGIC, 8) &&
	       hdr->build_id_len == r->build_id_len &&
	       !memcmp(hdr->build_id, r->build_id, r->build_id_len) &&
	       hdr->section_off == sizeof(*hdr) && hdr->section_size == len - sizeof(*hdr) &&
	       digest_is(r->fd, hdr);
}

/*
 * Write the sidecar into DIR/<2 hex>/<rest>.sframe, or, where that name
 * holds the sidecar of another file with the build-id (which stays), into
 * DIR/<2 hex>/<rest>.<digest>.sframe; nothing is ever replaced, and what
 * is written is counted in what DIR holds.  Return: 0, 1 if one bound to
 * the same content is there already, -1 on error.
 */
int install(const char *id, const char *buf, size_t len, mode_t mode)
{
	const struct sfu_sidecar_header *hdr = (const void *)buf;
	char sub[3] = { id[0], id[1], 0 }, tmp[64];
	char name[2 * SFU_SIDECAR_BUILD_ID_MAX + 2 * SFU_SIDECAR_NAME_DIGEST + 16];
	static unsigned long long seq;
	struct stat s;
	int d, fd, ret = -1, k;

	if (mkdirat(dir_fd, sub, 0755) && errno != EEXIST)
		return -1;
	d = openat(dir_fd, sub, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (d < 0)
		return -1;
	if (fstat(d, &s) || s.st_uid || (s.st_mode & 022)) {
		logmsg("%s/%s: not root's, or writable by others: nothing written", opt.dir, sub);
		close(d);
		return -1;
	}
	snprintf(tmp, sizeof(tmp), ".tmp.%d.%llu", getpid(), ++seq);
	fd = openat(d, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
	if (fd < 0) {
		close(d);
		return -1;
	}
	if (!fchmod(fd, mode) && !write_all(fd, buf, len) && !fsync(fd)) {
		for (k = 0; k < 2 && ret; k++) {
			if (sfg_sidecar_name(id, k ? hdr->digest : NULL, name, sizeof(name)))
				break;
			if (!renameat2(d, tmp, d, name, RENAME_NOREPLACE))
				ret = 0;
			else if (errno != EEXIST)
				break;
			else if (sfg_sidecar_bound_to(d, name, hdr->digest_kind, hdr->digest))
				ret = 1;
		}
	}
	close(fd);
	if (ret) {
		unlinkat(d, tmp, 0);
	} else {
		dir_sidecars++;
		dir_bytes += len;
	}
	close(d);
	return ret;
}

/* The GNU build-id in @fd's PT_NOTE segments, as the module reads it; 0 if found. */
int read_build_id(int fd, struct sfu_sidecar_request *r)
{
	unsigned char note[4096];
	Elf64_Ehdr eh;
	Elf64_Phdr ph;
	int i;

	if (pread(fd, &eh, sizeof(eh), 0) != sizeof(eh) || memcmp(eh.e_ident, ELFMAG, SELFMAG) ||
	    eh.e_phentsize != sizeof(ph) || eh.e_phnum > 256)
		return -1;
	for (i = 0; i < eh.e_phnum; i++) {
		size_t p = 0, len;

		if (pread(fd, &ph, sizeof(ph), eh.e_phoff + i * sizeof(ph)) != sizeof(ph))
			return -1;
		if (ph.p_type != PT_NOTE)
			continue;
		len = ph.p_filesz < sizeof(note) ? ph.p_filesz : sizeof(note);
		if (pread(fd, note, len, ph.p_offset) != (ssize_t)len)
			return -1;
		while (p + sizeof(Elf64_Nhdr) <= len) {
			const Elf64_Nhdr *n = (const Elf64_Nhdr *)(note + p);
			size_t name = (n->n_namesz + 3) & ~3UL, desc = (n->n_descsz + 3) & ~3UL;

			if (name > len || desc > len || p + sizeof(*n) + name + desc > len)
				break;
			if (n->n_type == NT_GNU_BUILD_ID && n->n_namesz == 4 &&
			    !memcmp(note + p + sizeof(*n), "GNU", 4) && n->n_descsz &&
			    n->n_descsz <= SFU_SIDECAR_BUILD_ID_MAX) {
				r->build_id_len = n->n_descsz;
				memcpy(r->build_id, note + p + sizeof(*n) + name, n->n_descsz);
				return 0;
			}
			p += sizeof(*n) + name + desc;
		}
	}
	return -1;
}

/*
 * The running kernel's vDSO, which has no file to be mapped from: its
 * sidecar, converted from the daemon's own mapping, as sframe-gen
 * --install --vdso does.
 */
void do_vdso(void)
{
	unsigned long base = getauxval(AT_SYSINFO_EHDR), lo, hi;
	const struct sfu_sidecar_header *hdr;
	char line[512], id[2 * SFU_SIDECAR_BUILD_ID_MAX + 1];
	unsigned int i;
	size_t len;
	char *buf;
	FILE *maps;
	int ret;

	maps = fopen("/proc/self/maps", "re");
	while (base && maps && fgets(line, sizeof(line), maps))
		if (strstr(line, "[vdso]") && sscanf(line, "%lx-%lx", &lo, &hi) == 2 &&
		    lo == base && hi > lo && hi - lo <= 64 << 20)
			vdso_size = hi - lo;
	if (maps)
		fclose(maps);
	if (!vdso_size) {
		logmsg("[vdso]: none in this process");
		return;
	}
	/* Not a request of the module's: not in received. */
	ret = convert(-1, NULL, &buf, &len);
	hdr = (const void *)buf;
	if (ret == CHILD_SIGSYS) {
		logmsg("[vdso]: refused: converter killed by its system call filter (SIGSYS)");
		st.sandbox_kills++;
		free(buf);
		return;
	}
	if (ret || len <= sizeof(*hdr) || memcmp(hdr->magic, SFU_SIDECAR_MAGIC, 8) ||
	    !hdr->build_id_len || hdr->build_id_len > SFU_SIDECAR_BUILD_ID_MAX ||
	    hdr->section_off != sizeof(*hdr) || hdr->section_size != len - sizeof(*hdr)) {
		logmsg("[vdso]: conversion failed (%d)", ret);
		st.failed++;
		free(buf);
		return;
	}
	for (i = 0; i < hdr->build_id_len; i++)
		sprintf(id + 2 * i, "%02x", hdr->build_id[i]);
	ret = install(id, buf, len, 0644);
	if (ret < 0) {
		logmsg("%s [vdso]: writing the sidecar: %s", id, strerror(errno));
		st.write_failed++;
	} else if (ret) {
		logmsg("%s [vdso]: a sidecar exists", id);
		st.exists++;
	} else {
		logmsg("%s [vdso]: converted, %zu bytes", id, len);
		st.converted++;
		st.bytes += len;
	}
	free(buf);
}
