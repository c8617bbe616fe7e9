#!/usr/bin/env python3
"""tests/control_proto.py MODE SOCKET - raw protocol checks of a process's
control endpoint (include/edgeprobe.h section 9) that the edgeprobe command
cannot make: malformed, overlong and binary requests, silent clients, many
clients. Exits 1 with a message on the first failed expectation."""
import socket, sys, threading, time

def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)

def connect(path, timeout=5.0):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(timeout)
    s.connect(path)
    return s

class Conn:
    def __init__(self, path, timeout=5.0):
        self.s = connect(path, timeout)
        self.buf = b""
    def send(self, data):
        self.s.sendall(data)
    def line(self):
        while b"\n" not in self.buf:
            chunk = self.s.recv(65536)
            if not chunk:
                return None
            self.buf += chunk
        line, self.buf = self.buf.split(b"\n", 1)
        return line.decode()
    def ask(self, req):
        self.send(req if isinstance(req, bytes) else req.encode() + b"\n")
        return self.line()
    def listing(self):
        self.send(b"list\n")
        rows = []
        while True:
            l = self.line()
            if l is None:
                fail("connection closed during list")
            if l.startswith("end "):
                if int(l[4:]) != len(rows):
                    fail("end count %s for %d rows" % (l, len(rows)))
                return rows
            f = l.split("\t")
            if len(f) != 10 or f[0] != "probe":
                fail("bad list row %r" % l)
            rows.append(f)
    def states(self):
        return {f[6]: f[3] for f in self.listing()}
    def close(self):
        self.s.close()

def expect_error(c, req, code):
    r = c.ask(req)
    if r is None or not r.startswith("error EDGEPROBE_" + code + " "):
        fail("%r: expected error %s, got %r" % (req[:60], code, r))
    print("ok  %-40r -> %s" % (req[:40], r[:70]))

def bad_requests(path):
    c = Conn(path)
    before = c.states()
    expect_error(c, "bogus", "EINVAL")
    expect_error(c, "", "EINVAL")
    expect_error(c, "enable", "EINVAL")
    expect_error(c, "enable a b", "EINVAL")
    expect_error(c, "list extra", "EINVAL")
    expect_error(c, "enable req_[x", "EPATTERN")
    expect_error(c, "disable req_\\", "EPATTERN")
    expect_error(c, "enable " + "x" * 200, "ENAMETOOLONG")
    expect_error(c, "enable nosuch_probe", "ENOENT")
    expect_error(c, b"enable req_begin\x01\n", "EINVAL")
    expect_error(c, b"\xff\xfe\x00\x80\n", "EINVAL")
    expect_error(c, b"enable\treq_begin\n", "EINVAL")
    expect_error(c, "trace", "EINVAL")
    expect_error(c, "trace " + " ".join(["a"] * 17), "EINVAL")
    expect_error(c, "trace req_[", "EPATTERN")
    expect_error(c, "ENABLE req_begin", "EINVAL")
    if not c.ask("hello").startswith("ok edgeprobe-control 1 "):
        fail("hello after errors")
    if c.states() != before:
        fail("malformed requests changed states: %r -> %r" % (before, c.states()))
    # overlong: no newline within the limit -> error, then the connection closes
    c.send(b"enable " + b"a" * 600)
    r = c.line()
    if not r or not r.startswith("error EDGEPROBE_ENAMETOOLONG"):
        fail("overlong request: %r" % r)
    try:
        still_open = c.line() is not None
    except ConnectionResetError:  # closed with our unread bytes: also closed
        still_open = False
    if still_open:
        fail("connection still open after an overlong request")
    print("ok  overlong request -> %s, connection closed" % r[:60])
    c2 = Conn(path)
    if c2.states() != before:
        fail("states changed")
    print("states unchanged:", before)

def silent(path):
    quiet = [connect(path) for _ in range(5)]          # connect, say nothing
    partial = connect(path)
    partial.sendall(b"enab")                           # half a request, then silence
    unread = Conn(path)
    for _ in range(200):
        unread.send(b"list\n")                         # never reads its replies
    worst = 0.0
    for i in range(20):
        t = time.monotonic()
        c = Conn(path, timeout=2.0)
        r = c.ask("hello")
        worst = max(worst, time.monotonic() - t)
        if not r or not r.startswith("ok "):
            fail("hello %d: %r" % (i, r))
        c.close()
    print("20 clients served while 7 others stall; slowest %.1f ms" % (worst * 1e3))
    if worst > 0.5:
        fail("a stalled client delayed the others")
    for s in quiet + [partial]:
        s.close()
    unread.close()

def many(path):
    t = time.monotonic()
    for i in range(1000):
        c = Conn(path)
        r = c.ask("hello")
        if not r or not r.startswith("ok edgeprobe-control"):
            fail("sequential client %d: %r" % (i, r))
        c.close()
    print("1000 sequential clients in %.2f s" % (time.monotonic() - t))
    errors = []
    def client(k):
        try:
            c = Conn(path)
            for j in range(50):
                if len(c.listing()) < 1:
                    errors.append("client %d: empty list" % k)
                if not c.ask("hello").startswith("ok "):
                    errors.append("client %d: bad hello" % k)
            c.close()
        except Exception as e:
            errors.append("client %d: %s" % (k, e))
    threads = [threading.Thread(target=client, args=(k,)) for k in range(8)]
    t = time.monotonic()
    for th in threads: th.start()
    for th in threads: th.join()
    if errors:
        fail("; ".join(errors[:3]))
    print("8 concurrent clients x 100 requests in %.2f s" % (time.monotonic() - t))

def hello_pid(path):
    """The pids that answer 20 hellos, each on a new connection."""
    pids = set()
    for _ in range(20):
        r = Conn(path).ask("hello")
        pids.add(r.split()[-1] if r else "none")
    print(" ".join(sorted(pids)))

MODES = {"bad": bad_requests, "silent": silent, "many": many, "pid": hello_pid}
if __name__ == "__main__":
    if len(sys.argv) != 3 or sys.argv[1] not in MODES:
        print("usage: control_proto.py bad|silent|many|pid SOCKET")
        sys.exit(2)
    MODES[sys.argv[1]](sys.argv[2])
