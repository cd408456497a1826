// SPDX-License-Identifier: GPL-2.0
/*
 * Load an XDP program bound to one device (BPF_F_XDP_DEV_BOUND_ONLY), as
 * programs that call the RX metadata kfuncs must be, and pin it with its
 * maps; attach it afterwards with ip link ... xdpdrv pinned DIR/prog.
 * Debian 12's bpftool (7.1) has no xdpmeta_dev, hence this.
 *
 *   xdp_rxmeta_load OBJ PROG IFNAME DIR
 *
 * Run in the device's network namespace. Exit 0 when loaded and pinned;
 * libbpf's and the verifier's messages on stderr otherwise.
 */
#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/libbpf.h>

#ifndef BPF_F_XDP_DEV_BOUND_ONLY
/* include/uapi/linux/bpf.h since Linux 6.3; Debian 12's headers are 6.1 */
#define BPF_F_XDP_DEV_BOUND_ONLY	0x40U
#endif

int main(int argc, char **argv)
{
	struct bpf_program *prog;
	struct bpf_object *obj;
	char path[4096];
	unsigned int ifindex;
	int err;

	if (argc != 5) {
		fprintf(stderr, "usage: %s OBJ PROG IFNAME DIR\n", argv[0]);
		return 2;
	}
	ifindex = if_nametoindex(argv[3]);
	if (!ifindex) {
		fprintf(stderr, "%s: %s\n", argv[3], strerror(errno));
		return 1;
	}
	obj = bpf_object__open_file(argv[1], NULL);
	if (!obj) {
		fprintf(stderr, "%s: cannot open: %s\n", argv[1], strerror(errno));
		return 1;
	}
	prog = bpf_object__find_program_by_name(obj, argv[2]);
	if (!prog) {
		fprintf(stderr, "%s: no program %s\n", argv[1], argv[2]);
		return 1;
	}
	bpf_program__set_ifindex(prog, ifindex);
	bpf_program__set_flags(prog, bpf_program__flags(prog) |
			       BPF_F_XDP_DEV_BOUND_ONLY);
	err = bpf_object__load(obj);
	if (err) {
		fprintf(stderr, "%s: load failed: %s\n", argv[2], strerror(-err));
		return 1;
	}
	err = bpf_object__pin_maps(obj, argv[4]);
	if (!err) {
		snprintf(path, sizeof(path), "%s/prog", argv[4]);
		err = bpf_program__pin(prog, path);
	}
	if (err) {
		fprintf(stderr, "%s: pin failed: %s\n", argv[4], strerror(-err));
		return 1;
	}
	bpf_object__close(obj);
	return 0;
}
