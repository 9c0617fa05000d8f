"""One message to one URL through Apprise, and `notify --test`.

Apprise's logger is kept to itself: its records never reach our log or the terminal; a
failure's reason is taken from them with every part of the URL cut out (`redact`).

Redirects are never followed: an HTTP-based Apprise plugin sends with `requests`, which turns a
POST answered 302 into a body-less GET to the `Location`, with the same `Authorization` header,
and counts that GET's 200 as delivered. Apprise's `redirect` option (the asset's default and
each plugin's own) is set off whatever the URL says, so a 3xx answer is a failure, told as
`REDIRECTED`.
"""

from __future__ import annotations

import logging
import re
import threading
from collections.abc import Sequence
from typing import Any, Protocol
from urllib.parse import parse_qsl, quote, unquote, urlsplit

from orderdash.core.notify import messages
from orderdash.core.notify.messages import Message
from orderdash.core.notify.rules import NotifyRule, scheme_of
from orderdash.core.safetext import clean

log = logging.getLogger(__name__)

#: Seconds a try waits to connect, and for each read, unless the URL says (`cto`, `rto`).
SEND_TIMEOUT = 5.0
#: Why a message answered with a redirect is not sent (the redirect is not followed).
REDIRECTED = "redirected: not delivered"
#: How Apprise's HTTP plugins word a status they did not accept ("... error=302.").
_REDIRECT_STATUS = re.compile(r"\berror=3\d\d\b")


def redact(text: str, url: str) -> str:
    """`text` without any part of `url` (scheme aside): host, user, password, port, each path
    segment and query value, plain and percent-encoded; one clean line."""
    parts = urlsplit(url)
    pieces = {url, url.split("://", 1)[-1], parts.netloc}
    for part in (parts.hostname, parts.username, parts.password, parts.path, parts.query):
        if part:
            pieces.add(part)
    if parts.netloc.rpartition(":")[2].isdigit():
        pieces.add(parts.netloc.rpartition(":")[2])
    pieces.update(segment for segment in parts.path.split("/") if segment)
    for pair in parts.query.split("&"):
        pieces.update(piece for piece in pair.split("=") if piece)
    forms = {form for piece in pieces for form in (piece, unquote(piece), quote(piece, safe=""))}
    # a piece of one or two characters ("/", a short port) is no secret and would mangle text
    for form in sorted((f for f in forms if len(f) > 2), key=len, reverse=True):
        text = text.replace(form, "\u2026")
    return clean(text, limit=160)


def where(rule: int, url: int, urls: int, scheme: str) -> str:
    """A URL as a line may name it: its rule's index, its own index when the rule has more than
    one, and its scheme ("rule 0 (json)", "rule 1, URL 2 (tgram)")."""
    return f"rule {rule} ({scheme})" if urls < 2 else f"rule {rule}, URL {url} ({scheme})"


def log_outcome(place: str, event: str, reason: str | None) -> None:
    """The log's line for one message to one URL: sent, or why not (no part of the URL)."""
    if reason is None:
        log.info("notification sent: %s, %s", place, event)
    else:
        log.warning("notification failed: %s, %s: %s", place, event, reason)


class Delivery(Protocol):
    def send(self, url: str, message: Message) -> str | None:
        """Send `message` to `url`: None when it went, else why not (no part of the URL)."""


