#!/usr/bin/env python3
"""Hostile peers against the rendezvous store of a run launched without MPI (issue 19).

Rank 0 of a real all_reduce_perf serves the store on 127.0.0.1; this script talks to it raw (the
wire format of src/backends/rendezvous/tcp_store.h), or plays a fake store for a real rank 1.
Loopback only; every wait is bounded. usage: hostile_store.py BIN_DIR SCENARIO; exit 0 = passed.

  oversize   a 100 MiB length prefix: disconnected; the store still serves others
  totals     3 MiB sets until refused: the store stops at its total, the rank stays small
  flood      thousands of gets of a large value, never read: disconnected; others still served
  partial    40 connections each holding a 3.5 MiB request half sent: held in total, not each
  bad_record a malformed join record for RANK 1: rank 0 exits 2 with one line
  control    a verdict with newlines and escape codes: rank 0 prints one line, no ESC byte
  token      COLLBENCH_JOB_TOKEN on rank 0: a wrong token is refused; a rank with one exits 2
  long_reply a fake store answering with a 4 GiB length: rank 1 exits 2 at once, one line
  silent     a fake store that accepts and never answers: rank 1 exits 2 within -T (3 s) + 2 s
  stop_after_join  RANK 2 stopped as soon as its join record is in the store: the others exit 4
             within -T (3 s) + 5 s
  silent_joiner  RANK 2 joins with a valid record and says nothing more: the others exit 4 within
             -T (3 s) + 5 s
"""
import os
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time

BIN_DIR, SCENARIO = sys.argv[1], sys.argv[2]
OK, TIMEOUT_STATUS, MALFORMED, REFUSED = 0, 1, 2, 3
SET, GET, WAIT, CLAIM, HELLO = 1, 2, 3, 4, 5


def fail(message):
    print(f"FAIL ({SCENARIO}): {message}")
    sys.exit(1)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def frame(op, fields):
    body = struct.pack("<II", op, len(fields))
    for field in fields:
        field = field if isinstance(field, bytes) else field.encode()
        body += struct.pack("<I", len(field)) + field
    return struct.pack("<I", len(body)) + body


def read_reply(sock, limit=1 << 26):
    def exactly(n):
        data = b""
        while len(data) < n:
            chunk = sock.recv(n - len(data))
            if not chunk:
                raise ConnectionError("closed")
            data += chunk
        return data
    (length,) = struct.unpack("<I", exactly(4))
    if length > limit:
        raise ValueError(f"reply length {length}")
    body = exactly(length)
    return struct.unpack("<I", body[:4])[0], body[4:]


def connect(port, token=""):
    sock = socket.create_connection(("127.0.0.1", port), timeout=5)
    sock.sendall(frame(HELLO, [token]))
    status, payload = read_reply(sock)
    if status != OK:
        raise PermissionError(payload.decode(errors="replace"))
    return sock


def call(sock, op, fields):
    sock.sendall(frame(op, fields))
    return read_reply(sock)


def start_rank(rank, world, port, args, env_extra=None):
    env = dict(os.environ, RANK=str(rank), WORLD_SIZE=str(world), MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port))
    env.update(env_extra or {})
    err = tempfile.TemporaryFile()
    proc = subprocess.Popen([os.path.join(BIN_DIR, "all_reduce_perf"), "-b", "8", "-e", "8", "-n", "2"] + args,
                            env=env, stdout=subprocess.DEVNULL, stderr=err)
    return proc, err


def finish(proc, err, limit):
    try:
        code = proc.wait(timeout=limit)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
        fail(f"the rank did not end within {limit} s")
    err.seek(0)
    return code, err.read()


def one_line(stderr, pattern):
    text = stderr.decode(errors="replace")
    if b"\x1b" in stderr:
        fail(f"an escape byte reached the terminal: {text!r}")
    if text.count("\n") != 1 or pattern not in text:
        fail(f"expected one line saying '{pattern}', got {text!r}")
    print("line:", text.strip())


def wait_for_store(port, token="", limit=10):
    deadline = time.time() + limit
    while time.time() < deadline:
        try:
            return connect(port, token)
        except (ConnectionRefusedError, OSError):
            time.sleep(0.05)
    fail("rank 0 never served the store")


