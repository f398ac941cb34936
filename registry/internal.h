/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Internals of the per-mm registry, shared by the files of registry/.
 *
 * The files are in layers; each calls only files of its own layer or of
 * lower ones, and no files call each other in a circle (tests/check-layers
 * checks both, with its table of ranks).  From the bottom:
 *
 *  0 base    stats.c (counters), rules_cache.c (rules found, per CPU),
 *            user.c (what each user is charged)
 *  1 file    what is known of a file: file.c (identity, whole reads, a
 *            section read and validated), copy.c (kernel copies and their
 *            charges), notes.c (build-id, Go notes), sidecar.c (sidecars
 *            by build-id), sidecar_queue.c (requests to the daemon),
 *            elf.c (program headers, the per-file cache), vdso.c (the
 *            vDSO's image and rows)
 *  2 mm      an mm's sections and their life: state.c (the states and
 *            the one table of their transitions), section.c (one section),
 *            tree.c (an mm's trees: insertion, removal, pending sections),
 *            mm.c (the table of registries), recheck.c (what VMA changes
 *            do to sections; re-checks)
 *  3 events  what changes the registries and what reads them: hooks.c
 *            (mmap, VMA, fork and exit hooks), scan.c (scans of mappings,
 *            of running processes), explicit.c (registration through the
 *            char device), lookup.c (rows for a PC, lock-free)
 *  4 setup   setup.c: bringing the registry up and down, and what makes
 *            it look at every process again (sidecar_dir, rescans)
 *
 * A lower file that must have something done above it says so in what it
 * returns (elf.c's sfu_elf_sframe.want_sidecar: the scan asks the daemon).
 *
 * Readers (the unwinder, from any context including NMI) find an mm's
 * registry in an RCU hash keyed by the mm, then the section covering a PC
 * in a maple tree in RCU mode, and copy the section's parsed header before
 * leaving the read-side section: nothing a reader holds can be freed under
 * it, and no reader takes a lock.
 *
 * Writers run only in task context (task_work before a return to user
 * space, the char device, module load), hold the mm's mmap_lock for
 * reading while they check a section against the VMAs and insert it, and
 * serialise on the registry's mutex.  Hooks that cannot sleep (VMA removal
 * and protection changes, under the mmap write lock) make a section stale
 * (state.c); lookups skip stale sections until a re-check has looked at
 * the VMAs again, so no lookup ever uses a section whose text is no longer
 * mapped from the same file.  Insertion and re-checks hold the mmap_lock
 * for reading, which excludes the VMA changes that make sections stale: a
 * change either happens before the check (and is seen by it) or after the
 * insertion (and marks the section).
 *
 * A registry dies with its mm, in the exit_mmap tracepoint; it is freed
 * after an RCU grace period from a workqueue.
 */
#ifndef _SFU_REGISTRY_INTERNAL_H
#define _SFU_REGISTRY_INTERNAL_H

#include <linux/list.h>
#include <linux/maple_tree.h>
#include <linux/mutex.h>
#include <linux/refcount.h>
#include <linux/time64.h>
#include <linux/types.h>
#include <linux/uidgid.h>
#include <linux/workqueue.h>

#include "sframe.h"
#include "uapi/sframe_sidecar.h"

struct cred;
struct file;
struct seq_file;
struct sfu_user;
struct mm_struct;
struct vm_area_struct;

/**
 * struct sfu_file_id - which file a mapping comes from, without a reference
 * @dev: superblock device
 * @ino: inode number
 * @generation: inode generation
 * @ctime: inode change time: a rewritten file is another file
 * @size: file size
 */
struct sfu_file_id {
	dev_t dev;
	unsigned long ino;
	u32 generation;
	struct timespec64 ctime;
	loff_t size;
};

/* Where a section's rows come from; fixed when it is made. */
enum sfu_section_kind {
	SFU_KIND_ELF,		/* an ELF file's own .sframe, its bytes mapped in the mm */
	SFU_KIND_SIDECAR,	/* an ELF file's sidecar: rows in the kernel copy only */
	SFU_KIND_VDSO,		/* the vDSO: no file, rows from its sidecar */
	SFU_KIND_EXPLICIT,	/* registered through the char device: code without a file */
};

/*
 * A section's life.  state.c holds the one table of what each event makes
 * of each state (sfu_section_step()); Documentation/registry.rst shows it.
 * Lookups use a section only while it is SFU_SECTION_LIVE.
 */
enum sfu_section_state {
	SFU_SECTION_NEW,	/* prepared, in no tree and on no list */
	SFU_SECTION_PENDING,	/* its text mapped, waiting for its data (sfu_mm.pending) */
	SFU_SECTION_LIVE,	/* in the trees: lookups use it */
	SFU_SECTION_STALE,	/* in the trees, touched by a VMA change: a re-check decides */
	/* in the trees, its text in place from its file but not executable (or its data gone) */
	SFU_SECTION_KEPT,
	SFU_SECTION_GONE,	/* out of the trees, freed after a grace period */
	SFU_SECTION_NR_STATES
};

/* What can happen to a section (sfu_section_step()). */
enum sfu_section_event {
	SFU_EV_FOUND,		/* a scan or a registration found its text and data mapped */
	SFU_EV_WAIT,		/* found with its text mapped, its data not yet */
	SFU_EV_RETRY,		/* a mapping may have brought its data: offered again */
	SFU_EV_LOST,		/* its text or data unmapped, or its data made unreadable */
	SFU_EV_NOEXEC,		/* mprotect took execute permission from its text */
	SFU_EV_EXEC,		/* mprotect gave execute permission back to its text */
	SFU_EV_CHECK_OK,	/* a re-check found its text and data as they were */
	SFU_EV_CHECK_KEEP,	/* a re-check found its text in place, not usable now */
	SFU_EV_REMOVE,		/* taken out: gone at a re-check, replaced, unregistered */
	SFU_EV_MM_GONE,		/* its registry goes with its mm: exit, exec */
	SFU_EV_NR
};

#define SFU_NAME_LEN 48

/**
 * struct sfu_sframe_copy - a validated .sframe section in kernel memory
 * @ref: references: sections using it, and callers handing it out
 * @id: unique for the module's lifetime (never reused), for the row cache
 * @slot: the pointer that keeps it for later users (a file cache entry), or
 *        NULL; emptied when the last reference goes (under the copy lock)
 * @size: bytes in @data, counted against max_kernel_bytes
 * @user: the user it is charged to (max_kernel_bytes_per_user), with a
 *        reference; when that user's sections let go of it, the charge
 *        moves to a user whose sections still hold it
 * @holders: the users whose sections hold it (struct sfu_copy_holder),
 *           under the copy lock
 * @retained: link in the list of copies retained while no section holds
 *            them, for the next mapping of their file
 *            (max_kernel_bytes_retained), under the copy lock; empty when
 *            not retained
 * @rcu: drops the list's reference after a grace period when the file
 *       cache lets go of the copy while a lock of its is held
 * @sec: the parsed header, reading @data (SFRAME_READER_BUFFER); its vaddr
 *       is the ELF file's link-time address of the section, or for an
 *       explicit registration the user address it was copied from; its
 *       fre_index is @index
 * @index: the FRE index of the functions of many rows (sfu_copy_index()),
 *         or NULL when no function needs one
 * @index_size: bytes of @index, counted against the budgets like @size
 * @data: the section's bytes
 *
 * Immutable once handed out; freed, @index with it, by the last
 * sfu_copy_put().
 */
struct sfu_sframe_copy {
	refcount_t ref;
	u64 id;
	struct sfu_sframe_copy **slot;
	size_t size;
	struct sfu_user *user;
	struct list_head holders;
	struct list_head retained;
	struct rcu_head rcu;
	struct sfu_sframe_section sec;
	void *index;
	size_t index_size;
	u8 data[];
};

/**
 * struct sfu_section - one registered .sframe section
 * @rcu: frees it after lookups that may have found it are done
 * @pending: link in sfu_mm.pending while its data is not mapped yet
 * @text_start: first byte of the code it describes
 * @text_end: first byte after that code
 * @data_start: user address of the .sframe bytes
 * @data_end: first byte after them
 * @text_delta: vm_start - file offset of the VMAs mapping the text (ELF)
 * @data_delta: the same for the VMAs mapping the .sframe bytes (ELF)
 * @file: the ELF file both come from (zero for explicit sections)
 * @kind: where its rows come from (enum sfu_section_kind)
 * @state: where it is in its life (enum sfu_section_state): changed only
 *         by sfu_section_step(), read locklessly by lookups
 * @copy: the section's bytes in kernel memory (shared with every section
 *        of the same file), or NULL: then lookups read user memory
 * @extra: for a file whose own section covers only part of its code, the
 *         kernel copy of its sidecar, whose rows serve the PCs the own
 *         section has no FDE for (shared per build-id); else NULL
 * @bias: what to add to an address of @copy's address space (the ELF
 *        file's link-time addresses) to get the address in this mm
 * @sec: the parsed header, with a user-memory reader at @data_start
 * @name: the file's name, for debugfs
 * @user: the user its kernel copies are held for (sfu_copy_hold()) from
 *        sfu_section_set_user() on, and to which it is charged in the
 *        trees (max_sections_per_user), until it is freed; NULL before
 *
 * Immutable once in the trees but for @state.  Lookups use @copy in place
 * under RCU, or copy @sec.
 */
struct sfu_section {
	struct rcu_head rcu;
	struct list_head pending;
	unsigned long text_start;
	unsigned long text_end;
	unsigned long data_start;
	unsigned long data_end;
	long text_delta;
	long data_delta;
	struct sfu_file_id file;
	enum sfu_section_kind kind;
	enum sfu_section_state state;
	struct sfu_sframe_copy *copy;
	struct sfu_sframe_copy *extra;
	long bias;
	struct sfu_sframe_section sec;
	char name[SFU_NAME_LEN];
	struct sfu_user *user;
};

/**
 * struct sfu_mm - the registry of one mm
 * @hnode: link in the global hash, keyed by @mm
 * @mm: the mm (no reference: the entry dies in the mm's exit_mmap)
 * @text: text range -> section (RCU mode: lock-free lookups)
 * @data: .sframe range -> section, for the sections without a kernel copy
 *        (sfu_section_data_tracked()), to find what a VMA change touches
 * @lock: serialises writers; taken inside mmap_lock, never around it
 * @writing: writers between sfu_mm_write_begin() and sfu_mm_write_end()
 * @pending: sections whose text is mapped but whose data is not yet
 * @nr_sections: sections in @text
 * @nr_pending: entries on @pending (read locklessly by the mmap hook)
 * @nr_anon_text: sections in @text without a file (explicit, the vDSO),
 *                the only ones anonymous memory can hold the text of
 * @self_scan: 1 while a scan of the whole mm is queued for its process
 *             (a rescan found its mmap_lock busy: scan.c)
 * @pending_lo: lowest data address of the sections on @pending
 * @pending_hi: highest data end of them; with @pending_lo, what a data
 *              mapping must overlap to matter (read locklessly too)
 * @recheck_all: sections were marked stale from another task, which
 *               queued no re-check: the next one looks at every section
 * @had_kept: a section was SFU_SECTION_KEPT (set by sfu_section_step(),
 *            once, never cleared): VMAs that are not executable may hold
 *            registered text
 * @tgid: the process that created the registry, for debugfs
 * @free_work: frees the registry after an RCU grace period
 */
struct sfu_mm {
	struct hlist_node hnode;
	struct mm_struct *mm;
	struct maple_tree text;
	struct maple_tree data;
	struct mutex lock;		/* writers; inside mmap_lock */
	atomic_t writing;
	struct list_head pending;
	atomic_t nr_sections;
	atomic_t nr_pending;
	atomic_t nr_anon_text;
	atomic_t self_scan;
	unsigned long pending_lo;
	unsigned long pending_hi;
	bool recheck_all;
	bool had_kept;
	pid_t tgid;
	struct rcu_work free_work;
};

/*
 * Writers of a registry's trees go through these.  A lookup in interrupt
 * or NMI context may have interrupted a writer on its own CPU, and the
 * maple tree's lock-free readers retry on a node a writer is replacing
 * until the writer is done: an interrupted writer never is while its
 * interrupt spins.  Such lookups skip the trees while @writing is set.
 */
static inline void sfu_mm_write_begin(struct sfu_mm *smm)
{
	mutex_lock(&smm->lock);
	atomic_inc(&smm->writing);
	/* Set before any tree change, as seen by an interrupt on any CPU. */
	smp_mb__after_atomic();
}

/* sfu_mm_write_begin() if the lock is free, for a caller that may not sleep. */
static inline bool sfu_mm_write_trybegin(struct sfu_mm *smm)
{
	if (!mutex_trylock(&smm->lock))
		return false;
	atomic_inc(&smm->writing);
	/* As in sfu_mm_write_begin(). */
	smp_mb__after_atomic();
	return true;
}

static inline void sfu_mm_write_end(struct sfu_mm *smm)
{
	/* Every tree change done before the count drops. */
	smp_mb__before_atomic();
	atomic_dec(&smm->writing);
	mutex_unlock(&smm->lock);
}

/* Sections of one mm that may wait for their data (sfu_section_offer()). */
#define SFU_MAX_PENDING	64

/* Whether a mapping of [@start, @end) may bring the data a section waits for. */
static inline bool sfu_mm_pending_in(const struct sfu_mm *smm, unsigned long start,
				     unsigned long end)
{
	return atomic_read(&smm->nr_pending) && start < READ_ONCE(smm->pending_hi) &&
	       end > READ_ONCE(smm->pending_lo);
}

/* Section data in the mm: all but sidecars', which live in kernel copies. */
static inline bool sfu_section_has_data(const struct sfu_section *s)
{
	return s->kind == SFU_KIND_ELF || s->kind == SFU_KIND_EXPLICIT;
}

/*
 * In the data tree: the sections whose lookups read their data in the mm.
 * A kernel copy's data, once validated, no longer matters (lookups read
 * the copy), nor does what happens to its mapping.
 */
static inline bool sfu_section_data_tracked(const struct sfu_section *s)
{
	return sfu_section_has_data(s) && !s->copy;
}

/* Text in anonymous memory: explicit sections (JIT code) and the vDSO. */
static inline bool sfu_section_anon_text(const struct sfu_section *s)
{
	return s->kind == SFU_KIND_EXPLICIT || s->kind == SFU_KIND_VDSO;
}

/* Lookups use @s: any context, without a lock. */
static inline bool sfu_section_usable(const struct sfu_section *s)
{
	return READ_ONCE(s->state) == SFU_SECTION_LIVE;
}

/* Layer 0: base */

/* user.c */
kuid_t sfu_user_account(const struct cred *cred);
struct sfu_user *sfu_user_get(const struct cred *cred);
struct sfu_user *sfu_user_get_current(void);
void sfu_user_put(struct sfu_user *u);
bool sfu_user_charge_section(struct sfu_user *u);
void sfu_user_uncharge_section(struct sfu_user *u);
bool sfu_user_charge_bytes(struct sfu_user *u, size_t bytes);
void sfu_user_uncharge_bytes(struct sfu_user *u, size_t bytes);
struct sfu_user *sfu_user_take_bytes(struct sfu_user *from, struct sfu_user *to, size_t bytes);
bool sfu_user_exempt(const struct sfu_user *u);
long sfu_user_copy_bytes(const struct sfu_user *u);
unsigned int sfu_user_sections(const struct sfu_user *u);
void sfu_users_init(void);
void sfu_users_exit(void);

/* Layer 1: what is known of a file */

/* file.c */
extern unsigned int sfu_max_section_bytes;
int sfu_native_sframe_abi(void);
void sfu_file_id_get(struct file *file, struct sfu_file_id *id);
bool sfu_file_id_equal(const struct sfu_file_id *a, const struct sfu_file_id *b);
bool sfu_read_whole(struct file *file, void *buf, size_t len, loff_t *pos);
int sfu_read_section(struct file *file, u64 off, u64 size, u64 vaddr, u8 *buf,
		     struct sfu_sframe_section *sec, bool per_function);
struct sfu_sframe_copy *sfu_copy_read(struct file *file, u64 off, u64 size, u64 vaddr, int *err);

/* copy.c */
struct sfu_sframe_copy *sfu_copy_alloc(size_t size);
int sfu_copy_index(struct sfu_sframe_copy *c);
void sfu_copy_put(struct sfu_sframe_copy *c);
int sfu_copy_hold(struct sfu_sframe_copy *c, struct sfu_user *u);
void sfu_copy_unhold(struct sfu_sframe_copy *c, struct sfu_user *u);
struct sfu_sframe_copy *sfu_copy_get_slot(struct sfu_sframe_copy **slot);
struct sfu_sframe_copy *sfu_copy_set_slot(struct sfu_sframe_copy **slot,
					  struct sfu_sframe_copy *c);
void sfu_copy_clear_slot(struct sfu_sframe_copy **slot);
void sfu_copy_usage(unsigned int *copies, unsigned long *bytes);
void sfu_copy_retained_usage(unsigned int *copies, unsigned long *bytes);
unsigned long sfu_copy_budget(void);

/* notes.c */
bool sfu_parse_go_note(const u8 *buf, size_t len);
struct sfu_sframe_copy *sfu_copy_fp_only(int abi);
void sfu_parse_build_id(const u8 *buf, size_t len, u8 *id, u8 *id_len);

/* sidecar.c */

/**
 * struct sfu_sidecar_bind - the content a sidecar was accepted for
 * @kind: SFU_SIDECAR_DIGEST_* (0: none yet)
 * @digest: the file's digest of that kind, which the sidecar carries
 */
struct sfu_sidecar_bind {
	u32 kind;
	u8 digest[SFU_SIDECAR_DIGEST_LEN];
};

/**
 * struct sfu_sidecar_for - the file a sidecar is looked up for
 * @file: the file; NULL for an image in memory (@image, @image_len)
 * @image: the vDSO's image, when @file is NULL
 * @image_len: its bytes
 * @go: a Go program, whose sidecar may be bound to the whole file
 * @taken: bit n: @digest[n] (of kind n + 1) was taken or tried
 * @failed: bit n: it could not be taken (the kind does not apply, a read
 *          error)
 * @refused: a sidecar of the build-id was refused for its content
 * @digest: the file's digests, taken when first needed
 */
struct sfu_sidecar_for {
	struct file *file;
	const u8 *image;
	size_t image_len;
	bool go;
	bool refused;
	u8 taken;
	u8 failed;
	u8 digest[2][SFU_SIDECAR_DIGEST_LEN];
};

struct file *sfu_sidecar_open(const u8 *build_id, unsigned int len, struct sfu_sidecar_for *w,
			      struct sfu_sidecar_bind *bind, u64 *off, u64 *size, u64 *vaddr);
struct sfu_sframe_copy *sfu_sidecar_copy(const u8 *build_id, unsigned int len,
					 const struct sfu_file_id *id, struct sfu_sidecar_for *w);
int sfu_sidecar_set_dir(const char *val);
int sfu_sidecar_get_dir(char *buf);
void sfu_sidecar_forget(void);
void sfu_sidecar_forget_missing(void);
void sfu_sidecar_init(void);
void sfu_sidecar_exit(void);

/* sidecar_queue.c */
void sfu_sidecar_request(struct file *file, const u8 *build_id, unsigned int len,
			 const struct cred *cred, u32 why);
void sfu_sidecar_backlog(void (*scan)(void *arg), void *arg);
unsigned long sfu_sidecar_wait_until(void);
bool sfu_sidecar_wait(struct file *file, unsigned long until);
void sfu_sidecar_queue_init(void);
void sfu_sidecar_queue_exit(void);

/* elf.c */
/**
 * struct sfu_elf_sframe - where a file's PT_GNU_SFRAME lies
 * @abi: the SFrame ABI this kernel's native tasks use
 * @sframe_vaddr: p_vaddr of PT_GNU_SFRAME
 * @sframe_offset: its p_offset
 * @sframe_size: its p_filesz
 * @bias: load bias of the mapping it was looked up for
 * @text_end: where the mapping's loadable segment ends in it, page-aligned,
 *	if that segment is executable; else 0
 * @sidecar: the section is the file's sidecar's (sidecar.c): the offset is
 *	in the sidecar, and the process maps no copy of it
 * @want_sidecar: the file, just seen for the first time, has neither
 *	PT_GNU_SFRAME nor a sidecar: the sidecar daemon is to be asked for
 *	one (sfu_sidecar_request())
 * @why: then SFU_SIDECAR_WHY_*
 * @build_id_len: bytes of @build_id (0: the file has none)
 * @build_id: the file's GNU build-id
 */
struct sfu_elf_sframe {
	int abi;
	u64 sframe_vaddr;
	u64 sframe_offset;
	u64 sframe_size;
	long bias;
	u64 text_end;
	bool sidecar;
	bool want_sidecar;
	u32 why;
	u8 build_id_len;
	u8 build_id[SFU_SIDECAR_BUILD_ID_MAX];
};

int sfu_file_sframe(struct file *file, const struct sfu_file_id *id, unsigned long vm_start,
		    unsigned long file_off, struct sfu_elf_sframe *out,
		    struct sfu_sframe_section *sec, struct sfu_sframe_copy **copy);
bool sfu_file_known_without(struct file *file);
void sfu_fcache_forget(void);
void sfu_fcache_forget_missing(void);

/* vdso.c */
bool sfu_vma_is_vdso(struct vm_area_struct *vma);
bool sfu_vdso_mapped(struct mm_struct *mm, unsigned long start, unsigned long end);
struct sfu_sframe_copy *sfu_vdso_copy(struct mm_struct *mm, unsigned long start,
				      unsigned long end, long *bias, bool trylock);
void sfu_vdso_exit(void);

/* Layer 2: an mm's sections and their life */

/* Which change of a VMA a hook saw (struct sfu_vma_change). */
enum sfu_vma_event {
	SFU_VMA_UNMAP,		/* vm_area_free(): munmap, MAP_FIXED over it, mremap, a merge */
	SFU_VMA_PROTECT,	/* change_protection() in current's mm: mprotect() */
	SFU_VMA_PROTECT_REMOTE,	/* change_protection() in another mm: NUMA balancing, uffd */
};

/**
 * struct sfu_vma_change - a VMA change, as a hook saw it
 * @event: what changed it
 * @start: start of the changed range
 * @end: its end
 * @file: the VMA maps a file; else anonymous memory
 * @exec: it is executable (after the change)
 * @read: it is readable (after the change)
 */
struct sfu_vma_change {
	enum sfu_vma_event event;
	unsigned long start;
	unsigned long end;
	bool file;
	bool exec;
	bool read;
};

/**
 * struct sfu_vma_plan - what a VMA change asks of the sections it overlaps
 * @text: look at the sections whose text overlaps its range
 * @kept_only: only where the mm ever kept a section (a VMA that was not
 *             executable holds no text but kept text)
 * @data: look at the sections whose data in the mm overlaps it
 * @text_ev: what happens to the former
 * @data_ev: what happens to the latter
 * @now: the VMAs stay as they are: decide on each section at once
 */
struct sfu_vma_plan {
	bool text;
	bool kept_only;
	bool data;
	enum sfu_section_event text_ev;
	enum sfu_section_event data_ev;
	bool now;
};

/* state.c */
bool sfu_section_step(struct sfu_mm *smm, struct sfu_section *s, enum sfu_section_event ev);

/**
 * sfu_vma_plan() - what a VMA change asks of the sections it overlaps
 * @c: the change
 * @p: filled in
 *
 * vm_area_free(): a VMA that is neither a file's nor executable holds no
 * section's text or data (an explicit section's data is copied); one
 * that is not executable holds only kept text.  Both the text and the
 * data it held are lost.
 *
 * mprotect() of current's mm: the VMAs stay as they are, so each section
 * is decided on at once (sfu_section_settle()).  Text losing PROT_EXEC
 * and file data losing PROT_READ make their sections stale; file text
 * executable again, readable or not (execute-only text), may make a kept
 * section usable.  Anonymous text executable again holds none.
 *
 * change_protection() of another mm: text losing PROT_EXEC and file data
 * losing PROT_READ make their sections stale, for that mm's next re-check.
 *
 * Inline: the hooks ask it on every unmap and mprotect() of any VMA, and
 * most ask nothing.
 *
 * Context: any.
 * Return: false if the change asks nothing of any section.
 */
static __always_inline bool sfu_vma_plan(const struct sfu_vma_change *c,
					 struct sfu_vma_plan *p)
{
	bool data_gone = c->file && !c->read;

	*p = (struct sfu_vma_plan){ .text_ev = SFU_EV_LOST, .data_ev = SFU_EV_LOST };
	switch (c->event) {
	case SFU_VMA_UNMAP:
		if (!c->file && !c->exec)
			return false;
		p->text = true;
		p->kept_only = !c->exec;
		p->data = true;
		break;
	case SFU_VMA_PROTECT:
		if (c->exec && !c->file)
			return false;
		p->text = true;
		p->text_ev = c->exec ? SFU_EV_EXEC : SFU_EV_NOEXEC;
		p->data = data_gone;
		p->data_ev = c->exec ? SFU_EV_LOST : SFU_EV_NOEXEC;
		p->now = true;
		break;
	case SFU_VMA_PROTECT_REMOTE:
		p->text = !c->exec;
		p->data = data_gone;
		break;
	}
	return p->text || p->data;
}

/* section.c */
struct sfu_section *sfu_section_new(unsigned long text_start, unsigned long text_end,
				    const char *name);
int sfu_section_set_user(struct sfu_section *s, struct sfu_user *u);
void sfu_section_discard(struct sfu_section *s);
bool sfu_section_text_mapped(struct mm_struct *mm, const struct sfu_section *s);
/* Where a section's text is now (sfu_section_text_state()). */
enum sfu_section_text { SFU_SECTION_TEXT_GONE, SFU_SECTION_TEXT_KEPT, SFU_SECTION_TEXT_MAPPED };
enum sfu_section_text sfu_section_text_state(struct mm_struct *mm, const struct sfu_section *s);
bool sfu_section_data_mapped(struct mm_struct *mm, const struct sfu_section *s);

/* tree.c */
unsigned int sfu_sections_total(void);
int sfu_section_insert(struct sfu_mm *smm, struct sfu_section *s);
void sfu_section_free(struct sfu_section *s);
void sfu_section_remove_locked(struct sfu_mm *smm, struct sfu_section *s);
bool sfu_section_remove_now(struct sfu_mm *smm, struct sfu_section *s);
void sfu_section_offer(struct sfu_mm *smm, struct sfu_section *s);
void sfu_retry_pending(struct sfu_mm *smm, unsigned long start, unsigned long end);
bool sfu_pending_at(struct sfu_mm *smm, unsigned long start);
bool sfu_section_live_for(struct sfu_mm *smm, struct vm_area_struct *vma);
#ifdef SFU_TEST_BUILD
void sfu_kunit_fail_store(unsigned int nth, void (*fn)(void *arg), void *arg);
#endif

/* mm.c */
struct sfu_mm *sfu_mm_find(struct mm_struct *mm);
struct sfu_mm *sfu_mm_lookup(struct mm_struct *mm);
struct sfu_mm *sfu_mm_get_or_create(struct mm_struct *mm, pid_t tgid);
void sfu_mm_destroy(struct mm_struct *mm);
unsigned int sfu_mm_count(void);
int sfu_mm_table_init(void);
void sfu_mm_table_exit(void);

/* recheck.c */
bool sfu_vma_changed(struct mm_struct *mm, const struct sfu_vma_change *c,
		     struct sfu_vma_plan p);
void sfu_recheck(struct mm_struct *mm, unsigned long start, unsigned long last);

/* Layer 3: events and lookups */

/* scan.c */
void sfu_scan(struct mm_struct *mm, unsigned long start, unsigned long end, pid_t tgid,
	      const struct cred *cred);
void sfu_scan_running_processes(void);

/* hooks.c */
int sfu_hooks_init(void);
void sfu_hooks_exit(void);

#endif /* _SFU_REGISTRY_INTERNAL_H */
