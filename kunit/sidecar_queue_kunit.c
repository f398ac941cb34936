// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite for the sidecar daemon's queue (registry/sidecar_queue.c):
 * nothing is queued without a daemon; one daemon at a time; a build-id is
 * queued once; at most SFU_SQ_PER_USER requests of one user and
 * SFU_SQ_MAX in all, every drop counted; requests come out the newest
 * process's first, each process's in the order it mapped its files, a
 * mapping's before a rescan's backlog (whose newest, or else the request
 * of an older process, gives way to a mapping's where the caps are
 * reached), with the build-id and the user
 * they were queued with, and only to the daemon, a file open for writing
 * opened again read-only; a daemon that goes away takes its queue with
 * it, counted; a daemon of root's files is asked for nothing else.
 *
 * The files are shmem files; the users, credentials of this thread's with
 * another uid.
 */
#include <kunit/test.h>
#include <linux/completion.h>
#include <linux/cred.h>
#include <linux/err.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/kthread.h>
#include <linux/mm.h>
#include <linux/uidgid.h>

#include "sframe_unwind/compat/fs.h"
#include "sframe_unwind/registry.h"
#include "uapi/sframe_unwind.h"
#include "registry/internal.h"
#include "registry/stats.h"

/* The caps of registry/sidecar_queue.c. */
#define SQ_MAX		64
#define SQ_PER_USER	16

static int owner_a, owner_b;

#define SQ_FILES	1200

/* The files requests are made for, one per number, made when first used. */
struct sq_ctx {
	struct file *files[SQ_FILES];
	const struct cred *users[8];
};

static const struct cred *sq_user(struct kunit *test, uid_t uid)
{
	struct cred *c = prepare_creds();

	KUNIT_ASSERT_NOT_NULL(test, c);
	c->uid = KUIDT_INIT(uid);
	c->euid = c->uid;
	return c;
}

static int sq_init(struct kunit *test)
{
	struct sq_ctx *ctx = kunit_kzalloc(test, sizeof(*ctx), GFP_KERNEL);
	unsigned int i;

	if (!ctx)
		return -ENOMEM;
	for (i = 0; i < ARRAY_SIZE(ctx->users); i++)
		ctx->users[i] = sq_user(test, 20000 + i);
	test->priv = ctx;
	return 0;
}

static void sq_exit(struct kunit *test)
{
	struct sq_ctx *ctx = test->priv;
	unsigned int i;

	sfu_sidecar_queue_detach(&owner_a);
	sfu_sidecar_queue_detach(&owner_b);
	for (i = 0; i < ARRAY_SIZE(ctx->users); i++)
		put_cred(ctx->users[i]);
	for (i = 0; i < SQ_FILES; i++)
		if (ctx->files[i])
			fput(ctx->files[i]);
}

/* File @f of the context, made on first use. */
static struct file *sq_file(struct kunit *test, unsigned int f)
{
	struct sq_ctx *ctx = test->priv;

	KUNIT_ASSERT_LT(test, f, SQ_FILES);
	if (!ctx->files[f]) {
		ctx->files[f] = sfu_shmem_file_setup("sfu-kunit-queue", PAGE_SIZE, VM_NORESERVE);
		KUNIT_ASSERT_FALSE(test, IS_ERR(ctx->files[f]));
	}
	return ctx->files[f];
}

/* Queue file @f with the build-id made of @n for the user @u of the context. */
static void sq_request_file(struct kunit *test, unsigned int f, unsigned int n, unsigned int u)
{
	struct sq_ctx *ctx = test->priv;
	u8 id[20] = { 0xb1, 0xd0 };

	memcpy(id + 2, &n, sizeof(n));
	sfu_sidecar_request(sq_file(test, f), id, sizeof(id), ctx->users[u],
			    n & 1 ? SFU_SIDECAR_WHY_CONTENT : SFU_SIDECAR_WHY_MISSING);
}

/* Queue file @n, whose build-id is made of @n too. */
static void sq_request(struct kunit *test, unsigned int n, unsigned int u)
{
	sq_request_file(test, n, n, u);
}

/*
 * Attach as a daemon of --any-owner: the suite's shmem files are
 * writable by all (mode 0777), which the default policy refuses.
 */
static int sq_attach(const void *owner)
{
	return sfu_sidecar_queue_attach(owner, SFU_SIDECAR_ATTACH_ANY_OWNER);
}

/* Give file @f of the context the owner @uid and the mode @mode. */
static void sq_chown(struct kunit *test, unsigned int f, uid_t uid, umode_t mode)
{
	struct inode *inode = file_inode(sq_file(test, f));

	inode->i_uid = KUIDT_INIT(uid);
	inode->i_mode = S_IFREG | mode;
}