def rss_kib(pid):
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def still_served(port, token=""):
    sock = connect(port, token)
    status, _ = call(sock, SET, ["probe", "1"])
    sock.close()
    if status != OK:
        fail(f"the store stopped serving others (status {status})")


port = free_port()
if SCENARIO in ("oversize", "totals", "flood", "partial"):
    proc, err = start_rank(0, 2, port, ["-T", "8"])
    sock = wait_for_store(port)
    if SCENARIO == "oversize":
        sock.sendall(struct.pack("<I", 100 << 20) + b"x" * 4096)
        sock.settimeout(5)
        try:
            closed = sock.recv(1) == b""
        except ConnectionResetError:
            closed = True
        if not closed:
            fail("a 100 MiB request was not refused")
    elif SCENARIO == "partial":
        before = rss_kib(proc.pid)
        held = []
        for i in range(40):  # 140 MiB asked to be buffered in all
            try:
                other = connect(port)
                other.settimeout(5)
                other.sendall(struct.pack("<I", 4 << 20) + frame(SET, ["k", b""])[4:] + b"p" * (7 << 19))
                held.append(other)
            except OSError:
                pass  # disconnected over the total: what the limit is for
        time.sleep(0.5)
        grown = rss_kib(proc.pid) - before
        print(f"rank 0 grew by {grown} KiB holding partial requests")
        if grown > 100 * 1024:
            fail(f"rank 0 grew by {grown} KiB for 40 half-sent requests")
        still_served(port)
        for other in held:
            other.close()
    elif SCENARIO == "totals":
        refused = None
        for i in range(200):  # 600 MiB asked for in all
            status, payload = call(sock, SET, [f"bulk/{i}", b"v" * (3 << 20)])
            if status == REFUSED:
                refused = (i, payload.decode())
                break
        if not refused:
            fail("200 sets of 3 MiB were all taken")
        print(f"refused after {refused[0]} sets: {refused[1]}")
        if rss_kib(proc.pid) > 400 * 1024:
            fail(f"rank 0 holds {rss_kib(proc.pid)} KiB")
    else:
        status, _ = call(sock, SET, ["big", b"v" * (1 << 20)])
        if status != OK:
            fail(f"a 1 MiB set was refused ({status})")
        sock.setblocking(False)
        request = frame(GET, ["0", "big"])
        sent, closed = 0, False
        deadline = time.time() + 20
        while time.time() < deadline and not closed:
            try:
                sock.send(request)
                sent += 1
            except BlockingIOError:
                time.sleep(0.01)
            except (BrokenPipeError, ConnectionResetError):
                closed = True
            if sent % 50 == 0:
                still_served(port)
        if not closed:
            fail(f"a client that sent {sent} gets and read nothing was not disconnected")
        print(f"disconnected after {sent} unread gets")
        still_served(port)
    sock.close()
    code, stderr = finish(proc, err, 30)
    if code != 2 or b"never joined" not in stderr:
        fail(f"rank 0 should end as a world that never filled up (exit 2), got {code}: {stderr!r}")
elif SCENARIO in ("bad_record", "control"):
    proc, err = start_rank(0, 2, port, ["-T", "8"])
    sock = wait_for_store(port)
    if SCENARIO == "bad_record":
        call(sock, CLAIM, ["collbench/join/rank/1", "two\nnode\x1b[31m1\n99999999999999999999"])
        pattern = "malformed join record for RANK 1"
    else:
        call(sock, CLAIM, ["collbench/join/verdict", b"first line\nsecond line\x1b[2J\x1b]0;title\x07\xc2\x9b31m"])
        pattern = "first line?second line?[2J?]0;title??31m"
    code, stderr = finish(proc, err, 20)
    if code != 2:
        fail(f"rank 0 exited {code}, expected 2: {stderr!r}")
    one_line(stderr, pattern)
