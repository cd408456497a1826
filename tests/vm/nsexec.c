// SPDX-License-Identifier: GPL-2.0
/*
 * nsexec NETNS COMMAND [ARG]...: what `ip netns exec NETNS COMMAND` does
 * for the tests, in a static binary (the test VM's PATH has it, built by
 * tests/vm/run).
 *
 * Under TCG a dynamically linked program costs tens of milliseconds to
 * start (its libraries' relocations and page faults, emulated): ip(8)
 * links ten libraries, and `ip netns exec cx0 true` took 83 ms against
 * 40 ms for `nsexec cx0 true`, measured side by side in one stock VM.
 * The tests run a few thousand commands in the pair's namespaces.
 *
 * The same steps as iproute2's netns_switch(): join the named network
 * namespace (/run/netns/NETNS), take a mount namespace of its own with
 * the mounts made slaves (nothing propagates back), and mount a sysfs
 * there over /sys so that /sys/class/net shows the namespace's devices.
 * Not done: iproute2's bind mounts of /etc/netns/NETNS/ (the tests have
 * none) and its VRF reset.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/statvfs.h>
#include <unistd.h>

static int fail(const char *what, const char *name)
{
	fprintf(stderr, "nsexec: %s %s: %s\n", what, name, strerror(errno));
	return 1;
}

int main(int argc, char **argv)
{
	unsigned long flags = 0;
	struct statvfs sys;
	char path[4096];
	int fd;

	if (argc < 3 || strchr(argv[1], '/')) {
		fprintf(stderr, "usage: nsexec NETNS COMMAND [ARG]...\n");
		return 2;
	}
	snprintf(path, sizeof(path), "/run/netns/%s", argv[1]);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return fail("cannot open", path);
	if (setns(fd, CLONE_NEWNET))
		return fail("cannot join the network namespace", argv[1]);
	close(fd);
	if (unshare(CLONE_NEWNS))
		return fail("cannot unshare the mount namespace for", argv[1]);
	if (mount("", "/", "none", MS_SLAVE | MS_REC, NULL))
		return fail("cannot make / a slave mount for", argv[1]);
	/*
	 * A sysfs of this namespace, read-only if the old one was; as in
	 * iproute2, no sysfs on /sys before is no error.
	 */
	if (!statvfs("/sys", &sys) && (sys.f_flag & ST_RDONLY))
		flags = MS_RDONLY;
	umount2("/sys", MNT_DETACH);
	if (mount(argv[1], "/sys", "sysfs", flags, NULL))
		return fail("cannot mount a sysfs for", argv[1]);
	execvp(argv[2], argv + 2);
	fprintf(stderr, "nsexec: %s: %s\n", argv[2], strerror(errno));
	return errno == ENOENT ? 127 : 126;
}
