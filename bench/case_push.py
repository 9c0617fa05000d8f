"""Case "push": the service's callbacks through the shop's receiver (`orderdash receive`) to
every till on the book (see bench/README.md, case 12).

1. till: a payment recorded at the simulator, its callback sent to the receiver (a child), until
   the line of that payment from each of three headless dashboards (`orderdash watch --jsonl`,
   three children on the same book, polling once an hour: only the book can tell them). Timed
   from the callback's journal row (when the receiver took it) to the last of the three lines.
   PostgreSQL (p95 <= 1 s) and SQLite (p95 <= 1.5 s).
2. storm: 1,000 callbacks for 100 orders in 10 s sent by this process to the receiver (a child,
   on SQLite): getOrders per order per second of burst (the simulator's request log), the
   journal's rows, the receiver's answer p99 <= 50 ms.
3. backoff: 500 watched orders on the poller's own clock (`Scheduler`, `PushPace`, as the
   watcher drives them), with payments; getOrders with callbacks flowing (the receiver's one
   read per callback counted in) against polling alone, the same payments seen by both.
"""

from __future__ import annotations

import random
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from common import BEARER, Options, Row, log, median, percentile, seconds, token_file
from push_procs import Till, postgresql, receiver

TILLS = 3
TARGET = {"postgresql": 1.0, "sqlite": 1.5}
STORM_CALLBACKS, STORM_ORDERS, STORM_SECONDS = 1000, 100, 10.0
ANSWER_P99 = 0.050
SENDERS = 16
WATCHED = 500


@contextmanager
def sim_server(seed: int) -> Iterator[Any]:
    from orderdash.simulator import Simulator, SimulatorServer

    sim = Simulator(seed=seed, with_demo_orders=False)
    with SimulatorServer(sim, bearer_token=BEARER, port=0) as server:
        yield server


def order_reads(sim: Any, tokens: set[str]) -> list[dict[str, Any]]:
    return [r for r in sim.requests if r["endpoint"] == "order" and r["token"] in tokens]


def journal(book: dict[str, str]) -> list[Any]:
    """The callbacks journaled on `book` (the latest 1,000), oldest first."""
    from pydantic import SecretStr

    from orderdash.core.ledger.open import open_book
    from orderdash.core.settings.model import Settings

    values: dict[str, Any] = dict(book)
    if "ledger_url" in values:
        values["ledger_url"] = SecretStr(values["ledger_url"])
    opened = open_book(Settings.model_validate(values))
    try:
        return opened.callbacks_received(1000)
    finally:
        opened.close_connection()


# -- 1. a callback to every till ---------------------------------------------------------------


def tills_hear(options: Options, engine: str, book: dict[str, str]) -> dict[str, Any]:
    rng = random.Random(options.seed)
    with sim_server(options.seed) as server, token_file() as token_path:
        sim = server.sim
        new = [
            sim.create_order(coin="btc", amount_fiat="1000000.00", lifetime_s=7200)
            for _ in range(options.latency_runs + 1)
        ]
        warm, tokens = new[0], new[1:]
        with receiver(server.base_url, token_path, book) as url:
            sim.callbacks.configure(url)
            tills = [
                Till(f"till-{n}", server.base_url, token_path, book, new) for n in range(TILLS)
            ]
            try:
                for till in tills:
                    if not till.wait(lambda t: len(t.states) == len(new), 60):
                        raise RuntimeError(f"{till.name} did not show its orders in 60 s")
                # a listener hears what is announced after it began: pay the warm-up order
                # until every till has shown it
                for _ in range(30):
                    sim.add_transaction(warm, "0.00001")
                    if all(t.wait(lambda t: warm in t.payments, 1.0) for t in tills):
                        break
                else:
                    raise RuntimeError("the tills did not hear the warm-up payment in 30 s")
                log(options, f"push/{engine}: tills up, {len(tokens)} payments")
                polled = len(order_reads(sim, set(tokens)))
                added: dict[str, float] = {}
                for token in tokens:
                    time.sleep(rng.uniform(0.1, 0.5))
                    added[token] = time.time()
                    sim.add_transaction(token, "0.00001")
                    for till in tills:
                        if not till.wait(lambda t, k=token: k in t.payments, 30):
                            raise RuntimeError(f"{till.name} did not show a payment in 30 s")
                reads = len(order_reads(sim, set(tokens))) - polled
            finally:
                for till in tills:
                    till.close()
        arrived = {row.token: row.received_at.timestamp() for row in journal(book)}
    shown = {token: [till.payments[token][0] for till in tills] for token in tokens}
    return {
        # the callback's arrival to the last till's line
        "every": [max(shown[k]) - arrived.get(k, added[k]) for k in tokens],
        "each": [at - arrived.get(k, added[k]) for k in tokens for at in shown[k]],
        "sent": [arrived.get(k, added[k]) - added[k] for k in tokens],
        "reads": reads,
        "payments": len(tokens),
        "pushes": [till.pushes for till in tills],
    }


