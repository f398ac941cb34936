// SPDX-License-Identifier: GPL-2.0
/*
 * sframe-gen, the sidecars --install writes (include/uapi/
 * sframe_sidecar.h), and the files --publish writes in their place: each
 * through a temporary file and a rename that replaces nothing, in a
 * directory the policy of sframe_trust.h trusts.  A sidecar there
 * already stays; whether it is bound to the same content is said.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gelf.h>
#include <linux/kernel.h>

#include "sframe-gen-cli.h"
#include "uapi/sframe_sidecar.h"

struct sfu_trust_policy policy;
int cache_fd = -1;

/* Write @len bytes to @path through a temporary file and rename(). */
int write_atomic(const char *path, const void *buf, u64 len)
{
	const char *slash = strrchr(path, '/');
	const u8 *p = buf;
	char *tmp;
	int fd, err;

	if (asprintf(&tmp, "%.*s.%s.XXXXXX", slash ? (int)(slash - path + 1) : 0, path,
		     slash ? slash + 1 : path) < 0)
		return -ENOMEM;
	fd = mkstemp(tmp);
	if (fd < 0)
		goto fail;
	if (fchmod(fd, 0644))
		goto fail_fd;
	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (!n)
				errno = EIO;
			goto fail_fd;
		}
		p += n;
		len -= n;
	}
	if (close(fd))
		goto fail_unlink;
	if (rename(tmp, path))
		goto fail_unlink;
	free(tmp);
	return 0;
fail_fd:
	err = -errno;
	close(fd);
	unlink(tmp);
	free(tmp);
	return err;
fail_unlink:
	err = -errno;
	unlink(tmp);
	free(tmp);
	return err;
fail:
	err = -errno;
	free(tmp);
	return err;
}

/*
 * A sidecar (include/uapi/sframe_sidecar.h) in *@out, *@out_len bytes: the
 * header with the build-id @hex and @o's digest, then the section @buf,
 * @len bytes, computed for address @vaddr.
 */
static int make_sidecar(const char *hex, const struct sfg_output *o, const void *buf, u64 len,
			u64 vaddr, u8 **out, u64 *out_len)
{
	struct sfu_sidecar_header hdr;
	unsigned int i, n = strlen(hex) / 2;

	if (!n || n > SFU_SIDECAR_BUILD_ID_MAX)
		return -EINVAL;
	memset(&hdr, 0, sizeof(hdr));
	memcpy(hdr.magic, SFU_SIDECAR_MAGIC, sizeof(hdr.magic));
	hdr.build_id_len = n;
	hdr.digest_kind = o->digest_kind;
	memcpy(hdr.digest, o->digest, sizeof(hdr.digest));
	hdr.section_off = sizeof(hdr);
	hdr.section_size = len;
	hdr.section_vaddr = vaddr;
	for (i = 0; i < n; i++)
		if (sscanf(hex + 2 * i, "%2hhx", &hdr.build_id[i]) != 1)
			return -EINVAL;
	*out = malloc(sizeof(hdr) + len);
	if (!*out)
		return -ENOMEM;
	memcpy(*out, &hdr, sizeof(hdr));
	memcpy(*out + sizeof(hdr), buf, len);
	*out_len = sizeof(hdr) + len;
	return 0;
}

static int write_all(int fd, const u8 *p, u64 len)
{
	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n ? -errno : -EIO;
		p += n;
		len -= n;
	}
	return 0;
}

/* Whether the file on @fd, of status @st, holds exactly @buf, @len bytes. */
static bool same_content(int fd, const struct stat *st, const u8 *buf, u64 len)
{
	static u8 chunk[1 << 16];
	u64 at = 0;

	if ((u64)st->st_size != len)
		return false;
	while (at < len) {
		ssize_t n = pread(fd, chunk, min_t(u64, len - at, sizeof(chunk)), at);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0 || memcmp(chunk, buf + at, n))
			return false;
		at += n;
	}
	return pread(fd, chunk, 1, at) == 0;
}

/*
 * @name in the cache's subdirectory @d is a sidecar already (open on
 * @fd): it stays whatever it holds.  Its time is set to now, since it
 * serves a file of this run (sframe-unwind-sidecars --prune goes by it;
 * with --publish it is left alone),
 * and its mode narrowed to @mode if that is narrower.
 */
static int existing_sidecar(int fd, const char *path, const u8 *buf, u64 len, mode_t mode)
{
	struct stat st;
	bool same;

	if (fstat(fd, &st))
		return -errno;
	if (!S_ISREG(st.st_mode)) {
		warn("%s: not a regular file: left as it is", path);
		return -EEXIST;
	}
	same = same_content(fd, &st, buf, len);
	if (same && (st.st_mode & 0777 & ~mode) && fchmod(fd, st.st_mode & 0777 & mode))
		return -errno;
	/*
	 * Not a published file's: debuginfod serves a file only while its
	 * time is the one it indexed, until its next scan.
	 */
	if (!opt.publish && futimens(fd, NULL))
		return -errno;
	return same ? SIDECAR_SAME : SIDECAR_KEPT;
}

