// SPDX-License-Identifier: GPL-2.0
/*
 * rr: request/response ping-pong over TCP or UDP (netperf TCP_RR/UDP_RR
 * shape), one connection, one transaction in flight.
 *
 *   rr -s [-u] [-b ADDR] [-p PORT]              server: echo every request
 *                                              (TCP: a child per connection)
 *   rr -c ADDR [-u] [-p PORT] [-l BYTES] [-t SECONDS] [-w WARMUP_SECONDS]
 *                                              client
 *
 * The client sends BYTES, waits for BYTES back, and repeats for SECONDS
 * after a WARMUP of transactions that are not counted. It counts every
 * transaction it completes in its window, which runs from the start of the
 * first counted transaction to the end of the last one, and reads
 * /proc/stat at both ends of that window (outside any transaction). It
 * prints one JSON object: transactions (counted, not estimated), seconds
 * (the window), transactions/s (the two divided), round-trip latency
 * percentiles in microseconds over those transactions, the CPU time of the
 * whole machine in that window (clock ticks: busy, total, ticks per
 * second), UDP timeouts (a request or reply lost: the request is sent
 * again after 200 ms; that transaction is not counted, its time is in the
 * window). TCP sets TCP_NODELAY on both ends. Exit status 0 on success.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define MAX_LEN 65507

static int udp;
static const char *addr;
static const char *port = "5301";
static size_t len = 1;
static double secs = 5, warmup = 0.5;

static void die(const char *what)
{
	fprintf(stderr, "rr: %s: %s\n", what, strerror(errno));
	exit(1);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static struct addrinfo *resolve(const char *host, int passive)
{
	struct addrinfo hints = { 0 }, *ai;
	int err;

	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = udp ? SOCK_DGRAM : SOCK_STREAM;
	hints.ai_flags = passive ? AI_PASSIVE : 0;
	err = getaddrinfo(host, port, &hints, &ai);
	if (err) {
		fprintf(stderr, "rr: %s: %s\n", host ? host : "*", gai_strerror(err));
		exit(1);
	}
	return ai;
}

static void nodelay(int fd)
{
	int one = 1;

	if (setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one)))
		die("TCP_NODELAY");
}

/* Exactly n bytes; 0 on EOF before any byte, -1 on error or short EOF. */
static int read_full(int fd, char *buf, size_t n)
{
	size_t got = 0;

	while (got < n) {
		ssize_t r = read(fd, buf + got, n - got);

		if (r == 0)
			return got ? -1 : 0;
		if (r < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		got += r;
	}
	return 1;
}

static int write_full(int fd, const char *buf, size_t n)
{
	size_t put = 0;

	while (put < n) {
		ssize_t w = write(fd, buf + put, n - put);

		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		put += w;
	}
	return 0;
}

static void serve(void)
{
	static char buf[MAX_LEN];
	struct addrinfo *ai = resolve(addr, 1);
	int one = 1, fd;

	fd = socket(ai->ai_family, ai->ai_socktype, 0);
	if (fd < 0)
		die("socket");
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, ai->ai_addr, ai->ai_addrlen))
		die("bind");
	if (udp) {
		for (;;) {
			struct sockaddr_storage peer;
			socklen_t pl = sizeof(peer);
			ssize_t r = recvfrom(fd, buf, sizeof(buf), 0,
					     (struct sockaddr *)&peer, &pl);

			if (r < 0) {
				if (errno == EINTR)
					continue;
				die("recvfrom");
			}
			if (sendto(fd, buf, r, 0, (struct sockaddr *)&peer, pl) < 0)
				perror("rr: sendto");
		}
	}
	if (listen(fd, 16))
		die("listen");
	/* Children are reaped by the kernel. */
	signal(SIGCHLD, SIG_IGN);
	for (;;) {
		int c = accept(fd, NULL, NULL);
		ssize_t r;
		pid_t pid;

		if (c < 0) {
			if (errno == EINTR)
				continue;
			die("accept");
		}
		/*
		 * A child per connection: a new client is served even while
		 * the previous connection's close is still on its way.
		 */
		pid = fork();
		if (pid < 0)
			die("fork");
		if (pid) {
			close(c);
			continue;
		}
		close(fd);
		nodelay(c);
		/* Echo whatever arrives, as it arrives: the client frames it. */
		while ((r = read(c, buf, sizeof(buf))) > 0)
			if (write_full(c, buf, r))
				break;
		_exit(0);
	}
}

/* All CPUs' ticks from /proc/stat's first line: busy and total. */
struct cpu_ticks {
	unsigned long long busy, total;
};

static struct cpu_ticks cpu_ticks(void)
{
	unsigned long long v[8] = { 0 };
	struct cpu_ticks t = { 0, 0 };
	FILE *f = fopen("/proc/stat", "r");
	int i;

