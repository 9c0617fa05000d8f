"""What the settings need to know of the network, without loading httpx: the timeouts of one
request and whether a host is this machine (plain http is allowed there); and what a client
takes from the settings."""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from pydantic import SecretStr


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


if TYPE_CHECKING:  # for the type checker only: no class made at each start

    class ClientSettings(Protocol):
        """What a client is made from (`OrderClient.from_settings`): the settings, seen from
        below them."""

        @property
        def base_url(self) -> str: ...
        @property
        def create_url(self) -> str | None: ...
        @property
        def bearer_token(self) -> SecretStr | None: ...
        @property
        def access_token(self) -> SecretStr | None: ...
        @property
        def timeouts(self) -> Timeouts: ...
        @property
        def max_body_bytes(self) -> int: ...
