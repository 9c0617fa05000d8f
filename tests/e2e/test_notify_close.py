"""`orderdash close` sends the day's digest to the rules that name "close": once, when the day
is closed now; never for a dry run or a day closed already. The command waits for it (within
the sender's bound) and says on stderr that it went. Against the simulator, with the books'
scene, through Apprise to a JSON endpoint on loopback; the close that sends runs as a user runs
it, in a process of its own."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from importlib.util import find_spec
from pathlib import Path

import pytest

from orderdash.cli import main
from orderdash.simulator import Simulator, SimulatorServer
from support.books_scene import ACCESS, NOW
from support.books_scene import scene as _scene
from support.ledger_file import LedgerFile
from support.notify_endpoint import KEY, PASSWORD, USER, Endpoint

pytestmark = pytest.mark.skipif(
    find_spec("apprise") is None,
    reason="Apprise is not installed (pip install 'orderdash[notify]')",
)


@pytest.fixture(scope="module")
def server() -> Iterator[SimulatorServer]:
    sim = Simulator(seed=11, clock=lambda: NOW, with_demo_orders=False)
    _scene(sim)
    with SimulatorServer(sim, access_token=ACCESS, history_page_cap=7) as server:
        yield server


def test_a_close_made_now_sends_the_digest_once(
    server: SimulatorServer,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    endpoint = Endpoint()
    ledger = tmp_path / "ledger.sqlite3"
    book = LedgerFile(ledger)
    config = tmp_path / "config.toml"
    config.write_text(
        f'[[notify]]\nevents = ["close"]\nurls = ["{endpoint.url("close-" + KEY, secret=True)}"]\n'
        f'[[notify]]\nevents = ["payment"]\nurls = ["{endpoint.url("pay")}"]\n'
    )
    config.chmod(0o600)
    settings = {
        "ORDERDASH_CONFIG": str(config),
        "ORDERDASH_ACCESS_TOKEN": ACCESS,
        "ORDERDASH_BASE_URL": server.base_url,
        "ORDERDASH_LEDGER": str(ledger),
        "ORDERDASH_TILL": "front",
    }
    for name, value in settings.items():
        monkeypatch.setenv(name, value)
    day = ["close", "--day", "2026-10-25", "--tz", "Europe/Berlin"]
    try:
        assert main([*day, "--dry-run"], open_book=book.open) == 0
        assert endpoint.received == []  # a dry run closes nothing and sends nothing
        capsys.readouterr()
        env = {k: v for k, v in os.environ.items() if not k.startswith("ORDERDASH_")}
        done = subprocess.run(
            [sys.executable, "-m", "orderdash", *day],
            capture_output=True,
            text=True,
            env={**env, **settings},
            timeout=60,
        )
        assert done.returncode == 0, done.stderr
        out = done.stdout
        # the command waited for its message and says so, naming the rule, never the URL
        assert "orderdash: notification sent: rule 0 (json), close" in done.stderr.splitlines()
        (digest,) = endpoint.at(f"close-{KEY}")
        assert digest["title"] == "orderdash: close of day 2026-10-25"
        text = str(digest["message"])
        shown = out.splitlines()
        digest_line = next(line for line in shown if line.startswith("Digest: "))
        assert f"Digest: {digest_line.split()[1]}\n" in text  # the whole digest
        exceptions = next(line for line in shown if line.startswith("Exceptions: "))
        assert f"Exceptions: {exceptions.split()[1]}" in text.splitlines()  # the close's count
        assert "Received in coin:" in text and "Received in fiat:" in text
        assert endpoint.at("pay") == []
        assert len(endpoint.received) == 1
        for part in (USER, PASSWORD, KEY, str(endpoint.port)):
            assert part not in out and part not in done.stderr
        assert (
            main(day, open_book=book.open) == 0
        )  # closed already: the same report, nothing sent again
        assert len(endpoint.at(f"close-{KEY}")) == 1
        assert "notification" not in capsys.readouterr().err
    finally:
        endpoint.close()
