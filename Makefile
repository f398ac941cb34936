# SPDX-License-Identifier: GPL-2.0
#
# sframe-unwind: user-space stack unwinding from SFrame, as a kernel module.
#
#   make [ARCH=x86_64|arm64] [KDIR=...] [BUILD=dir] [SFU_TEST=1]
#                                        build sframe_unwind.ko; SFU_TEST=1:
#                                        the test build, with its test seams,
#                                        and the KUnit module
#   make test                            what every change must pass:
#                                        userspace, W=1 on every kernel,
#                                        KUnit and e2e on 6.1 of both arches,
#                                        Debian's stock kernels, stress
#   make test-all                        make test and the rest of the matrix
#                                        (6.12 and newest guests, the perf
#                                        tool on Debian's kernels, more
#                                        sparse): Documentation/testing.rst
#   make demo                            perf record -g without and with the
#                                        module, side by side (x86_64 guest)
#   make tools                           userspace tools (tools/sframe-check,
#                                        tools/sframe-gen)
#   make test-sframe-gen                 sframe-gen against readelf and objdump
#                                        on a few libraries of each arch
#   make test-sframe-gen-all             ... and on every ELF under
#                                        /usr/lib/x86_64-linux-gnu and /usr/bin
#   make kernels                         the cached QEMU test kernels
#   make bench                           benchmarks (ratios, not pass/fail),
#                                        counted in guest instructions
#   make fuzz [FUZZ_SECONDS=N]           fuzz the decoder (default 600 s)
#   make install-sidecars                install sframe-gen, sframe-unwind-sidecars,
#                                        the sidecar daemon sframe-unwindd,
#                                        its systemd units, APT hook and user
#                                        (sysusers.d), make the user, enable
#                                        the units and make every sidecar
#                                        (PREFIX=/usr/local, DESTDIR: only copy)
#   make uninstall-sidecars              remove them (not the sidecars, nor
#                                        the user)
#   make stress [STRESS_SECONDS=N]       load, hostile input and reloads on the
#                                        debug kernel (default 1200 s)
#   make clean
#
# KDIR defaults to the project's own cached 6.1 test kernel for ARCH (built on
# first use by scripts/build-kernel); KDIR=/lib/modules/$(uname -r)/build
# builds against the running system.  Kernel 6.1's kbuild writes objects next
# to the sources, so each (ARCH, KDIR) pair builds in its own mirror of the
# tree under build/, and `make` prints where the modules are.  The test
# build (SFU_TEST=1: Kbuild) has a mirror of its own, the same name with
# "-test" after it, so that neither flavour's objects overwrite the other's.

ARCH ?= $(shell uname -m)
override ARCH := $(patsubst aarch64,arm64,$(patsubst x86,x86_64,$(ARCH)))
ifneq ($(ARCH),$(filter $(ARCH),x86_64 arm64))
$(error ARCH must be x86_64 or arm64)
endif

HOST_ARCH := $(patsubst aarch64,arm64,$(shell uname -m))
ifneq ($(ARCH),$(HOST_ARCH))
CROSS_COMPILE ?= $(if $(filter arm64,$(ARCH)),aarch64-linux-gnu-,x86_64-linux-gnu-)
endif

TOP := $(CURDIR)

SFU_TEST ?= 0
ifneq ($(SFU_TEST),$(filter $(SFU_TEST),0 1))
$(error SFU_TEST must be 0 (the product) or 1 (the test build))
endif
SRC_DIRS := Kbuild module.c include lib sframe registry unwind consumers arch kunit tests

.PHONY: all modules clean tools test test-all demo kernels bench fuzz stress help \
	test-sframe-gen test-sframe-gen-all install-sidecars uninstall-sidecars

all: modules

ifeq ($(filter modules all,$(MAKECMDGOALS))$(if $(MAKECMDGOALS),,default),)
else
KDIR ?= $(shell $(TOP)/scripts/build-kernel --arch $(ARCH))
KREL := $(shell cat $(KDIR)/include/config/kernel.release 2>/dev/null)
ifeq ($(KREL),)
$(error $(KDIR) is not a configured kernel build tree)
endif
ifeq ($(BUILD),)
BUILD := $(TOP)/build/$(ARCH)-$(KREL)-$(shell echo '$(realpath $(KDIR))' | md5sum | cut -c1-8)$(if $(filter 1,$(SFU_TEST)),-test)
else
# A fixed build directory (DKMS: BUILD=build/dkms), relative to this tree.
override BUILD := $(abspath $(BUILD))
endif
endif

# One build of a directory at a time: the test lanes build the same module
# side by side, and two kbuilds in one M= directory delete each other's files.
modules:
	@mkdir -p $(BUILD)
	@exec 9>$(BUILD)/.sfu-build.lock && flock 9 && \
	find $(BUILD) -xtype l -delete && \
	{ cd $(TOP) && for d in $(SRC_DIRS); do [ -e $$d ] && cp -rsf $(TOP)/$$d $(BUILD)/; done; true; } && \
	$(MAKE) -C $(KDIR) M=$(BUILD) ARCH=$(ARCH) CROSS_COMPILE=$(CROSS_COMPILE) SFU_TEST=$(SFU_TEST) \
		modules
	@echo "modules in $(BUILD)"

tools:
	$(MAKE) -C tools

test:
	scripts/run-tests

test-all:
	scripts/run-tests --all

test-sframe-gen:
	tests/sframe-gen/run

test-sframe-gen-all:
	tests/sframe-gen/run --all

demo:
	scripts/demo

bench:
	scripts/bench

STRESS_SECONDS ?= 1200
stress:
	scripts/stress --duration $(STRESS_SECONDS)

