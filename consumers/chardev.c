// SPDX-License-Identifier: GPL-2.0
/*
 * /dev/sframe_unwind: explicit registration of sections for code without
 * an ELF file (JITs, custom loaders), and unwinding on request.  The ABI is
 * include/uapi/sframe_unwind.h, documented in Documentation/uapi.rst.
 *
 * A process can only register or remove sections of its own mm, and only
 * unwind threads of its own or of a process whose /proc/PID/mem it could
 * open (consumers/ioctl.c), so the device is open to everyone.  The
 * sidecar daemon's calls check CAP_SYS_ADMIN at each call.
 */
#include <linux/capability.h>
#include <linux/fcntl.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/jiffies.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/uaccess.h>

#include "sframe_unwind/consumers.h"
#include "sframe_unwind/lib.h"
#include "sframe_unwind/registry.h"
#include "uapi/sframe_unwind.h"
#include "internal.h"

static long sfu_ioctl_register(struct sfu_register __user *uarg, bool add)
{
	struct sfu_register reg;
	int sframe_err = 0;
	long err;

	if (copy_from_user(&reg, uarg, sizeof(reg)))
		return -EFAULT;
	if (reg.flags || !current->mm)
		return -EINVAL;
	if (!add)
		return sfu_registry_remove(current->mm, reg.text_start);
	/*
	 * @error is written before anything changes: a caller whose struct
	 * cannot take it gets -EFAULT with nothing registered, never -EFAULT
	 * for a section that was.
	 */
	if (put_user(0, &uarg->error))
		return -EFAULT;
	err = sfu_registry_add(current->mm, reg.sframe_addr, reg.sframe_size,
			       reg.text_start, reg.text_end, &sframe_err);
	/* Only a refused section has a reason; nothing was registered. */
	if (sframe_err && put_user(sframe_err, &uarg->error))
		return -EFAULT;
	return err;
}

/* The longest SFU_IOC_SIDECAR_NEXT waits, in ms. */
#define SFU_SIDECAR_WAIT_MAX	60000

/*
 * SFU_IOC_SIDECAR_NEXT: the oldest request as a new fd, installed only
 * once the rest of the answer reached the caller.
 */
static long sfu_ioctl_sidecar_next(struct file *file, struct sfu_sidecar_request __user *uarg)
{
	struct sfu_sidecar_request req;
	struct file *f;
	int fd;

	if (copy_from_user(&req, uarg, sizeof(req)))
		return -EFAULT;
	if (req.flags || req.timeout_ms > SFU_SIDECAR_WAIT_MAX)
		return -EINVAL;
	fd = get_unused_fd_flags(O_CLOEXEC);
	if (fd < 0)
		return fd;
	f = sfu_sidecar_queue_next(file, msecs_to_jiffies(req.timeout_ms), &req);
	if (IS_ERR(f)) {
		put_unused_fd(fd);
		return PTR_ERR(f);
	}
	req.fd = fd;
	if (copy_to_user(uarg, &req, sizeof(req))) {
		put_unused_fd(fd);
		fput(f);
		return -EFAULT;
	}
	fd_install(fd, f);
	return 0;
}

static long sfu_ioctl_sidecar(struct file *file, unsigned int cmd, unsigned long arg)
{
	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;
	switch (cmd) {
	case SFU_IOC_SIDECAR_ATTACH:
		/* The argument is the flags themselves. */
		return sfu_sidecar_queue_attach(file, arg);
	case SFU_IOC_SIDECAR_NEXT:
		return sfu_ioctl_sidecar_next(file, (void __user *)arg);
	}
	sfu_sidecar_rescan();
	return 0;
}

static long sfu_unlocked_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	void __user *uarg = (void __user *)arg;

	switch (cmd) {
	case SFU_IOC_SIDECAR_ATTACH:
	case SFU_IOC_SIDECAR_NEXT:
	case SFU_IOC_SIDECAR_RESCAN:
		return sfu_ioctl_sidecar(file, cmd, arg);
	case SFU_IOC_REGISTER:
		return sfu_ioctl_register(uarg, true);
	case SFU_IOC_UNREGISTER:
		return sfu_ioctl_register(uarg, false);
	}
	return sfu_unwind_ioctl(cmd, uarg);
}

/* A daemon's file closed: it is no longer the daemon. */
static int sfu_release(struct inode *inode, struct file *file)
{
	sfu_sidecar_queue_detach(file);
	return 0;
}

static const struct file_operations sfu_fops = {
	.owner = THIS_MODULE,
	.release = sfu_release,
	.unlocked_ioctl = sfu_unlocked_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
	.llseek = noop_llseek,
};

static struct miscdevice sfu_miscdev = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = "sframe_unwind",
	.fops = &sfu_fops,
	.mode = 0666,
};

static int sfu_device_stats_show(struct seq_file *m, void *v)
{
	seq_printf(m, "remote_pending %d\n", sfu_unwind_remote_pending());
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(sfu_device_stats);

/**
 * sfu_chardev_init() - create /dev/sframe_unwind and its debugfs file
 *
 * Context: module init, in the loading task (see sfu_unwind_ioctl_init()).
 * Return: 0 or -errno.
 */
int sfu_chardev_init(void)
{
	int err;

	sfu_unwind_ioctl_init();
	err = misc_register(&sfu_miscdev);
	if (!err)
		sfu_debugfs_file("device_stats", 0444, NULL, &sfu_device_stats_fops);
	return err;
}

/**
 * sfu_chardev_exit() - remove /dev/sframe_unwind
 *
 * Returns only when no ioctl is running any more (the file operations pin
 * the module while a file is open).
 */
void sfu_chardev_exit(void)
{
	sfu_debugfs_remove("device_stats");
	misc_deregister(&sfu_miscdev);
	sfu_unwind_ioctl_exit();
}
