#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Frames through XDP programs, and what arrives (tests/integration/xdp.sh).

    xdp-frames.py serve IN_FIFO OUT_FIFO YNL_DIR NETDEV_SPEC BPFFS TRACE_DIR

One process for the whole test (starting python costs seconds in a busy
emulated guest): it reads one command a line from IN_FIFO and writes one
reply line to OUT_FIFO ("error: ..." when a command failed). It moves
between network namespaces with setns(2) and keeps a socket in each for
ethtool's ioctl. Commands:

  udp SRC_NS DST_IP PORT RECV_NS RECV_PORT COUNT SIZE WATCH_NS WATCH_DEV
      COUNT UDP datagrams of SIZE payload bytes from SRC_NS to
      DST_IP:PORT; a socket in RECV_NS bound to RECV_PORT, made first,
      receives (RECV_NS "echo": the sender's own socket, for an XDP_TX
      reflector). Each payload is an 8-byte nonce, a 4-byte sequence number
      and bytes derived from both, so each datagram received is checked
      against the one sent. It waits until all arrived, or until
      WATCH_DEV's rx_packets (the port whose program takes them) moved by
      COUNT and nothing more came for a second, 15 s at most. Reply:
      "sent N received M intact K sha256 sent S received R" (R over the
      intact ones in sequence order: S = R when all arrived intact).
  raw SRC_NS SRC_DEV DST_NS DST_DEV KIND COUNT SIZE
      COUNT Ethernet frames of SIZE bytes from SRC_DEV to DST_DEV's MAC, of
      the ethertype that asks xdp_act (tests/xdp/) for an edit (KIND):
        head   0x88b5 frames carrying a whole 0x88b9 frame after their
               header: the program strips the outer header; the 0x88b9
               frame must arrive
        tail-  0x88b6, bpf_xdp_adjust_tail(-16): 16 bytes fewer arrive
        tail+  0x88b7, bpf_xdp_adjust_tail(+16) written "cxen-xdp-tail+16":
               16 bytes more, ending with it
        meta   0x88b8, bpf_xdp_adjust_meta(-4), the metadata payload[0:4]
               XOR 0x5a5a5a5a, copied to payload[4:8] by tc_meta.bpf.c at
               DST_DEV's ingress (see tcx)
      An AF_PACKET socket bound to the ethertype expected (so after tc
      ingress) receives; each frame must be exactly what the edit makes of
      the one sent. Reply: "KIND sent N received M ok K" [first bad one].
  stats NS DEV        ethtool -S of DEV: "name=value ..."
  pstats INST         the stats map of program instance INST (pinned in
                      BPFFS/INST/): "slot=value ..."
  cfg INST ACT PORT NEWPORT    its cfg map (xdp_test.h)
  devmap INST NS DEV  slot 0 of its devmap tx_port: DEV of netns NS
  tcx NS DEV PROG LINK
      attach the tc program pinned at PROG to DEV's ingress as a tcx link
      (BPF_LINK_CREATE, BPF_TCX_INGRESS: the debug kernel has no
      sch_ingress for tc(8)), pinned at LINK: it goes with DEV
  trace REGEX         lines of TRACE_DIR/trace matching REGEX; the buffer
                      is cleared
  features NS DEV     DEV's xdp-features (netlink dev-get), sorted
  pools NS SECONDS    wait up to SECONDS until no page_pool of netns NS
                      holds pages (netlink page-pool-get): "ok", or the
                      pools that still do
  dpools NS SECONDS   the same for the pools already detached (destroyed
                      by the driver, waiting for their pages): the
                      live ones keep the pages posted to their RQs
  forget              drop the sockets kept per netns (they were deleted)
  rxmeta SRC_NS DST_IP PORT SPORT COUNT KEY
      COUNT datagrams from SRC_NS's UDP port SPORT to DST_IP:PORT, which
      xdp_rxmeta (tests/xdp/, pinned in BPFFS/rxmeta/) watches; waits
      until it saw COUNT more (10 s at most). Reply: "seen=N hash_err=E
      hash=H hash_type=T vlan_err=E vlan_proto=P vlan_tci=C want=W", the
      kfuncs' answers for the last one and W the Toeplitz hash of its
      4-tuple under the RSS key KEY (hex, colons allowed)
