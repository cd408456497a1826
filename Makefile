# SPDX-License-Identifier: GPL-2.0
#
# cxen: out-of-tree build and the project's commands. See README.md.
#   make          build cxen.ko and sim/cxsim.ko against KDIR (in place)
#   make deps     install every package the project needs (idempotent)
#   make demo     build, boot the stock kernel, run traffic, print counters
#   make check    every test; last line "N passed, N failed"
#   make kunit    KUnit suites in the debug kernel
#   make soak [OPS=1000] [SEED=S] [SOAK_KERNEL=debug]
#                 seeded random reconfiguration/fault/reload soak under
#                 traffic (tests/reliability/soak.sh); last line
#                 "soak: N ops, seed S, ok"
#   make vm-modules FLAVOR=stock|debug
#                 build the modules for a VM kernel in build/<flavor>/

ifneq ($(KERNELRELEASE),)
include $(src)/Kbuild
else

PWD := $(CURDIR)
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

soak: deps
	@tests/reliability/soak.sh $(OPS) $(SEED) --kernel $(SOAK_KERNEL)

.PHONY: all modules clean deps vm-modules kunit check demo soak
endif
