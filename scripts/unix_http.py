"""HTTP/1.1 over a Unix domain socket with the standard library, for the scripts that talk to
`proactive serve` on its socket (dev/kill-serve.py, scripts/multi-instance-checks.py).

    connection = UnixConnection("/run/proactive.sock", timeout=5)
    connection.request("GET", "/healthz")
    assert connection.getresponse().status == 200
"""
import http.client
import socket


class UnixConnection(http.client.HTTPConnection):
    """An `http.client.HTTPConnection` to the server listening on the socket at `path`;
    `timeout` (seconds) bounds connecting and each read."""

    def __init__(self, path, timeout=5):
        super().__init__("localhost", timeout=timeout)
        self.path = path

    def connect(self):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(self.timeout)
        self.sock.connect(self.path)