static u64 sq_stat(enum sfu_stat s)
{
	return sfu_stat_read(s);
}

static void nothing_is_queued_without_a_daemon(struct kunit *test)
{
	u64 queued = sq_stat(SFU_STAT_SIDECAR_REQ_QUEUED);
	struct sfu_sidecar_request r;

	sq_request(test, 1, 0);
	KUNIT_EXPECT_EQ(test, sq_stat(SFU_STAT_SIDECAR_REQ_QUEUED), queued);
	KUNIT_EXPECT_EQ(test, PTR_ERR(sfu_sidecar_queue_next(&owner_a, 0, &r)), -EPERM);
}

static void one_daemon_at_a_time(struct kunit *test)
{
	struct sfu_sidecar_request r;

	KUNIT_ASSERT_EQ(test, sq_attach(&owner_a), 0);
	KUNIT_EXPECT_EQ(test, sq_attach(&owner_b), -EBUSY);
	KUNIT_EXPECT_EQ(test, sq_attach(&owner_a), 0);
	KUNIT_EXPECT_EQ(test, PTR_ERR(sfu_sidecar_queue_next(&owner_b, 0, &r)), -EPERM);
	/* Another's detach changes nothing. */
	sfu_sidecar_queue_detach(&owner_b);
	KUNIT_EXPECT_EQ(test, PTR_ERR(sfu_sidecar_queue_next(&owner_a, 0, &r)), -EAGAIN);
	sfu_sidecar_queue_detach(&owner_a);
	KUNIT_EXPECT_EQ(test, sq_attach(&owner_b), 0);
}

static void a_file_is_queued_once_and_handed_over_with_its_user(struct kunit *test)
{
	u64 queued = sq_stat(SFU_STAT_SIDECAR_REQ_QUEUED);
	u64 dup = sq_stat(SFU_STAT_SIDECAR_REQ_DUPLICATE);
	struct sfu_sidecar_request r;
	struct file *f;

	KUNIT_ASSERT_EQ(test, sq_attach(&owner_a), 0);
	sq_request(test, 7, 1);
	sq_request(test, 7, 2);
	sq_request(test, 8, 2);
	KUNIT_EXPECT_EQ(test, sq_stat(SFU_STAT_SIDECAR_REQ_QUEUED), queued + 2);
	KUNIT_EXPECT_EQ(test, sq_stat(SFU_STAT_SIDECAR_REQ_DUPLICATE), dup + 1);

	f = sfu_sidecar_queue_next(&owner_a, 0, &r);
	KUNIT_ASSERT_FALSE(test, IS_ERR(f));
	/* The shmem file is open for writing: handed over opened again, read-only. */
	KUNIT_EXPECT_PTR_NE(test, f, sq_file(test, 7));
	KUNIT_EXPECT_PTR_EQ(test, file_inode(f), file_inode(sq_file(test, 7)));
	KUNIT_EXPECT_TRUE(test, f->f_mode & FMODE_READ);
	KUNIT_EXPECT_FALSE(test, f->f_mode & FMODE_WRITE);
	KUNIT_EXPECT_EQ(test, r.build_id_len, 20U);
	KUNIT_EXPECT_EQ(test, r.build_id[0], 0xb1);
	KUNIT_EXPECT_EQ(test, r.build_id[2], 7);
	KUNIT_EXPECT_EQ(test, r.uid, 20001U);
	KUNIT_EXPECT_EQ(test, r.why, SFU_SIDECAR_WHY_CONTENT);
	KUNIT_EXPECT_EQ(test, r.size, (u64)PAGE_SIZE);
	KUNIT_EXPECT_STREQ(test, r.name, "sfu-kunit-queue");
	fput(f);
	f = sfu_sidecar_queue_next(&owner_a, 0, &r);
	KUNIT_ASSERT_FALSE(test, IS_ERR(f));
	KUNIT_EXPECT_EQ(test, r.build_id[2], 8);
	KUNIT_EXPECT_EQ(test, r.uid, 20002U);
	KUNIT_EXPECT_EQ(test, r.why, SFU_SIDECAR_WHY_MISSING);
	fput(f);
	KUNIT_EXPECT_EQ(test, PTR_ERR(sfu_sidecar_queue_next(&owner_a, 0, &r)), -EAGAIN);
	/* Handed over, still remembered: not queued again. */
	sq_request(test, 7, 3);
	KUNIT_EXPECT_EQ(test, sq_stat(SFU_STAT_SIDECAR_REQ_DUPLICATE), dup + 2);
	/* A new daemon hears of it again. */
	sfu_sidecar_queue_detach(&owner_a);
	KUNIT_ASSERT_EQ(test, sq_attach(&owner_a), 0);
	sq_request(test, 7, 3);
	KUNIT_EXPECT_EQ(test, sq_stat(SFU_STAT_SIDECAR_REQ_QUEUED), queued + 3);
}

