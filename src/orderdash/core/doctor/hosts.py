"""The service's hosts as `doctor` sees them: each answers (any HTTP answer will do: a host that
answers 404 for an order nobody has is up), the clock against the service's `Date` header, and
the address this till reaches the service from (what the cabinet's IP allow-list needs)."""

from __future__ import annotations

import ipaddress
import socket
import time
from dataclasses import dataclass
from email.utils import parsedate_to_datetime
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from orderdash.core.doctor.bounded import within
from orderdash.core.doctor.result import FAIL, OK, WARN, Check
from orderdash.core.model.errors import ApiError
from orderdash.core.safetext import clean
from orderdash.core.service.transport import ServiceTransport

if TYPE_CHECKING:
    from orderdash.core.service.net import Timeouts

#: The order token the order API's host is asked for: nobody's (a 404 is its expected answer).
PROBE_TOKEN = "orderdash-doctor"
#: Clock skew against the service's `Date` that warns, and that fails (seconds): a bearer's
#: expiry and the late window are read against this clock.
SKEW_WARN = 5.0
SKEW_FAIL = 60.0
#: The most of an answer read: only its status and headers matter.
_BODY = 64 * 1024


@dataclass(frozen=True)
class HostAnswer:
    """A host's check, and what its answer says of the clocks: the service's `Date` header and
    this machine's time halfway through the request (None: no answer, or no `Date`)."""

    check: Check
    status: int | None = None
    date: str | None = None
    local_mid: float | None = None


async def probe(name: str, url: str, timeouts: Timeouts, *, method: str = "GET") -> HostAnswer:
    """One request to `url`, through a transport of its own (its errors name its host): ok on
    any HTTP answer under 500 but a redirect, a warning on a 5xx, a failure on a redirect or
    when nothing answers (the
    transport's deadline bounds the wait). No header but the fixed ones is sent."""

    where = _origin(url)
    wire = ServiceTransport(url, url, timeouts=timeouts, max_body_bytes=_BODY, transport=None)
    sent = time.time()
    try:
        status, headers, _ = await wire.fetch(url, None, method=method)
    except ApiError as error:
        return HostAnswer(Check(name, FAIL, error.message))
    finally:
        await wire.aclose()
    local_mid = (sent + time.time()) / 2
    if 300 <= status < 400:
        # orderdash follows no redirect, and a POST redirected loses its body: the URL is wrong
        elsewhere = _host_of(headers.get("location", ""))
        check = Check(name, FAIL, f"{where} redirects (HTTP {status}) to {elsewhere}: set that URL")
    elif status >= 500:
        check = Check(name, WARN, f"{where} answers, with HTTP {status} (a server error)")
    else:
        check = Check(name, OK, f"{where} answers (HTTP {status})")
    return HostAnswer(check, status, headers.get("date"), local_mid)


def clock_check(answer: HostAnswer) -> Check:
    """This machine's clock against the service's `Date` header (whole seconds: a skew under
    one second is not seen)."""
    name = "clock"
    if answer.local_mid is None:
        return Check(name, WARN, "not checked: the order API's host did not answer")
    if answer.date is None:
        return Check(name, WARN, "not checked: the service's answer has no Date header")
    try:
        service = parsedate_to_datetime(answer.date).timestamp()
    except (TypeError, ValueError, IndexError, OverflowError):
        return Check(name, WARN, "not checked: the service's Date header cannot be read")
    # the Date header has whole seconds, cut down: the service's time is half a second on
    skew = answer.local_mid - (service + 0.5)
    shown = abs(skew)
    if shown < 1.5:
        return Check(name, OK, "in step with the service's Date (within a second)")
    side = "ahead of" if skew > 0 else "behind"
    message = f"this machine's clock is {shown:,.0f} s {side} the service's Date"
    if shown >= SKEW_FAIL:
        return Check(name, FAIL, f"{message}: set the clock (NTP)")
    if shown >= SKEW_WARN:
        return Check(name, WARN, f"{message}: check the clock (NTP)")
    return Check(name, OK, message)


async def address_to_allow(url: str, seconds: float) -> str | None:
    """The local address this machine reaches `url`'s host from (a UDP socket's, connected: no
    packet is sent), with a word when it is not the one the service sees; None when the host
    cannot be resolved in `seconds`."""
    parts = urlsplit(url)
    host, port = parts.hostname or "", parts.port or (443 if parts.scheme == "https" else 80)
    try:
        address = await within(seconds, lambda: _source_address(host, port))
    except (OSError, TimeoutError, ValueError):
        return None
    ip = ipaddress.ip_address(address)
    if ip.is_loopback:
        return f"{address} (the service is on this machine)"
    if ip.is_private:
        return f"{address} is private: allow the public address your router sends from"
    return address


def _source_address(host: str, port: int) -> str:
    family, kind, proto, _, target = socket.getaddrinfo(host, port, type=socket.SOCK_DGRAM)[0]
    with socket.socket(family, kind, proto) as udp:
        udp.connect(target)
        return str(udp.getsockname()[0])


def _origin(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"


def _host_of(location: str) -> str:
    """Where a redirect points, its scheme and host only (no user name, path or query), made
    printable: a server's words."""
    try:
        parts = urlsplit(location)
        host = parts.hostname
        port = f":{parts.port}" if parts.port else ""
    except ValueError:
        host = None
    if not host:
        return "elsewhere"
    return clean(f"{parts.scheme}://{host}{port}", limit=120)
