// SPDX-License-Identifier: GPL-2.0
/*
 * Which files a converter running as root may read to make sidecars
 * (sframe_trust.h).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sframe_trust.h"

static const struct {
	const char *name;
	const char *text;
} refusals[SFU_TRUST_NR] = {
	[SFU_TRUST_OK] = { "ok", "trusted" },
	[SFU_TRUST_LINK] = { "link", "a symbolic link" },
	[SFU_TRUST_NOT_REGULAR] = { "not-regular", "not a regular file" },
	[SFU_TRUST_OWNER] = { "owner", "not root's" },
	[SFU_TRUST_MODE] = { "mode", "writable by group or others" },
	[SFU_TRUST_DIR_OWNER] = { "dir-owner", "a directory not root's" },
	[SFU_TRUST_DIR_MODE] = { "dir-mode",
				 "a directory writable by group or others, not sticky" },
};

void sfu_trust_policy_init(struct sfu_trust_policy *p, bool any_owner)
{
	p->uid = geteuid();
	p->any_owner = any_owner;
}

const char *sfu_trust_name(enum sfu_trust_refusal why)
{
	return why < SFU_TRUST_NR ? refusals[why].name : "?";
}

const char *sfu_trust_describe(enum sfu_trust_refusal why)
{
	return why < SFU_TRUST_NR ? refusals[why].text : "?";
}

static bool trusted_uid(const struct sfu_trust_policy *p, uid_t uid)
{
	return !uid || uid == p->uid;
}

enum sfu_trust_refusal sfu_trust_file(const struct sfu_trust_policy *p, const struct stat *st)
{
	if (S_ISLNK(st->st_mode))
		return SFU_TRUST_LINK;
	if (!S_ISREG(st->st_mode))
		return SFU_TRUST_NOT_REGULAR;
	if (p->any_owner)
		return SFU_TRUST_OK;
	if (!trusted_uid(p, st->st_uid))
		return SFU_TRUST_OWNER;
	/* An ACL granting a write shows in the group bits (its mask). */
	if (st->st_mode & 022)
		return SFU_TRUST_MODE;
	return SFU_TRUST_OK;
}

enum sfu_trust_refusal sfu_trust_dir(const struct sfu_trust_policy *p, const struct stat *st)
{
	if (S_ISLNK(st->st_mode))
		return SFU_TRUST_LINK;
	if (p->any_owner)
		return SFU_TRUST_OK;
	if (!trusted_uid(p, st->st_uid))
		return SFU_TRUST_DIR_OWNER;
	/*
	 * In a sticky directory others may add names but not rename or
	 * remove anyone else's: what is below it is checked in turn.
	 */
	if ((st->st_mode & 022) && !(st->st_mode & S_ISVTX))
		return SFU_TRUST_DIR_MODE;
	return SFU_TRUST_OK;
}

/*
 * @path made absolute from the current directory and split into its
 * components, "." left out and ".." taking the one before away; links are
 * not looked at, since none will be followed.  Returns the buffer the
 * *@n components in *@comp point into, or NULL (errno set).
 */
static char *split(const char *path, char ***comp, size_t *n)
{
	char *buf, *s, *save = NULL, **c;
	size_t max, k = 0;

	if (path[0] == '/') {
		buf = strdup(path);
	} else {
		char *cwd = getcwd(NULL, 0);

		if (!cwd)
			return NULL;
		if (asprintf(&buf, "%s/%s", cwd, path) < 0)
			buf = NULL;
		free(cwd);
	}
	if (!buf)
		return NULL;
	max = strlen(buf) / 2 + 1;
	c = calloc(max, sizeof(*c));
	if (!c) {
		free(buf);
		return NULL;
	}
	for (s = strtok_r(buf, "/", &save); s; s = strtok_r(NULL, "/", &save)) {
		if (!strcmp(s, "."))
			continue;
		if (!strcmp(s, "..")) {
			if (k)
				k--;
			continue;
		}
		c[k++] = s;
	}
	*comp = c;
	*n = k;
	return buf;
}