/*
 * A new sidecar @name in the cache's subdirectory @d: a temporary file
 * made with O_EXCL, then renamed to @name only if no @name is there
 * (-EEXIST then: someone else wrote one meanwhile).
 */
static int new_sidecar(int d, const char *name, const u8 *buf, u64 len, mode_t mode)
{
	static unsigned long long seq;
	char tmp[2 * SFU_SIDECAR_BUILD_ID_MAX + 64];
	int fd, err;

	snprintf(tmp, sizeof(tmp), ".%s.%d.%llu", name, (int)getpid(), ++seq);
	fd = openat(d, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
	if (fd < 0)
		return -errno;
	err = fchmod(fd, mode) ? -errno : write_all(fd, buf, len);
	if (close(fd) && !err)
		err = -errno;
	if (!err && renameat2(d, tmp, d, name, RENAME_NOREPLACE)) {
		err = -errno;
		/* A file system without RENAME_NOREPLACE: a link replaces nothing either. */
		if (err == -EINVAL)
			err = linkat(d, tmp, d, name, 0) ? -errno : 0;
		unlinkat(d, tmp, 0);
	} else if (err) {
		unlinkat(d, tmp, 0);
	}
	return err ? err : SIDECAR_WRITTEN;
}

/*
 * The sidecar @buf, @len bytes, as @path, the file @name in the cache's
 * subdirectory @sub, mode @mode.  Nothing is replaced: a sidecar there
 * already is compared, and kept whatever it holds.  Returns an
 * enum sidecar_outcome, or -errno.
 */
static int install_sidecar(const char *path, const char *sub, const char *name, const u8 *buf,
			   u64 len, mode_t mode)
{
	enum sfu_trust_refusal why;
	struct stat st;
	int d, fd, ret, tries;

	if (mkdirat(cache_fd, sub, 0755) && errno != EEXIST)
		return -errno;
	d = openat(cache_fd, sub, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (d < 0)
		return -errno;
	if (fstat(d, &st)) {
		ret = -errno;
		goto out;
	}
	why = sfu_trust_dir(&policy, &st);
	if (why) {
		warn("%.*s: refused as a sidecar directory: %s", (int)(strrchr(path, '/') - path),
		     path, sfu_trust_describe(why));
		ret = -EPERM;
		goto out;
	}
	for (tries = 0; tries < 2; tries++) {
		fd = openat(d, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
		if (fd >= 0) {
			ret = existing_sidecar(fd, path, buf, len, mode);
			close(fd);
			goto out;
		}
		if (errno != ENOENT) {
			ret = -errno;
			goto out;
		}
		ret = new_sidecar(d, name, buf, len, mode);
		if (ret != -EEXIST)
			break;
	}
out:
	close(d);
	return ret;
}

/* The sidecar a file of --publish carries, if @fd is one; its header in @hdr. */
static bool published_header(int fd, struct sfu_sidecar_header *hdr)
{
	const u8 *buf;
	struct stat st;
	bool ok = false;
	size_t len;
	Elf *elf;

	if (fstat(fd, &st) || !S_ISREG(st.st_mode))
		return false;
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (elf && !sfg_published_sidecar(elf, &buf, &len) && len >= sizeof(*hdr)) {
		memcpy(hdr, buf, sizeof(*hdr));
		ok = true;
	}
	elf_end(elf);
	return ok;
}

/*
 * Whether the sidecar @name of the cache's subdirectory @sub (with
 * --publish, the published file @name of the directory) is bound to @o's
 * content.
 */
static bool sidecar_bound_same(const char *sub, const char *name, const struct sfg_output *o)
{
	int d = openat(cache_fd, sub, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC), fd;
	struct sfu_sidecar_header hdr;
	bool same;

	if (d < 0)
		return false;
	if (!opt.publish) {
		same = sfg_sidecar_bound_to(d, name, o->digest_kind, o->digest);
		close(d);
		return same;
	}
	fd = openat(d, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	close(d);
	if (fd < 0)
		return false;
	same = published_header(fd, &hdr) &&
	       !memcmp(hdr.magic, SFU_SIDECAR_MAGIC, sizeof(hdr.magic)) &&
	       hdr.digest_kind == o->digest_kind &&
	       !memcmp(hdr.digest, o->digest, sizeof(hdr.digest));
	close(fd);
	return same;
}

/*
 * Where the module is loaded and its sidecar_dir is @dir, write the
 * parameter again: the module then rescans the running processes, which so
 * pick up the sidecars just installed.  Quietly nothing otherwise.
 */
void notify_module(const char *dir)
{
	static const char param[] = "/sys/module/sframe_unwind/parameters/sidecar_dir";
	char cur[512];
	FILE *f = fopen(param, "r");
	size_t n;

	if (!f)
		return;
	n = fread(cur, 1, sizeof(cur) - 1, f);
	fclose(f);
	cur[n] = '\0';
	cur[strcspn(cur, "\n")] = '\0';
	if (strcmp(cur, dir))
		return;
	f = fopen(param, "w");
	if (!f)
		return;
	fprintf(f, "%s\n", dir);
	if (!fclose(f))
		printf("%s: sframe_unwind rescans the running processes\n", prog);
}

/* mkdir -p: the sidecar directory, checked once made. */
static int mkdir_p(const char *dir)
{
	char *d = strdup(dir), *p;
	int err = 0;
	char c;

	if (!d)
		return -ENOMEM;
	for (p = d; *p; ) {
		c = *++p;
		if (c && c != '/')
			continue;
		*p = 0;
		if (mkdir(d, 0755) && errno != EEXIST) {
			err = -errno;
			break;
		}
		*p = c;
	}
	free(d);
	return err;
}

/*
 * Where the sidecar of build-id @id goes: the subdirectory @sub of the
 * cache and the name @file in it, the build-id's own or, with @digest,
 * the name of a second file of the build-id.  With --publish, the
 * directory itself ("."), "<build-id>.debug" or "<build-id>.<digest>.debug".
 */
static int sidecar_file(const char *id, const u8 *digest, char *sub, char **file)
{
	char name[2 * SFU_SIDECAR_BUILD_ID_MAX + 2 * SFU_SIDECAR_NAME_DIGEST + 16];
	int ret;

	if (opt.publish) {
		strcpy(sub, ".");
		ret = sfg_sidecar_name(id, digest, name, sizeof(name));
		/* The same name, whole and with .debug for .sframe */
		if (!ret && asprintf(file, "%.2s%.*s.debug", id, (int)strlen(name) - 7, name) < 0)
			ret = -ENOMEM;
		return ret;
	}
	sub[0] = id[0];
	sub[1] = id[1];
	sub[2] = 0;
	ret = sfg_sidecar_name(id, digest, name, sizeof(name));
	if (ret)
		return ret;
	*file = strdup(name);
	return *file ? 0 : -ENOMEM;
}

/* The bytes --install writes for @o: the sidecar, or with --publish its ELF file. */
int sidecar_bytes(const char *id, const struct sfg_output *o, Elf *elf, u8 **buf, u64 *len)
{
	u8 *sidecar = NULL;
	int ret;

	ret = make_sidecar(id, o, o->buf, o->len, opt.vaddr, &sidecar, len);
	if (!ret && opt.publish) {
		ret = sfg_publish_elf(elf, sidecar, *len, buf, len);
	} else if (!ret) {
		*buf = sidecar;
		sidecar = NULL;
	}
	free(sidecar);
	return ret;
}

/*
 * Write @buf, @len bytes of mode @mode, as the sidecar of build-id @id
 * for @o: under the build-id's name first; where that holds the sidecar
 * of another file of that build-id (its digest another), beside it,
 * under its own digest, which is how the module looks it up.  *@path:
 * the last name tried, or NULL.  Return: a SIDECAR_* or -errno.
 */
int place_sidecar(const char *id, const struct sfg_output *o, const u8 *buf, u64 len,
		  mode_t mode, char **path)
{
	char sub[3], *file = NULL;
	int ret = 0, k;

	for (k = 0; !ret && k < 2; k++) {
		free(file);
		free(*path);
		*path = NULL;
		ret = sidecar_file(id, k ? o->digest : NULL, sub, &file);
		if (ret) {
			file = NULL;
			break;
		}
		if (asprintf(path, "%s/%s/%s", opt.cache, sub, file) < 0) {
			*path = NULL;
			ret = -ENOMEM;
			break;
		}
		ret = install_sidecar(*path, sub, file, buf, len, mode);
		if (k || ret != SIDECAR_KEPT || sidecar_bound_same(sub, file, o))
			break;
		ret = 0;
	}
	free(file);
	return ret;
}

/*
 * --install's sidecar directory, opt.cache: made where it is missing, and
 * then taken only if the policy trusts it, as it trusts the files.
 * Return: 0, or 2 (reported).
 */
int sidecar_dir_open(void)
{
	char where[PATH_MAX], *cache;
	enum sfu_trust_refusal why;
	int r;

	sfu_trust_policy_init(&policy, opt.any_owner);
	r = mkdir_p(opt.cache);
	if (r) {
		warn("%s: %s", opt.cache, strerror(-r));
		return 2;
	}
	/*
	 * Sidecars are written only where the files converted could be.  The
	 * name given is resolved once, as a PATH is.
	 */
	cache = realpath(opt.cache, NULL);
	if (!cache) {
		warn("%s: %s", opt.cache, strerror(errno));
		return 2;
	}
	cache_fd = sfu_trust_open_dir(cache, &policy, &why, where, sizeof(where));
	free(cache);
	if (cache_fd < 0 && why) {
		warn("%s: refused as the sidecar directory: %s%s%s", opt.cache,
		     sfu_trust_describe(why), *where ? ": " : "", where);
		return 2;
	} else if (cache_fd < 0) {
		warn("%s: %s", opt.cache, strerror(errno));
		return 2;
	}
	return 0;
}
