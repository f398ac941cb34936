// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite for the per-mm registry, through the calls that do not need
 * an ELF file (sfu_registry_add/remove, the char device's path) and the
 * lookup every unwinder uses (sfu_lookup_rules()).  Each case lays a real
 * fixture out in the test mm as its binary would be: one mapping that
 * holds the text range (executable) and the .sframe bytes at their
 * link-time distance from it, moved by a load bias.  Registration through
 * mmap hooks is covered by the e2e tests, which map real ELF files.
 */
#include <kunit/test.h>
#include <linux/completion.h>
#include <linux/cred.h>
#include <linux/fs.h>
#include <linux/kthread.h>
#include <linux/mm.h>
#include <linux/mman.h>
#include <linux/uaccess.h>
#include <linux/user_namespace.h>

#include "sframe_unwind/registry.h"
#include "registry/internal.h"
#include "registry/sframe_rules.h"
#include "registry/stats.h"
#include "sframe/sframe.h"
#include "tests/gen/sframe_fixtures.h"
#include "sframe_unwind/compat/kunit.h"
#include "fixture_rows.h"
#include "user_mem.h"

/* Is @fx a section of this kernel's native ABI (the only kind registered)? */
static const struct sframe_fixture *any_native(struct kunit *test, bool want_native)
{
	unsigned int i;

	for (i = 0; i < sframe_num_fixtures; i++)
		if (sfu_kunit_fixture_native(&sframe_fixtures[i]) == want_native)
			return &sframe_fixtures[i];
	KUNIT_FAIL(test, "no %snative fixture", want_native ? "" : "non-");
	return NULL;
}

/**
 * struct laid_out - a fixture placed in the test mm
 * @bias: user address minus link-time address
 * @text_start: user address of the first function's first byte
 * @text_end: user address after the last range of the fixture
 * @data: user address of the .sframe bytes
 */
struct laid_out {
	long bias;
	unsigned long text_start;
	unsigned long text_end;
	unsigned long data;
};

/* Map text and data of @fx with @prot; 0 (and the case failed) on error. */
static int lay_out(struct sfu_user_ctx *ctx, const struct sframe_fixture *fx,
		   unsigned long prot, struct laid_out *lo)
{
	u64 text_lo = fx->ranges[0].lo, text_hi = fx->ranges[fx->num_ranges - 1].hi;
	u64 lo_addr = min_t(u64, text_lo, fx->vaddr) & PAGE_MASK;
	u64 hi_addr = PAGE_ALIGN(max_t(u64, text_hi, fx->vaddr + fx->size));
	unsigned long base = sfu_user_map_prot(ctx, hi_addr - lo_addr, prot);

	if (!base)
		return -ENOMEM;
	lo->bias = base - lo_addr;
	lo->text_start = text_lo + lo->bias;
	lo->text_end = text_hi + lo->bias;
	lo->data = fx->vaddr + lo->bias;
	if (copy_to_user((void __user *)lo->data, fx->data, fx->size)) {
		KUNIT_FAIL(ctx->test, "cannot copy the section to user memory");
		return -EFAULT;
	}
	return 0;
}

static int add(const struct laid_out *lo, const struct sframe_fixture *fx, int *serr)
{
	return sfu_registry_add(current->mm, lo->data, fx->size, lo->text_start, lo->text_end,
				serr);
}

/* Every PC of @fx's expectations through the registry's lookup; mismatches counted. */
static unsigned long check_rows_how(struct kunit *test, const struct sframe_fixture *fx,
				    long bias, bool nofault, u64 from, u64 to, bool expect_rows)
{
	return sfu_kunit_check_registry(test, fx, nofault ? "registry, no-fault" : "registry",
					bias, nofault, from, to, expect_rows);
}

static unsigned long check_rows(struct kunit *test, const struct sframe_fixture *fx,
				long bias, u64 from, u64 to, bool expect_rows)
{
	return check_rows_how(test, fx, bias, false, from, to, expect_rows);
}

static void registered_section_gives_objdump_rows_at_every_pc(struct kunit *test)
{
	const struct sframe_fixture *fx = test->param_value;
	unsigned long bad = 0, bad_nofault = 0;
	struct sfu_user_ctx ctx;
	struct laid_out lo;
	int err = -1, serr = 0;

	if (!sfu_user_begin(test, &ctx))
		return;
	if (!lay_out(&ctx, fx, PROT_READ | PROT_WRITE | PROT_EXEC, &lo)) {
		err = add(&lo, fx, &serr);
		if (!err) {
			bad = check_rows(test, fx, lo.bias, 0, U64_MAX, true);
			/* The faultable pass touched every page: no-fault must agree. */
			bad_nofault = check_rows_how(test, fx, lo.bias, true, 0, U64_MAX, true);
		}
	}
	sfu_user_end(&ctx);

	KUNIT_EXPECT_EQ(test, err, 0);
	KUNIT_EXPECT_EQ(test, serr, 0);
	KUNIT_EXPECT_EQ(test, bad, 0UL);
	KUNIT_EXPECT_EQ(test, bad_nofault, 0UL);
}

static void pc_outside_every_section_has_no_row(struct kunit *test)
{
	const struct sframe_fixture *fx = any_native(test, true);
	int err = -1, serr, below = 0, above = 0;
	bool below_in = true, above_in = true;
	struct sfu_frame_rules rules;
	struct sfu_user_ctx ctx;
	struct laid_out lo;

	if (!fx || !sfu_user_begin(test, &ctx))
		return;
	if (!lay_out(&ctx, fx, PROT_READ | PROT_WRITE | PROT_EXEC, &lo)) {
		err = add(&lo, fx, &serr);
		below = sfu_kunit_lookup(lo.text_start - 1, false, &rules, &below_in);
		above = sfu_kunit_lookup(lo.text_end, true, &rules, &above_in);
	}
	sfu_user_end(&ctx);

	KUNIT_EXPECT_EQ(test, err, 0);
	/* No section there: nothing, and not for want of a row in one. */
	KUNIT_EXPECT_EQ(test, below, -ENOENT);
	KUNIT_EXPECT_EQ(test, above, -ENOENT);
	KUNIT_EXPECT_FALSE(test, below_in);
	KUNIT_EXPECT_FALSE(test, above_in);
}

static void section_registered_over_part_of_a_text_replaces_it(struct kunit *test)
{
	const struct sframe_fixture *fx = any_native(test, true);
	unsigned long bad_first = 1, bad_rest = 1;
	int err1 = -1, err2 = -1, serr = 0;
	struct sfu_user_ctx ctx;
	struct laid_out lo;
	u64 mid;

	if (!fx || !sfu_user_begin(test, &ctx))
		return;
	if (!lay_out(&ctx, fx, PROT_READ | PROT_WRITE | PROT_EXEC, &lo)) {
		mid = fx->ranges[fx->num_ranges / 2].lo;
		err1 = add(&lo, fx, &serr);
		/* The same section again, claiming only the first half of the text. */
		err2 = sfu_registry_add(current->mm, lo.data, fx->size, lo.text_start,
					mid + lo.bias, &serr);
		bad_first = check_rows(test, fx, lo.bias, 0, mid, true);
		bad_rest = check_rows(test, fx, lo.bias, mid, U64_MAX, false);
	}
	sfu_user_end(&ctx);

	KUNIT_EXPECT_EQ(test, err1, 0);
	KUNIT_EXPECT_EQ(test, err2, 0);
	KUNIT_EXPECT_EQ(test, bad_first, 0UL);
	KUNIT_EXPECT_EQ(test, bad_rest, 0UL);
}

static void removed_section_has_no_rows_and_cannot_be_removed_twice(struct kunit *test)
{
	const struct sframe_fixture *fx = any_native(test, true);
	int err = -1, rm1 = -1, rm2 = 0, rm_other = 0, serr;
	unsigned long bad = 1;
	struct sfu_user_ctx ctx;
	struct laid_out lo;

	if (!fx || !sfu_user_begin(test, &ctx))
		return;
	if (!lay_out(&ctx, fx, PROT_READ | PROT_WRITE | PROT_EXEC, &lo)) {
		err = add(&lo, fx, &serr);
		rm_other = sfu_registry_remove(current->mm, lo.text_start + 1);
		rm1 = sfu_registry_remove(current->mm, lo.text_start);
		rm2 = sfu_registry_remove(current->mm, lo.text_start);
		bad = check_rows(test, fx, lo.bias, 0, U64_MAX, false);
	}
	sfu_user_end(&ctx);

	KUNIT_EXPECT_EQ(test, err, 0);
	KUNIT_EXPECT_EQ(test, rm_other, -ENOENT);
	KUNIT_EXPECT_EQ(test, rm1, 0);
	KUNIT_EXPECT_EQ(test, rm2, -ENOENT);
	KUNIT_EXPECT_EQ(test, bad, 0UL);
}

static void unmapping_text_hides_the_section_at_once(struct kunit *test)
{
	const struct sframe_fixture *fx = any_native(test, true);
	int err = -1, before = -1, after = 0, serr;
	struct sfu_frame_rules rules;
	struct sfu_user_ctx ctx;
	bool in_text = true;
	struct laid_out lo;
	u64 pc = 0;
	u32 i;

	if (!fx || !sfu_user_begin(test, &ctx))
		return;
	for (i = 0; i < fx->num_ranges && !pc; i++)
		if (!fx->ranges[i].err)
			pc = fx->ranges[i].lo;
	if (!lay_out(&ctx, fx, PROT_READ | PROT_WRITE | PROT_EXEC, &lo)) {
		err = add(&lo, fx, &serr);
		before = sfu_kunit_lookup(pc + lo.bias, false, &rules, NULL);
		/* The VMA-removal hook marks it stale before munmap returns. */
		if (sfu_user_unmap(&ctx, (pc + lo.bias) & PAGE_MASK, PAGE_SIZE))
			after = sfu_kunit_lookup(pc + lo.bias, true, &rules, &in_text);
	}
	sfu_user_end(&ctx);

	KUNIT_EXPECT_EQ(test, err, 0);
	KUNIT_EXPECT_EQ(test, before, 0);
	/* The stale section is skipped: no section for the PC. */
	KUNIT_EXPECT_EQ(test, after, -ENOENT);
	KUNIT_EXPECT_FALSE(test, in_text);
}

/**
 * struct churn - a second thread that registers and removes one section
 * @test: the case
 * @fx: the fixture
 * @lo: where it is laid out
 * @rounds: add/remove pairs to do
 * @done: set when the thread has finished
 * @add_err: first registration error seen
 * @rm_err: first removal error seen
 * @finished: completed by the thread as its last action
 */
struct churn {
	struct kunit *test;
	const struct sframe_fixture *fx;
	struct laid_out lo;
	unsigned int rounds;
	atomic_t done;
	int add_err;
	int rm_err;
	struct completion finished;
};

static int churn_fn(void *arg)
{
	struct churn *c = arg;
	struct sfu_user_ctx ctx;
	unsigned int i;
	int err, serr;

	if (sfu_user_begin(c->test, &ctx)) {
		for (i = 0; i < c->rounds; i++) {
			err = add(&c->lo, c->fx, &serr);
			if (err && !c->add_err)
				c->add_err = err;
			cond_resched();
			err = sfu_registry_remove(current->mm, c->lo.text_start);
			if (err && !c->rm_err)
				c->rm_err = err;
			cond_resched();
		}
		sfu_user_end(&ctx);
	}
	atomic_set(&c->done, 1);
	complete(&c->finished);
	return 0;
}

/*
 * While another thread registers and removes a section over and over,
 * lock-free lookups (no-fault, as from NMI) of every row of the fixture
 * see either the exact row or no section: never a torn or stale one.
 */
static void lookups_during_add_and_remove_see_whole_sections(struct kunit *test)
{
	const struct sframe_fixture *fx = any_native(test, true);
	struct sfu_sframe_reader r = { .kind = SFRAME_READER_BUFFER };
	unsigned long lookups = 0, hits = 0, misses = 0, wrong = 0;
	struct sfu_frame_rules got, *want = NULL;
	struct task_struct *t = NULL;
	struct sfu_sframe_section ref;
	struct sfu_sframe_row row;
	struct sfu_user_ctx ctx;
	bool in_text = true;
	struct churn *c;
	int after = 0;
	u32 i;

	c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);
	if (fx)
		want = kunit_kcalloc(test, fx->num_ranges, sizeof(*want), GFP_KERNEL);
	if (!fx || !c || !want)
		return;
	/* The rules of each range with a row, from the decoder over the fixture. */
	r.buf = fx->data;
	r.size = fx->size;
	KUNIT_ASSERT_EQ(test, sfu_sframe_section_init(&ref, &r, fx->vaddr, fx->abi), 0);
	for (i = 0; i < fx->num_ranges; i++) {
		if (fx->ranges[i].err)
			continue;
		KUNIT_ASSERT_EQ(test, sfu_sframe_find_row(&ref, fx->ranges[i].lo, &row), 0);
		sfu_sframe_rules(&row, &want[i]);
	}
	if (!sfu_user_begin(test, &ctx))
		return;
	c->test = test;
	c->fx = fx;
	c->rounds = 2000;
	init_completion(&c->finished);
	if (!lay_out(&ctx, fx, PROT_READ | PROT_WRITE | PROT_EXEC, &c->lo)) {
		t = kthread_run(churn_fn, c, "sfu-kunit-churn");
		if (IS_ERR(t)) {
			KUNIT_FAIL(test, "kthread_run: %ld", PTR_ERR(t));
			t = NULL;
		}
	}
	while (t && !atomic_read(&c->done)) {
		for (i = 0; i < fx->num_ranges; i++) {
			const struct sframe_fixture_range *fr = &fx->ranges[i];
			int err = sfu_kunit_lookup(fr->lo + c->lo.bias, true, &got, &in_text);

			lookups++;
			/* No section (removed, or not yet added): never "no row" in one. */
			if (err == -ENOENT && !in_text && !fr->err) {
				misses++;
				continue;
			}
			if (err != sfu_kunit_lookup_err(fr->err) ||
			    (!err && memcmp(&got, &want[i], sizeof(got)))) {
				if (!wrong++)
					KUNIT_FAIL(test, "pc %#llx: got %d, want %d (%s \"%s\")",
						   fr->lo, err, sfu_kunit_lookup_err(fr->err),
						   sfu_sframe_strerror(fr->err), fr->row);
			} else if (!fr->err) {
				hits++;
			}
		}
		cond_resched();
	}
	if (t) {
		wait_for_completion(&c->finished);
		after = sfu_kunit_lookup(c->lo.text_start, false, &got, NULL);
	}
	sfu_user_end(&ctx);

	kunit_info(test, "%lu lookups: %lu rows, %lu no section", lookups, hits, misses);
	KUNIT_EXPECT_NOT_NULL(test, t);
	KUNIT_EXPECT_EQ(test, c->add_err, 0);
	KUNIT_EXPECT_EQ(test, c->rm_err, 0);
	KUNIT_EXPECT_EQ(test, wrong, 0UL);
	/* The lookups raced with registration: both outcomes must have been seen. */
	KUNIT_EXPECT_GT(test, hits, 0UL);
	KUNIT_EXPECT_GT(test, misses, 0UL);
	KUNIT_EXPECT_EQ(test, after, -ENOENT);
}

