"""The receiver's parts, each alone: the body read (JSON and form), the sender behind proxies, the
allow-list, the rate bound per sender, the coalescing of reads and the body set against
getOrder's answer. Every one bounded, whatever is sent."""

from __future__ import annotations

from decimal import Decimal

import pytest

from orderdash.core.model import jsontext
from orderdash.core.model.wire import OrderEnvelope
from orderdash.core.receiver import MAX_BODY_BYTES
from orderdash.core.receiver.coalesce import COALESCED, FULL, MAX_ORDERS, QUEUED, Coalescer
from orderdash.core.receiver.compare import differences
from orderdash.core.receiver.guard import SourceBuckets, allowed, networks, source_of
from orderdash.core.receiver.parse import FORM, Callback, Malformed, parse_callback

BODY = {
    "type": "order callback",
    "action": "receive_transaction",
    "status": "IN_PROGRESS",
    "order_token": "tok-1",
    "received_amount_in_coins": Decimal("0.000123456789012345678901"),
    "received_amount_in_fiat": "12.50",
}


def test_a_json_callback_keeps_every_digit() -> None:
    got = parse_callback(jsontext.dumps(BODY).encode(), "application/json")
    assert got == Callback(
        "tok-1", "IN_PROGRESS", BODY["received_amount_in_coins"], Decimal("12.5")
    )


def test_a_form_callback_reads_the_same() -> None:
    raw = b"order_token=tok-1&status=CONFIRMED&received_amount_in_coins=0.5&transaction_id="
    assert parse_callback(raw, FORM + "; charset=utf-8") == Callback(
        "tok-1", "CONFIRMED", Decimal("0.5"), None
    )


@pytest.mark.parametrize(
    ("raw", "kind", "why"),
    [
        (b"[1]", None, "not a JSON object"),
        (b'{"order_token": 12}', None, "no order_token text"),
        (b'{"order_token": "  "}', None, "empty"),
        (b'{"order_token": "a\\u001b[2J"}', None, "control characters"),
        (b'{"order_token": "a", "status": "X", "status": "Y"}', None, "twice"),
        (b"order_token=a&order_token=b", FORM, "twice"),
        (b"order_token=\xff", FORM, "not a form"),
        (b"x" * (MAX_BODY_BYTES + 1), None, "too large"),
    ],
)
def test_what_is_not_a_callback_is_malformed(raw: bytes, kind: str | None, why: str) -> None:
    with pytest.raises(Malformed, match=why):
        parse_callback(raw, kind)


def test_an_amount_that_is_no_number_is_not_compared() -> None:
    raw = b'{"order_token": "t", "received_amount_in_coins": "1e999999", "status": 5}'
    assert parse_callback(raw, None) == Callback("t", None, None, None)


def test_the_sender_is_the_entry_the_trusted_proxies_vouch_for() -> None:
    assert source_of("10.0.0.1", ("198.51.100.7",), 0) == "10.0.0.1"
    assert source_of("10.0.0.1", ("6.6.6.6, 198.51.100.7",), 1) == "198.51.100.7"
    assert source_of("10.0.0.1", ("6.6.6.6, 198.51.100.7", "10.0.0.2"), 2) == "198.51.100.7"
    assert source_of("10.0.0.1", ("198.51.100.7",), 2) == "198.51.100.7"  # fewer: the leftmost
    assert source_of("10.0.0.1", (), 1) == "10.0.0.1"
    assert len(source_of(None, ("x" * 10_000,), 1)) <= 64


def test_the_allow_list() -> None:
    allow = networks(["203.0.113.0/24", "2001:db8::/32", "192.0.2.1"])
    assert allowed("203.0.113.9", allow) and allowed("2001:db8::1", allow)
    assert allowed("::ffff:192.0.2.1", allow)  # an IPv4 sender on a dual-stack socket
    assert not allowed("198.51.100.7", allow) and not allowed("not an address", allow)
    assert allowed("anything", ())
    with pytest.raises(ValueError, match="not an address"):
        networks(["203.0.113.0/33"])


def test_the_rate_bound_per_sender_and_its_memory_are_bounded() -> None:
    buckets = SourceBuckets(burst=3, per_second=1.0, limit=100)
    assert [buckets.take("a", 0.0) for _ in range(4)] == [True, True, True, False]
    assert buckets.take("b", 0.0)  # another sender has its own
    assert buckets.take("a", 1.0) and not buckets.take("a", 1.0)  # refilled at its pace
    for n in range(1000):
        buckets.take(f"10.0.{n // 256}.{n % 256}", 2.0)
    assert len(buckets) == 100


def test_an_ipv6_sender_has_one_bucket_for_its_whole_network() -> None:
    # a host given an IPv6 /64 sends from as many addresses as it likes
    buckets = SourceBuckets(burst=3, per_second=1.0, limit=100)
    sent = [buckets.take(f"2001:db8:1:2::{n:x}", 0.0) for n in range(1, 6)]
    assert sent == [True, True, True, False, False]
    assert buckets.take("2001:db8:1:3::1", 0.0)  # the next network is another sender
    assert buckets.take("::ffff:192.0.2.1", 0.0) and buckets.take("192.0.2.2", 0.0)


