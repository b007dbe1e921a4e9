#!/usr/bin/env python3
"""Idle and half-sent connections against `proactive serve` on loopback, bounded in count and time.

Starts `proactive serve --port PORT --idle-timeout T` on a fresh store, opens N idle connections and
N half-sent ones (a request head cut off mid-header), then times 20 `GET /readyz` requests on new
connections while they are open, and counts how many of the 2N the server closed after T + 3 s.

    python3 dev/slowloris.py [N] [T]      (defaults 1000 and 5; PROACTIVE_BIN or .build/debug/proactive)
"""
import os, resource, socket, subprocess, sys, tempfile, time

n = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
timeout = int(sys.argv[2]) if len(sys.argv) > 2 else 5
binary = os.environ.get("PROACTIVE_BIN", ".build/debug/proactive")
soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, max(soft, 2 * n + 256)), hard))
port = 18000 + os.getpid() % 1000
work = tempfile.mkdtemp()
server = subprocess.Popen([binary, "serve", "--store", f"{work}/store.sqlite", "--port", str(port), "--idle-timeout", str(timeout),
                           "--log-level", "warning"], stderr=subprocess.DEVNULL)
try:
    for _ in range(200):
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            break
        except OSError:
            time.sleep(0.1)
    opened = []
    for i in range(n):
        opened.append(socket.create_connection(("127.0.0.1", port)))
    for i in range(n):
        s = socket.create_connection(("127.0.0.1", port))
        s.sendall(f"GET /readyz HTTP/1.1\r\nHost: localhost\r\nX-Slow-{i}: ".encode())
        opened.append(s)
    times = []
    for _ in range(20):
        start = time.monotonic()
        s = socket.create_connection(("127.0.0.1", port), timeout=10)
        s.sendall(b"GET /readyz HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
        answer = s.recv(4096)
        times.append(time.monotonic() - start)
        s.close()
        assert answer.startswith(b"HTTP/1.1 200"), answer[:80]
    times.sort()
    print(f"{2 * n} connections open ({n} idle, {n} half-sent): 20 GET /readyz answered, "
          f"median {times[10] * 1000:.1f} ms, max {times[-1] * 1000:.1f} ms")
    time.sleep(timeout + 3)
    closed = 0
    for s in opened:
        s.setblocking(False)
        try:
            if s.recv(1) == b"":
                closed += 1
        except (ConnectionResetError, BrokenPipeError):
            closed += 1
        except BlockingIOError:
            pass
    print(f"after {timeout + 3} s (--idle-timeout {timeout}): {closed} of {2 * n} closed by the server")
finally:
    server.terminate()
    server.wait(timeout=30)