def till_rows(options: Options) -> list[Row]:
    rows = []
    with postgresql() as (url, why):
        if url is None:
            rows.append(Row("push", "till, PostgreSQL", status="n/a", note=f"not run: {why}"))
        else:
            rows.append(
                till_row("postgresql", tills_hear(options, "postgresql", {"ledger_url": url}))
            )
    scratch = Path(tempfile_dir()) / "ledger.sqlite3"
    rows.append(till_row("sqlite", tills_hear(options, "sqlite", {"ledger": str(scratch)})))
    return rows


def tempfile_dir() -> str:
    import tempfile

    return tempfile.mkdtemp(prefix="orderdash-bench-push-")


def till_row(engine: str, got: dict[str, Any]) -> Row:
    every, target = got["every"], TARGET[engine]
    p95 = percentile(every, 95)
    name = "PostgreSQL" if engine == "postgresql" else "SQLite"
    return Row(
        "push",
        f"till, {name}: p95 {seconds(p95)}",
        f"p50 {seconds(median(every))}",
        None,
        f"<= {seconds(target)}",
        p95 <= target,
        note=f"{got['payments']} payments, each an order of its own; from the callback's "
        f"journal row (receiver, a child) to the last of {TILLS} `watch --jsonl` children "
        f"showing it (one till alone: p50 {seconds(median(got['each']))}, p95 "
        f"{seconds(percentile(got['each'], 95))}); max {seconds(max(every))}; the simulator's "
        f"send took p50 {seconds(median(got['sent']))} before that; getOrders of those orders "
        f"meanwhile: {got['reads']} (the receiver's; the tills poll once an hour)",
        data=got,
    )


# -- 2. a storm of callbacks -------------------------------------------------------------------


