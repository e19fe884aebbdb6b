"""Loopback TCP ports: free ones to give the brokers, and waiting for one to listen."""

from __future__ import annotations

import socket
import time

from kafka_health.dev.devcluster.errors import DevClusterError


def free_ports(count: int) -> list[int]:
    """``count`` distinct free TCP ports on 127.0.0.1."""
    sockets = []
    try:
        for _ in range(count):
            s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            s.bind(("127.0.0.1", 0))
            sockets.append(s)
        return [s.getsockname()[1] for s in sockets]
    finally:
        for s in sockets:
            s.close()


def port_open(port: int) -> bool:
    """Whether something accepts connections on 127.0.0.1:``port``."""
    with socket.socket() as s:
        s.settimeout(1.0)
        return s.connect_ex(("127.0.0.1", port)) == 0


def wait_for_port(port: int, timeout_s: float) -> None:
    """Block until something accepts connections on 127.0.0.1:``port``."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if port_open(port):
            return
        time.sleep(0.2)
    raise DevClusterError(f"nothing listens on 127.0.0.1:{port} after {timeout_s:.0f} s")
