"""The processes of the `push` case: the callback receiver (`orderdash receive`) and headless
dashboards (`orderdash watch --jsonl`), each a child on a book given by its environment, and
a throw-away PostgreSQL server started as the tests start theirs."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from common import ROOT, child_env, orderdash_command

#: How long a child has to say it is up.
UP_SECONDS = 30.0


def book_env(book: dict[str, str], till: str) -> dict[str, str]:
    """A child's environment on `book` ({"ledger": path} or {"ledger_url": url}) as `till`: the
    book's address in the environment, never in argv."""
    env = child_env()
    for key, value in book.items():
        env[f"ORDERDASH_{key.upper()}"] = value
    env["ORDERDASH_TILL"] = till
    return env


def stop(process: subprocess.Popen[str]) -> None:
    """Ctrl-C, as a user stops it; killed if it takes more than 5 s."""
    if process.poll() is None:
        process.send_signal(signal.SIGINT)
        try:
            process.wait(5)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(5)


@contextmanager
def receiver(
    base_url: str, token_file: Path, book: dict[str, str], **settings: str
) -> Iterator[str]:
    """`orderdash receive` on a free loopback port (more `settings` in its environment);
    yields its callback URL."""
    env = book_env(book, "receiver")
    env.update({f"ORDERDASH_{key.upper()}": value for key, value in settings.items()})
    argv = [
        *orderdash_command(), "receive", "--port", "0", "--base-url", base_url,
        "--bearer-token-file", str(token_file),
    ]  # fmt: skip
    process = subprocess.Popen(
        argv,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        stdin=subprocess.DEVNULL,
        text=True,
        env=env,
    )
    try:
        out = process.stdout
        assert out is not None
        said: list[str] = []
        reader = threading.Thread(target=lambda: said.append(out.readline()), daemon=True)
        reader.start()
        reader.join(UP_SECONDS)
        line = said[0] if said else ""
        if not line.startswith("receiving callbacks at "):
            raise RuntimeError(f"orderdash receive did not start: {line!r}")
        yield line.split(" at ", 1)[1].strip()
    finally:
        stop(process)


class Till:
    """`orderdash watch --jsonl TOKENS` on a book: when (wall clock, `time.time()`) each order's
    lines arrived, read by a thread of its own."""

    def __init__(
        self,
        name: str,
        base_url: str,
        token_file: Path,
        book: dict[str, str],
        tokens: Sequence[str],
    ) -> None:
        argv = [
            *orderdash_command(), "watch", "--jsonl", "--base-url", base_url,
            "--bearer-token-file", str(token_file), "--poll-interval", "3600", *tokens,
        ]  # fmt: skip
        self.name = name
        self._cv = threading.Condition()
        self.states: set[str] = set()
        #: token -> arrival of each of its "transaction" lines
        self.payments: dict[str, list[float]] = {}
        self.pushes: list[str] = []
        self.process = subprocess.Popen(
            argv,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            stdin=subprocess.DEVNULL,
            text=True,
            env=book_env(book, name),
        )
        self._reader = threading.Thread(target=self._read, name=f"bench-{name}", daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            arrived = time.time()
            try:
                event: dict[str, Any] = json.loads(line)
            except ValueError:
                continue
            with self._cv:
                token = str(event.get("token", ""))
                if event.get("event") == "state":
                    self.states.add(token)
                elif event.get("event") == "transaction":
                    self.payments.setdefault(token, []).append(arrived)
                elif event.get("event") == "push":
                    self.pushes.append(str(event.get("state")))
                self._cv.notify_all()

    def wait(self, done: Any, within: float) -> bool:
        deadline = time.monotonic() + within
        with self._cv:
            while not done(self):
                left = deadline - time.monotonic()
                if left <= 0 or self.process.poll() is not None:
                    return False
                self._cv.wait(min(left, 0.05))
        return True

    def close(self) -> None:
        stop(self.process)


@contextmanager
def postgresql() -> Iterator[tuple[str | None, str]]:
    """(a book's URL on a fresh PostgreSQL server, "") or (None, why it cannot run here): the
    tests' own server (tests/support/pg_server.py: a unix socket only, fsync off)."""
    support = str(ROOT / "tests" / "support")
    if support not in sys.path:
        sys.path.insert(0, support)
    from pg_server import PgServer, why_not

    reason = why_not()
    if reason is not None:
        yield None, reason
        return
    server = PgServer()
    try:
        server.start()
        yield server.schema_url(), ""
    finally:
        server.stop()