/*
 * A build-id is no file's identity: files of one build-id (another user's
 * copy with other contents, made first) are each queued, and a user who
 * queued many files first keeps nobody else's from being queued.
 */
static void files_of_one_build_id_are_each_queued(struct kunit *test)
{
	u64 queued = sq_stat(SFU_STAT_SIDECAR_REQ_QUEUED);
	u64 dup = sq_stat(SFU_STAT_SIDECAR_REQ_DUPLICATE);
	struct sfu_sidecar_request r;
	struct file *f;
	unsigned int i;

	KUNIT_ASSERT_EQ(test, sq_attach(&owner_a), 0);
	sq_request_file(test, 20, 5, 4);
	sq_request_file(test, 21, 5, 5);
	sq_request_file(test, 21, 5, 5);
	KUNIT_EXPECT_EQ(test, sq_stat(SFU_STAT_SIDECAR_REQ_QUEUED), queued + 2);
	KUNIT_EXPECT_EQ(test, sq_stat(SFU_STAT_SIDECAR_REQ_DUPLICATE), dup + 1);
	for (i = 0; i < 2; i++) {
		f = sfu_sidecar_queue_next(&owner_a, 0, &r);
		KUNIT_ASSERT_FALSE(test, IS_ERR(f));
		KUNIT_EXPECT_PTR_EQ(test, file_inode(f), file_inode(sq_file(test, 20 + i)));
		KUNIT_EXPECT_EQ(test, r.build_id[2], 5);
		fput(f);
	}
	/* Files of the build-id taken, one at a time: the genuine one still is queued. */
	for (i = 0; i < 8; i++) {
		sq_request_file(test, 100 + i, 6, 6);
		fput(sfu_sidecar_queue_next(&owner_a, 0, &r));
	}
	sq_request_file(test, 30, 6, 7);
	KUNIT_EXPECT_EQ(test, sq_stat(SFU_STAT_SIDECAR_REQ_QUEUED), queued + 11);
}

struct sq_scan {
	struct kunit *test;
	unsigned int first, n, user;
};

static void sq_scan(void *arg)
{
	struct sq_scan *sc = arg;
	unsigned int i;

	for (i = 0; i < sc->n; i++)
		sq_request(sc->test, sc->first + i, sc->user);
}

/* Queue @n files from @first of user @u as a rescan does. */
static void sq_backlog(struct kunit *test, unsigned int first, unsigned int n, unsigned int u)
{
	struct sq_scan sc = { .test = test, .first = first, .n = n, .user = u };

	sfu_sidecar_backlog(sq_scan, &sc);
}

/* The numbers of the requests handed over, in order, into @got; then none. */
static void sq_drain(struct kunit *test, u16 *got, unsigned int n)
{
	struct sfu_sidecar_request r;
	unsigned int i;

	for (i = 0; i < n; i++) {
		struct file *f = sfu_sidecar_queue_next(&owner_a, 0, &r);

		KUNIT_ASSERT_FALSE(test, IS_ERR(f));
		got[i] = r.build_id[2] | r.build_id[3] << 8;
		fput(f);
	}
	KUNIT_EXPECT_EQ(test, PTR_ERR(sfu_sidecar_queue_next(&owner_a, 0, &r)), -EAGAIN);
}

/* The requests handed over are @want's numbers, in order, and no more. */
static void sq_expect_order(struct kunit *test, const u16 *want, unsigned int n)
{
	u16 got[16];
	unsigned int i;

	KUNIT_ASSERT_LE(test, n, (unsigned int)ARRAY_SIZE(got));
	sq_drain(test, got, n);
	for (i = 0; i < n; i++)
		KUNIT_EXPECT_EQ_MSG(test, got[i], want[i], "request %u", i);
}

/*
 * A file the backlog holds, mapped now: its request moves up with the
 * mappings' (after those made before, before the rest of the backlog),
 * counted, and the file is not queued twice.  The tree before left it
 * where the rescan had put it, behind the rest of the backlog (42 last).
 */
