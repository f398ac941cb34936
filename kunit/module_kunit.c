// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite for the module's own life cycle: what loading it must have
 * set up before any other suite runs.
 */
#include <kunit/test.h>
#include <linux/debugfs.h>
#include <linux/dcache.h>

#include "sframe_unwind.h"

static void debugfs_root_is_named_after_the_module(struct kunit *test)
{
	struct dentry *dir = sfu_debugfs_dir();

	KUNIT_ASSERT_FALSE(test, IS_ERR_OR_NULL(dir));
	KUNIT_EXPECT_STREQ(test, dir->d_name.name, "sframe_unwind");
}

static void debugfs_root_holds_the_version_file(struct kunit *test)
{
	struct dentry *file = debugfs_lookup("version", sfu_debugfs_dir());

	KUNIT_ASSERT_FALSE(test, IS_ERR_OR_NULL(file));
	KUNIT_EXPECT_TRUE(test, d_is_reg(file));
	dput(file);
}

static struct kunit_case sfu_module_cases[] = {
	KUNIT_CASE(debugfs_root_is_named_after_the_module),
	KUNIT_CASE(debugfs_root_holds_the_version_file),
	{}
};

static struct kunit_suite sfu_module_suite = {
	.name = "sframe_unwind_module",
	.test_cases = sfu_module_cases,
};

kunit_test_suites(&sfu_module_suite);

MODULE_DESCRIPTION("KUnit suites for sframe_unwind");
MODULE_LICENSE("GPL");