/**
 * struct refusal - a registration that must be refused
 * @name: what is wrong
 * @prot: protection of the mapping holding text and data
 * @corrupt_magic: overwrite the section's magic
 * @foreign: use a fixture of another ABI
 * @size: section size to claim (0: the real one)
 * @empty_text: claim text_end == text_start
 * @unmapped_data: claim the data lies in a hole of the address space
 * @expect: the errno
 * @expect_serr: the decoder's code reported for -ENOEXEC
 */
struct refusal {
	const char *name;
	unsigned long prot;
	bool corrupt_magic;
	bool foreign;
	unsigned long size;
	bool empty_text;
	bool unmapped_data;
	int expect;
	int expect_serr;
};

static const struct refusal refusals[] = {
	{ "section_with_bad_magic_is_refused_as_bad_magic", PROT_READ | PROT_WRITE | PROT_EXEC,
	  .corrupt_magic = true, .expect = -ENOEXEC, .expect_serr = SFRAME_E_BAD_MAGIC },
	{ "section_of_another_abi_is_refused_as_abi_mismatch", PROT_READ | PROT_WRITE | PROT_EXEC,
	  .foreign = true, .expect = -ENOEXEC, .expect_serr = SFRAME_E_ABI_MISMATCH },
	{ "text_that_is_not_executable_is_refused", PROT_READ | PROT_WRITE,
	  .expect = -EFAULT },
	{ "data_that_is_not_mapped_is_refused", PROT_READ | PROT_WRITE | PROT_EXEC,
	  .unmapped_data = true, .expect = -EFAULT },
	{ "empty_text_range_is_refused", PROT_READ | PROT_WRITE | PROT_EXEC,
	  .empty_text = true, .expect = -EINVAL },
	{ "section_larger_than_the_limit_is_refused", PROT_READ | PROT_WRITE | PROT_EXEC,
	  .size = 65UL << 20, .expect = -EFBIG },
};