"""

import ctypes
import fcntl
import hashlib
import os
import re
import socket
import struct
import sys
import time

from cxnetns import enter_netns

RCVBUF = 32 << 20
SO_RCVBUFFORCE = 33

ETH_P = {"head": 0x88B5, "tail-": 0x88B6, "tail+": 0x88B7, "meta": 0x88B8}
ETH_P_INNER = 0x88B9
TAIL_MARK = b"cxen-xdp-tail+16"
META_XOR = 0x5A

# bpf(2), include/uapi/linux/bpf.h of 6.12
BPF_MAP_LOOKUP_ELEM = 1
BPF_MAP_UPDATE_ELEM = 2
BPF_OBJ_PIN = 6
BPF_OBJ_GET = 7
BPF_LINK_CREATE = 28
BPF_TCX_INGRESS = 46
NR_BPF = 321  # x86-64

# ethtool ioctl, include/uapi/linux/ethtool.h
SIOCETHTOOL = 0x8946
ETHTOOL_GSTRINGS = 0x1B
ETHTOOL_GSTATS = 0x1D
ETHTOOL_GSSET_INFO = 0x37
ETH_SS_STATS = 1
ETH_GSTRING_LEN = 32

libc = ctypes.CDLL(None, use_errno=True)


class Ctx:
    """What the server keeps between commands."""

    def __init__(self, ynl_dir, spec, bpffs, trace_dir):
        self.ynl_dir = ynl_dir
        self.spec = spec
        self.bpffs = bpffs
        self.trace_dir = trace_dir
        self.socks = {}
        self.ynl = {}
        self.fds = {}


def bpf(cmd, attr):
    buf = ctypes.create_string_buffer(attr, 152)
    ret = libc.syscall(NR_BPF, cmd, buf, 152)
    if ret < 0:
        err = ctypes.get_errno()
        raise OSError(err, f"bpf({cmd}): {os.strerror(err)}")
    return ret


def obj_get(ctx, path):
    if path not in ctx.fds:
        p = ctypes.create_string_buffer(path.encode())
        ctx.fds[path] = bpf(BPF_OBJ_GET,
                            struct.pack("=QIII", ctypes.addressof(p), 0, 0, 0))
    return ctx.fds[path]


def map_lookup(fd, key, vsize):
    k = ctypes.create_string_buffer(struct.pack("=I", key))
    v = ctypes.create_string_buffer(vsize)
    bpf(BPF_MAP_LOOKUP_ELEM, struct.pack("=IIQQQ", fd, 0, ctypes.addressof(k),
                                         ctypes.addressof(v), 0))
    return v.raw


def map_update(fd, key, value):
    k = ctypes.create_string_buffer(struct.pack("=I", key))
    v = ctypes.create_string_buffer(value)
    bpf(BPF_MAP_UPDATE_ELEM, struct.pack("=IIQQQ", fd, 0, ctypes.addressof(k),
                                         ctypes.addressof(v), 0))


def ns_sock(ctx, ns):
    """A socket in netns NS, for ioctls on its devices."""
    if ns not in ctx.socks:
        enter_netns(ns)
        ctx.socks[ns] = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    return ctx.socks[ns]


def ethtool(sock, dev, buf):
    ifr = struct.pack("16sQ16x", dev.encode(), ctypes.addressof(buf))
    fcntl.ioctl(sock.fileno(), SIOCETHTOOL, ifr)


def stats(ctx, ns, dev):
    """ethtool -S of DEV in NS, as a dict."""
    sock = ns_sock(ctx, ns)
    info = ctypes.create_string_buffer(struct.pack("=IIQI", ETHTOOL_GSSET_INFO,
                                                   0, 1 << ETH_SS_STATS, 0))
    ethtool(sock, dev, info)
    n = struct.unpack_from("=I", info.raw, 16)[0]
    names = ctypes.create_string_buffer(
        struct.pack("=III", ETHTOOL_GSTRINGS, ETH_SS_STATS, n) +
        bytes(n * ETH_GSTRING_LEN))
    ethtool(sock, dev, names)
    vals = ctypes.create_string_buffer(struct.pack("=II", ETHTOOL_GSTATS, n) +
                                       bytes(n * 8))
    ethtool(sock, dev, vals)
    out = {}
    for i in range(n):
        name = names.raw[12 + i * ETH_GSTRING_LEN:12 + (i + 1) * ETH_GSTRING_LEN]
        out[name.rstrip(b"\0").decode()] = struct.unpack_from("=Q", vals.raw,
                                                              8 + i * 8)[0]
    return out


def payload(nonce, seq, size):
    head = nonce + struct.pack("!I", seq)
    fill = hashlib.sha256(head).digest()
    body = (fill * (size // len(fill) + 1))[: max(size - len(head), 0)]
    return (head + body)[:size]


def send_all(sock, frames, dest=None):
    """Send each frame, waiting out a full socket buffer (15 s at most)."""
    deadline = time.monotonic() + 15
    sock.setblocking(False)
    for i, f in enumerate(frames):
        while True:
            try:
                if dest is None:
                    sock.send(f)
                else:
                    sock.sendto(f, dest)
                break
            except BlockingIOError:
                if time.monotonic() > deadline:
                    raise TimeoutError(f"cannot send frame {i}: buffer full")
                time.sleep(0.002)
        if i % 32 == 31:
            time.sleep(0.002)


def receive(sock, want, accept, settled):
    """Call accept(data) per datagram until WANT were accepted, or until
    settled() has held for a second with none accepted meanwhile (the
    driver counts a frame before it delivers it, and a busy guest may
    take a while in between); 15 s at most."""
    got = 0
    sock.settimeout(0.1)
    start = last = time.monotonic()
    since = None
    while got < want and time.monotonic() - start < 15:
        now = time.monotonic()
        if since is None and settled():
            since = now
        if since is not None and now - max(since, last) > 1.0:
            break
        try:
            data = sock.recv(65536)
        except socket.timeout:
            continue
        if accept(data):
            got += 1
            last = time.monotonic()
    return got


def settle_on(ctx, ns, dev, count):
    """A settled() for receive(): DEV's rx_packets moved by COUNT."""
    base = stats(ctx, ns, dev)["rx_packets"]
    return lambda: stats(ctx, ns, dev)["rx_packets"] - base >= count


