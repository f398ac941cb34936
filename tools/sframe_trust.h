/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Which files a converter running as root may read to make sidecars: the
 * policy of sframe-gen --install (Documentation/sidecars.rst, "Which
 * files are converted"), written once for every tool that converts.
 *
 * A file is converted only if it is a regular file of root's (or of the
 * user running the converter, when that is not root) that neither group
 * nor others may write, and every directory from / down to it is root's
 * (or that user's), is not a symbolic link, and is not writable by group
 * or others unless it is sticky.  The directories are walked from / with
 * O_PATH | O_NOFOLLOW | O_DIRECTORY and the file is opened, relative to
 * the last of them, with O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC
 * and checked again on the descriptor: nothing swapped into the path is
 * followed, and a FIFO or a device swapped in is neither waited for nor
 * read.  "Any owner" keeps the walk, the flags and the file type and
 * drops the checks of owners and modes.
 */
#ifndef _SFRAME_TRUST_H
#define _SFRAME_TRUST_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>
#include <sys/types.h>

/* Why a file is not converted; SFU_TRUST_OK for none. */
enum sfu_trust_refusal {
	SFU_TRUST_OK,
	SFU_TRUST_LINK,		/* a symbolic link on its path or in its place */
	SFU_TRUST_NOT_REGULAR,	/* not a regular file: a FIFO, a device, ... */
	SFU_TRUST_OWNER,	/* the file is not root's */
	SFU_TRUST_MODE,		/* the file is writable by group or others */
	SFU_TRUST_DIR_OWNER,	/* a directory above it is not root's */
	SFU_TRUST_DIR_MODE,	/* ... is writable by group or others, not sticky */
	SFU_TRUST_NR,
};

/**
 * struct sfu_trust_policy - whose files and directories are trusted
 * @uid: trusted besides root (the converter's effective uid); 0 for root alone
 * @any_owner: trust every owner and mode; links and file types still count
 */
struct sfu_trust_policy {
	uid_t uid;
	bool any_owner;
};

/* The policy for this process: root's files, and its own user's. */
void sfu_trust_policy_init(struct sfu_trust_policy *p, bool any_owner);

/* A short name of @why ("link", "dir-owner", ...), for counters. */
const char *sfu_trust_name(enum sfu_trust_refusal why);

/* What @why means, for a message. */
const char *sfu_trust_describe(enum sfu_trust_refusal why);

/* Whether a file of status @st may be converted (checked on its descriptor). */
enum sfu_trust_refusal sfu_trust_file(const struct sfu_trust_policy *p, const struct stat *st);

/* Whether a directory of status @st may be on the path of a file converted. */
enum sfu_trust_refusal sfu_trust_dir(const struct sfu_trust_policy *p, const struct stat *st);

/*
 * Open the file @path for reading, under the policy.  Returns the
 * descriptor, its status in *@st; or -1 with *@why the refusal, or with
 * *@why SFU_TRUST_OK and errno set for an error (no such file, ...).  A
 * refusal for a directory or a link on the path names it in @where
 * (@len bytes, may be NULL); a relative @path is taken from the current
 * directory, and "." and ".." are resolved by name (no link is followed).
 */
int sfu_trust_open(const char *path, const struct sfu_trust_policy *p, struct stat *st,
		   enum sfu_trust_refusal *why, char *where, size_t len);

/*
 * Open the directory @path (O_PATH) after checking it and every directory
 * above it; as sfu_trust_open() otherwise.
 */
int sfu_trust_open_dir(const char *path, const struct sfu_trust_policy *p,
		       enum sfu_trust_refusal *why, char *where, size_t len);

#endif /* _SFRAME_TRUST_H */