	if (!f)
		die("/proc/stat");
	/* user nice system idle iowait irq softirq steal */
	if (fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu",
		   &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7]) != 8) {
		fprintf(stderr, "rr: /proc/stat: unexpected format\n");
		exit(1);
	}
	fclose(f);
	for (i = 0; i < 8; i++)
		t.total += v[i];
	t.busy = t.total - v[3] - v[4];
	return t;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double pct(const double *v, size_t n, double p)
{
	size_t i;

	if (!n)
		return 0;
	i = (size_t)(p / 100.0 * (n - 1) + 0.5);
	return v[i < n ? i : n - 1];
}

static void client(void)
{
	static char req[MAX_LEN], rsp[MAX_LEN];
	struct addrinfo *ai = resolve(addr, 0);
	double t0, t1 = 0, start, end, first = 0, *lat;
	struct cpu_ticks c0 = { 0, 0 }, c1;
	size_t n = 0, cap = 1 << 16;
	unsigned long timeouts = 0;
	int fd, counting = 0;

	lat = malloc(cap * sizeof(*lat));
	if (!lat)
		die("malloc");
	memset(req, 'r', len);
	fd = socket(ai->ai_family, ai->ai_socktype, 0);
	if (fd < 0)
		die("socket");
	if (connect(fd, ai->ai_addr, ai->ai_addrlen))
		die("connect");
	if (!udp)
		nodelay(fd);

	start = now() + warmup;
	end = start + secs;
	for (;;) {
		t0 = now();
		if (t0 >= end)
			break;
		if (!counting && t0 >= start) {
			/* The window opens: CPU ticks first, then the clock. */
			c0 = cpu_ticks();
			counting = 1;
			t0 = now();
			first = t0;
		}
		if (udp) {
			struct pollfd p = { .fd = fd, .events = POLLIN };
			ssize_t r;

			if (send(fd, req, len, 0) < 0)
				die("send");
			if (poll(&p, 1, 200) <= 0) {
				timeouts++;
				continue;
			}
			r = recv(fd, rsp, sizeof(rsp), 0);
			if (r < 0)
				die("recv");
			if ((size_t)r != len) {
				fprintf(stderr, "rr: reply of %zd bytes, sent %zu\n", r, len);
				exit(1);
			}
		} else {
			if (write_full(fd, req, len))
				die("write");
			if (read_full(fd, rsp, len) != 1) {
				fprintf(stderr, "rr: short reply\n");
				exit(1);
			}
		}
		t1 = now();
		if (!counting)
			continue;
		if (n == cap) {
			cap *= 2;
			lat = realloc(lat, cap * sizeof(*lat));
			if (!lat)
				die("realloc");
		}
		lat[n++] = (t1 - t0) * 1e6;
	}
	/* The window closes with the last transaction counted. */
	c1 = cpu_ticks();
	close(fd);
	if (!n) {
		fprintf(stderr, "rr: no transaction completed\n");
		exit(1);
	}
	qsort(lat, n, sizeof(*lat), cmp_double);
	printf("{\"proto\": \"%s\", \"size\": %zu, ", udp ? "udp" : "tcp", len);
	printf("\"transactions\": %zu, \"seconds\": %.6f, \"tps\": %.1f, ",
	       n, t1 - first, n / (t1 - first));
	printf("\"p50_us\": %.1f, \"p90_us\": %.1f, \"p99_us\": %.1f, ",
	       pct(lat, n, 50), pct(lat, n, 90), pct(lat, n, 99));
	printf("\"cpu_busy_ticks\": %llu, \"cpu_total_ticks\": %llu, \"clk_tck\": %ld, ",
	       c1.busy - c0.busy, c1.total - c0.total, sysconf(_SC_CLK_TCK));
	printf("\"timeouts\": %lu}\n", timeouts);
}

static void usage(void)
{
	static const char *const lines[] = {
		"rr -s [-u] [-b ADDR] [-p PORT]",
		"rr -c ADDR [-u] [-p PORT] [-l BYTES] [-t SECONDS] [-w WARMUP]",
	};

	fprintf(stderr, "Usage: %s\n       %s\n", lines[0], lines[1]);
	exit(2);
}

int main(int argc, char **argv)
{
	int opt, server = 0;

	while ((opt = getopt(argc, argv, "sc:ub:p:l:t:w:")) != -1) {
		switch (opt) {
		case 's':
			server = 1;
			break;
		case 'c':
			addr = optarg;
			break;
		case 'b':
			addr = optarg;
			break;
		case 'u':
			udp = 1;
			break;
		case 'p':
			port = optarg;
			break;
		case 'l':
			len = strtoul(optarg, NULL, 0);
			break;
		case 't':
			secs = strtod(optarg, NULL);
			break;
		case 'w':
			warmup = strtod(optarg, NULL);
			break;
		default:
			usage();
		}
	}
	if (optind != argc || len < 1 || len > MAX_LEN || secs <= 0 ||
	    warmup < 0 || (!server && !addr))
		usage();
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (server)
		serve();
	else
		client();
	return 0;
}
