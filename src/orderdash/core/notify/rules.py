"""Notification rules and quiet hours, as the settings hold them (`notify`, `quiet_hours`).

Light on purpose: the settings import this module at every start, Apprise only the sender
(`sender.py`) loads, and only when a rule exists. A rule's URLs are secrets (an Apprise URL
carries the bot token, the password or the webhook's key): held as `SecretStr`, never repeated
in an error; an error names the rule by its index and the URL by its scheme.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any, Protocol

from pydantic import BaseModel, ConfigDict, Field, SecretStr, field_validator

#: Every event a rule can name, in the order the docs list them.
EVENTS = ("payment", "attention", "late-payment", "outage", "recovery", "close")
#: `notify --test`'s message: sent to every rule whatever its events.
TEST_EVENT = "test"
_SCHEME = re.compile(r"([A-Za-z][A-Za-z0-9+.-]{0,31})://")
_QUIET = re.compile(r"([01]?[0-9]|2[0-3]):([0-5][0-9])-([01]?[0-9]|2[0-3]):([0-5][0-9])")
#: A URL longer than this is refused (Apprise's longest are well under it).
MAX_URL = 2000


def scheme_of(url: str) -> str:
    """The URL's scheme ("json", "tgram", ...), the one part of it ever shown ("?" if none)."""
    found = _SCHEME.match(url)
    return found.group(1).lower() if found else "?"


class NotifyRule(BaseModel):
    """One rule: these events go to these Apprise URLs."""

    # an error never repeats what was given: it may be a URL
    model_config = ConfigDict(extra="forbid", frozen=True, hide_input_in_errors=True)

    events: tuple[str, ...] = Field(min_length=1, max_length=len(EVENTS))
    urls: tuple[SecretStr, ...] = Field(min_length=1, max_length=20)

    @field_validator("events", "urls", mode="before")
    @classmethod
    def _one_or_many(cls, value: Any) -> Any:
        # `events = "payment"` and `urls = "json://..."` are a list of one
        return (value,) if isinstance(value, str) else value

    @field_validator("events")
    @classmethod
    def _known_events(cls, events: tuple[str, ...]) -> tuple[str, ...]:
        for event in events:
            if event not in EVENTS:
                shown = event[:30] if event.isprintable() else "?"
                raise ValueError(f"unknown event {shown!r} (one of {', '.join(EVENTS)})")
        return tuple(dict.fromkeys(events))

    @field_validator("urls")
    @classmethod
    def _apprise_urls(cls, urls: tuple[SecretStr, ...]) -> tuple[SecretStr, ...]:
        for number, secret in enumerate(urls):
            url = secret.get_secret_value()
            # the URL itself is never repeated back: it holds the service's key
            if not (url.isprintable() and len(url) <= MAX_URL and _SCHEME.match(url)):
                raise ValueError(
                    f"URL {number} must be one line such as scheme://... (its text is not shown)"
                )
        return urls

    def schemes(self) -> list[str]:
        return [scheme_of(url.get_secret_value()) for url in self.urls]


@dataclass(frozen=True)
class QuietHours:
    """A daily span of wall-clock minutes (in the store's zone) when nothing is sent; it may
    run over midnight ("22:00-07:00")."""

    start: int
    end: int

    @classmethod
    def parse(cls, text: str) -> QuietHours:
        found = _QUIET.fullmatch(text.strip())
        if found is None:
            raise ValueError("quiet_hours must be HH:MM-HH:MM, e.g. 22:00-07:00")
        h1, m1, h2, m2 = (int(part) for part in found.groups())
        start, end = h1 * 60 + m1, h2 * 60 + m2
        if start == end:
            raise ValueError("quiet_hours must not start and end at the same minute")
        return cls(start, end)

    def holds(self, moment: datetime) -> bool:
        """Whether `moment` (aware, in the store's zone) falls within the quiet hours."""
        minute = moment.hour * 60 + moment.minute
        if self.start < self.end:
            return self.start <= minute < self.end
        return minute >= self.start or minute < self.end

    def __str__(self) -> str:
        return f"{self.start // 60:02}:{self.start % 60:02}-{self.end // 60:02}:{self.end % 60:02}"


def url_secrets(rules: tuple[NotifyRule, ...]) -> list[str]:
    """What a log must never hold: each URL whole and without its scheme (our lines never
    name a URL; this is the log's redaction behind that)."""
    found = []
    for rule in rules:
        for url in rule.urls:
            plain = url.get_secret_value()
            found += [plain, plain.split("://", 1)[-1]]
    return found


if TYPE_CHECKING:  # for the type checker only: no class made at each start

    class NoticeSettings(Protocol):
        """What the notices take from the settings (which sit above them): the rules, the quiet
        hours and the zone they are in."""

        @property
        def notify(self) -> tuple[NotifyRule, ...]: ...
        @property
        def quiet_hours(self) -> str | None: ...
        @property
        def timezone(self) -> str | None: ...
