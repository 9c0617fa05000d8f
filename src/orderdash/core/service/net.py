"""What the settings need to know of the network, without loading httpx: the timeouts of one
request and whether a host is this machine (plain http is allowed there)."""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass


@dataclass(frozen=True, eq=False, repr=False)
class Timeouts:
    """Seconds allowed to one request."""

    connect: float = 5.0
    read: float = 10.0
    #: The whole call, connect to last byte: a slow-drip server is cut off here.
    deadline: float = 20.0


def is_loopback_host(host: str) -> bool:
    host = host.strip("[]").lower()
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False
