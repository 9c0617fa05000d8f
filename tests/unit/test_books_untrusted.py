"""The books' core against hostile input, on a real SQLite ledger: amounts beyond the service's
bounds leave their order out (never a crash, never a 100 MB text), sums are exact or refused,
the ledger's rows are parsed in a worker thread and checked, a frozen close is verified against
its digest, a failed read cancels the reads beside it, and CSV cells are never formulas."""

from __future__ import annotations

import asyncio
import json
import threading
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from pathlib import Path
from types import SimpleNamespace as NS
from typing import Any

import pytest

from orderdash.core.books import close as books_close
from orderdash.core.books import frozen as books_frozen
from orderdash.core.books import gather as books_gather
from orderdash.core.books.close import close_period
from orderdash.core.books.export import safe_cell
from orderdash.core.books.frozen import BadClose, OverlappingClose, find_frozen, read_close
from orderdash.core.books.gather import MAX_SEEN_JSON, gather
from orderdash.core.books.orders import (
    BadOrder,
    InexactSum,
    exact_sum,
    read_order,
)
from orderdash.core.books.period import day_period, zone_named
from orderdash.core.books.report import build_report, change_note, digest_of, report_lines
from orderdash.core.ledger import (
    MAX_RESOLUTIONS_PER_ORDER,
    ChargeRecord,
    CloseRecord,
    LedgerError,
    RefundRecord,
    ResolutionRecord,
)
from orderdash.core.ledger.rows import time_text
from orderdash.core.model import jsontext
from support.ledger_file import LedgerFile

PERIOD = day_period("2026-11-26", zone_named("Europe/Berlin"))
AT = PERIOD.start_ms + 3_600_000


def order_data(token: str = "t1", base: Any = "0.1", *, code: str = "PAID") -> dict[str, Any]:
    return {
        "token": token,
        "id": 1,
        "createdAtMiliseconds": AT,
        "status": {"code": code, "label": code.title()},
        "currency": {"abbreviation": "EUR"},
        "coinBaseName": "BTC",
        "amountFiat": "10",
        "amount": "0.1",
        "transactions": [
            {
                "id": 1,
                "createdAtMiliseconds": AT + 1,
                "hash": "h",
                "amount": {"base": base, "total": "0", "underPaid": "0", "overPaid": "0"},
                "amountFiat": {"base": "10", "underPaid": "0", "overPaid": "0"},
            }
        ],
    }


class OpenGate:
    async def take_turn(self) -> None:
        pass


class Client:
    """The history names `tokens`; getOrder answers `answers[token]` (default: a paid order)."""

    def __init__(self, tokens: list[str], answers: dict[str, Any] | None = None) -> None:
        self.tokens = tokens
        self.answers = answers or {}
        self.read: list[str] = []

    async def account_orders(self, max_pages: int, before_page: Any) -> Any:
        items = [
            NS(token=t, created_at_ms=AT, status=NS(code="PAID", label="Paid")) for t in self.tokens
        ]
        return NS(items=items, truncated=False, skipped=0, warnings=lambda: [])

    async def get_order(self, token: str) -> Any:
        self.read.append(token)
        return NS(raw=self.answers.get(token, order_data(token)))


async def gathered(client: Any, book: Any) -> Any:
    return await gather(
        client, book, PERIOD, till="A", order_gate=OpenGate(), private_gate=OpenGate()
    )


@pytest.fixture
def ledger(tmp_path: Path) -> LedgerFile:
    return LedgerFile(tmp_path / "ledger.sqlite3")


# -- amounts ------------------------------------------------------------------------------------


@pytest.mark.parametrize("base", ["1e99999999", "1e1000000", "1e41", "1e-200", "0E-1000000"])
def test_an_amount_beyond_the_services_bounds_is_refused_not_expanded(base: str) -> None:
    with pytest.raises(BadOrder, match="out of range"):
        read_order(order_data(base=base))