def cmd_udp(ctx, src_ns, dst_ip, port, recv_ns, recv_port, count, size,
            watch_ns, watch_dev):
    port, recv_port, count, size = int(port), int(recv_port), int(count), int(size)
    nonce = os.urandom(8)
    settled = settle_on(ctx, watch_ns, watch_dev, count)
    rx = None
    if recv_ns != "echo":
        enter_netns(recv_ns)
        rx = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        rx.setsockopt(socket.SOL_SOCKET, SO_RCVBUFFORCE, RCVBUF)
        rx.bind(("0.0.0.0", recv_port))
    enter_netns(src_ns)
    tx = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    tx.setsockopt(socket.SOL_SOCKET, SO_RCVBUFFORCE, RCVBUF)
    tx.bind(("0.0.0.0", 0))
    rx = rx or tx
    try:
        sent = [payload(nonce, i, size) for i in range(count)]
        send_all(tx, sent, (dst_ip, port))
        seen = {}

        def accept(data):
            if data[:8] != nonce or len(data) < 12:
                return False
            seq = struct.unpack("!I", data[8:12])[0]
            if seq >= count or seq in seen:
                return False
            seen[seq] = data == sent[seq]
            return True

        got = receive(rx, count, accept, settled)
    finally:
        tx.close()
        if rx is not tx:
            rx.close()
    intact = [s for s, ok in sorted(seen.items()) if ok]
    h_sent = hashlib.sha256(b"".join(sent)).hexdigest()[:16]
    h_recv = hashlib.sha256(b"".join(sent[s] for s in intact)).hexdigest()[:16]
    res = (f"sent {count} received {got} intact {len(intact)} "
           f"sha256 sent {h_sent} received {h_recv}")
    missing = [i for i in range(count) if not seen.get(i)]
    if missing and got:
        res += f" missing {missing[:10]}"
    return res


