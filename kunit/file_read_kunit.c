// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite for whole reads of a file (lib/file_read.c): a file whose
 * read answers at most a few bytes a call, as 9p does past its msize and
 * NFS or FUSE may, is read whole; the end of the file, an error and a file
 * that trickles out are refused with their own errors.
 */
#include <kunit/test.h>
#include <linux/anon_inodes.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/slab.h>
#include <linux/uio.h>

#include "sframe_unwind/compat/export.h"
#include "sframe_unwind/lib.h"

/* What the file gives: @size bytes of @data, at most @chunk a read. */
struct sfu_short_file {
	const u8 *data;
	size_t size;
	size_t chunk;
	int err;		/* returned by every read when not 0 */
	unsigned int reads;
};

static ssize_t sfu_short_read(struct kiocb *iocb, struct iov_iter *to)
{
	struct sfu_short_file *sf = iocb->ki_filp->private_data;
	size_t n;

	sf->reads++;
	if (sf->err)
		return sf->err;
	if (iocb->ki_pos >= sf->size)
		return 0;
	n = min3(iov_iter_count(to), sf->chunk, sf->size - (size_t)iocb->ki_pos);
	n = copy_to_iter(sf->data + iocb->ki_pos, n, to);
	iocb->ki_pos += n;
	return n;
}

/* kernel_read() goes through .read_iter only. */
static const struct file_operations sfu_short_fops = {
	.owner = THIS_MODULE,
	.read_iter = sfu_short_read,
};

struct sfu_read_ctx {
	struct sfu_short_file sf;
	struct file *file;
	u8 *data;
	u8 *buf;
};

#define SFU_READ_TEST_BYTES	10000

static int sfu_read_init(struct kunit *test)
{
	struct sfu_read_ctx *c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, c);
	c->data = kunit_kmalloc(test, SFU_READ_TEST_BYTES, GFP_KERNEL);
	c->buf = kunit_kzalloc(test, SFU_READ_TEST_BYTES, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, c->data);
	KUNIT_ASSERT_NOT_NULL(test, c->buf);
	for (i = 0; i < SFU_READ_TEST_BYTES; i++)
		c->data[i] = i * 7 + (i >> 8);
	c->sf.data = c->data;
	c->sf.size = SFU_READ_TEST_BYTES;
	c->sf.chunk = 1000;
	c->file = anon_inode_getfile("sfu-kunit-read", &sfu_short_fops, &c->sf, O_RDONLY);
	KUNIT_ASSERT_FALSE(test, IS_ERR(c->file));
	test->priv = c;
	return 0;
}

static void sfu_read_exit(struct kunit *test)
{
	struct sfu_read_ctx *c = test->priv;

	fput(c->file);
}

/* The baseline: one kernel_read() gives a part; sfu_kernel_read_all() all. */
static void a_file_read_in_parts_is_read_whole(struct kunit *test)
{
	struct sfu_read_ctx *c = test->priv;
	unsigned int calls = 0;
	loff_t pos = 0;

	KUNIT_EXPECT_EQ(test, kernel_read(c->file, c->buf, 4500, &pos), 1000);
	pos = 0;
	KUNIT_EXPECT_EQ(test, sfu_kernel_read_all(c->file, c->buf, 4500, &pos, &calls), 0);
	KUNIT_EXPECT_EQ(test, calls, 5U);
	KUNIT_EXPECT_EQ(test, pos, 4500LL);
	KUNIT_EXPECT_EQ(test, memcmp(c->buf, c->data, 4500), 0);
	/* From an offset, to the last byte of the file. */
	pos = 4500;
	KUNIT_EXPECT_EQ(test, sfu_kernel_read_all(c->file, c->buf, 5500, &pos, &calls), 0);
	KUNIT_EXPECT_EQ(test, calls, 6U);
	KUNIT_EXPECT_EQ(test, memcmp(c->buf, c->data + 4500, 5500), 0);
}

static void the_end_of_the_file_first_is_an_error(struct kunit *test)
{
	struct sfu_read_ctx *c = test->priv;
	unsigned int calls = 0;
	loff_t pos = 9500;

	KUNIT_EXPECT_EQ(test, sfu_kernel_read_all(c->file, c->buf, 1000, &pos, &calls), -EIO);
	KUNIT_EXPECT_EQ(test, calls, 2U);
}

static void a_read_error_is_returned(struct kunit *test)
{
	struct sfu_read_ctx *c = test->priv;
	unsigned int calls = 0;
	loff_t pos = 0;

	c->sf.err = -ENOLINK;
	KUNIT_EXPECT_EQ(test, sfu_kernel_read_all(c->file, c->buf, 100, &pos, &calls), -ENOLINK);
	KUNIT_EXPECT_EQ(test, calls, 1U);
	KUNIT_EXPECT_EQ(test, c->sf.reads, 1U);
}

static void a_file_that_trickles_is_refused(struct kunit *test)
{
	struct sfu_read_ctx *c = test->priv;
	unsigned int calls = 0;
	loff_t pos = 0;

	c->sf.chunk = 1;
	KUNIT_EXPECT_EQ(test, sfu_kernel_read_all(c->file, c->buf, 5000, &pos, &calls), -E2BIG);
	KUNIT_EXPECT_EQ(test, calls, 4096U);
	KUNIT_EXPECT_EQ(test, c->sf.reads, 4096U);
	/* Within the bound, byte by byte is still whole. */
	pos = 0;
	KUNIT_EXPECT_EQ(test, sfu_kernel_read_all(c->file, c->buf, 4096, &pos, &calls), 0);
	KUNIT_EXPECT_EQ(test, memcmp(c->buf, c->data, 4096), 0);
}

static struct kunit_case sfu_file_read_cases[] = {
	KUNIT_CASE(a_file_read_in_parts_is_read_whole),
	KUNIT_CASE(the_end_of_the_file_first_is_an_error),
	KUNIT_CASE(a_read_error_is_returned),
	KUNIT_CASE(a_file_that_trickles_is_refused),
	{}
};

static struct kunit_suite sfu_file_read_suite = {
	.name = "sframe_unwind_file_read",
	.init = sfu_read_init,
	.exit = sfu_read_exit,
	.test_cases = sfu_file_read_cases,
};

kunit_test_suites(&sfu_file_read_suite);