async def test_an_order_with_a_huge_amount_is_left_out_with_a_warning(
    ledger: LedgerFile,
) -> None:
    client = Client(["ok", "huge"], {"huge": order_data("huge", "1e1000000")})
    book = ledger.open()
    try:
        result = await gathered(client, book)
    finally:
        book.close_connection()
    assert [o.token for o in result.orders] == ["ok"] and result.missing == 1
    assert any("order huge" in w and "out of range" in w for w in result.warnings)


def test_sums_are_exact_or_refused() -> None:
    one = read_order(order_data("a", "1"))
    tiny = read_order(order_data("b", "0.000000000000000000000000000001"))
    report = build_report([one, tiny], PERIOD, till="*", closed_at=datetime.now(UTC))
    assert report["received"]["coins"]["BTC"]["amount"] == "1.000000000000000000000000000001"
    assert exact_sum([Decimal(1), Decimal("1e-30")]) == Decimal("1.000000000000000000000000000001")
    with pytest.raises(InexactSum, match="not rounded"):
        exact_sum([Decimal("1e200"), Decimal("1e-200")])


# -- the ledger's rows ----------------------------------------------------------------------------


@pytest.mark.parametrize("column", ["refund_amount", "refund_rate", "refund_fee", "charge amount"])
@pytest.mark.parametrize("value", ["1E+999999999", "1E-999999999", "9" * 81, "1" * 5000])
def test_an_amount_read_back_beyond_the_services_bounds_is_one_ledger_error(
    ledger: LedgerFile, column: str, value: str
) -> None:
    book = ledger.open()
    at = datetime(2026, 11, 26, 9, tzinfo=UTC)
    refund = RefundRecord("BTC", Decimal("0.001"), "typed", Decimal("9000"), Decimal("0.0001"))
    book.resolution_made(ResolutionRecord("r1", "tok", "refunded", "why", "A", "op", at, refund))
    book.charge_started(ChargeRecord("tok", Decimal("10"), "EUR", "A", at))
    with book._engine.transaction() as cursor:  # written by something else, not orderdash
        if column == "charge amount":
            cursor.execute("UPDATE charges SET amount = %s", (value,))
        else:
            cursor.execute(f"UPDATE resolutions SET {column} = %s", (value,))
    read = (
        (lambda: book.charge("tok"))
        if column == "charge amount"
        else (lambda: book.resolutions_of(["tok"]))
    )
    try:
        with pytest.raises(LedgerError, match="not one within bounds") as refused:
            read()
    finally:
        book.close_connection()
    line = str(refused.value)
    assert "\n" not in line and len(line) < 120


def test_an_order_s_newest_resolutions_are_read_and_a_period_over_the_cap_says_so(
    ledger: LedgerFile, monkeypatch: pytest.MonkeyPatch
) -> None:
    book = ledger.open()
    at = datetime(2026, 11, 26, 9, tzinfo=UTC)
    with book._engine.transaction() as cursor:
        for n in range(MAX_RESOLUTIONS_PER_ORDER + 5):
            for token in ("busy", "calm") if n < 2 else ("busy",):
                cursor.execute(
                    "INSERT INTO resolutions (id, token, kind, reason, till, operator,"
                    " resolved_at) VALUES (%s, %s, 'settled', %s, 'A', 'op', %s)",
                    (f"{token}{n:03}", token, f"word {n}", time_text(at + timedelta(minutes=n))),
                )
    try:
        read = book.resolutions_of(["busy", "calm", "busy"])
        busy = [r.reason for r in read if r.token == "busy"]
        # the newest of each, oldest first: a token's last is still its state
        assert len(busy) == MAX_RESOLUTIONS_PER_ORDER and busy[-1] == "word 24"
        assert [r.reason for r in read if r.token == "calm"] == ["word 0", "word 1"]
        monkeypatch.setattr(books_close, "MAX_RESOLUTIONS", 10)
        shop = NS(orders=[])
        of_orders, made, warnings = books_close._resolutions(book, PERIOD, "*", shop)
        assert of_orders == [] and len(made) == 10 and made[0].reason == "word 0"
        assert warnings == [
            "more than 10 resolutions were made in the period: the report lists the first 10"
        ]
        monkeypatch.setattr(books_close, "MAX_RESOLUTIONS", 27)
        _, made, warnings = books_close._resolutions(book, PERIOD, "A", shop)
        assert len(made) == 27 and warnings == []
    finally:
        book.close_connection()