class _Captured(logging.Handler):
    """Apprise's records while one send runs (else dropped), whichever thread Apprise makes
    them in: the reason a send failed, which goes nowhere before `redact` took the URL out of
    it. One send at a time (`sending`), so a record is always the running send's."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.sending = threading.Lock()
        self._lines: list[str] | None = None

    def start(self) -> list[str]:
        self._lines = []
        return self._lines

    def stop(self) -> None:
        self._lines = None

    def emit(self, record: logging.LogRecord) -> None:
        lines = self._lines
        if lines is not None and len(lines) < 20:
            try:
                lines.append(record.getMessage())
            except Exception:  # a record that cannot be formatted tells nothing
                lines.append("")


_captured = _Captured()


#: The loggers of Apprise and of the HTTP library under it (its records name the URL's host and
#: path): kept to themselves.
_THEIR_LOGGERS = ("apprise", "urllib3", "requests")


def _quiet_their_loggers() -> None:
    """Apprise's records (and those of the HTTP library it sends with) name the URL's host
    and path: kept out of the root logger (our log file) and the last-resort handler (the
    terminal); below a warning they are not even made (a debug record holds the payload)."""
    for name in _THEIR_LOGGERS:
        logger = logging.getLogger(name)
        logger.propagate = False
        logger.setLevel(logging.WARNING)
        if _captured not in logger.handlers:
            logger.addHandler(_captured)


class AppriseDelivery:
    """Sends through Apprise (the `notify` extra); built in the sender's thread."""

    def __init__(self, timeout: float = SEND_TIMEOUT) -> None:
        _quiet_their_loggers()  # before the import: Apprise logs as it loads
        import apprise  # the extra: ImportError when absent, said by the caller

        self._apprise = apprise
        # memory only: Apprise writes nothing to disk for us; no plugin paths (no code loaded
        # from the user's directories); no redirect followed (the module's docstring)
        self._asset = apprise.AppriseAsset(storage_mode="memory", http_redirects=False)
        self._timeout = timeout

    def plugin(self, url: str) -> Any:
        """Apprise's sender for `url` (None: not a URL it can use), waiting at most the timeout
        to connect and for each read, unless the URL sets its own (`cto`, `rto`), and never
        following a redirect, whatever the URL's `redirect` says."""
        plugin = self._apprise.Apprise.instantiate(url, asset=self._asset)
        if plugin is None:
            return None
        plugin.redirects = False
        given = {name.lower() for name, _ in parse_qsl(urlsplit(url).query)}
        if "cto" not in given:
            plugin.socket_connect_timeout = self._timeout
        if "rto" not in given:
            plugin.socket_read_timeout = self._timeout
        return plugin

    def send(self, url: str, message: Message) -> str | None:
        with _captured.sending:
            return self._send(url, message)

    def _send(self, url: str, message: Message) -> str | None:
        apprise = self._apprise
        lines = _captured.start()
        try:
            plugin = self.plugin(url)
            if plugin is None:
                return "the URL is not one Apprise can use"
            target = apprise.Apprise(asset=self._asset)
            target.add(plugin)
            sent = target.notify(
                body=message.body,
                title=message.title,
                body_format=apprise.NotifyFormat.TEXT,
            )
        except Exception as error:  # a plugin's bug: its class only (its text may hold the URL)
            return f"Apprise failed ({type(error).__name__})"
        finally:
            _captured.stop()
        if bool(sent):
            return None
        if any(_REDIRECT_STATUS.search(line) for line in lines):
            return REDIRECTED
        reason = next((line for line in reversed(lines) if line), "not delivered")
        return redact(reason, url)


def send_test(
    rules: Sequence[NotifyRule], delivery: Delivery | None = None
) -> list[tuple[int, str, str | None]]:
    """`notify --test`: one test message through each rule, now, in this thread, tried once,
    each URL's outcome logged. Per rule: its index, its URLs' schemes and None (sent) or why
    not (no part of a URL)."""
    delivery = delivery or AppriseDelivery()
    test = messages.test()
    outcomes = []
    for index, rule in enumerate(rules):
        reasons = []
        for number, secret in enumerate(rule.urls):
            url = secret.get_secret_value()
            reason = delivery.send(url, test)
            log_outcome(where(index, number, len(rule.urls), scheme_of(url)), test.event, reason)
            reasons.append(reason)
        failed = [r for r in reasons if r is not None]
        schemes = ", ".join(rule.schemes())
        outcomes.append((index, schemes, "; ".join(failed) if failed else None))
    return outcomes
