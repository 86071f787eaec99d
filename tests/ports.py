"""Ports for the servers and clusters the tests start on loopback.

A port the kernel hands out for ``bind(("127.0.0.1", 0))`` comes from its ephemeral range
(``/proc/sys/net/ipv4/ip_local_port_range``, 32768-60999 here), and is free again the moment the
probing socket closes. Every JVM the tests start also binds ports of its own from that same range
(Spark's driver, block manager and RPC endpoints bind port 0), so a port picked that way and passed
to a server a second later could be taken by then: CI failed once on exactly that, the server's
Spark Connect port gone to another process between the pick and the bind.

``free_port()`` picks below the ephemeral range instead, where nothing binds unless told to, at
random so that the xdist workers rarely pick alike, and checks that the port binds now. The rare
clash left (two workers picking the same port in the same instant) is what
``tests/server/serverproc.Server.start`` retries.
"""

from __future__ import annotations

import random
import socket

_LOW, _HIGH = 20000, 32000
_given: set[int] = set()


def _ephemeral_low() -> int:
    try:
        with open("/proc/sys/net/ipv4/ip_local_port_range") as f:
            return int(f.read().split()[0])
    except (OSError, ValueError, IndexError):
        return 32768


def free_port() -> int:
    """A loopback TCP port that binds now, outside the kernel's ephemeral range, not given before by
    this process."""
    high = min(_HIGH, _ephemeral_low())
    for _ in range(200):
        port = random.randrange(_LOW, high)
        if port in _given:
            continue
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
        _given.add(port)
        return port
    raise RuntimeError(f"no free loopback port in {_LOW}-{high} after 200 tries")
