// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite for the module's own life cycle: what loading it must have
 * set up before any other suite runs.
 */
#include <kunit/test.h>
#include <linux/debugfs.h>
#include <linux/dcache.h>

#include "sframe_unwind/compat/export.h"

/* The files each layer adds through sfu_debugfs_file(). */
static const char *const sfu_debugfs_files[] = {
	"version",					/* lib/ */
	"stats", "sections", "memory", "sidecar_queue",	/* registry/ */
	"unwind_stats", "deferred_stats",		/* unwind/ */
	"perf_callchain", "sampler", "trigger", "device_stats",	/* consumers/ */
};

static void debugfs_root_is_named_after_the_module(struct kunit *test)
{
	struct dentry *dir = debugfs_lookup("sframe_unwind", NULL);

	KUNIT_ASSERT_FALSE(test, IS_ERR_OR_NULL(dir));
	KUNIT_EXPECT_TRUE(test, d_is_dir(dir));
	dput(dir);
}

static void debugfs_root_holds_every_layers_files(struct kunit *test)
{
	struct dentry *dir = debugfs_lookup("sframe_unwind", NULL);
	unsigned int i;

	KUNIT_ASSERT_FALSE(test, IS_ERR_OR_NULL(dir));
	for (i = 0; i < ARRAY_SIZE(sfu_debugfs_files); i++) {
		struct dentry *file = debugfs_lookup(sfu_debugfs_files[i], dir);

		KUNIT_EXPECT_FALSE_MSG(test, IS_ERR_OR_NULL(file), "%s missing",
				       sfu_debugfs_files[i]);
		if (!IS_ERR_OR_NULL(file)) {
			KUNIT_EXPECT_TRUE(test, d_is_reg(file));
			dput(file);
		}
	}
	dput(dir);
}

static struct kunit_case sfu_module_cases[] = {
	KUNIT_CASE(debugfs_root_is_named_after_the_module),
	KUNIT_CASE(debugfs_root_holds_every_layers_files),
	{}
};

static struct kunit_suite sfu_module_suite = {
	.name = "sframe_unwind_module",
	.test_cases = sfu_module_cases,
};

kunit_test_suites(&sfu_module_suite);

MODULE_DESCRIPTION("KUnit suites for sframe_unwind");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS(SFU_NS);
MODULE_IMPORT_NS(SFU_KUNIT_NS);