static void a_mapped_file_of_the_backlog_moves_up(struct kunit *test)
{
	static const u16 want[] = { 39, 43, 42, 40, 41 };
	u64 promoted = sq_stat(SFU_STAT_SIDECAR_REQ_PROMOTED);
	u64 queued = sq_stat(SFU_STAT_SIDECAR_REQ_QUEUED);

	KUNIT_ASSERT_EQ(test, sq_attach(&owner_a), 0);
	sq_request(test, 39, 1);
	sq_backlog(test, 40, 3, 0);
	sq_request(test, 43, 1);
	sq_request(test, 42, 2);
	/* A backlog request for a file queued already moves nothing. */
	sq_backlog(test, 41, 1, 0);
	KUNIT_EXPECT_EQ(test, sq_stat(SFU_STAT_SIDECAR_REQ_PROMOTED), promoted + 1);
	KUNIT_EXPECT_EQ(test, sq_stat(SFU_STAT_SIDECAR_REQ_QUEUED), queued + 5);
	sq_expect_order(test, want, ARRAY_SIZE(want));
}

/* What sq_proc_fn() maps. */
struct sq_proc {
	struct file *files[4];
	u8 ids[4][20];
	unsigned int k;
	const struct cred *cred;
	struct completion done;
};

static int sq_proc_fn(void *arg)
{
	struct sq_proc *p = arg;
	unsigned int i;

	for (i = 0; i < p->k; i++)
		sfu_sidecar_request(p->files[i], p->ids[i], sizeof(p->ids[i]), p->cred,
				    SFU_SIDECAR_WHY_MISSING);
	complete(&p->done);
	return 0;
}

/* A process of its own, started now, that maps files @n[0..@k) of user @u, in order. */
static void sq_process(struct kunit *test, const unsigned int *n, unsigned int k, unsigned int u)
{
	struct sq_ctx *ctx = test->priv;
	struct task_struct *t;
	struct sq_proc p = { .k = k, .cred = ctx->users[u] };
	unsigned int i;

	KUNIT_ASSERT_LE(test, k, (unsigned int)ARRAY_SIZE(p.files));
	init_completion(&p.done);
	for (i = 0; i < k; i++) {
		p.files[i] = sq_file(test, n[i]);
		p.ids[i][0] = 0xb1;
		p.ids[i][1] = 0xd0;
		memcpy(p.ids[i] + 2, &n[i], sizeof(n[i]));
	}
	t = kthread_run(sq_proc_fn, &p, "sfu-kunit-proc");
	KUNIT_ASSERT_FALSE(test, IS_ERR(t));
	wait_for_completion(&p.done);
}

/*
 * The newest process's files come first, each process's in the order it
 * mapped them, then the backlog; a file mapped by a newer process than
 * the one it is queued for moves up with the newer one's, counted.  The
 * tree before handed them over in the order they were mapped: 50, 51,
 * 60, 61, 62, 70, 71, 52, 80 (the second 51 a duplicate).
 */
static void the_newest_processs_files_come_first(struct kunit *test)
{
	static const unsigned int b[] = { 60, 61, 62 }, c[] = { 70, 71 }, d[] = { 51 };
	static const u16 want[] = { 51, 70, 71, 60, 61, 62, 50, 52, 80 };
	u64 promoted = sq_stat(SFU_STAT_SIDECAR_REQ_PROMOTED);

	KUNIT_ASSERT_EQ(test, sq_attach(&owner_a), 0);
	sq_request(test, 50, 0);
	sq_request(test, 51, 0);
	sq_process(test, b, ARRAY_SIZE(b), 0);
	sq_process(test, c, ARRAY_SIZE(c), 1);
	sq_request(test, 52, 0);
	sq_backlog(test, 80, 1, 0);
	sq_process(test, d, ARRAY_SIZE(d), 0);
	KUNIT_EXPECT_EQ(test, sq_stat(SFU_STAT_SIDECAR_REQ_PROMOTED), promoted + 1);
	sq_expect_order(test, want, ARRAY_SIZE(want));
}

/*
 * A user's cap full of an older process's requests: a new process's
 * takes the place of the file the older one mapped last, counted, and
 * comes first; the older process's next request is dropped.  The tree
 * before dropped the new process's (cc1plus's, with perf's libraries
 * queued).
 */