def callback(token: str, status: str | None = "IN_PROGRESS") -> Callback:
    return Callback(token, status, None, None)


def offer(reads: Coalescer, sent: Callback, row: str, now: float) -> str:
    """A callback offered, its journal row written (the read released) when it is queued."""
    decision = reads.offer(sent, row, now)
    if decision == QUEUED:
        reads.release(sent.token, row)
    return decision


def test_a_burst_for_one_order_is_one_read() -> None:
    reads = Coalescer()
    assert offer(reads, callback("t"), "row-1", 0.0) == QUEUED
    assert offer(reads, callback("t"), "row-2", 0.1) == COALESCED  # waiting
    read, _ = reads.next_read(0.2)
    assert read is not None and read.journal_id == "row-1"
    assert offer(reads, callback("t"), "row-3", 0.5) == COALESCED  # running
    assert not reads.finished(read, "IN_PROGRESS")  # it said what the read found
    assert offer(reads, callback("t"), "row-4", 1.1) == COALESCED  # within the second
    assert reads.next_read(1.1) == (None, None)
    assert offer(reads, callback("t"), "row-5", 1.3) == QUEUED  # a second after: read again


def test_a_callback_that_says_more_than_its_read_saw_earns_one_more_read() -> None:
    reads = Coalescer()
    offer(reads, callback("t"), "row-1", 0.0)
    read, _ = reads.next_read(0.0)
    assert read is not None
    assert offer(reads, callback("t", "CONFIRMED"), "row-2", 0.1) == COALESCED
    assert reads.finished(read, "IN_PROGRESS")  # one more, a second after the first began
    assert reads.next_read(0.5) == (None, 1.0)
    again, _ = reads.next_read(1.0)
    assert again is not None and again.journal_id is None
    assert offer(reads, callback("t", "CONFIRMED"), "row-3", 1.2) == COALESCED


def test_the_reads_waiting_and_the_orders_remembered_are_bounded() -> None:
    reads = Coalescer(queue_limit=3)
    assert [offer(reads, callback(f"t{n}"), f"r{n}", 0.0) for n in range(4)] == [
        QUEUED,
        QUEUED,
        QUEUED,
        FULL,
    ]
    many = Coalescer(queue_limit=MAX_ORDERS * 2)
    for n in range(MAX_ORDERS + 50):
        offer(many, callback(f"t{n}"), f"r{n}", 0.0)
        read, _ = many.next_read(0.0)
        assert read is not None
        many.finished(read, "IN_PROGRESS")
    assert len(many) == MAX_ORDERS


def test_a_read_waits_for_its_journal_row_and_is_forgotten_without_one() -> None:
    reads = Coalescer()
    assert reads.offer(callback("t"), "row-1", 0.0) == QUEUED
    assert reads.next_read(0.0) == (None, None)  # held: its row is not written yet
    assert reads.offer(callback("t"), "row-2", 0.0) == COALESCED
    reads.withdraw("t", "row-1")  # the row could not be written
    assert reads.waiting == 0 and len(reads) == 0
    assert reads.offer(callback("t"), "row-3", 0.0) == QUEUED
    reads.release("t", "row-3")
    read, _ = reads.next_read(0.0)
    assert read is not None and read.journal_id == "row-3"


def test_the_body_is_set_against_getorder() -> None:
    raw = (
        b'{"status": 200, "data": {"companyName": "Shop", "id": 1, "customerId": 2,'
        b' "token": "t", "amountFiat": "25.00", "currency": {"id": 1, "currency": "Euro",'
        b' "abbreviation": "EUR"}, "createdAt": "2026-11-27 10:00", "createdAtMiliseconds":'
        b' 1, "type": "order", "status": {"code": "IN_PROGRESS", "label": "In progress"},'
        b' "transactions": []}}'
    )
    order = OrderEnvelope.model_validate(jsontext.loads(raw)).data
    assert differences(Callback("t", "IN_PROGRESS", Decimal(0), None), order) == []
    assert differences(Callback("t", "CONFIRMED\x1b[2J", Decimal("1"), None), order) == [
        "status: body CONFIRMED\ufffd[2J, getOrder IN_PROGRESS",
        "received_amount_in_coins: body 1, getOrder 0",
    ]


def test_a_long_forwarded_header_keeps_the_entry_the_proxy_appended() -> None:
    # the proxy appends the peer at the end of the sender's header: a sender's long header
    # must not push that entry out of what is read
    padding = ", ".join(["203.0.113.9"] * 500)
    assert source_of("10.0.0.1", (f"{padding}, 198.51.100.7",), 1) == "198.51.100.7"
    assert source_of("10.0.0.1", (f"{padding}, 6.6.6.6", "198.51.100.7"), 1) == "198.51.100.7"