async def test_the_reads_tell_each_history_page_and_each_order_read(ledger: LedgerFile) -> None:
    class Paged(Client):
        async def account_orders(self, max_pages: int, before_page: Any) -> Any:
            for _ in range(3):  # three pages, each through the private budget's gate
                await before_page()
            return await super().account_orders(max_pages, before_page)

    pages: list[int] = []
    reads: list[tuple[int, int]] = []
    book = ledger.open()
    try:
        got = await gather(
            Paged(["a", "b"]),
            book,
            PERIOD,
            till="A",
            order_gate=OpenGate(),
            private_gate=OpenGate(),
            progress=lambda done, total: reads.append((done, total)),
            pages=pages.append,
        )
    finally:
        book.close_connection()
    assert got.read == 2 and pages == [1, 2, 3]
    assert reads[0] == (0, 2) and sorted(reads[1:]) == [(1, 2), (2, 2)]


async def test_ledger_rows_are_parsed_in_a_thread_and_checked(
    ledger: LedgerFile, monkeypatch: pytest.MonkeyPatch
) -> None:
    writer = ledger.open()
    now = datetime.now(UTC)
    writer.order_seen("good", "A", now, jsontext.dumps(order_data("good")))
    # a row filed under one token holding another order
    writer.order_seen("swapped", "A", now, jsontext.dumps(order_data("other")))
    big = order_data("big")
    big["padding"] = "x" * MAX_SEEN_JSON
    writer.order_seen("big", "A", now, jsontext.dumps(big))
    writer.close_connection()
    threads: set[str] = set()
    real = books_gather.read_order

    def watched(data: Any) -> Any:
        threads.add(threading.current_thread().name)
        return real(data)

    monkeypatch.setattr(books_gather, "read_order", watched)
    client = Client(["good", "swapped", "big"])
    book = ledger.open()
    try:
        result = await gathered(client, book)
    finally:
        book.close_connection()
    assert result.from_ledger == 1 and sorted(client.read) == ["big", "swapped"]
    assert sorted(o.token for o in result.orders) == ["big", "good", "swapped"]
    warning = [w for w in result.warnings if "order big" in w]
    assert len(warning) == 1 and "over 1 MiB" in warning[0]
    # the ledger's rows in a worker thread; the fresh reads (one order each) on the loop
    assert threading.main_thread().name in threads and len(threads) == 2


async def test_a_failed_read_cancels_the_others_and_a_failed_write_is_a_warning(
    ledger: LedgerFile,
) -> None:
    class Stuck(Client):
        def __init__(self, tokens: list[str]) -> None:
            super().__init__(tokens)
            self.cancelled = 0

        async def get_order(self, token: str) -> Any:
            self.read.append(token)
            if token != "t0":
                try:
                    await asyncio.Event().wait()  # never answers
                except asyncio.CancelledError:
                    self.cancelled += 1
                    raise
            return NS(raw=order_data(token))

    class Broken:
        def orders_seen(self, tokens: list[str]) -> list[Any]:
            return []

        def order_seen(self, *args: Any) -> None:
            raise RuntimeError("the disk caught fire")

    client = Stuck([f"t{i}" for i in range(20)])
    with pytest.raises(RuntimeError, match="caught fire"):
        await gather(
            client,
            Broken(),
            PERIOD,
            till="A",
            order_gate=OpenGate(),
            private_gate=OpenGate(),
            concurrency=3,
        )
    # every read under way was cancelled with it, and no other started
    assert client.cancelled == len(client.read) - 1 > 0 and len(client.read) <= 4
    await asyncio.sleep(0)
    assert len(client.read) <= 4

    class Refusing(Broken):
        def order_seen(self, *args: Any) -> None:
            raise LedgerError("the ledger is read-only")

    result = await gathered(Client(["a", "b"]), Refusing())
    assert sorted(o.token for o in result.orders) == ["a", "b"] and result.missing == 0
    assert sum("not written down: the ledger is read-only" in w for w in result.warnings) == 2


