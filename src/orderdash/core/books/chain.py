"""The closes of a till form a chain: each close's report holds the digest of the close it
follows (`previous`), so its own digest covers that one's, and so back to the till's first close.

The close a new one follows is the close of the same till with the latest `closed_at` in the
ledger when the new report is built (of two with the same, the later period); a till's first
close follows none. The link is checked again as the close is saved, in the transaction that
holds the till's closes (`Book.save_close`'s `follows`): of two closes built at once on the same
link, the second is refused and built again on the first (`close.py`), so the chain never
forks; a close whose time is not after the newest one's (a till's clock behind another's) is
refused too, since the next close would follow the wrong one.

A close edited after the next one was made, its digest computed again so that it reads back
whole by itself, no longer has the digest the next close covers: `verify`
names it. A close removed is named by the one that follows it. The newest close is covered by
nothing yet: the `close` notification carries each close's whole digest, kept outside the
ledger, to compare with.

Closes of report version 1 and 2 hold no link: each is checked against its own digest only
(`frozen.read_close`), and the first close of version 3 follows the newest of them.

Blocking (the book's calls, the reports parsed): callers run these in a worker thread.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, tzinfo

from orderdash.core.books.frozen import DIGEST_TEXT, BadClose, read_close
from orderdash.core.books.period import iso
from orderdash.core.books.shape import LinkJSON
from orderdash.core.ledger import Book, CloseRecord
from orderdash.core.safetext import clean

#: `orderdash close --verify`'s exit code when a close does not match (0: every one does).
EXIT_CHAIN_BROKEN = 7
#: Characters of a digest a problem names (the listing shows each whole).
SHOWN = 16


def _saved_order(record: CloseRecord) -> tuple[datetime, datetime, datetime]:
    return (record.closed_at, record.period_from, record.period_until)


def newest(records: Iterable[CloseRecord]) -> CloseRecord | None:
    """The close a new one follows, among a till's closes (see the module's docstring)."""
    return max(records, key=_saved_order, default=None)


def link_to(record: CloseRecord | None, zone: tzinfo) -> LinkJSON | None:
    """What a new report keeps of the close it follows (its `previous`): that close's period
    (times in `zone`) and its digest. None: the till's first close."""
    if record is None:
        return None
    if not DIGEST_TEXT.fullmatch(record.digest):
        raise BadClose(
            f"the ledger's close from {record.period_from.isoformat()} cannot be followed: its "
            "digest is not a SHA-256 in hex"
        )
    return {
        "from": iso(record.period_from.astimezone(zone)),
        "until": iso(record.period_until.astimezone(zone)),
        "digest": record.digest,
    }


def previous_close(book: Book, till: str, zone: tzinfo) -> LinkJSON | None:
    """The `previous` of a close of `till` built now (the newest close read alone: a till's
    closes are never read whole for it)."""
    return link_to(book.newest_close(till), zone)


@dataclass(frozen=True)
class CloseCheck:
    """One close as `verify` found it."""

    period_from: datetime
    period_until: datetime
    closed_at: datetime
    #: The digest written beside the report (cleaned: it is read from the disk).
    digest: str
    #: The report's version; None when the report cannot be read.
    version: int | None
    #: The digest of the close it follows, as its report holds it (None: none, or version 1-2).
    follows: str | None
    #: Why it does not match, one line; "" when it does.
    problem: str = ""


def verify(book: Book, till: str, zone: tzinfo) -> list[CloseCheck]:
    """Every close of `till`, oldest saved first, each checked: its report against its own
    digest, and the digest the close after it covers against its digest now (a problem names
    times in `zone`)."""
    records = sorted(book.closes(till), key=_saved_order)
    by_period = {(r.period_from, r.period_until): r for r in records}
    problems: dict[tuple[datetime, datetime], str] = {}
    links: dict[tuple[datetime, datetime], LinkJSON] = {}
    versions: dict[tuple[datetime, datetime], int] = {}
    for record in records:
        key = (record.period_from, record.period_until)
        try:
            report = read_close(record)
        except BadClose as bad:
            why = bad.message.partition(" cannot be read: ")[2]
            problems[key] = f"cannot be read: {why}" if why else bad.message
            continue
        versions[key] = report["version"]
        if report["version"] >= 3 and report["previous"] is not None:
            links[key] = report["previous"]
    _forks(records, versions, links, problems, zone)
    for record in records:
        link = links.get((record.period_from, record.period_until))
        if link is None:
            continue
        at = (datetime.fromisoformat(link["from"]), datetime.fromisoformat(link["until"]))
        followed = by_period.get(at)
        if followed is None:
            problems.setdefault(
                (record.period_from, record.period_until),
                f"the close it follows, from {iso(at[0].astimezone(zone))}, is not in the "
                "ledger: removed",
            )
        elif followed.digest != link["digest"]:
            problems.setdefault(
                at,
                f"changed after the close from {iso(record.period_from.astimezone(zone))} was "
                f"made: that close covers the digest {link['digest'][:SHOWN]}\u2026, this one "
                f"has {clean(followed.digest[:SHOWN])}\u2026",
            )
    return [
        CloseCheck(
            record.period_from,
            record.period_until,
            record.closed_at,
            clean(record.digest, limit=80),
            versions.get((record.period_from, record.period_until)),
            _followed(links.get((record.period_from, record.period_until))),
            problems.get((record.period_from, record.period_until), ""),
        )
        for record in records
    ]


def _forks(
    records: list[CloseRecord],
    versions: dict[tuple[datetime, datetime], int],
    links: dict[tuple[datetime, datetime], LinkJSON],
    problems: dict[tuple[datetime, datetime], str],
    zone: tzinfo,
) -> None:
    """Two closes that follow the same one (or two that each start the chain): the chain forked
    there (saved by an orderdash that did not check the link as it saved), and the one saved
    first is covered by no later close, so an edit of it would go unseen: named. `records` are
    in the order they were saved."""
    last_on: dict[str, CloseRecord] = {}
    for record in records:
        key = (record.period_from, record.period_until)
        if versions.get(key, 0) < 3:
            continue
        on = links[key]["digest"] if key in links else ""
        earlier = last_on.get(on)
        if earlier is not None:
            problems.setdefault(
                (earlier.period_from, earlier.period_until),
                f"the close from {iso(record.period_from.astimezone(zone))} follows the same "
                "close as this one: the chain forked, and no later close covers this one",
            )
        last_on[on] = record


def first_mismatch(checks: Iterable[CloseCheck]) -> CloseCheck | None:
    """The oldest saved close that does not match; None when every one does."""
    return next((check for check in checks if check.problem), None)


def _followed(link: LinkJSON | None) -> str | None:
    """The digest of the close a report says it follows (None: it names none)."""
    return link["digest"] if link else None