def cmd_raw(ctx, src_ns, src_dev, dst_ns, dst_dev, kind, count, size):
    count, size = int(count), int(size)
    nonce = os.urandom(8)
    proto = ETH_P[kind]
    want_proto = ETH_P_INNER if kind == "head" else proto
    settled = settle_on(ctx, dst_ns, dst_dev, count)
    enter_netns(dst_ns)
    rx = socket.socket(socket.AF_PACKET, socket.SOCK_RAW,
                       socket.htons(want_proto))
    rx.setsockopt(socket.SOL_SOCKET, SO_RCVBUFFORCE, RCVBUF)
    rx.bind((dst_dev, want_proto))
    dst = rx.getsockname()[4]
    enter_netns(src_ns)
    tx = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
    tx.bind((src_dev, 0))
    src = tx.getsockname()[4]

    expect, frames = {}, []
    for seq in range(count):
        p = payload(nonce, seq, size - 14)
        if kind == "meta":
            p = struct.pack("!I", seq) + b"\0\0\0\0" + nonce + p[16:]
        frame = dst + src + struct.pack("!H", proto) + p
        if kind == "head":
            inner = dst + src + struct.pack("!H", ETH_P_INNER) + p[:-14]
            frame = dst + src + struct.pack("!H", proto) + inner
            want = inner
        elif kind == "tail-":
            want = frame[:-16]
        elif kind == "tail+":
            want = frame + TAIL_MARK
        else:
            m = bytes(b ^ META_XOR for b in p[0:4])
            want = frame[:18] + m + frame[22:]
        expect[seq] = want
        frames.append(frame)
    seen, bad = {}, []

    def accept(data):
        if kind == "meta":
            if data[22:30] != nonce:
                return False
            seq = struct.unpack("!I", data[14:18])[0]
        else:
            if len(data) < 26 or data[14:22] != nonce:
                return False
            seq = struct.unpack("!I", data[22:26])[0]
        if seq >= count or seq in seen:
            return False
        seen[seq] = data == expect[seq]
        if not seen[seq] and not bad:
            bad.append(f"seq {seq} len {len(data)} want {len(expect[seq])} "
                       f"tail {data[-20:].hex()} want {expect[seq][-20:].hex()}")
        return True

    try:
        send_all(tx, frames)
        got = receive(rx, count, accept, settled)
    finally:
        tx.close()
        rx.close()
    ok = sum(1 for v in seen.values() if v)
    res = f"{kind} sent {count} received {got} ok {ok}"
    if bad:
        res += " first bad: " + bad[0]
    return res


def cmd_stats(ctx, ns, dev):
    return " ".join(f"{k}={v}" for k, v in stats(ctx, ns, dev).items())


def cmd_pstats(ctx, inst):
    fd = obj_get(ctx, f"{ctx.bpffs}/{inst}/stats")
    vals = []
    for k in range(6):
        vals.append(f"{k}={struct.unpack('=Q', map_lookup(fd, k, 8))[0]}")
    return " ".join(vals)


def cmd_cfg(ctx, inst, act, port, newport):
    fd = obj_get(ctx, f"{ctx.bpffs}/{inst}/cfg")
    for k, v in enumerate((act, port, newport)):
        map_update(fd, k, struct.pack("=I", int(v)))
    return "ok"


def cmd_devmap(ctx, inst, ns, dev):
    enter_netns(ns)
    fd = obj_get(ctx, f"{ctx.bpffs}/{inst}/tx_port")
    map_update(fd, 0, struct.pack("=I", socket.if_nametoindex(dev)))
    return "ok"


def cmd_tcx(ctx, ns, dev, prog, link):
    enter_netns(ns)
    prog_fd = obj_get(ctx, prog)
    link_fd = bpf(BPF_LINK_CREATE,
                  struct.pack("=IIIIIIQ", prog_fd, socket.if_nametoindex(dev),
                              BPF_TCX_INGRESS, 0, 0, 0, 0))
    path = ctypes.create_string_buffer(link.encode())
    bpf(BPF_OBJ_PIN, struct.pack("=QII", ctypes.addressof(path), link_fd, 0))
    os.close(link_fd)
    return "ok"


def cmd_trace(ctx, regex):
    with open(f"{ctx.trace_dir}/trace") as f:
        n = sum(1 for line in f if re.search(regex, line))
    with open(f"{ctx.trace_dir}/trace", "w") as f:
        f.write("\n")
    return str(n)


def ynl_of(ctx, ns):
    if ns not in ctx.ynl:
        if ctx.ynl_dir not in sys.path:
            sys.path.insert(0, ctx.ynl_dir)
        from lib import YnlFamily  # pylint: disable=import-outside-toplevel
        enter_netns(ns)
        ctx.ynl[ns] = YnlFamily(ctx.spec, '')
    return ctx.ynl[ns]


