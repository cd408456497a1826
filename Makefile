# SPDX-License-Identifier: GPL-2.0
#
# cxen: out-of-tree build and the project's commands. See README.md.
#   make          build cxen.ko and sim/cxsim.ko against KDIR (in place)
#   make deps     install every package the project needs (idempotent)
#   make demo     build, boot the stock kernel, run traffic, print counters
#   make check    every test; last line "N passed, N failed"
#   make kunit    KUnit suites in the debug kernel
#   make bench    the seeds' tables side by side, plots (bench/run; ~55 min)
#   make bench QUICK=1   a short run of the same (~7 min)
#   make profile [WORKLOADS=tcp1,tcp16,rr1,udp64,xdpdrop] [LAYOUTS=default,...]
#                [DURATION=3] [REPS=1] [MODEL=fast-0]
#                 guest instructions and memory accesses per packet, per
#                 part (driver RX/TX/other, model, stack, rest) and per
#                 function, counted by the cxprof QEMU plugin under
#                 -icount (CXEN_PROFILE=ftrace: the function_graph CPU
#                 profile) (bench/profile)
#   make soak [OPS=1000] [SEED=S] [SOAK_KERNEL=debug]
#                 seeded random reconfiguration/fault/reload soak under
#                 traffic (tests/reliability/soak.sh); last line
#                 "soak: N ops, seed S, ok"
#   make vm-modules FLAVOR=stock|debug
#                 build the modules for a VM kernel in build/<flavor>/
#   make install  modules_install into /lib/modules/<KVER>/extra, depmod
#                 (INSTALL_MOD_PATH= or DESTDIR= stage it elsewhere)
#   make dkms-install / dkms-remove
#                 register a copy in /usr/src/cxen-<version> with DKMS,
#                 build and install it for KVER (default: the running
#                 kernel) / remove it from DKMS for every kernel

ifneq ($(KERNELRELEASE),)
include $(src)/Kbuild
else

PWD := $(CURDIR)
# The one place the version is set: Kbuild (MODULE_VERSION, ethtool -i)
# and dkms.conf read the same file.
CXEN_VERSION := $(shell cat $(CURDIR)/VERSION)
# KVER=<release> picks that kernel's build dir.
ifdef KVER
KDIR ?= /lib/modules/$(KVER)/build
endif
# The running kernel's build dir when it exists, else Debian's 6.12 headers.
KDIR ?= $(shell if [ -d /lib/modules/$$(uname -r)/build ]; then \
		echo /lib/modules/$$(uname -r)/build; \
	else \
		ls -d /usr/src/linux-headers-6.12.*-amd64 2>/dev/null | sort -V | tail -1; \
	fi)
FLAVOR ?= stock
OPS ?= 1000
SEED ?=
SOAK_KERNEL ?= debug
# Out of tree no Kconfig sets these; on the command line they reach the
# sub-directory builds (sim/) too.
CXEN_CONFIG := CONFIG_CXEN=m CONFIG_CXSIM=m

all: modules

modules:
	@test -n "$(KDIR)" || { echo "no kernel headers: run 'make deps'" >&2; exit 1; }
	$(MAKE) -C $(KDIR) M=$(PWD) $(CXEN_CONFIG) modules

clean:
	@if [ -n "$(KDIR)" ]; then $(MAKE) -C $(KDIR) M=$(PWD) clean; fi
	rm -rf build

# make install: what `make modules_install` does for in-tree drivers, into
# extra/. The headers have no System.map, so kbuild skips depmod: run it.
INSTALL_MOD_PATH ?= $(DESTDIR)
KRELEASE = $(shell cat $(KDIR)/include/config/kernel.release 2>/dev/null)
# Distribution headers have no signing key: do not try (and print SSL
# errors) when there is none; DKMS signs with its own key.
CXEN_NOSIGN = $(if $(wildcard $(KDIR)/certs/signing_key.x509),,CONFIG_MODULE_SIG_ALL=)

install: modules
	@test -n "$(KRELEASE)" || { echo "no kernel release in $(KDIR)" >&2; exit 1; }
	$(MAKE) -C $(KDIR) M=$(PWD) $(CXEN_CONFIG) INSTALL_MOD_DIR=extra \
		INSTALL_MOD_PATH=$(INSTALL_MOD_PATH) $(CXEN_NOSIGN) modules_install
	depmod -a $(if $(INSTALL_MOD_PATH),-b $(INSTALL_MOD_PATH)) \
		$(if $(wildcard /boot/System.map-$(KRELEASE)),-F /boot/System.map-$(KRELEASE)) \
		$(KRELEASE)

# DKMS: a copy of the sources in $(DKMS_SOURCE_TREE)/cxen-<version>, then
# dkms add, build, install for DKMS_KVER. DKMS_FLAGS passes dkms options
# (e.g. --dkmstree, --installtree, --no-depmod: scripts/check-install).
DKMS ?= dkms
DKMS_FLAGS ?=
DKMS_SOURCE_TREE ?= /usr/src
DKMS_KVER := $(or $(KVER),$(shell uname -r))
DKMS_SRC := $(DKMS_SOURCE_TREE)/cxen-$(CXEN_VERSION)
DKMS_FILES := VERSION dkms.conf Kbuild Kconfig Makefile \
	$(wildcard *.c *.h) sim tests/kunit

dkms-install: dkms-remove
	mkdir -p $(DKMS_SRC)
	cp -a --parents $(DKMS_FILES) $(DKMS_SRC)/
	find $(DKMS_SRC) \( -name '*.o' -o -name '*.ko' -o -name '*.mod*' -o -name '.*.cmd' \
		-o -name '*.symvers' -o -name modules.order \) -delete
	$(DKMS) add $(DKMS_FLAGS) --sourcetree $(DKMS_SOURCE_TREE) $(DKMS_SRC)
	$(DKMS) build $(DKMS_FLAGS) --sourcetree $(DKMS_SOURCE_TREE) -m cxen -v $(CXEN_VERSION) -k $(DKMS_KVER)
	$(DKMS) install $(DKMS_FLAGS) --sourcetree $(DKMS_SOURCE_TREE) -m cxen -v $(CXEN_VERSION) -k $(DKMS_KVER)

# Every kernel this version was installed for, the registration, the copy.
dkms-remove:
	if [ -n "$$($(DKMS) status $(DKMS_FLAGS) -m cxen -v $(CXEN_VERSION))" ]; then \
		$(DKMS) remove $(DKMS_FLAGS) --sourcetree $(DKMS_SOURCE_TREE) -m cxen -v $(CXEN_VERSION) --all; \
	fi
	rm -rf $(DKMS_SRC)

deps:
	@scripts/deps

vm-modules:
	@scripts/build-modules $(FLAVOR)

kunit: deps
	@scripts/kunit

check: deps
	@scripts/check

demo: deps
	@scripts/demo.sh

bench: deps
	@bench/run $(if $(filter 1,$(QUICK)),--quick)

profile: deps
	@bench/profile $(if $(WORKLOADS),--workloads $(WORKLOADS)) \
		$(if $(LAYOUTS),--layouts $(LAYOUTS)) \
		$(if $(DURATION),--duration $(DURATION)) $(if $(REPS),--reps $(REPS)) \
		$(if $(MODEL),--model $(MODEL))

soak: deps
	@tests/reliability/soak.sh $(OPS) $(SEED) --kernel $(SOAK_KERNEL)

.PHONY: all modules clean deps vm-modules kunit check demo install dkms-install dkms-remove bench profile soak
endif