/* "/" and the first @k components of @comp, into @where. */
static void name_prefix(char **comp, size_t k, char *where, size_t len)
{
	size_t i, at = 0;

	if (!where || !len)
		return;
	where[0] = '\0';
	if (!k)
		snprintf(where, len, "/");
	for (i = 0; i < k && at < len; i++)
		at += snprintf(where + at, len - at, "/%s", comp[i]);
}

/*
 * Open "/" and the first @k components of @comp one by one, each an
 * O_PATH descriptor opened relative to the one before without following
 * a link, and check each.  Returns the last descriptor, or -1.
 */
static int walk(char **comp, size_t k, const struct sfu_trust_policy *p,
		enum sfu_trust_refusal *why, char *where, size_t len)
{
	const int flags = O_PATH | O_NOFOLLOW | O_DIRECTORY | O_CLOEXEC;
	struct stat st;
	int fd, next, err;
	size_t i;

	fd = open("/", flags);
	for (i = 0; fd >= 0; i++) {
		if (fstat(fd, &st))
			break;
		*why = sfu_trust_dir(p, &st);
		if (!*why && !S_ISDIR(st.st_mode)) {
			errno = ENOTDIR;
			break;
		}
		if (*why) {
			name_prefix(comp, i, where, len);
			break;
		}
		if (i == k)
			return fd;
		next = openat(fd, comp[i], flags);
		/* A link (ELOOP, or ENOTDIR with O_DIRECTORY) is refused as such. */
		if (next < 0 && (errno == ELOOP || errno == ENOTDIR) &&
		    !fstatat(fd, comp[i], &st, AT_SYMLINK_NOFOLLOW) && S_ISLNK(st.st_mode)) {
			*why = SFU_TRUST_LINK;
			name_prefix(comp, i + 1, where, len);
		}
		err = errno;
		close(fd);
		errno = err;
		fd = next;
	}
	if (fd >= 0) {
		err = errno;
		close(fd);
		errno = err;
	}
	return -1;
}

int sfu_trust_open_dir(const char *path, const struct sfu_trust_policy *p,
		       enum sfu_trust_refusal *why, char *where, size_t len)
{
	char *buf, **comp;
	size_t n;
	int fd;

	*why = SFU_TRUST_OK;
	if (where && len)
		where[0] = '\0';
	buf = split(path, &comp, &n);
	if (!buf)
		return -1;
	fd = walk(comp, n, p, why, where, len);
	free(comp);
	free(buf);
	return fd;
}

int sfu_trust_open(const char *path, const struct sfu_trust_policy *p, struct stat *st,
		   enum sfu_trust_refusal *why, char *where, size_t len)
{
	char *buf, **comp;
	int dir, fd = -1;
	const char *name;
	size_t n;

	*why = SFU_TRUST_OK;
	if (where && len)
		where[0] = '\0';
	buf = split(path, &comp, &n);
	if (!buf)
		return -1;
	if (!n) {
		errno = EISDIR;
		goto out;
	}
	name = comp[n - 1];
	dir = walk(comp, n - 1, p, why, where, len);
	if (dir < 0)
		goto out;
	/*
	 * What the name is now, before it is opened: nothing but a regular
	 * file of a trusted owner is opened at all.  What is then opened is
	 * checked again on the descriptor, which is what counts: a FIFO or a
	 * device swapped in meanwhile is opened without waiting and not read.
	 */
	if (fstatat(dir, name, st, AT_SYMLINK_NOFOLLOW)) {
		int err = errno;

		close(dir);
		errno = err;
		goto out;
	}
	*why = sfu_trust_file(p, st);
	if (!*why) {
		fd = openat(dir, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
		if (fd < 0 && errno == ELOOP)
			*why = SFU_TRUST_LINK;
		else if (fd >= 0 && fstat(fd, st))
			*why = SFU_TRUST_NOT_REGULAR;
		else if (fd >= 0)
			*why = sfu_trust_file(p, st);
	}
	close(dir);
	if (*why && fd >= 0) {
		close(fd);
		fd = -1;
	}
out:
	free(comp);
	free(buf);
	return fd;
}