static void a_new_process_displaces_an_older_ones_request(struct kunit *test)
{
	static const unsigned int newer[] = { 900 };
	u64 displaced = sq_stat(SFU_STAT_SIDECAR_REQ_DISPLACED);
	u64 user = sq_stat(SFU_STAT_SIDECAR_REQ_DROPPED_USER);
	u16 got[SQ_PER_USER];
	unsigned int i;

	KUNIT_ASSERT_EQ(test, sq_attach(&owner_a), 0);
	for (i = 0; i < SQ_PER_USER; i++)
		sq_request(test, 800 + i, 0);
	sq_process(test, newer, ARRAY_SIZE(newer), 0);
	KUNIT_EXPECT_EQ(test, sq_stat(SFU_STAT_SIDECAR_REQ_DISPLACED), displaced + 1);
	sq_request(test, 850, 0);
	KUNIT_EXPECT_EQ(test, sq_stat(SFU_STAT_SIDECAR_REQ_DROPPED_USER), user + 1);
	sq_drain(test, got, SQ_PER_USER);
	KUNIT_EXPECT_EQ(test, got[0], 900);
	KUNIT_EXPECT_EQ(test, got[1], 800);
	KUNIT_EXPECT_EQ(test, got[SQ_PER_USER - 1], 800 + SQ_PER_USER - 2);
}

/*
 * A rescan's requests are backlog: a file mapped after them is handed
 * over first (before the first of the backlog, after the mappings' made
 * before it), and the backlog keeps its order.
 */
static void mappings_come_before_the_backlog_of_a_rescan(struct kunit *test)
{
	static const u16 want[] = { 39, 43, 44, 40, 41, 42, 45 };

	KUNIT_ASSERT_EQ(test, sq_attach(&owner_a), 0);
	sq_request(test, 39, 1);
	sq_backlog(test, 40, 3, 0);
	sq_request(test, 43, 1);
	sq_request(test, 44, 2);
	sq_backlog(test, 45, 1, 0);
	sq_expect_order(test, want, ARRAY_SIZE(want));
}

/*
 * Where the caps are reached, a mapping's request takes the place of the
 * newest of the backlog: of its user's when the user's cap is full (a
 * backlog of root's files never keeps out what root maps), of anyone's
 * when the queue is; counted, and the file displaced is queued again by
 * the next rescan.  A backlog request never displaces, and a mapping's
 * request with no backlog to displace is dropped as before.
 */
static void a_mapping_displaces_the_newest_of_the_backlog(struct kunit *test)
{
	u64 displaced = sq_stat(SFU_STAT_SIDECAR_REQ_DISPLACED);
	u64 user = sq_stat(SFU_STAT_SIDECAR_REQ_DROPPED_USER);
	u64 full = sq_stat(SFU_STAT_SIDECAR_REQ_DROPPED_FULL);
	u16 got[SQ_MAX];
	unsigned int i;

	KUNIT_ASSERT_EQ(test, sq_attach(&owner_a), 0);
	/* User 0's cap filled by a rescan: a rescan's 17th is dropped. */
	sq_backlog(test, 200, SQ_PER_USER + 1, 0);
	KUNIT_EXPECT_EQ(test, sq_stat(SFU_STAT_SIDECAR_REQ_DROPPED_USER), user + 1);
	/* User 0 maps a file: 215, the newest of user 0's backlog, gives way. */
	sq_request(test, 300, 0);
	KUNIT_EXPECT_EQ(test, sq_stat(SFU_STAT_SIDECAR_REQ_DISPLACED), displaced + 1);
	/* Fill the queue with the backlog of users 1 to 3. */
	for (i = 1; i < 4; i++)
		sq_backlog(test, 400 + 16 * i, SQ_PER_USER, i);
	KUNIT_EXPECT_EQ(test, sq_stat(SFU_STAT_SIDECAR_REQ_DROPPED_FULL), full);
	/* 16 + 3 * 16 = 64: full.  User 4's mapping displaces user 3's newest. */
	sq_request(test, 600, 4);
	KUNIT_EXPECT_EQ(test, sq_stat(SFU_STAT_SIDECAR_REQ_DISPLACED), displaced + 2);
	/* A rescan's request never displaces. */
	sq_backlog(test, 610, 1, 5);
	KUNIT_EXPECT_EQ(test, sq_stat(SFU_STAT_SIDECAR_REQ_DROPPED_FULL), full + 1);
	/* User 0 displaces its own backlog down to none; then it is dropped. */
	for (i = 0; i < SQ_PER_USER - 1; i++)
		sq_request(test, 301 + i, 0);
	KUNIT_EXPECT_EQ(test, sq_stat(SFU_STAT_SIDECAR_REQ_DISPLACED),
			displaced + 2 + SQ_PER_USER - 1);
	sq_request(test, 350, 0);
	KUNIT_EXPECT_EQ(test, sq_stat(SFU_STAT_SIDECAR_REQ_DROPPED_USER), user + 2);
	/* The displaced file is queued again by the next rescan. */
	sq_drain(test, got, SQ_MAX);
	KUNIT_EXPECT_EQ(test, got[0], 300);
	KUNIT_EXPECT_EQ(test, got[1], 600);
	KUNIT_EXPECT_EQ(test, got[SQ_PER_USER + 1], 416);
	KUNIT_EXPECT_EQ(test, got[SQ_MAX - 1], 462);
	sq_backlog(test, 215, 1, 0);
	sq_drain(test, got, 1);
	KUNIT_EXPECT_EQ(test, got[0], 215);
}