# -- frozen closes --------------------------------------------------------------------------------


def frozen_record(report: dict[str, Any], *, digest: str | None = None, text: str | None = None):
    return CloseRecord(
        "*",
        PERIOD.start,
        PERIOD.end,
        datetime.now(UTC),
        json.dumps(report, sort_keys=True) if text is None else text,
        digest_of(report) if digest is None else digest,
    )


def a_report() -> dict[str, Any]:
    orders = [read_order(order_data("a", "1")), read_order(order_data("b", "2", code="UNDERPAID"))]
    return build_report(orders, PERIOD, till="*", closed_at=datetime.now(UTC))


def test_a_frozen_close_read_back_is_checked_against_its_digest() -> None:
    report = a_report()
    assert read_close(frozen_record(report)) == report
    with pytest.raises(BadClose, match="not JSON"):
        read_close(frozen_record(report, text="{not json"))
    with pytest.raises(BadClose, match="digest does not match"):
        read_close(frozen_record(report, digest="0" * 64))
    fraction = json.dumps(report)[:-1] + ', "extra": 1.5}'
    with pytest.raises(BadClose, match="a value a report never has"):
        read_close(frozen_record(report, text=fraction))
    altered = json.loads(json.dumps(report))
    altered["received"]["coins"]["BTC"]["amount"] = "1000"
    with pytest.raises(BadClose, match="digest does not match"):
        read_close(frozen_record(altered, digest=report["digest"]))
    for damage in (
        lambda r: r["received"]["coins"]["BTC"].update(amount="=HYPERLINK(1)"),
        lambda r: r["orders"].update(total="3"),
        lambda r: r.pop("payments"),
        lambda r: r.update(version=5),
        lambda r: r.pop("sales"),
        lambda r: r["sales"]["fiat"]["EUR"].update(sales="7.5"),
        lambda r: r["sales"]["fiat"]["EUR"]["parts"]["excess"].update(amount="-1"),
        lambda r: r["sales"]["fiat"]["EUR"].update(received="=1+1"),
        lambda r: r.pop("resolutions"),
        lambda r: r.pop("previous"),
        lambda r: r.update(previous="0" * 64),
        lambda r: r.update(previous={"from": "2026-01-01T00:00:00+00:00", "digest": "0" * 64}),
        lambda r: r.update(
            previous={"from": r["period"]["from"], "until": r["period"]["from"], "digest": "0"}
        ),
        lambda r: r["resolutions"].append({"order": "a", "kind": 1}),
        lambda r: r["exceptions"][0].update(resolution={"order": "b"}),
    ):
        bad = json.loads(json.dumps(report))
        damage(bad)
        bad["digest"] = digest_of(bad)  # consistent: only the shape is wrong
        with pytest.raises(BadClose) as refused:
            read_close(frozen_record(bad))
        assert "\n" not in refused.value.message


def test_report_lines_show_every_text_of_a_report_literally() -> None:
    report = a_report()
    report["orders"]["by_state"]["\x1b[2Jevil"] = 1
    report["till"] = "A\x1b]52;c;aGk=\x07"
    report["exceptions"][0]["kind"] = "under\x1b[31m"
    report["period"]["zone"] = "Zone\x9b2J"
    hostile = {
        "order": "b\x1b[2J",
        "kind": "settled\x07",
        "reason": "[bold]why[/]\x1b]8;;https://evil\x07",
        "operator": "op\x9b",
        "till": "T",
        "at": "2026-10-25T10:00:00+02:00",
        "refund": {"coin": "BTC\x1b", "amount": "1", "basis": "typed", "rate": "2", "fee": "0"},
    }
    report["exceptions"][0]["resolution"] = hostile
    report["resolutions"] = [hostile]
    report["digest"] = digest_of(report)
    record = frozen_record(report)
    lines = report_lines(read_close(record))
    assert not any(ch in line for line in lines for ch in "\x1b\x07\x9b")
    assert any("evil 1" in line for line in lines)
    assert sum("[bold]why[/]" in line for line in lines) == 2  # literal text, both places


