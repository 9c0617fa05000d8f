"""Who sent a callback, and whether it is let in: the source address (the socket's peer, or
behind a reverse proxy the address its trusted hops put in `X-Forwarded-For`), the optional
allow-list of networks (`callback_allow`) and a rate bound per source (a token bucket).

The buckets are keyed by the source, which a sender chooses: their number is capped, the one
heard from least recently dropped first, so that no flood of sources grows memory."""

from __future__ import annotations

import ipaddress
from collections import OrderedDict
from collections.abc import Iterable, Sequence

from orderdash.core.safetext import clean

IPNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network

#: Longest source text kept (an IPv6 address with its zone fits).
MAX_SOURCE_TEXT = 64
#: Most `X-Forwarded-For` entries read (a longer header's leftmost are not ours to trust).
MAX_FORWARDED_ENTRIES = 32
#: Most of one `X-Forwarded-For` line read: its right end, where the proxies append.
MAX_FORWARDED_TEXT = 4096
#: Sources the rate bound remembers at once.
MAX_SOURCES = 1024
#: An IPv6 sender's network, as one source for the rate bound (a host is given a /64).
IPV6_SENDER_PREFIX = 64
#: A source's burst, and its callbacks a second beyond it: the service sends a few a payment,
#: and a shop's rush of 1,000 in 10 s from one address stays inside.
BURST = 300
PER_SECOND = 150.0


def networks(texts: Iterable[str]) -> tuple[IPNetwork, ...]:
    """The allow-list's networks (`192.0.2.0/24`, `2001:db8::/32`, or one address); ValueError
    with the entry that is not one."""
    found = []
    for text in texts:
        try:
            found.append(ipaddress.ip_network(text.strip(), strict=False))
        except ValueError:
            raise ValueError(f"{clean(text, limit=60)!r} is not an address or network") from None
    return tuple(found)


def source_of(peer: str | None, forwarded: Sequence[str], hops: int) -> str:
    """The sender's address: the socket's `peer` when no proxy is trusted (`hops` 0); else the
    entry of `X-Forwarded-For` (its header lines `forwarded`, in order) that the nearest `hops`
    proxies vouch for, the `hops`-th from the right. A header shorter than that came without
    all the proxies: its leftmost entry, which the nearest proxy wrote or passed on."""
    if hops <= 0:
        return clean(peer or "unknown", limit=MAX_SOURCE_TEXT)
    entries = [entry.strip() for line in forwarded for entry in _rightmost(line)]
    entries = [entry for entry in entries if entry][-MAX_FORWARDED_ENTRIES:]
    if not entries:
        return clean(peer or "unknown", limit=MAX_SOURCE_TEXT)
    chosen = entries[-hops] if len(entries) >= hops else entries[0]
    return clean(chosen, limit=MAX_SOURCE_TEXT)


def _rightmost(line: str) -> list[str]:
    """The entries of one `X-Forwarded-For` line within its last `MAX_FORWARDED_TEXT`
    characters: each proxy appends on the right, so the right end is what is ours to trust (a
    sender's long header cut from the left); an entry cut in two is left out."""
    if len(line) <= MAX_FORWARDED_TEXT:
        return line.split(",")
    return line[-MAX_FORWARDED_TEXT:].split(",")[1:]


def allowed(source: str, allow: Sequence[IPNetwork]) -> bool:
    """Whether `source` is inside one of `allow` (an empty list lets every source in)."""
    if not allow:
        return True
    try:
        address = ipaddress.ip_address(source.split("%")[0])
    except ValueError:
        return False
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    return any(address.version == net.version and address in net for net in allow)


def sender_of(source: str) -> str:
    """Whom the rate bound counts `source` as: an IPv6 address's /64 (one host's network: it
    sends from any address in it), an IPv4 address (mapped into IPv6 or not) itself."""
    try:
        address = ipaddress.ip_address(source.split("%")[0])
    except ValueError:
        return source
    if isinstance(address, ipaddress.IPv6Address):
        if address.ipv4_mapped is not None:
            return str(address.ipv4_mapped)
        return str(ipaddress.IPv6Network((address, IPV6_SENDER_PREFIX), strict=False))
    return str(address)


class SourceBuckets:
    """A token bucket per source (`BURST`, refilled `PER_SECOND`), for at most `MAX_SOURCES`
    sources (an IPv6 one by its /64: `sender_of`); time is passed in (monotonic seconds)."""

    def __init__(
        self, burst: int = BURST, per_second: float = PER_SECOND, limit: int = MAX_SOURCES
    ) -> None:
        self._burst, self._rate, self._limit = float(burst), per_second, limit
        self._buckets: OrderedDict[str, tuple[float, float]] = OrderedDict()

    def take(self, source: str, now: float) -> bool:
        """Whether `source` may send one more now (and count it)."""
        key = sender_of(source)
        level, then = self._buckets.pop(key, (self._burst, now))
        level = min(self._burst, level + max(0.0, now - then) * self._rate)
        ok = level >= 1.0
        self._buckets[key] = (level - 1.0 if ok else level, now)
        while len(self._buckets) > self._limit:
            self._buckets.popitem(last=False)
        return ok

    def __len__(self) -> int:
        return len(self._buckets)