static void the_caps_hold_and_every_drop_is_counted(struct kunit *test)
{
	u64 queued = sq_stat(SFU_STAT_SIDECAR_REQ_QUEUED);
	u64 full = sq_stat(SFU_STAT_SIDECAR_REQ_DROPPED_FULL);
	u64 user = sq_stat(SFU_STAT_SIDECAR_REQ_DROPPED_USER);
	u64 flushed = sq_stat(SFU_STAT_SIDECAR_REQ_FLUSHED);
	unsigned int i, u, n = 1000;

	KUNIT_ASSERT_EQ(test, sq_attach(&owner_a), 0);
	/* One user: SQ_PER_USER, then dropped. */
	for (i = 0; i < SQ_PER_USER + 10; i++)
		sq_request(test, n++, 0);
	KUNIT_EXPECT_EQ(test, sq_stat(SFU_STAT_SIDECAR_REQ_QUEUED), queued + SQ_PER_USER);
	KUNIT_EXPECT_EQ(test, sq_stat(SFU_STAT_SIDECAR_REQ_DROPPED_USER), user + 10);
	/* The others fill the queue up to SQ_MAX; the rest dropped. */
	for (u = 1; u < 8; u++)
		for (i = 0; i < SQ_PER_USER; i++)
			sq_request(test, n++, u);
	KUNIT_EXPECT_EQ(test, sq_stat(SFU_STAT_SIDECAR_REQ_QUEUED), queued + SQ_MAX);
	KUNIT_EXPECT_EQ(test, sq_stat(SFU_STAT_SIDECAR_REQ_DROPPED_FULL) - full,
			7ULL * SQ_PER_USER - (SQ_MAX - SQ_PER_USER));
	/* The daemon goes: its queue with it, counted. */
	sfu_sidecar_queue_detach(&owner_a);
	KUNIT_EXPECT_EQ(test, sq_stat(SFU_STAT_SIDECAR_REQ_FLUSHED), flushed + SQ_MAX);
	sq_request(test, n++, 1);
	KUNIT_EXPECT_EQ(test, sq_stat(SFU_STAT_SIDECAR_REQ_QUEUED), queued + SQ_MAX);
}

/*
 * A daemon that takes only root's files (attached with no flag): a file
 * of another user, or one group or others may write, is refused before
 * it is queued or remembered, counted; root's that only root may write is
 * queued.  An unknown flag is refused and attaches nothing.
 */
static void a_daemon_of_roots_files_is_asked_only_for_those(struct kunit *test)
{
	u64 queued = sq_stat(SFU_STAT_SIDECAR_REQ_QUEUED);
	u64 refused = sq_stat(SFU_STAT_SIDECAR_REQ_REFUSED_OWNER);
	u64 dup = sq_stat(SFU_STAT_SIDECAR_REQ_DUPLICATE);
	struct sfu_sidecar_request r;
	struct file *f;

	KUNIT_EXPECT_EQ(test, sfu_sidecar_queue_attach(&owner_a, 2), -EINVAL);
	KUNIT_EXPECT_EQ(test, PTR_ERR(sfu_sidecar_queue_next(&owner_a, 0, &r)), -EPERM);
	KUNIT_ASSERT_EQ(test, sfu_sidecar_queue_attach(&owner_a, 0), 0);
	sq_chown(test, 30, 0, 0777);
	sq_chown(test, 31, 0, 0775);
	sq_chown(test, 32, 1000, 0755);
	sq_chown(test, 33, 0, 0755);
	sq_request(test, 30, 0);
	sq_request(test, 31, 0);
	sq_request(test, 32, 0);
	/* Refused again, not as a duplicate: nothing was remembered. */
	sq_request(test, 32, 0);
	sq_request(test, 33, 0);
	KUNIT_EXPECT_EQ(test, sq_stat(SFU_STAT_SIDECAR_REQ_REFUSED_OWNER), refused + 4);
	KUNIT_EXPECT_EQ(test, sq_stat(SFU_STAT_SIDECAR_REQ_DUPLICATE), dup);
	KUNIT_EXPECT_EQ(test, sq_stat(SFU_STAT_SIDECAR_REQ_QUEUED), queued + 1);
	f = sfu_sidecar_queue_next(&owner_a, 0, &r);
	KUNIT_ASSERT_FALSE(test, IS_ERR(f));
	KUNIT_EXPECT_EQ(test, r.build_id[2], 33);
	fput(f);
	KUNIT_EXPECT_EQ(test, PTR_ERR(sfu_sidecar_queue_next(&owner_a, 0, &r)), -EAGAIN);
	/* Attached again with --any-owner: the same file of a user is queued. */
	KUNIT_ASSERT_EQ(test, sq_attach(&owner_a), 0);
	sq_request(test, 32, 0);
	KUNIT_EXPECT_EQ(test, sq_stat(SFU_STAT_SIDECAR_REQ_QUEUED), queued + 2);
}

