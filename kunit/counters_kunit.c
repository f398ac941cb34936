// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite for the counter sets (lib/counters.c): a set's counters
 * summed over the CPUs and printed "<name> <value>" a line, as the debugfs
 * files print them; and the unwinder's stop_* counters named after the
 * stop reasons they count.
 */
#include <kunit/test.h>
#include <linux/cpumask.h>
#include <linux/percpu.h>
#include <linux/seq_file.h>

#include "sframe_unwind/counters.h"
#include "sframe_unwind/unwind.h"
#include "unwind/stats.h"

enum { CT_FIRST, CT_SECOND, CT_NR };

static DEFINE_PER_CPU(u64 [CT_NR], ct_values);
static const char *const ct_names[] = { [CT_FIRST] = "first", [CT_SECOND] = "second" };
static const struct sfu_counters ct_set = SFU_COUNTERS_INIT("ct", ct_names, ct_values, NULL);

static void a_set_is_read_and_printed_summed_over_the_cpus(struct kunit *test)
{
	struct seq_file m = {};
	u64 second = 1;
	char buf[64];
	int cpu;

	for_each_possible_cpu(cpu) {
		per_cpu_ptr(ct_set.values, cpu)[CT_FIRST] = 0;
		per_cpu_ptr(ct_set.values, cpu)[CT_SECOND] = cpu + 1;
		second += cpu + 1;
	}
	sfu_counter_add(&ct_set, CT_FIRST, 3);
	sfu_counter_inc(&ct_set, CT_FIRST);
	sfu_counter_inc(&ct_set, CT_SECOND);
	KUNIT_EXPECT_EQ(test, ct_set.nr, CT_NR);
	KUNIT_EXPECT_EQ(test, sfu_counter_read(&ct_set, CT_FIRST), 4);
	KUNIT_EXPECT_EQ(test, sfu_counter_read(&ct_set, CT_SECOND), second);

	/* One CPU's count alone, the others' zero: the lines are known. */
	for_each_possible_cpu(cpu)
		per_cpu_ptr(ct_set.values, cpu)[CT_SECOND] = 0;
	this_cpu_inc(ct_values[CT_SECOND]);
	m.buf = buf;
	m.size = sizeof(buf);
	sfu_counters_show(&m, &ct_set);
	KUNIT_ASSERT_LT(test, m.count, sizeof(buf));
	buf[m.count] = 0;
	KUNIT_EXPECT_STREQ(test, buf, "first 4\nsecond 1\n");
}

static void unwind_stop_counters_are_named_after_the_stop_reasons(struct kunit *test)
{
	const struct sfu_counters *c = &sfu_unwind_counters;
	char want[48];
	int end;

	KUNIT_ASSERT_EQ(test, c->nr, SFU_UW_NR);
	for (end = SFU_END_OUTERMOST; end < SFU_END_NR; end++) {
		snprintf(want, sizeof(want), "stop_%s", sfu_end_name(end));
		KUNIT_EXPECT_STREQ(test, c->names[SFU_UW_STOP(end)], want);
	}
}

static struct kunit_case sfu_counters_cases[] = {
	KUNIT_CASE(a_set_is_read_and_printed_summed_over_the_cpus),
	KUNIT_CASE(unwind_stop_counters_are_named_after_the_stop_reasons),
	{}
};

static struct kunit_suite sfu_counters_suite = {
	.name = "sframe_unwind_counters",
	.test_cases = sfu_counters_cases,
};

kunit_test_suites(&sfu_counters_suite);