FUZZ_SECONDS ?= 600
fuzz:
	tests/fuzz/run $(FUZZ_SECONDS)

kernels:
	scripts/build-kernel --arch x86_64 >/dev/null
	scripts/build-kernel --arch arm64 >/dev/null

# Sidecars for the files of this system (Documentation/sidecars.rst):
# sframe-gen, the script that runs it over the library and program
# directories, a systemd path unit that starts it when they change and an
# APT hook that runs it after every dpkg run; and the daemon that makes
# sidecars on demand for any other file (sframe-unwindd, a service), with
# the user its children run as (a sysusers.d file).  With DESTDIR (or
# ENABLE_SIDECARS=no) the files are only copied; without, systemd-sysusers
# makes the user, the units are enabled (the daemon started) where systemd
# runs and the sidecars are made once.
PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
SBINDIR ?= $(PREFIX)/sbin
SYSTEMDUNITDIR ?= $(PREFIX)/lib/systemd/system
APTCONFDIR ?= /etc/apt/apt.conf.d
SYSUSERSDIR ?= /usr/lib/sysusers.d
SIDECAR_DIR ?= /var/lib/sframe-unwind
MULTIARCH ?= $(or $(shell gcc -print-multiarch 2>/dev/null),$(shell uname -m)-linux-gnu)
ENABLE_SIDECARS ?= $(if $(DESTDIR),no,yes)
SIDECAR_FILES := sframe-unwind-sidecars sframe-unwind-sidecars.service \
	sframe-unwind-sidecars.path 80sframe-unwind-sidecars sframe-unwindd.service
SIDECAR_UNIT := sframe-unwind-sidecars.path
SIDECAR_BOOT_UNIT := sframe-unwind-sidecars.service
SIDECAR_DAEMON_UNIT := sframe-unwindd.service

# The templates get this run's paths every time.
install-sidecars:
	$(MAKE) -C tools sframe-gen sframe-unwindd
	@mkdir -p build/sidecars
	for f in $(SIDECAR_FILES); do \
		sed -e 's|@BINDIR@|$(BINDIR)|g' -e 's|@SBINDIR@|$(SBINDIR)|g' \
			-e 's|@APTCONFDIR@|$(APTCONFDIR)|g' -e 's|@SIDECAR_DIR@|$(SIDECAR_DIR)|g' \
			-e 's|@MULTIARCH@|$(MULTIARCH)|g' contrib/sidecars/$$f.in > build/sidecars/$$f || exit 1; \
	done
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(SBINDIR) $(DESTDIR)$(SYSTEMDUNITDIR) \
		$(DESTDIR)$(APTCONFDIR) $(DESTDIR)$(SYSUSERSDIR)
	install -m 0755 tools/sframe-gen $(DESTDIR)$(BINDIR)/sframe-gen
	install -m 0755 tools/sframe-unwindd $(DESTDIR)$(SBINDIR)/sframe-unwindd
	install -m 0755 build/sidecars/sframe-unwind-sidecars $(DESTDIR)$(SBINDIR)/
	install -m 0644 build/sidecars/sframe-unwind-sidecars.service \
		build/sidecars/sframe-unwind-sidecars.path build/sidecars/sframe-unwindd.service \
		$(DESTDIR)$(SYSTEMDUNITDIR)/
	install -m 0644 build/sidecars/80sframe-unwind-sidecars $(DESTDIR)$(APTCONFDIR)/
	install -m 0644 contrib/sidecars/sframe-unwind.sysusers.conf \
		$(DESTDIR)$(SYSUSERSDIR)/sframe-unwind.conf
ifeq ($(ENABLE_SIDECARS),yes)
ifeq ($(DESTDIR),)
# The daemon's user; without systemd-sysusers the daemon converts as nobody.
	if command -v systemd-sysusers > /dev/null; then \
		systemd-sysusers $(SYSUSERSDIR)/sframe-unwind.conf; \
	else \
		echo "no systemd-sysusers: sframe-unwindd will convert as nobody"; \
	fi
endif
	if [ -d /run/systemd/system ]; then \
		systemctl daemon-reload && systemctl enable --now $(SIDECAR_UNIT) && \
		systemctl enable $(SIDECAR_BOOT_UNIT) && \
		systemctl enable --now $(SIDECAR_DAEMON_UNIT); \
	fi
	$(SBINDIR)/sframe-unwind-sidecars
endif

uninstall-sidecars:
ifeq ($(ENABLE_SIDECARS),yes)
	if [ -d /run/systemd/system ]; then \
		systemctl disable --now $(SIDECAR_UNIT) $(SIDECAR_BOOT_UNIT) \
			$(SIDECAR_DAEMON_UNIT) || true; \
	fi
endif
	rm -f $(DESTDIR)$(BINDIR)/sframe-gen $(DESTDIR)$(SBINDIR)/sframe-unwind-sidecars \
		$(DESTDIR)$(SBINDIR)/sframe-unwindd \
		$(DESTDIR)$(SYSTEMDUNITDIR)/sframe-unwind-sidecars.service \
		$(DESTDIR)$(SYSTEMDUNITDIR)/sframe-unwindd.service \
		$(DESTDIR)$(SYSTEMDUNITDIR)/sframe-unwind-sidecars.path \
		$(DESTDIR)$(APTCONFDIR)/80sframe-unwind-sidecars \
		$(DESTDIR)$(SYSUSERSDIR)/sframe-unwind.conf
ifeq ($(ENABLE_SIDECARS),yes)
	if [ -d /run/systemd/system ]; then systemctl daemon-reload; fi
endif

clean:
	rm -rf build
	[ ! -f tools/Makefile ] || $(MAKE) -C tools clean

help:
	@sed -n '3,36p' Makefile | sed 's/^# \{0,1\}//'