/*
 * Users' files fill the queue where the daemon takes any (8 users, each
 * up to its cap, 128 requests for 64 places), and root's file mapped then
 * is dropped; where it takes only root's, none of theirs takes a place
 * and root's is queued.
 */
static void users_files_do_not_crowd_out_roots(struct kunit *test)
{
	struct sfu_sidecar_request r;
	unsigned int flags, u, i;
	u64 queued, full;
	struct file *f;

	for (u = 0; u < 8; u++)
		for (i = 0; i < SQ_PER_USER; i++)
			sq_chown(test, 100 + u * SQ_PER_USER + i, 20000 + u, 0755);
	sq_chown(test, 99, 0, 0755);
	for (flags = SFU_SIDECAR_ATTACH_ANY_OWNER + 1; flags-- > 0;) {
		queued = sq_stat(SFU_STAT_SIDECAR_REQ_QUEUED);
		full = sq_stat(SFU_STAT_SIDECAR_REQ_DROPPED_FULL);
		KUNIT_ASSERT_EQ(test, sfu_sidecar_queue_attach(&owner_a, flags), 0);
		for (u = 0; u < 8; u++)
			for (i = 0; i < SQ_PER_USER; i++)
				sq_request(test, 100 + u * SQ_PER_USER + i, u);
		sq_request(test, 99, 0);
		if (flags) {
			KUNIT_EXPECT_EQ(test, sq_stat(SFU_STAT_SIDECAR_REQ_QUEUED),
					queued + SQ_MAX);
			KUNIT_EXPECT_GE(test, sq_stat(SFU_STAT_SIDECAR_REQ_DROPPED_FULL),
					full + 1);
		} else {
			KUNIT_EXPECT_EQ(test, sq_stat(SFU_STAT_SIDECAR_REQ_QUEUED), queued + 1);
			f = sfu_sidecar_queue_next(&owner_a, 0, &r);
			KUNIT_ASSERT_FALSE(test, IS_ERR(f));
			KUNIT_EXPECT_EQ(test, r.build_id[2], 99);
			fput(f);
		}
		/* A new daemon's queue, empty, for the next round. */
		sfu_sidecar_queue_detach(&owner_a);
	}
}

/* A waiter for file @f of the context, in a thread of its own. */
struct sq_waiter {
	struct file *file;
	unsigned long until;
	bool settled;
	struct completion done;
};

static int sq_waiter_fn(void *arg)
{
	struct sq_waiter *w = arg;

	w->settled = sfu_sidecar_wait(w->file, w->until);
	/* For good: the test waits on it more than once. */
	complete_all(&w->done);
	return 0;
}

static void sq_wait_start(struct kunit *test, struct sq_waiter *w, unsigned int f,
			  unsigned int ms)
{
	w->file = sq_file(test, f);
	w->until = jiffies + msecs_to_jiffies(ms);
	init_completion(&w->done);
	KUNIT_ASSERT_FALSE(test, IS_ERR(kthread_run(sq_waiter_fn, w, "sfu-kunit-wait")));
}

/*
 * A mapping's wait for the daemon (sidecar_wait_ms) ends when its file's
 * request was handed over and a rescan began after that: not while it is
 * queued, not when it is handed, but at the rescan; a file not queued is
 * not waited for; a wait with neither runs out (counted), and so does
 * one whose rescan began before its request was handed.
 */