def storm(options: Options) -> dict[str, Any]:
    from orderdash.core.model import jsontext

    rng = random.Random(options.seed)
    book = {"ledger": str(Path(tempfile_dir()) / "ledger.sqlite3")}
    with sim_server(options.seed) as server, token_file() as token_path:
        sim = server.sim
        tokens = [
            sim.create_order(coin="btc", amount_fiat="25.00", lifetime_s=7200)
            for _ in range(STORM_ORDERS)
        ]
        bodies = [
            jsontext.dumps({"order_token": rng.choice(tokens), "status": "IN_PROGRESS"}).encode()
            for _ in range(STORM_CALLBACKS)
        ]
        # a budget the reads never reach: what bounds them here is the receiver's coalescing
        budget = {"budget_per_minute": "10000", "budget_per_hour": "1000000"}
        with receiver(server.base_url, token_path, book, **budget) as url:
            sim_began = sim.now()
            answers, statuses, burst = send_storm(url, bodies)
            rows = settled(book, STORM_CALLBACKS)
            # the floor: posts at the same pace to a path the receiver's web server answers
            # 404 at once, with no journal row and no read
            floor, _, _ = send_storm(url.replace("/callback", "/floor"), bodies[: len(bodies) // 2])
        reads = order_reads(sim, set(tokens))
    by_order: dict[str, list[float]] = {}
    for read in reads:
        if read["t"] >= sim_began:
            by_order.setdefault(read["token"], []).append(read["t"])
    gaps = [b - a for times in by_order.values() for a, b in zip(times, times[1:], strict=False)]
    outcomes: dict[str, int] = {}
    for row in rows:
        outcomes[row.outcome] = outcomes.get(row.outcome, 0) + 1
    return {
        "answers": answers,
        "floor": floor,
        "statuses": sorted(set(statuses)),
        "burst": burst,
        "journaled": len(rows),
        "outcomes": outcomes,
        "reads": len(reads),
        "most": max((len(t) for t in by_order.values()), default=0),
        "min_gap": min(gaps, default=float("inf")),
        "orders_read": len(by_order),
    }


def send_storm(url: str, bodies: list[bytes]) -> tuple[list[float], list[int], float]:
    """`bodies` posted to `url`, STORM_CALLBACKS / STORM_SECONDS a second, by SENDERS threads
    sharing one httpx client (its connections kept alive); each answer's time as the sender
    saw it."""
    import httpx

    answers: list[float] = []
    statuses: list[int] = []
    limits = httpx.Limits(max_connections=SENDERS, max_keepalive_connections=SENDERS)
    with httpx.Client(timeout=10, limits=limits) as http:
        began = time.monotonic()

        def send(number: int) -> None:
            time.sleep(
                max(0.0, began + number * STORM_SECONDS / STORM_CALLBACKS - time.monotonic())
            )
            started = time.perf_counter()
            response = http.post(url, content=bodies[number])
            answers.append(time.perf_counter() - started)
            statuses.append(response.status_code)

        with ThreadPoolExecutor(SENDERS) as pool:
            list(pool.map(send, range(len(bodies))))
        return answers, statuses, time.monotonic() - began


def settled(book: dict[str, str], count: int) -> list[Any]:
    """The journal once it holds `count` rows and every read is done (none still "received"),
    or as it is after 30 s."""
    deadline = time.monotonic() + 30
    rows = journal(book)
    while time.monotonic() < deadline and (
        len(rows) < count or any(r.outcome == "received" for r in rows)
    ):
        time.sleep(0.2)
        rows = journal(book)
    return rows


def storm_rows(options: Options) -> list[Row]:
    got = storm(options)
    allowed = int(got["burst"]) + 1  # one a second of burst, the first at its start
    p99 = percentile(got["answers"], 99)
    return [
        Row(
            "push",
            f"storm: most getOrders of one order {got['most']}",
            f"burst {got['burst']:.1f} s",
            None,
            f"<= {allowed} (1/s)",
            got["most"] <= allowed and got["min_gap"] >= 0.9,
            note=f"{STORM_CALLBACKS} callbacks for {STORM_ORDERS} orders from {SENDERS} threads "
            f"in this process (one httpx client, its connections kept alive) to `orderdash "
            f"receive` (a child, SQLite, its budget out of reach): {got['reads']} getOrders "
            f"in all for {got['orders_read']} orders, the closest two of one order "
            f"{seconds(got['min_gap'])} apart (>= 0.9 s asked), from the simulator's log",
            data={k: v for k, v in got.items() if k != "answers"},
        ),
        Row(
            "push",
            f"storm: journaled {got['journaled']}",
            f"sent {STORM_CALLBACKS}",
            None,
            f"= {STORM_CALLBACKS}",
            got["journaled"] == STORM_CALLBACKS,
            note=f"the journal's rows by outcome: {got['outcomes']} answers {got['statuses']}",
        ),
        Row(
            "push",
            f"storm: answer p99 {seconds(p99)}",
            f"floor p99 {seconds(percentile(got['floor'], 99))}",
            None,
            f"<= {seconds(ANSWER_P99)}",
            p99 <= ANSWER_P99,
            note=f"the receiver's answer to each callback, as the sender timed it: p50 "
            f"{seconds(median(got['answers']))}, max {seconds(max(got['answers']))}; floor: "
            f"{len(got['floor'])} posts at the same pace to a path its web server answers 404 "
            f"(no journal row, no read), p50 {seconds(median(got['floor']))}",
            data={"answers": got["answers"], "floor": got["floor"]},
        ),
    ]


# -- 3. the poll's back-off --------------------------------------------------------------------

WARM, WINDOW, DRAIN, PAYMENTS, CALLBACK_DELAY = 600.0, 1800.0, 900.0, 150, 0.3


def watched(pushing: bool, seed: int) -> dict[str, Any]:
    """500 orders on the scheduler's clock, every read answered at once, getOrders counted
    over WINDOW after WARM; payments at random moments of the window, and DRAIN more seconds for
    the last of them to be found (polling alone takes minutes under the budget). With
    `pushing`, each payment's callback is heard CALLBACK_DELAY later, as the watcher hears an
    announcement (`PushPace.heard`, `Scheduler.pushed`)."""
    from orderdash.core.polling.push import PushPace
    from orderdash.core.polling.refresh import Kind
    from orderdash.core.polling.scheduler import Scheduler

    rng = random.Random(seed)
    s = Scheduler(poll_interval=10.0, refresh_interval=60.0, rates_enabled=False, now=0.0, rng=rng)
    tokens = [f"tok-{n}" for n in range(WATCHED)]
    for token in tokens:
        s.add(token, 0.0)
    plan = random.Random(seed + 1)
    payments = sorted(
        (plan.uniform(WARM, WARM + WINDOW), plan.choice(tokens)) for _ in range(PAYMENTS)
    )
    paid: dict[str, list[float]] = {}  # token -> the moments of its payments
    for at, token in payments:
        paid.setdefault(token, []).append(at)
    seen: dict[tuple[str, float], float] = {}  # (token, paid at) -> when it was seen
    known: dict[str, int] = {}  # token -> payments it shows
    heard = [(at + CALLBACK_DELAY, token) for at, token in payments] if pushing else []
    pace = PushPace(fallback=60.0, quiet=600.0, alarm=30.0)

    def look(token: str, now: float) -> bool:
        """The order as the service has it at `now`: True when it shows a new payment."""
        moments = [at for at in paid.get(token, ()) if at <= now]
        for at in moments[known.get(token, 0) :]:
            seen[(token, at)] = now
        new = len(moments) > known.get(token, 0)
        known[token] = len(moments)
        return new

    now, polls = 0.0, 0
    end = WARM + WINDOW + DRAIN
    while now < end:
        while heard and heard[0][0] <= now:
            _, token = heard.pop(0)
            new = look(token, now)
            if pace.heard(token, now):
                s.fallback(pace.fallback, now)
            s.note_result(token, now, activity=new, closed=False)
            s.pushed(token, now)
        for token, kind in s.due_requests(now):
            s.started(token, kind, now)
            s.succeeded(token, kind, now)
            new = look(token, now)
            if new:
                pace.polled_paid(token, now)
            s.note_result(token, now, activity=new, closed=False)
            polls += kind is Kind.ORDER and WARM <= now < WARM + WINDOW
        if pace.check(now):
            s.fallback(0.0, now)
        wakeup = s.next_wakeup(now)
        step = wakeup if wakeup is not None else end
        if heard:
            step = min(step, heard[0][0])
        now = max(now + 0.01, step)
    delays = [seen[(t, at)] - at for at, t in payments if (t, at) in seen]
    return {
        "polls": polls,
        "receiver": len(payments) if pushing else 0,
        "seen": sorted((t, at) for (t, at) in seen),
        "payments": len(payments),
        "delay": median(delays) if delays else float("nan"),
        "flowing": pace.flowing,
    }


def backoff_rows(options: Options) -> list[Row]:
    alone, pushed = watched(False, options.seed), watched(True, options.seed)
    spent = pushed["polls"] + pushed["receiver"]
    ratio = spent / alone["polls"]
    same = alone["seen"] == pushed["seen"] and len(alone["seen"]) == alone["payments"]
    return [
        Row(
            "push",
            f"backoff: {spent} getOrders in {WINDOW / 60:g} min",
            f"alone {alone['polls']}",
            ratio,
            "<= 0.5, same payments",
            ratio <= 0.5 and same,
            note=f"{WATCHED} watched orders on the scheduler's clock (default poll 10 s, "
            f"budget 200/min), {alone['payments']} payments; with callbacks flowing "
            f"{pushed['polls']} polls (fallback every 60 s) + {pushed['receiver']} reads by "
            f"the receiver (one per callback); payments seen: {len(alone['seen'])} polling "
            f"alone, {len(pushed['seen'])} with callbacks ({'the same' if same else 'NOT the same'}"
            f"), median {seconds(alone['delay'])} after the payment polling alone, "
            f"{seconds(pushed['delay'])} with callbacks",
        )
    ]


def run(options: Options) -> list[Row]:
    rows = till_rows(options)
    rows += storm_rows(options)
    rows += backoff_rows(options)
    return rows