static void refusal_desc(const struct refusal *r, char *desc)
{
	strscpy(desc, r->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(refusal, refusals, refusal_desc);

static void bad_registration_is_refused_with_its_error(struct kunit *test)
{
	const struct refusal *r = test->param_value;
	const struct sframe_fixture *fx = any_native(test, !r->foreign);
	unsigned long data, size, text_end;
	int err = 1, serr = -1, lookup = 0;
	struct sfu_frame_rules rules;
	struct sfu_user_ctx ctx;
	bool in_text = true;
	struct laid_out lo;
	u16 bad = 0x1234;

	if (!fx || !sfu_user_begin(test, &ctx))
		return;
	if (!lay_out(&ctx, fx, r->prot, &lo)) {
		data = lo.data;
		size = r->size ?: fx->size;
		text_end = r->empty_text ? lo.text_start : lo.text_end;
		if (r->corrupt_magic && copy_to_user((void __user *)data, &bad, sizeof(bad)))
			KUNIT_FAIL(test, "cannot corrupt the magic");
		if (r->unmapped_data) {
			/* A page that was mapped and is not any more: a hole. */
			data = sfu_user_map(&ctx, PAGE_SIZE);
			if (data)
				sfu_user_unmap(&ctx, data, PAGE_SIZE);
		}
		err = sfu_registry_add(current->mm, data, size, lo.text_start, text_end, &serr);
		lookup = sfu_kunit_lookup(lo.text_start, false, &rules, &in_text);
	}
	sfu_user_end(&ctx);

	KUNIT_EXPECT_EQ(test, err, r->expect);
	KUNIT_EXPECT_EQ(test, serr, r->expect == -ENOEXEC ? r->expect_serr : 0);
	/* A refused registration changes nothing: no section there. */
	KUNIT_EXPECT_EQ(test, lookup, -ENOENT);
	KUNIT_EXPECT_FALSE(test, in_text);
}

/* The sections @mm's trees hold at @text and @data, not dereferenced. */
static void tree_entries(struct mm_struct *mm, unsigned long text, unsigned long data,
			 void **in_text, void **in_data)
{
	struct sfu_mm *smm = sfu_mm_lookup(mm);

	*in_text = smm ? mtree_load(&smm->text, text) : NULL;
	*in_data = smm ? mtree_load(&smm->data, data) : NULL;
}

/*
 * A removal whose tree store fails (no memory for a maple node) still
 * takes the section out of both trees before it is freed: no lookup can
 * find a freed section afterwards.
 */
static void removal_whose_tree_store_fails_leaves_no_freed_section(struct kunit *test)
{
	const struct sframe_fixture *fx = any_native(test, true);
	void *in_text = NULL, *in_data = NULL;
	int err = -1, rm = -1, serr;
	struct sfu_user_ctx ctx;
	struct sfu_mm *smm;
	struct laid_out lo;

	if (!fx || !sfu_user_begin(test, &ctx))
		return;
	if (!lay_out(&ctx, fx, PROT_READ | PROT_WRITE | PROT_EXEC, &lo)) {
		err = add(&lo, fx, &serr);
		sfu_kunit_fail_store(1, NULL, NULL);
		rm = sfu_registry_remove(current->mm, lo.text_start);
		sfu_kunit_fail_store(0, NULL, NULL);
		tree_entries(current->mm, lo.text_start, lo.data, &in_text, &in_data);
		smm = sfu_mm_lookup(current->mm);
		if (rm == 0 && smm && (in_text || in_data)) {
			/* Freed but still there: take it out, or the suite would use it. */
			sfu_mm_write_begin(smm);
			mtree_store_range(&smm->text, lo.text_start, lo.text_end - 1, NULL,
					  GFP_KERNEL);
			mtree_store_range(&smm->data, lo.data, lo.data + fx->size - 1, NULL,
					  GFP_KERNEL);
			sfu_mm_write_end(smm);
		} else if (rm) {
			sfu_registry_remove(current->mm, lo.text_start);
		}
	}
	sfu_user_end(&ctx);

	KUNIT_EXPECT_EQ(test, err, 0);
	KUNIT_EXPECT_EQ(test, rm, 0);
	KUNIT_EXPECT_PTR_EQ(test, in_text, NULL);
	KUNIT_EXPECT_PTR_EQ(test, in_data, NULL);
}

#define PARAM_DIR "/sys/module/sframe_unwind/parameters/"

/* Read or write a module parameter, as an administrator would. */
static int param_io(const char *name, unsigned long *val, bool write)
{
	char path[96], buf[24] = "";
	struct file *f;
	loff_t pos = 0;
	ssize_t n;
	int len;

	snprintf(path, sizeof(path), PARAM_DIR "%s", name);
	f = filp_open(path, write ? O_WRONLY : O_RDONLY, 0);
	if (IS_ERR(f))
		return PTR_ERR(f);
	if (write) {
		len = snprintf(buf, sizeof(buf), "%lu", *val);
		n = kernel_write(f, buf, len, &pos) == len ? 0 : -EIO;
	} else {
		n = kernel_read(f, buf, sizeof(buf) - 1, &pos);
		n = n > 0 ? kstrtoul(strim(buf), 10, val) : -EIO;
	}
	filp_close(f, NULL);
	return n;
}

/*
 * Make the case's thread run with @uid as its real uid, what the registry
 * charges.  The effective ids stay: a kthread changing them would have
 * commit_creds() change its dumpability, which it does not have.
 */
static int run_as(kuid_t uid)
{
	struct cred *new = prepare_creds();

	if (!new)
		return -ENOMEM;
	new->uid = uid;
	return commit_creds(new);
}

/**
 * struct early_reader - a lookup that found a section and is still in its
 * RCU read-side section while the section's insertion fails
 * @mm: the mm it looks in
 * @pc: the PC it looks up
 * @go: completed by the failing store: look now
 * @found: completed once it holds what it found
 * @release: set when it may leave its read-side section
 * @done: completed as its last action
 * @s: the section it found, or NULL
 * @text_start: @s->text_start, read just before leaving
 */
struct early_reader {
	struct mm_struct *mm;
	unsigned long pc;
	struct completion go;
	struct completion found;
	atomic_t release;
	struct completion done;
	struct sfu_section *s;
	unsigned long text_start;
};

static int early_reader_fn(void *arg)
{
	struct early_reader *r = arg;
	struct sfu_mm *smm;

	wait_for_completion(&r->go);
	smm = sfu_mm_lookup(r->mm);
	rcu_read_lock();
	r->s = smm ? mtree_load(&smm->text, r->pc) : NULL;
	complete(&r->found);
	/* No grace period can end while this spins: nothing it found may go. */
	while (!atomic_read(&r->release))
		cpu_relax();
	if (r->s)
		r->text_start = READ_ONCE(r->s->text_start);
	rcu_read_unlock();
	complete(&r->done);
	return 0;
}

/* Called by the failing store, the section already in the text tree. */
static void early_reader_go(void *arg)
{
	struct early_reader *r = arg;

	complete(&r->go);
	wait_for_completion(&r->found);
}

/*
 * An insertion whose second tree store fails has published the section
 * in the first tree: a lookup on another CPU may have found it, and it is
 * freed only after that lookup's grace period.  Only a section whose
 * lookups read user memory is in both trees: the user registering it is
 * beyond max_kernel_bytes_per_user, so it gets no kernel copy.  Seen
 * through the user's count of sections, which drops when it is freed.
 */
static void insertion_whose_second_store_fails_frees_after_a_grace_period(struct kunit *test)
{
	const struct sframe_fixture *fx = any_native(test, true);
	unsigned int held[3] = { 0 }, here, there;
	unsigned long old = 0, budget = 1;
	u64 made0 = 0, made1 = 0;
	struct sfu_frame_rules rules;
	struct task_struct *kt;
	struct early_reader r;
	struct sfu_user_ctx ctx;
	struct sfu_user *u = NULL;
	struct laid_out lo;
	int err = 0, serr, set = -1;

	if (num_online_cpus() < 2)
		kunit_skip(test, "needs two CPUs: the reader spins in its read-side section");
	if (!fx || !sfu_user_begin(test, &ctx))
		return;
	memset(&r, 0, sizeof(r));
	init_completion(&r.go);
	init_completion(&r.found);
	init_completion(&r.done);
	here = raw_smp_processor_id();
	there = cpumask_any_but(cpu_online_mask, here);
	set_cpus_allowed_ptr(current, cpumask_of(here));
	kt = kthread_create(early_reader_fn, &r, "sfu_early_reader");
	if (IS_ERR(kt)) {
		KUNIT_FAIL(test, "cannot start the reader");
		goto out;
	}
	kthread_bind(kt, there);
	r.mm = current->mm;
	if (!lay_out(&ctx, fx, PROT_READ | PROT_WRITE | PROT_EXEC, &lo) &&
	    !param_io("max_kernel_bytes_per_user", &old, false)) {
		set = param_io("max_kernel_bytes_per_user", &budget, true);
		run_as(KUIDT_INIT(60005));
		u = sfu_user_get_current();
		r.pc = lo.text_start;
		wake_up_process(kt);
		rcu_barrier();
		held[0] = u ? sfu_user_sections(u) : 0;
		made0 = sfu_stat_read(SFU_STAT_KERNEL_COPIES_MADE);
		sfu_kunit_fail_store(2, early_reader_go, &r);
		err = add(&lo, fx, &serr);
		sfu_kunit_fail_store(0, NULL, NULL);
		made1 = sfu_stat_read(SFU_STAT_KERNEL_COPIES_MADE);
		held[1] = u ? sfu_user_sections(u) : 0;
		if (!completion_done(&r.go))
			complete(&r.go);
		atomic_set(&r.release, 1);
		wait_for_completion(&r.done);
		rcu_barrier();
		held[2] = u ? sfu_user_sections(u) : 0;
		sfu_user_put(u);
		run_as(GLOBAL_ROOT_UID);
		param_io("max_kernel_bytes_per_user", &old, true);

		KUNIT_EXPECT_EQ(test, set, 0);
		KUNIT_EXPECT_NOT_NULL(test, u);
		KUNIT_EXPECT_EQ(test, made1, made0);
		KUNIT_EXPECT_EQ(test, err, -ENOMEM);
		KUNIT_EXPECT_PTR_NE(test, r.s, NULL);
		KUNIT_EXPECT_EQ(test, r.text_start, lo.text_start);
		/* The reader still held it: it was still charged. */
		KUNIT_EXPECT_EQ(test, held[1], held[0] + 1);
		KUNIT_EXPECT_EQ(test, held[2], held[0]);
		KUNIT_EXPECT_EQ(test, sfu_kunit_lookup(lo.text_start, false, &rules, NULL),
				-ENOENT);
	} else {
		kthread_stop(kt);
	}
out:
	set_cpus_allowed_ptr(current, cpu_possible_mask);
	sfu_user_end(&ctx);
}

/*
 * Sections are charged to the real uid of the process they are
 * registered for: a user at max_sections_per_user is refused, another
 * user is not, and root is held to the global limits only.
 */
static void user_at_max_sections_per_user_is_refused_and_others_are_not(struct kunit *test)
{
	const struct sframe_fixture *fx = any_native(test, true);
	int err[3] = { -1, -1, 0 }, other = -1, root = -1, serr;
	unsigned long old = 0, two = 2;
	u64 refused0, refused1 = 0;
	struct sfu_user_ctx ctx;
	struct laid_out lo[3];
	int i, set = -1;

	if (!fx || !sfu_user_begin(test, &ctx))
		return;
	for (i = 0; i < 3; i++)
		if (lay_out(&ctx, fx, PROT_READ | PROT_WRITE | PROT_EXEC, &lo[i]))
			goto out;
	if (param_io("max_sections_per_user", &old, false))
		goto out;
	set = param_io("max_sections_per_user", &two, true);
	refused0 = sfu_stat_read(SFU_STAT_REFUSED_USER_LIMIT);

	run_as(KUIDT_INIT(60001));
	for (i = 0; i < 3; i++)
		err[i] = add(&lo[i], fx, &serr);
	refused1 = sfu_stat_read(SFU_STAT_REFUSED_USER_LIMIT);
	run_as(KUIDT_INIT(60002));
	other = add(&lo[2], fx, &serr);
	sfu_registry_remove(current->mm, lo[2].text_start);
	run_as(GLOBAL_ROOT_UID);
	root = add(&lo[2], fx, &serr);

	for (i = 0; i < 3; i++)
		sfu_registry_remove(current->mm, lo[i].text_start);
	param_io("max_sections_per_user", &old, true);
out:
	run_as(GLOBAL_ROOT_UID);
	sfu_user_end(&ctx);

	KUNIT_EXPECT_EQ(test, set, 0);
	KUNIT_EXPECT_EQ(test, err[0], 0);
	KUNIT_EXPECT_EQ(test, err[1], 0);
	KUNIT_EXPECT_EQ(test, err[2], -ENOSPC);
	KUNIT_EXPECT_EQ(test, refused1 - refused0, 1ULL);
	KUNIT_EXPECT_EQ(test, other, 0);
	KUNIT_EXPECT_EQ(test, root, 0);
}

/*
 * Kernel copies are charged to the real uid of the task that makes them:
 * a user beyond max_kernel_bytes_per_user gets its section registered
 * without a copy (lookups read user memory), another user gets one.
 */
static void user_beyond_its_kernel_bytes_gets_no_copy_and_others_do(struct kunit *test)
{
	const struct sframe_fixture *fx = any_native(test, true);
	u64 made[4] = { 0 };
	int err[3] = { -1, -1, -1 }, serr;
	unsigned long old = 0, budget;
	struct sfu_user_ctx ctx;
	struct laid_out lo[3];
	u64 over0, over1 = 0;
	int i, set = -1;

	if (!fx || !sfu_user_begin(test, &ctx))
		return;
	for (i = 0; i < 3; i++)
		if (lay_out(&ctx, fx, PROT_READ | PROT_WRITE | PROT_EXEC, &lo[i]))
			goto out;
	if (param_io("max_kernel_bytes_per_user", &old, false))
		goto out;
	budget = fx->size + fx->size / 2;
	set = param_io("max_kernel_bytes_per_user", &budget, true);
	over0 = sfu_stat_read(SFU_STAT_KERNEL_COPY_OVER_USER_BUDGET);

	run_as(KUIDT_INIT(60003));
	made[0] = sfu_stat_read(SFU_STAT_KERNEL_COPIES_MADE);
	err[0] = add(&lo[0], fx, &serr);
	made[1] = sfu_stat_read(SFU_STAT_KERNEL_COPIES_MADE);
	err[1] = add(&lo[1], fx, &serr);
	made[2] = sfu_stat_read(SFU_STAT_KERNEL_COPIES_MADE);
	over1 = sfu_stat_read(SFU_STAT_KERNEL_COPY_OVER_USER_BUDGET);
	run_as(KUIDT_INIT(60004));
	err[2] = add(&lo[2], fx, &serr);
	made[3] = sfu_stat_read(SFU_STAT_KERNEL_COPIES_MADE);
	run_as(GLOBAL_ROOT_UID);

	KUNIT_EXPECT_EQ(test, check_rows(test, fx, lo[1].bias, 0, U64_MAX, true), 0UL);
	for (i = 0; i < 3; i++)
		sfu_registry_remove(current->mm, lo[i].text_start);
	param_io("max_kernel_bytes_per_user", &old, true);
out:
	run_as(GLOBAL_ROOT_UID);
	sfu_user_end(&ctx);

	KUNIT_EXPECT_EQ(test, set, 0);
	KUNIT_EXPECT_EQ(test, err[0], 0);
	KUNIT_EXPECT_EQ(test, err[1], 0);
	KUNIT_EXPECT_EQ(test, err[2], 0);
	KUNIT_EXPECT_EQ(test, made[1] - made[0], 1ULL);
	KUNIT_EXPECT_EQ(test, made[2] - made[1], 0ULL);
	KUNIT_EXPECT_EQ(test, over1 - over0, 1ULL);
	KUNIT_EXPECT_EQ(test, made[3] - made[2], 1ULL);
}

/*
 * Credentials and user namespaces as far as the account reads them: only
 * the chain of parents and owners, none of them a live namespace.
 */
struct fake_userns {
	struct user_namespace outer;	/* made by uid 60010 */
	struct user_namespace inner;	/* made inside it by one of its uids */
	struct user_namespace of_root;	/* made by root */
	struct user_namespace of_root2;	/* another made by root */
	struct cred cred;
};

static struct fake_userns *fake_userns(struct kunit *test)
{
	struct fake_userns *f = kunit_kzalloc(test, sizeof(*f), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, f);
	f->outer.parent = &init_user_ns;
	f->outer.owner = KUIDT_INIT(60010);
	f->inner.parent = &f->outer;
	f->inner.owner = KUIDT_INIT(200001);
	f->of_root.parent = &init_user_ns;
	f->of_root.owner = GLOBAL_ROOT_UID;
	f->of_root2.parent = &init_user_ns;
	f->of_root2.owner = GLOBAL_ROOT_UID;
	return f;
}

static kuid_t account_of(struct fake_userns *f, struct user_namespace *ns, uid_t kuid)
{
	f->cred.user_ns = ns;
	f->cred.uid = KUIDT_INIT(kuid);
	return sfu_user_account(&f->cred);
}

/*
 * A process of the initial user namespace is charged to its real uid; one
 * in a container to the user who made the container's outermost
 * namespace, whichever uid of its range it runs as and however deep it
 * nests namespaces.
 */
static void account_is_the_uid_or_the_maker_of_the_outermost_namespace(struct kunit *test)
{
	struct fake_userns *f = fake_userns(test);

	KUNIT_EXPECT_EQ(test, __kuid_val(account_of(f, &init_user_ns, 60010)), 60010U);
	KUNIT_EXPECT_EQ(test, __kuid_val(account_of(f, &init_user_ns, 0)), 0U);
	KUNIT_EXPECT_EQ(test, __kuid_val(account_of(f, &f->outer, 200000)), 60010U);
	KUNIT_EXPECT_EQ(test, __kuid_val(account_of(f, &f->outer, 200004)), 60010U);
	/* The inner namespace's owner, a uid of the range, does not count. */
	KUNIT_EXPECT_EQ(test, __kuid_val(account_of(f, &f->inner, 200001)), 60010U);
	KUNIT_EXPECT_EQ(test, __kuid_val(account_of(f, &f->of_root, 300000)), 0U);
}

/*
 * The uids of a container share its maker's entry and limit; each
 * namespace root made has an entry of its own, limited, while root of the
 * initial namespace is not.
 */
static void container_uids_share_their_makers_limit_and_only_root_is_exempt(struct kunit *test)
{
	struct fake_userns *f = fake_userns(test);
	unsigned long old = 0, one = 1;
	struct sfu_user *u[6] = { NULL };
	bool ok[7] = { false };
	int i, set;

	if (param_io("max_sections_per_user", &old, false)) {
		KUNIT_FAIL(test, "cannot read max_sections_per_user");
		return;
	}
	set = param_io("max_sections_per_user", &one, true);
	account_of(f, &f->outer, 200000);
	u[0] = sfu_user_get(&f->cred);
	account_of(f, &f->inner, 200003);
	u[1] = sfu_user_get(&f->cred);
	account_of(f, &init_user_ns, 60010);
	u[2] = sfu_user_get(&f->cred);
	account_of(f, &f->of_root, 300000);
	u[3] = sfu_user_get(&f->cred);
	account_of(f, &init_user_ns, 0);
	u[4] = sfu_user_get(&f->cred);
	account_of(f, &f->of_root2, 300000);
	u[5] = sfu_user_get(&f->cred);

	if (u[0] && u[1] && u[2] && u[3] && u[4]) {
		ok[0] = sfu_user_charge_section(u[0]);
		ok[1] = sfu_user_charge_section(u[1]);
		ok[2] = sfu_user_charge_section(u[2]);
		ok[3] = sfu_user_charge_section(u[3]);
		ok[4] = sfu_user_charge_section(u[3]);
		ok[5] = sfu_user_charge_section(u[4]);
		ok[6] = sfu_user_charge_section(u[4]);
		if (ok[0])
			sfu_user_uncharge_section(u[0]);
		if (ok[1])
			sfu_user_uncharge_section(u[1]);
		if (ok[2])
			sfu_user_uncharge_section(u[2]);
		for (i = 3; i < 7; i++)
			if (ok[i])
				sfu_user_uncharge_section(u[i < 5 ? 3 : 4]);
	}
	for (i = 0; i < 6; i++)
		sfu_user_put(u[i]);
	param_io("max_sections_per_user", &old, true);

	KUNIT_EXPECT_EQ(test, set, 0);
	KUNIT_ASSERT_TRUE(test, u[0] && u[1] && u[2] && u[3] && u[4] && u[5]);
	KUNIT_EXPECT_PTR_EQ(test, u[1], u[0]);
	KUNIT_EXPECT_PTR_EQ(test, u[2], u[0]);
	KUNIT_EXPECT_PTR_NE(test, u[3], u[4]);
	KUNIT_EXPECT_PTR_NE(test, u[5], u[3]);
	KUNIT_EXPECT_PTR_NE(test, u[5], u[4]);
	KUNIT_EXPECT_TRUE(test, ok[0]);
	KUNIT_EXPECT_FALSE(test, ok[1]);
	KUNIT_EXPECT_FALSE(test, ok[2]);
	KUNIT_EXPECT_TRUE(test, ok[3]);
	KUNIT_EXPECT_FALSE(test, ok[4]);
	KUNIT_EXPECT_TRUE(test, ok[5]);
	KUNIT_EXPECT_TRUE(test, ok[6]);
}

SFU_KUNIT_PARAM_GEN(native_fixture_params, sfu_kunit_native_fixture_gen)

static struct kunit_case sfu_registry_cases[] = {
	KUNIT_CASE_PARAM(registered_section_gives_objdump_rows_at_every_pc, native_fixture_params),
	KUNIT_CASE(pc_outside_every_section_has_no_row),
	KUNIT_CASE(section_registered_over_part_of_a_text_replaces_it),
	KUNIT_CASE(removed_section_has_no_rows_and_cannot_be_removed_twice),
	KUNIT_CASE(unmapping_text_hides_the_section_at_once),
	KUNIT_CASE(lookups_during_add_and_remove_see_whole_sections),
	KUNIT_CASE(removal_whose_tree_store_fails_leaves_no_freed_section),
	KUNIT_CASE(insertion_whose_second_store_fails_frees_after_a_grace_period),
	KUNIT_CASE(user_at_max_sections_per_user_is_refused_and_others_are_not),
	KUNIT_CASE(user_beyond_its_kernel_bytes_gets_no_copy_and_others_do),
	KUNIT_CASE(account_is_the_uid_or_the_maker_of_the_outermost_namespace),
	KUNIT_CASE(container_uids_share_their_makers_limit_and_only_root_is_exempt),
	KUNIT_CASE_PARAM(bad_registration_is_refused_with_its_error, refusal_gen_params),
	{}
};

static int sfu_registry_suite_init(struct kunit_suite *suite)
{
	return sfu_kunit_mm_get();
}

static void sfu_registry_suite_exit(struct kunit_suite *suite)
{
	sfu_kunit_mm_put();
}

static struct kunit_suite sfu_registry_suite = {
	.name = "sframe_registry",
	.suite_init = sfu_registry_suite_init,
	.suite_exit = sfu_registry_suite_exit,
	.test_cases = sfu_registry_cases,
};

kunit_test_suites(&sfu_registry_suite);