def test_only_the_earlier_closes_that_can_matter_are_read_in_a_thread(
    ledger: LedgerFile, monkeypatch: pytest.MonkeyPatch
) -> None:
    book = ledger.open()
    try:
        for back in (1, 2, 3, 10):  # the days before: only the one ending at the start matters
            day = day_period((PERIOD.start.date() - timedelta(days=back)).isoformat(), PERIOD.zone)
            report = build_report([], day, till="*", closed_at=datetime.now(UTC))
            book.save_close(
                CloseRecord(
                    "*",
                    day.start,
                    day.end,
                    datetime.now(UTC),
                    json.dumps(report),
                    report["digest"],
                )
            )
        read: list[Any] = []
        real = books_frozen.read_close

        def counted(record: CloseRecord) -> Any:
            read.append(record.period_from)
            return real(record)

        monkeypatch.setattr(books_frozen, "read_close", counted)
        earlier, warnings = books_frozen.prior_closes(
            book, "*", PERIOD, look_back=timedelta(hours=24), refuse_overlap=True
        )
        assert len(earlier) == len(read) == 1 and not warnings
        assert find_frozen(book, "*", PERIOD) is None
    finally:
        book.close_connection()


async def test_a_close_overlapping_another_of_the_same_till_is_refused(
    ledger: LedgerFile,
) -> None:
    book = ledger.open()
    try:
        report = build_report([], PERIOD, till="*", closed_at=datetime.now(UTC))
        book.save_close(frozen_record(report))
        span = day_period("2026-11-26", zone_named("America/New_York"))
        with pytest.raises(OverlappingClose, match="overlaps the close of") as refused:
            await close_period(
                Client([]),
                book,
                span,
                till="*",
                recorder="A",
                order_gate=OpenGate(),
                private_gate=OpenGate(),
            )
        assert refused.value.exit_code == 2
        # a dry run shows it, and says it cannot be closed; another till may close it
        shown = await close_period(
            Client([]),
            book,
            span,
            till="*",
            recorder="A",
            order_gate=OpenGate(),
            private_gate=OpenGate(),
            dry_run=True,
        )
        assert any("cannot be closed" in w for w in shown.report["warnings"])
        other = await close_period(
            Client([]),
            book,
            span,
            till="B",
            recorder="A",
            order_gate=OpenGate(),
            private_gate=OpenGate(),
        )
        assert other.saved
    finally:
        book.close_connection()


def test_a_change_since_the_dry_run_is_named() -> None:
    confirmed = a_report()
    later = json.loads(json.dumps(confirmed))
    later["closed_at"], later["digest"] = "2026-11-27T00:00:00+01:00", "x"
    assert change_note(confirmed, later) == ""
    # another close saved since the dry run is the one this close follows: not a change of the day
    later["previous"] = {"from": "2026-11-25T00:00:00+01:00", "digest": "0" * 64}
    assert change_note(confirmed, later) == ""
    later["payments"] += [dict(later["payments"][0], id=7), dict(later["payments"][0], id=8)]
    assert change_note(confirmed, later) == (
        "2 payments arrived since the dry run: the close shows them."
    )


# -- CSV ----------------------------------------------------------------------------------------


def test_a_numeric_cell_is_bare_only_when_it_is_a_plain_number() -> None:
    assert safe_cell("amount", "-12.50") == "-12.50" and safe_cell("id", 7) == "7"
    assert safe_cell("amount", '=HYPERLINK("http://x","y")') == '\'=HYPERLINK("http://x","y")'
    assert safe_cell("fiat", "-1+2") == "'-1+2" and safe_cell("amount", "+1") == "'+1"
    assert safe_cell("company", "=1") == "'=1"
