"""A period of the books: `--day YYYY-MM-DD` in the store's time zone, or `--since T --until T`.

A day is [local midnight, the next local midnight): 23 or 25 hours on the days the clocks
change. Times are aware datetimes; a naive `--since`/`--until` is read in the zone. Every
refusal is a `UsageError` of one line, a date at the calendar's edge included (a period whose
look-back or next midnight would fall outside years 1 to 9999).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta, tzinfo
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from orderdash.core.model.errors import UsageError

#: The longest period a close or an export covers: a month, within the history's budget.
MAX_PERIOD = timedelta(days=31)
_DAY = re.compile(r"^\d{4}-\d{2}-\d{2}$")
LOCALTIME = "/etc/localtime"
_ZONE = re.compile(r"^[A-Za-z0-9_+\-]+(/[A-Za-z0-9_+\-]+)*$")
#: The earliest instant a period may start: the close reads a day before it (`gather.LOOK_BACK`)
#: and a zone's offset moves it by up to a day more, and all of it must still be a date.
EARLIEST = datetime.min.replace(tzinfo=UTC) + timedelta(days=2)


@dataclass(frozen=True)
class Period:
    """[start, end) as aware datetimes, and the zone they are shown in."""

    start: datetime
    end: datetime
    zone: tzinfo

    @property
    def start_ms(self) -> int:
        return int(self.start.timestamp() * 1000)

    @property
    def end_ms(self) -> int:
        return int(self.end.timestamp() * 1000)

    @property
    def duration(self) -> timedelta:
        """The elapsed time (not the wall clock's: a day the clocks go back is 25 hours;
        subtracting two datetimes of the same zone would say 24)."""
        return self.end.astimezone(UTC) - self.start.astimezone(UTC)

    def contains_ms(self, ms: int) -> bool:
        return self.start_ms <= ms < self.end_ms

    def local(self, ms: int) -> datetime:
        """Epoch milliseconds as an aware datetime in the period's zone."""
        return datetime.fromtimestamp(ms / 1000, tz=UTC).astimezone(self.zone)


def zone_named(name: str | None) -> tzinfo:
    """The IANA zone `name` (zoneinfo), or the machine's local zone when None or empty."""
    if not name:
        return local_zone()
    if len(name) > 64 or not _ZONE.match(name) or ".." in name:
        raise UsageError(f"time zone {name[:64]!r} is not an IANA name such as Europe/Berlin")
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError, OSError):
        raise UsageError(
            f"unknown time zone {name!r} (an IANA name such as Europe/Berlin)"
        ) from None


def local_zone() -> tzinfo:
    """The machine's zone with its rules (a fixed offset would make every day 24 hours): `TZ`,
    else the IANA name `/etc/localtime` links to, else that file read as a zone, else the
    current offset."""
    candidates = [os.environ.get("TZ", "").lstrip(":")]
    try:
        candidates.append(os.readlink(LOCALTIME).partition("zoneinfo/")[2])
    except OSError:
        pass
    for key in candidates:
        if key and _ZONE.match(key) and ".." not in key:
            try:
                return ZoneInfo(key)
            except (ZoneInfoNotFoundError, ValueError, OSError):
                continue
    try:
        with open(LOCALTIME, "rb") as file:
            return ZoneInfo.from_file(file, key="localtime")
    except (OSError, ValueError):
        local = datetime.now().astimezone().tzinfo
        return local if local is not None else UTC


def day_period(day: str, zone: tzinfo) -> Period:
    """`day` (YYYY-MM-DD) from its local midnight to the next one, in `zone`."""
    if not _DAY.match(day):
        raise UsageError(f"--day {day[:40]!r} is not a date YYYY-MM-DD")
    try:
        when = date.fromisoformat(day)
    except ValueError:
        raise UsageError(f"--day {day!r} is not a date YYYY-MM-DD") from None
    try:
        period = Period(_midnight(when, zone), _midnight(when + timedelta(days=1), zone), zone)
    except OverflowError:  # 9999-12-31 has no next midnight; 0001-01-01 none before it in UTC
        raise _at_the_edge("--day", day) from None
    return _within_the_calendar(period, "--day", day)


def _at_the_edge(option: str, text: str) -> UsageError:
    return UsageError(
        f"{option} {text[:40]!r} is too near the edge of the calendar (years 1 to 9999) for "
        "the books: a period needs the day before it and its next midnight"
    )


def _within_the_calendar(period: Period, option: str, text: str) -> Period:
    """`period`, when its look-back (and every instant of it in UTC) is still a date."""
    try:
        start = period.start.astimezone(UTC)
        period.end.astimezone(UTC)
    except OverflowError:
        raise _at_the_edge(option, text) from None
    if start < EARLIEST:
        raise _at_the_edge(option, text)
    return period


def _midnight(when: date, zone: tzinfo) -> datetime:
    """Local midnight of `when` as an aware instant (a zone whose clocks skip midnight starts
    the day at the first instant that exists; zoneinfo resolves that with fold)."""
    naive = datetime(when.year, when.month, when.day)
    aware = naive.replace(tzinfo=zone)
    # round trip through UTC: a non-existent local time moves to the instant that exists
    return aware.astimezone(UTC).astimezone(zone)


def parse_time(text: str, zone: tzinfo, option: str) -> datetime:
    """ISO-8601 with an offset, or naive (then read in `zone`); a bare date is its midnight."""
    if len(text) > 40:
        raise UsageError(f"{option} is too long for a time")
    try:
        value = datetime.fromisoformat(text.strip())
    except ValueError:
        raise UsageError(
            f"{option} {text!r} is not an ISO-8601 time (e.g. 2026-10-25T00:00+02:00)"
        ) from None
    try:
        if value.tzinfo is None:
            value = value.replace(tzinfo=zone).astimezone(UTC).astimezone(zone)
        return value.astimezone(zone)
    except OverflowError:  # in the zone or in UTC, the time falls before year 1 or after 9999
        raise _at_the_edge(option, text) from None


def span_period(since: str, until: str, zone: tzinfo) -> Period:
    start = parse_time(since, zone, "--since")
    end = parse_time(until, zone, "--until")
    return checked(_within_the_calendar(Period(start, end, zone), "--since", since))


def checked(period: Period) -> Period:
    if period.duration <= timedelta(0):
        raise UsageError("--until must be after --since")
    if period.duration > MAX_PERIOD:
        raise UsageError(f"a period is at most {MAX_PERIOD.days} days long")
    return period


def choose_period(
    *, day: str | None, since: str | None, until: str | None, zone: tzinfo, today: date | None
) -> Period:
    """The period a command asked for: `--day`, or `--since` and `--until`, or (neither) the
    day `today` when given."""
    if day is not None and (since is not None or until is not None):
        raise UsageError("give --day or --since/--until, not both")
    if day is not None:
        return day_period(day, zone)
    if since is not None and until is not None:
        return span_period(since, until, zone)
    if since is not None or until is not None:
        raise UsageError("--since and --until go together")
    if today is None:
        raise UsageError("give --since and --until")
    return day_period(today.isoformat(), zone)


def iso(value: datetime) -> str:
    """ISO-8601 with the offset, to the second when whole seconds, else the millisecond."""
    spec = "seconds" if value.microsecond == 0 else "milliseconds"
    return value.isoformat(timespec=spec)