elif SCENARIO == "token":
    secret = {"COLLBENCH_JOB_TOKEN": "s3cret-job-42"}
    proc, err = start_rank(0, 2, port, ["-T", "8"], secret)
    wait_for_store(port, "s3cret-job-42").close()
    for wrong in ("", "s3cret-job-41", "s3cret-job-42-and-more"):
        try:
            connect(port, wrong)
            fail(f"the token {wrong!r} was accepted")
        except PermissionError as refusal:
            print(f"token {wrong!r} refused: {refusal}")
    intruder, intruder_err = start_rank(1, 2, port, ["-T", "8"], {"COLLBENCH_JOB_TOKEN": "guess"})
    code, stderr = finish(intruder, intruder_err, 20)
    if code != 2:
        fail(f"a rank with the wrong token exited {code}: {stderr!r}")
    one_line(stderr, "wrong job token")
    member, member_err = start_rank(1, 2, port, ["-T", "8"], secret)
    for name, (p, e) in (("rank 0", (proc, err)), ("rank 1", (member, member_err))):
        code, stderr = finish(p, e, 60)
        if code != 0:
            fail(f"{name} with the right token exited {code}: {stderr!r}")
elif SCENARIO == "silent_joiner":
    # RANK 2 joins (a valid record in the store) and says nothing more, as a rank stopped the moment
    # it joined, every time rather than when a signal happens to land there (issue 48).
    ranks = [start_rank(r, 3, port, ["-T", "3"]) for r in range(2)]
    sock = wait_for_store(port)
    call(sock, CLAIM, ["collbench/join/rank/2", f"3\n{socket.gethostname()}\n{os.getpid()}"])
    start = time.time()
    for rank in (0, 1):
        code, said = finish(*ranks[rank], 30)
        if code != 4:
            fail(f"rank {rank} exited {code}, expected 4: {said!r}")
    took = time.time() - start
    print(f"ranks 0 and 1 exited 4 after {took:.1f} s; rank 0 said: {said.decode(errors='replace').strip()}")
    if took > 8:  # one deadline from the meeting: -T, 2 s for a verdict, 3 s spare
        fail(f"the survivors took {took:.1f} s with -T 3")
    sock.close()
elif SCENARIO == "stop_after_join":
    ranks = [start_rank(r, 3, port, ["-T", "3"]) for r in range(3)]
    sock = wait_for_store(port)
    status, _ = call(sock, WAIT, ["10000", "collbench/join/rank/2"])
    ranks[2][0].send_signal(19)  # SIGSTOP
    start = time.time()
    try:
        said = {}
        for rank in (0, 1):
            code, said[rank] = finish(*ranks[rank], 30)
            if code != 4:
                fail(f"rank {rank} exited {code}, expected 4: {said[rank]!r}")
        took = time.time() - start
        print(f"ranks 0 and 1 exited 4 after {took:.1f} s; rank 0 said: {said[0].decode(errors='replace').strip()}")
        # Rank 0 sees the stop as a timeout of its own, or, when rank 1 gave up first and closed its
        # connections, as a Gloo pair that failed ("a rank left or stopped answering").
        if b"timeout" not in said[0] and b"no answer" not in said[0] and b"stopped answering" not in said[0]:
            fail(f"rank 0 did not say what happened: {said[0]!r}")
        if took > 8:  # one deadline from the meeting (issue 48): -T, 2 s for a verdict, 3 s spare
            fail(f"the survivors took {took:.1f} s with -T 3")
    finally:
        ranks[2][0].kill()
        ranks[2][0].wait()
else:  # long_reply, silent: a fake store for a real rank 1
    listener = socket.socket()
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", port))
    listener.listen()
    held = []

    def serve():
        listener.settimeout(30)
        try:
            while True:
                conn, _ = listener.accept()
                held.append(conn)
                if SCENARIO == "long_reply":
                    conn.sendall(struct.pack("<II", 0xFFFFFFF0, 0) + b"y" * 65536)
        except OSError:
            pass

    threading.Thread(target=serve, daemon=True).start()
    start = time.time()
    proc, err = start_rank(1, 2, port, ["-T", "3"])
    code, stderr = finish(proc, err, 30)
    took = time.time() - start
    print(f"rank 1 exited {code} after {took:.1f} s")
    if code != 2:
        fail(f"rank 1 exited {code}, expected 2: {stderr!r}")
    if took > 5.0:
        fail(f"rank 1 took {took:.1f} s with -T 3")
    one_line(stderr, "malformed reply" if SCENARIO == "long_reply" else "did not answer")
    listener.close()
print(f"PASS ({SCENARIO})")