def cmd_features(ctx, ns, dev):
    ynl = ynl_of(ctx, ns)
    enter_netns(ns)
    dev_info = ynl.do("dev-get", {"ifindex": socket.if_nametoindex(dev)})
    return " ".join(sorted(dev_info["xdp-features"]))


def cmd_pools(ctx, ns, seconds, detached=False):
    ynl = ynl_of(ctx, ns)
    deadline = time.monotonic() + float(seconds)
    while True:
        held = [p for p in ynl.dump("page-pool-get", {}) if p.get("inflight")
                and (not detached or "detach-time" in p)]
        if not held:
            return "ok"
        if time.monotonic() > deadline:
            return f"held: {held}"
        time.sleep(0.2)


def cmd_dpools(ctx, ns, seconds):
    return cmd_pools(ctx, ns, seconds, detached=True)


def toeplitz(key, data):
    """The Toeplitz hash of DATA under KEY (Microsoft's RSS definition)."""
    k, klen, h = int.from_bytes(key, "big"), len(key) * 8, 0
    for i, byte in enumerate(data):
        for b in range(8):
            if byte & (0x80 >> b):
                h ^= (k >> (klen - 32 - (i * 8 + b))) & 0xffffffff
    return h


# xdp_rxmeta's meta[] slots (tests/xdp/xdp_rxmeta.bpf.c)
RXMETA = ("seen", "hash_err", "hash", "hash_type", "vlan_err", "vlan_proto",
          "vlan_tci")


def cmd_rxmeta(ctx, src_ns, dst_ip, port, sport, count, key):
    """COUNT datagrams from SRC_NS's port SPORT to DST_IP:PORT; what
    xdp_rxmeta (pinned as rxmeta) saw of the last, and the Toeplitz hash
    of its 4-tuple under KEY (hex) as "want"."""
    port, sport, count = int(port), int(sport), int(count)
    fd = obj_get(ctx, f"{ctx.bpffs}/rxmeta/meta")

    def meta():
        return {n: struct.unpack("=q", map_lookup(fd, i, 8))[0]
                for i, n in enumerate(RXMETA)}

    seen0 = meta()["seen"]
    enter_netns(src_ns)
    # The source address the route picks (a connected socket tells), then
    # an unconnected one sends: nothing listens, and an ICMP error on a
    # connected socket would fail the next send.
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        probe.connect((dst_ip, port))
        src_ip = probe.getsockname()[0]
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as tx:
        tx.bind((src_ip, sport))
        for i in range(count):
            tx.sendto(b"rxmeta %d" % i, (dst_ip, port))
    deadline = time.monotonic() + 10
    while True:
        m = meta()
        if m["seen"] - seen0 >= count or time.monotonic() > deadline:
            break
        time.sleep(0.05)
    m["seen"] -= seen0
    tup = (socket.inet_aton(src_ip) + socket.inet_aton(dst_ip) +
           struct.pack("!HH", sport, port))
    m["want"] = toeplitz(bytes.fromhex(key.replace(":", "")), tup)
    return " ".join(f"{k}={v}" for k, v in m.items())


def cmd_forget(ctx):
    for s in ctx.socks.values():
        s.close()
    ctx.socks.clear()
    ctx.ynl.clear()
    return "ok"


COMMANDS = {
    "udp": cmd_udp, "raw": cmd_raw, "stats": cmd_stats, "pstats": cmd_pstats,
    "cfg": cmd_cfg, "devmap": cmd_devmap, "tcx": cmd_tcx, "trace": cmd_trace,
    "features": cmd_features, "pools": cmd_pools, "dpools": cmd_dpools,
    "forget": cmd_forget,
    "rxmeta": cmd_rxmeta,
}


def serve(in_fifo, out_fifo, ynl_dir, spec, bpffs, trace_dir):
    ctx = Ctx(ynl_dir, spec, bpffs, trace_dir)
    with open(in_fifo) as cmds, open(out_fifo, "w") as replies:
        for line in cmds:
            words = line.split()
            if not words:
                continue
            try:
                fn = COMMANDS[words[0]]
                reply = fn(ctx, *words[1:])
            except Exception as e:  # pylint: disable=broad-except
                reply = f"error: {words[0]}: {type(e).__name__}: {e}"
            replies.write(reply.replace("\n", " ") + "\n")
            replies.flush()


def main(argv):
    if len(argv) == 8 and argv[1] == "serve":
        serve(*argv[2:8])
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
