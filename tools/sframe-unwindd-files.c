// SPDX-License-Identifier: GPL-2.0
/*
 * sframe-unwindd, its files: the sidecar directory, DIR, and the
 * debuginfod client's cache in it; a sidecar written there, replacing
 * nothing; and what binds a sidecar to a file, its content digest and
 * its build-id, read here rather than believed from a child.
 */
#define _GNU_SOURCE
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sframe_gen.h"
#include "sframe_unwind/elf_digest.h"
#include "sframe-unwindd.h"

int dir_fd = -1;

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
 * Write the sidecar into DIR/<2 hex>/<rest>.sframe, or, where that name
 * holds the sidecar of another file with the build-id (which stays), into
 * DIR/<2 hex>/<rest>.<digest>.sframe; nothing is ever replaced.  Return:
 * 0, 1 if one bound to the same content is there already, -1 on error.
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
	if (ret)
		unlinkat(d, tmp, 0);
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
