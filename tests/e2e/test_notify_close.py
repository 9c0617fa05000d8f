"""`orderdash close` sends the day's digest to the rules that name "close": once, when the day
is closed now; never for a dry run or a day closed already. Against the simulator, with the
books' scene, through Apprise to a JSON endpoint on loopback."""

from __future__ import annotations

from collections.abc import Iterator
from importlib.util import find_spec
from pathlib import Path

import pytest

from orderdash.cli import main
from orderdash.core.notify.events import close_all
from orderdash.simulator import Simulator, SimulatorServer
from support.books_scene import ACCESS, NOW
from support.books_scene import scene as _scene
from support.ledger_file import LedgerFile
from support.notify_endpoint import KEY, Endpoint

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
    LedgerFile(tmp_path / "ledger.sqlite3").install(monkeypatch)
    config = tmp_path / "config.toml"
    config.write_text(
        f'[[notify]]\nevents = ["close"]\nurls = ["{endpoint.url("close-" + KEY)}"]\n'
        f'[[notify]]\nevents = ["payment"]\nurls = ["{endpoint.url("pay")}"]\n'
    )
    monkeypatch.setenv("ORDERDASH_CONFIG", str(config))
    monkeypatch.setenv("ORDERDASH_ACCESS_TOKEN", ACCESS)
    monkeypatch.setenv("ORDERDASH_BASE_URL", server.base_url)
    day = ["close", "--day", "2026-10-25", "--tz", "Europe/Berlin"]
    try:
        assert main([*day, "--dry-run"]) == 0
        close_all(5)
        assert endpoint.received == []  # a dry run closes nothing and sends nothing
        capsys.readouterr()
        assert main(day) == 0
        out, _ = capsys.readouterr()
        close_all(5)  # as at the command's exit: what is queued goes out
        (digest,) = endpoint.at(f"close-{KEY}")
        assert digest["title"] == "orderdash: close of day 2026-10-25"
        text = str(digest["message"])
        shown = out.splitlines()
        digest_line = next(line for line in shown if line.startswith("Digest: "))
        assert f"Digest: {digest_line.split()[1][:16]}\u2026" in text
        exceptions = next(line for line in shown if line.startswith("Exceptions: "))
        assert exceptions in text
        assert "Received in coin:" in text and "Received in fiat:" in text
        assert endpoint.at("pay") == []
        assert main(day) == 0  # closed already: the same report, nothing sent again
        close_all(5)
        assert len(endpoint.at(f"close-{KEY}")) == 1
    finally:
        close_all(1)
        endpoint.close()