static void a_wait_ends_at_the_rescan_after_its_file_is_handed(struct kunit *test)
{
	u64 waits = sq_stat(SFU_STAT_SIDECAR_WAITS);
	u64 timeouts = sq_stat(SFU_STAT_SIDECAR_WAIT_TIMEOUTS);
	struct sfu_sidecar_request r;
	struct sq_waiter w, late;

	KUNIT_ASSERT_EQ(test, sq_attach(&owner_a), 0);
	/* Not queued: no wait. */
	KUNIT_EXPECT_TRUE(test, sfu_sidecar_wait(sq_file(test, 70), jiffies + HZ));
	KUNIT_EXPECT_EQ(test, sq_stat(SFU_STAT_SIDECAR_WAITS), waits);
	sq_request(test, 71, 0);
	sq_request(test, 72, 0);
	sq_wait_start(test, &w, 71, 10000);
	sq_wait_start(test, &late, 72, 300);
	/* A rescan before anything is handed ends nothing. */
	sq_backlog(test, 0, 0, 0);
	KUNIT_EXPECT_EQ(test, wait_for_completion_timeout(&w.done, HZ / 5), 0UL);
	fput(sfu_sidecar_queue_next(&owner_a, 0, &r));
	KUNIT_EXPECT_EQ(test, r.build_id[2], 71);
	/* Handed, not rescanned: still waiting. */
	KUNIT_EXPECT_EQ(test, wait_for_completion_timeout(&w.done, HZ / 5), 0UL);
	sq_backlog(test, 0, 0, 0);
	KUNIT_EXPECT_NE(test, wait_for_completion_timeout(&w.done, 5 * HZ), 0UL);
	/* 72 is still queued: its 300 ms run out. */
	KUNIT_EXPECT_NE(test, wait_for_completion_timeout(&late.done, 5 * HZ), 0UL);
	/* Each waiter ends within its time: their state is on this stack. */
	wait_for_completion(&w.done);
	wait_for_completion(&late.done);
	KUNIT_EXPECT_TRUE(test, w.settled);
	KUNIT_EXPECT_FALSE(test, late.settled);
	KUNIT_EXPECT_EQ(test, sq_stat(SFU_STAT_SIDECAR_WAITS), waits + 2);
	KUNIT_EXPECT_EQ(test, sq_stat(SFU_STAT_SIDECAR_WAIT_TIMEOUTS), timeouts + 1);
}

/* A daemon that goes away ends every wait: nothing it was handed is coming. */
static void a_daemon_gone_ends_the_waits(struct kunit *test)
{
	struct sq_waiter w;

	KUNIT_ASSERT_EQ(test, sq_attach(&owner_a), 0);
	sq_request(test, 73, 0);
	sq_wait_start(test, &w, 73, 10000);
	KUNIT_EXPECT_EQ(test, wait_for_completion_timeout(&w.done, HZ / 5), 0UL);
	sfu_sidecar_queue_detach(&owner_a);
	KUNIT_EXPECT_NE(test, wait_for_completion_timeout(&w.done, 5 * HZ), 0UL);
	wait_for_completion(&w.done);
	KUNIT_EXPECT_TRUE(test, w.settled);
}

/* sidecar_wait_ms is 0 by default: no mapping waits. */
static void no_wait_by_default(struct kunit *test)
{
	KUNIT_ASSERT_EQ(test, sq_attach(&owner_a), 0);
	KUNIT_EXPECT_EQ(test, sfu_sidecar_wait_until(), 0UL);
}

static struct kunit_case sfu_sidecar_queue_cases[] = {
	KUNIT_CASE(nothing_is_queued_without_a_daemon),
	KUNIT_CASE(one_daemon_at_a_time),
	KUNIT_CASE(a_file_is_queued_once_and_handed_over_with_its_user),
	KUNIT_CASE(files_of_one_build_id_are_each_queued),
	KUNIT_CASE(the_caps_hold_and_every_drop_is_counted),
	KUNIT_CASE(mappings_come_before_the_backlog_of_a_rescan),
	KUNIT_CASE(a_mapped_file_of_the_backlog_moves_up),
	KUNIT_CASE(a_mapping_displaces_the_newest_of_the_backlog),
	KUNIT_CASE(the_newest_processs_files_come_first),
	KUNIT_CASE(a_new_process_displaces_an_older_ones_request),
	KUNIT_CASE(a_wait_ends_at_the_rescan_after_its_file_is_handed),
	KUNIT_CASE(a_daemon_gone_ends_the_waits),
	KUNIT_CASE(no_wait_by_default),
	KUNIT_CASE(a_daemon_of_roots_files_is_asked_only_for_those),
	KUNIT_CASE(users_files_do_not_crowd_out_roots),
	{}
};

static struct kunit_suite sfu_sidecar_queue_suite = {
	.name = "sframe_sidecar_queue",
	.init = sq_init,
	.exit = sq_exit,
	.test_cases = sfu_sidecar_queue_cases,
};

kunit_test_suites(&sfu_sidecar_queue_suite);
